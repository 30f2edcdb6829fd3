"""Building memplan graphs (DESIGN.md 1.1) from tensors seen on the meta device.

Aliasing is read from storages, not from a table: a result that shares its
storage with a tensor the node reads is a view of it (`alias`), and it is
`inplace` when an ATen op the node dispatched wrote that storage (its schema
marks the argument as written: relu_, add_, a module with inplace=True, the
`+=` of a residual block).  A result on the storage of a parameter or buffer
gets `alias: -1`.  Parameters and buffers are never arena tensors: nodes that
read them do not list them as inputs; they are named in the node's `params`
key instead (ignored by memplan, kept for analysis)."""
import json
import os

import torch

from .dispatch import storage_key, tbytes


def is_tensor_value(r):
    return isinstance(r, torch.Tensor) or (
        isinstance(r, (tuple, list)) and any(isinstance(v, torch.Tensor) for v in r))


class GraphWriter:
    """Collects memplan nodes in execution order (the given order)."""

    def __init__(self, name, source):
        self.name = name
        self.source = source
        self.nodes = []          # memplan node dicts
        self.fx2id = {}          # fx node -> memplan id
        self.kind = {}           # memplan id -> "tensor" | "multi" | "viewtuple" | "none"
        self.tensors = {}        # memplan id -> list of (k or None, tensor)
        self.storage_owner = {}  # storage key -> reference of the node owning it
        self.latest = {}         # storage key -> reference of the last node made on it
        self.param_storage = {}  # storage key -> parameter/buffer name
        self.param_of_fx = {}    # fx node -> parameter name (placeholders/get_attr)
        self.keep = []           # every tensor stays alive: storage keys stay unique
        self.warnings = []
        self.gm = None           # the traced module (call_module parameters)
        self.dropped = 0         # metadata-only fx nodes left out
        self.param_view = {}     # memplan id -> parameters its output views
        self.elem_alias = {}     # (id, k) -> what element k of a tuple node views
        self.calls = {}          # memplan id -> the OpCalls it dispatched
        self.own_bytes = {}      # memplan id -> bytes of the new storages of its result
        self.module_of = {}      # memplan id -> the nn.Module a call_module node ran

    def add(self, node):
        node["id"] = len(self.nodes)
        self.nodes.append(node)
        return node["id"]

    def register_params(self, named):
        for n, t in named:
            if isinstance(t, torch.Tensor):
                self.keep.append(t)
                self.param_storage.setdefault(storage_key(t), n)

    def known_storages(self):
        return set(storage_key(t) for t in self.keep)

    def ref_of(self, fx_node):
        """memplan reference for an fx input node, or None (parameter, constant)."""
        return self.fx2id.get(fx_node)

    def tensor_refs(self, mid):
        """(reference, tensor) pairs a reader of node mid can alias."""
        kind = self.kind[mid]
        return [([mid, k] if kind == "multi" else mid, t) for k, t in self.tensors.get(mid, [])]

    def add_input(self, name, value, fx_node=None):
        """An `input` node: a tensor that exists before the graph runs."""
        mid = self.add({"name": name, "op": "input", "size": tbytes(value), "inputs": [],
                        "shape": list(value.shape),
                        "dtype": str(value.dtype).replace("torch.", "")})
        self.keep.append(value)
        if fx_node is not None:
            self.fx2id[fx_node] = mid
        self.kind[mid] = "tensor"
        self.tensors[mid] = [(None, value)]
        key = storage_key(value)
        self.storage_owner.setdefault(key, mid)
        self.latest[key] = mid
        return mid

    # -- nodes from fx nodes -------------------------------------------------

    def _fx_inputs(self, fx_node):
        """memplan inputs and parameter names of an fx node."""
        in_ids, params = [], []
        for a in fx_node.all_input_nodes:
            mid = self.ref_of(a)
            if mid is not None:
                if mid not in in_ids:
                    in_ids.append(mid)
                # reading a view of a parameter reads that parameter
                params.extend(q for q in self.param_view.get(mid, ()) if q not in params)
            elif a in self.param_of_fx and self.param_of_fx[a] not in params:
                params.append(self.param_of_fx[a])
        if fx_node.op == "call_module" and self.gm is not None:
            sub = self.gm.get_submodule(fx_node.target)
            params.extend(fx_node.target + "." + pn for pn, _ in sub.named_parameters())
        return in_ids, params

    def emit(self, fx_node, name, op, value, calls, own):
        """Emit a node for fx_node whose result is `value`; `calls` are the
        ATen ops it dispatched (in-place detection), `own` the bytes of the
        new storages its result holds."""
        inputs, params = self._fx_inputs(fx_node)
        mid = self._emit_value(name, op, value, inputs, params, calls)
        self.fx2id[fx_node] = mid
        self.calls[mid] = calls
        self.own_bytes[mid] = own
        return mid

    def _finder(self, name, inputs, params, viewed):
        """A function mapping a result tensor to what it aliases, or None."""
        cands = []
        for mid in inputs:
            cands.extend(self.tensor_refs(mid if isinstance(mid, int) else mid[0]))

        def find_alias(t):
            key = storage_key(t)
            for ref, ct in cands:
                if storage_key(ct) == key:
                    return ref
            if key in self.param_storage:
                pname = self.param_storage[key]
                if pname not in params:
                    params.append(pname)
                viewed.append(pname)
                return -1
            if key in self.storage_owner:
                # a view of a tensor this node does not read directly: read it
                ref = self.latest.get(key, self.storage_owner[key])
                self.warnings.append("%s: aliases node %s it does not read; input added"
                                     % (name, ref))
                inputs.append(ref)
                return ref
            return None
        return find_alias

    def _emit_value(self, name, op, value, inputs, params, calls):
        written = set()
        for c in calls:
            written |= c.written
        node = {"name": name, "op": op}
        viewed = []  # parameters this node's output views
        find_alias = self._finder(name, inputs, params, viewed)
        mid = len(self.nodes)
        if isinstance(value, torch.Tensor):
            self._tensor_node(node, mid, value, find_alias(value), written)
        elif is_tensor_value(value):
            self._tuple_node(node, mid, list(value), find_alias, written)
        else:
            node["size"] = 0
            self.kind[mid] = "none"
            self.tensors[mid] = []
        node["inputs"] = inputs
        self._propagate_param_views(node, mid, params, viewed)
        if params:
            node["params"] = params
        self.add(node)
        for k, t in self.tensors[mid]:
            key = storage_key(t)
            if key not in self.param_storage:
                self.latest[key] = [mid, k] if self.kind[mid] == "multi" else mid
        return mid

    def _tensor_node(self, node, mid, value, al, written):
        self.keep.append(value)
        node["size"] = tbytes(value)
        if al is not None:
            node["alias"] = al
            if storage_key(value) in written:
                node["inplace"] = True
        else:
            self.storage_owner.setdefault(storage_key(value), mid)
        node["shape"] = list(value.shape)
        node["dtype"] = str(value.dtype).replace("torch.", "")
        self.kind[mid] = "tensor"
        self.tensors[mid] = [(None, value)]

    def _tuple_node(self, node, mid, elems, find_alias, written):
        aliases = [find_alias(v) if isinstance(v, torch.Tensor) else None for v in elems]
        tens = [v for v in elems if isinstance(v, torch.Tensor)]
        self.keep.extend(tens)
        roots = set(repr(a) for a, v in zip(aliases, elems) if isinstance(v, torch.Tensor))
        if all(a is not None for a, v in zip(aliases, elems) if isinstance(v, torch.Tensor)) \
                and len(roots) == 1:
            # every element views one tensor (chunk, split, unbind): the node
            # is a view of it; its getitems view the node.
            node["size"] = sum(tbytes(v) for v in tens)
            node["alias"] = next(a for a, v in zip(aliases, elems) if isinstance(v, torch.Tensor))
            if any(storage_key(v) in written for v in tens):
                node["inplace"] = True
            self.kind[mid] = "viewtuple"
        else:
            outs = []
            for k, (a, v) in enumerate(zip(aliases, elems)):
                if isinstance(v, torch.Tensor) and a is None:
                    outs.append(tbytes(v))
                    self.storage_owner.setdefault(storage_key(v), [mid, k])
                else:
                    outs.append(0)  # None, non-tensor, or a view of an input
            node["outputs"] = outs
            self.kind[mid] = "multi"
            for k, a in enumerate(aliases):
                if a is not None:
                    self.elem_alias[(mid, k)] = a
        self.tensors[mid] = [(k, v) for k, v in enumerate(elems) if isinstance(v, torch.Tensor)]

    def _propagate_param_views(self, node, mid, params, viewed):
        al = node.get("alias")
        if al is None:
            return
        j = al if isinstance(al, int) else al[0]
        for q in (viewed if al == -1 else self.param_view.get(j, ())):
            if q not in params:
                params.append(q)
        if al == -1:
            self.param_view[mid] = list(viewed)
        elif j in self.param_view:
            self.param_view[mid] = list(self.param_view[j])

    def emit_getitem(self, fx_node, name, value):
        """getitem of a tuple-producing node: a view of that element."""
        src, idx = fx_node.args[0], fx_node.args[1]
        j = self.ref_of(src)
        if j is None or self.kind.get(j) not in ("multi", "viewtuple") or not isinstance(idx, int):
            return None
        node = {"name": name, "op": "getitem"}
        if isinstance(value, torch.Tensor):
            self.keep.append(value)
            node["size"] = tbytes(value)
            node["shape"] = list(value.shape)
            node["dtype"] = str(value.dtype).replace("torch.", "")
        else:
            node["size"] = 0
        n_el = len(self.nodes[j].get("outputs", [])) if self.kind[j] == "multi" else None
        if idx < 0 and n_el is not None:
            idx += n_el
        mid = len(self.nodes)
        if self.kind[j] == "viewtuple":
            node["inputs"] = [j]
            if isinstance(value, torch.Tensor):
                node["alias"] = j
        else:
            ea = self.elem_alias.get((j, idx))
            if ea is not None:
                # element k is a view of an earlier tensor: read the tuple
                # (ordering) and alias that tensor
                node["inputs"] = [[j, idx], ea] if ea != -1 else [[j, idx]]
                node["alias"] = ea
            else:
                node["inputs"] = [[j, idx]]
                if isinstance(value, torch.Tensor) and self.nodes[j]["outputs"][idx] > 0:
                    node["alias"] = [j, idx]
        self.kind[mid] = "tensor" if isinstance(value, torch.Tensor) else "none"
        self.tensors[mid] = [(None, value)] if isinstance(value, torch.Tensor) else []
        self.add(node)
        self.fx2id[fx_node] = mid
        self.calls[mid] = []
        if isinstance(value, torch.Tensor):
            key = storage_key(value)
            if key not in self.param_storage:
                self.latest[key] = mid
        return mid

    # -- nodes from ATen ops run outside fx (optimizer steps) ----------------

    def ref_of_tensor(self, t):
        """The last node whose result lives on t's storage, -1 for a
        parameter, None for a tensor the graph does not know."""
        key = storage_key(t)
        if key in self.param_storage:
            return -1
        return self.latest.get(key)

    def emit_op(self, name, call, value, tensors_read, own):
        """A node for one ATen op run outside fx: it reads the graph tensors
        among `tensors_read` (parameters are named in `params`)."""
        inputs, params = [], []
        for t in tensors_read:
            ref = self.ref_of_tensor(t)
            if ref == -1:
                pname = self.param_storage[storage_key(t)]
                if pname not in params:
                    params.append(pname)
            elif ref is not None and ref not in inputs:
                inputs.append(ref)
        mid = self._emit_value(name, call.packet, value, inputs, params, [call])
        self.calls[mid] = [call]
        self.own_bytes[mid] = own
        return mid

    def emit_output(self, refs):
        inputs = []
        for r in refs:
            if r not in inputs:
                inputs.append(r)
        mid = self.add({"name": "output", "op": "output", "size": 0, "inputs": inputs})
        self.calls[mid] = []
        return mid

    def to_json(self, param_bytes, buffer_bytes, extra=None):
        d = {"name": self.name, "source": self.source, "param_bytes": int(param_bytes),
             "buffer_bytes": int(buffer_bytes)}
        if extra:
            d.update(extra)
        d["nodes"] = self.nodes
        return d


