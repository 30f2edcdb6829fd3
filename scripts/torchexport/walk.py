"""Run an fx graph on meta tensors and emit one memplan node per fx node.

The fx Interpreter runs every node in the graph's order (the given order);
a NodeRecorder sees the ATen ops each node dispatches.  Nodes whose result is
no tensor (x.shape, size(), shape arithmetic, torch._assert) are left out:
shapes are static, so no planned runtime runs them, and keeping them would
add reads that extend tensor lifetimes."""
import operator

import torch
import torch.fx

from .compat import eager_composites
from .dispatch import NodeRecorder, storage_key
from .graph import is_tensor_value

# fx names of Python's in-place operators -> the ATen op they dispatch
_INPLACE_NAMES = {"iadd": "add_", "isub": "sub_", "imul": "mul_", "itruediv": "div_",
                  "ifloordiv": "floor_divide_", "iand": "bitwise_and_",
                  "ior": "bitwise_or_", "ixor": "bitwise_xor_"}


def fx_op_name(gm, n):
    if n.op == "call_module":
        return type(gm.get_submodule(n.target)).__name__.lower()
    if n.op == "call_method":
        return str(n.target)
    t = n.target
    if hasattr(t, "overloadpacket"):  # ATen OpOverload: aten.convolution.default
        return t.overloadpacket.__name__
    nm = getattr(t, "__name__", str(t))
    return _INPLACE_NAMES.get(nm, nm)


def walk(gm, gw, args, placeholder_kind, after_node=None):
    """Run gm on meta tensors with an Interpreter and emit one node per fx node.

    placeholder_kind(i, fx_node, value) -> None (graph input) or a parameter
    name (the placeholder is a parameter/buffer: not an arena tensor).
    after_node(fx_node, memplan id), when given, runs after each emitted node
    (training adds gradient accumulation there).  Returns the Interpreter's
    result and the fx node -> value map."""
    results = {}
    rec = NodeRecorder()
    rec.known = gw.known_storages()
    state = {"ph": 0}

    def on_node(n, r, calls, own):
        if n.op == "placeholder":
            _placeholder(gw, rec, n, r, placeholder_kind(state["ph"], n, r))
            state["ph"] += 1
            return
        if n.op == "get_attr":
            if isinstance(r, torch.Tensor):
                gw.param_of_fx[n] = str(n.target)
                gw.keep.append(r)
                gw.param_storage.setdefault(storage_key(r), str(n.target))
                rec.known.add(storage_key(r))
            return
        if n.op == "output":
            return
        if not is_tensor_value(r):
            gw.dropped += 1  # metadata only: no tensor and no data dependency
            return
        if n.op == "call_function" and n.target is operator.getitem:
            mid = gw.emit_getitem(n, n.name, r)
            if mid is not None:
                if after_node is not None:
                    after_node(n, mid)
                return
        mid = gw.emit(n, n.name, fx_op_name(gm, n), r, calls, own)
        if n.op == "call_module":
            gw.module_of[mid] = gm.get_submodule(n.target)
        if after_node is not None:
            after_node(n, mid)

    class Walker(torch.fx.Interpreter):
        def run_node(self, n):
            if n.op in ("call_module", "call_function", "call_method"):
                with rec:
                    r = super().run_node(n)
                calls, own = rec.finish(r)
            else:
                r = super().run_node(n)
                calls, own = [], 0
            results[n] = r
            on_node(n, r, calls, own)
            return r

    with eager_composites():
        out = Walker(gm).run(*args)
    return out, results


def _placeholder(gw, rec, n, r, pname):
    if pname is not None:
        gw.param_of_fx[n] = pname
        if isinstance(r, torch.Tensor):
            gw.keep.append(r)
            gw.param_storage.setdefault(storage_key(r), pname)
            rec.known.add(storage_key(r))
        return
    if isinstance(r, torch.Tensor):
        gw.add_input(n.name, r, n)
        rec.known.add(storage_key(r))


def output_refs(gw, gm):
    """memplan references of the tensors the fx output node returns."""
    out_node = [n for n in gm.graph.nodes if n.op == "output"][0]
    refs = []
    for a in out_node.all_input_nodes:
        mid = gw.ref_of(a)
        if mid is not None:
            refs.append(mid)
    return refs