KEYS = ["id", "name", "op", "size", "outputs", "inputs", "alias", "inplace", "workspace",
        "cost", "phase", "shape", "dtype", "params", "param"]


def write_graph(d, path):
    """Compact JSON, one node per line, written to a temporary file and renamed."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("{")
        for k, v in d.items():
            if k == "nodes":
                continue
            f.write(json.dumps(k) + ": " + json.dumps(v) + ",\n ")
        f.write('"nodes": [\n')
        for i, n in enumerate(d["nodes"]):
            o = {k: n[k] for k in KEYS if k in n}
            o.update({k: v for k, v in n.items() if k not in o})
            f.write("  " + json.dumps(o, separators=(",", ":")))
            f.write(",\n" if i + 1 < len(d["nodes"]) else "\n")
        f.write("]}\n")
    os.replace(tmp, path)


def renumber(nodes, order):
    """Put the node dicts in `order` (a permutation of nodes plus new dicts
    without an id) and rewrite every id, input and alias.  Returns the map
    from old ids to new ones."""
    newid = {}
    for i, n in enumerate(order):
        if "id" in n:
            newid[n["id"]] = i

    def remap(r):
        if r == -1 or r is None:
            return r
        return newid[r] if isinstance(r, int) else [newid[r[0]], r[1]]

    for i, n in enumerate(order):
        n["inputs"] = [remap(r) for r in n["inputs"]]
        if "alias" in n:
            n["alias"] = remap(n["alias"])
        n["id"] = i
    nodes[:] = order
    return newid, remap
