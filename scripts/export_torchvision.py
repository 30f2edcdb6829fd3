#!/usr/bin/python3
"""Export torchvision models as memplan graphs (DESIGN.md 1.1).

Inference: a module-level graph (torch.fx symbolic trace: call_module,
call_function and call_method nodes).  Training: the joint forward+backward
ATen graph that functorch's aot_module captures, with the parameter gradients
as graph outputs, and optionally one SGD update per parameter.

Shapes are propagated on the meta device: no tensor is ever computed, so an
export takes seconds even for batch 32 (Debian's torch uses a slow reference
BLAS).  torch 1.13 lacks meta kernels for a few backward ops
(convolution_backward, _adaptive_avg_pool2d_backward, nll_loss2d_*): we
register shape-only ones.  Sizes are numel * element size of the real shapes
and dtypes.

Aliasing is read from the storages the meta kernels return, not from a table:
an output that shares its storage with an input tensor is a view of it
(`alias`), and it is `inplace` when the op writes that storage (a module with
`inplace=True`, a function called with inplace=True, an in-place method or
operator such as relu_ / add_ / +=, or an ATen op whose schema marks the
returned alias as written).  An output that shares the storage of a parameter
or buffer gets `alias: -1`.  Parameters and buffers are never arena tensors:
nodes that read them do not list them as inputs; they are named in the
node's `params` key instead (ignored by memplan, kept for analysis).

Nodes whose result is no tensor (x.shape, size(), shape arithmetic,
torch._assert) are left out: shapes are static, so no planned runtime runs
them, and keeping them would add reads that extend tensor lifetimes.

Opaque module-level nodes (nn.MultiheadAttention, torchvision's fx-wrapped
shifted_window_attention, a Linear on a 4-d input, max pooling's discarded
indices, ...) allocate temporaries while they run: an inference node gets
`workspace` = the peak bytes of the new storages its ATen ops allocate
(measured with a TorchDispatchMode on the meta device) minus its own output.

Training: the graph is aot_module's joint graph with functionalization off,
so in-place ops (relu_, add_, the BatchNorm num_batches_tracked += 1 on a
buffer) stay in place as eager PyTorch runs them.  Inputs: x, labels and the
incoming gradient of the loss.  Output node: the loss and every parameter
gradient.  With --sgd: one `sgd_update` node per parameter instead (alias -1,
inplace), after the backward pass in the given order (optimizer.step()),
reading its gradient; for each node that reads a parameter's data but is no
ancestor of its gradient (the matmul computing a Linear's input gradient), a
size-0 `after` node placed right after that reader feeds the update, so no
schedule can update a weight before its last read (memplan's in-place edges
cover arena storages only).

Python 3.11 and torch 1.13's FX tracer: Proxy.__iter__ looks up the calling
instruction as instructions[f_lasti // 2], which is wrong on 3.11 (CACHE
entries are not listed by dis), so `n, c, h, w = x.shape` fails with "Proxy
object cannot be iterated" (vit_b_16 and shufflenet_v2_x1_0 here; swin_t
unpacks shapes only inside functions torchvision marks with torch.fx.wrap).
We replace Proxy.__iter__ with a version that finds the instruction by its
byte offset, which is correct on every Python version; nothing else changes,
and no model code is patched.  (Training graphs come from make_fx tracing,
which runs the Python code on real meta tensors and never hits this.)

Usage:
  export_torchvision.py --model NAME --batch B [--train [--sgd]] --out FILE
  export_torchvision.py --model NAME --batch B --onnx FILE   (torch.onnx export)
  export_torchvision.py --all OUTDIR [--batches 1,32] [--train-batch 32]
"""
import argparse
import dis
import json
import operator
import os
import sys
import time
import traceback
import weakref

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.utils._python_dispatch import TorchDispatchMode

# ---------------------------------------------------------------------------
# Python 3.11 fix for torch.fx.Proxy.__iter__ (see module docstring)


def _proxy_iter(self):
    frame = sys._getframe(1)
    inst = None
    for i in dis.get_instructions(frame.f_code):
        if i.offset == frame.f_lasti:
            inst = i
            break
    if inst is not None and inst.opname == "UNPACK_SEQUENCE":
        return (self[i] for i in range(inst.argval))
    return self.tracer.iter(self)


torch.fx.proxy.Proxy.__iter__ = _proxy_iter

# ---------------------------------------------------------------------------
# Meta kernels torch 1.13 lacks for backward ops.  They only compute output
# shapes (the gradient of a tensor has its shape); nothing is computed.

_META_LIB = torch.library.Library("aten", "IMPL", "Meta")


def _meta_convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
                               dilation, transposed, output_padding, groups, output_mask):
    gi = input.new_empty(input.shape) if output_mask[0] else None
    gw = weight.new_empty(weight.shape) if output_mask[1] else None
    gb = grad_output.new_empty(bias_sizes) if output_mask[2] else None
    return gi, gw, gb


def _meta_impl(op, fn):
    """Register fn unless torch already has a Meta kernel for op."""
    try:
        _META_LIB.impl(op, fn)
    except RuntimeError:
        pass


_meta_impl("convolution_backward", _meta_convolution_backward)


def _meta_grad_like_self(grad_output, self, *rest):
    return self.new_empty(self.shape)


def _meta_nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    out_shape = target.shape if reduction == 0 else ()
    return self.new_empty(out_shape), self.new_empty(())


def _meta_nll_loss2d_backward(grad_output, self, target, weight, reduction, ignore_index,
                              total_weight):
    return self.new_empty(self.shape)


_meta_impl("_adaptive_avg_pool2d_backward", _meta_grad_like_self)
_meta_impl("nll_loss2d_forward", _meta_nll_loss2d_forward)
_meta_impl("nll_loss2d_backward", _meta_nll_loss2d_backward)

# ---------------------------------------------------------------------------
# Models

MODELS = [
    "resnet18", "resnet50", "googlenet", "inception_v3", "densenet121",
    "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "squeezenet1_0",
    "shufflenet_v2_x1_0", "regnet_y_400mf", "convnext_tiny", "vit_b_16",
    "swin_t", "fcn_resnet50",
]

SEGMENTATION = {"fcn_resnet50", "deeplabv3_resnet50", "lraspp_mobilenet_v3_large"}


def image_size(name):
    if name == "inception_v3":
        return 299
    if name in SEGMENTATION:
        return 520  # torchvision's evaluation size for its segmentation weights
    return 224


def build_model(name):
    """A torchvision model with random weights (weights=None, never a download)."""
    torch.manual_seed(0)
    if name in SEGMENTATION:
        fn = getattr(torchvision.models.segmentation, name)
        return fn(weights=None, weights_backbone=None)
    fn = getattr(torchvision.models, name)
    kw = {"weights": None}
    if name in ("googlenet", "inception_v3"):
        kw["init_weights"] = False  # scipy-free init; values do not matter
    return fn(**kw)


# ---------------------------------------------------------------------------
# Graph building shared by both modes

def tbytes(t):
    return int(t.numel()) * int(t.element_size())


def storage_key(t):
    """Identity of the storage behind tensor t (meta tensors have one too)."""
    try:
        return t.storage()._cdata
    except Exception:  # pragma: no cover - very old torch
        return t.untyped_storage()._cdata


class GraphWriter:
    """Collects memplan nodes while an FX graph is walked in execution order."""

    def __init__(self, name, source):
        self.name = name
        self.source = source
        self.nodes = []          # memplan node dicts
        self.fx2id = {}          # fx node -> memplan id
        self.kind = {}           # memplan id -> "tensor" | "multi" | "viewtuple" | "none"
        self.tensors = {}        # memplan id -> list of (k or None, tensor)
        self.storage_owner = {}  # storage key -> (memplan id, k or None) of a producer
        self.param_storage = {}  # storage key -> parameter/buffer name
        self.param_of_fx = {}    # fx node -> parameter name (placeholders/get_attr)
        self.keep = []           # keep every tensor alive: storage keys stay unique
        self.warnings = []
        self.gm = None           # the traced module (call_module parameters)
        self.dropped = 0         # metadata-only fx nodes left out
        self.param_view = {}     # memplan id -> parameters its output views

    def add(self, node):
        node["id"] = len(self.nodes)
        self.nodes.append(node)
        return node["id"]

    def register_params(self, named):
        for n, t in named:
            if isinstance(t, torch.Tensor):
                self.keep.append(t)
                self.param_storage.setdefault(storage_key(t), n)

    def ref_of(self, fx_node):
        """memplan reference for an fx input node, or None (parameter, constant)."""
        return self.fx2id.get(fx_node)

    def tensor_refs(self, mid):
        """(reference, tensor) pairs a reader of node mid can alias."""
        out = []
        kind = self.kind[mid]
        for k, t in self.tensors.get(mid, []):
            if kind == "multi":
                out.append(([mid, k], t))
            else:
                out.append((mid, t))
        return out

    def emit(self, fx_node, name, op, value, inplace_hint, extra_inputs=()):
        """Emit a node for fx_node whose result is `value`."""
        in_ids = []
        params = []
        for a in fx_node.all_input_nodes:
            mid = self.ref_of(a)
            if mid is not None:
                in_ids.append(mid)
                # reading a view of a parameter reads that parameter
                params.extend(q for q in self.param_view.get(mid, ()) if q not in params)
            elif a in self.param_of_fx:
                params.append(self.param_of_fx[a])
        if fx_node.op == "call_module" and self.gm is not None:
            sub = self.gm.get_submodule(fx_node.target)
            params.extend(fx_node.target + "." + pn for pn, _ in sub.named_parameters())
        for mid in extra_inputs:
            in_ids.append(mid)
        node = {"name": name, "op": op}
        inputs = []
        for mid in in_ids:
            if mid not in inputs:
                inputs.append(mid)
        viewed = []  # parameters this node's output views
        # tensors readable as alias targets, in argument order
        cands = []
        for mid in inputs:
            cands.extend(self.tensor_refs(mid))

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
                ref = self.storage_owner[key]
                self.warnings.append("%s: aliases node %s it does not read; input added"
                                     % (name, ref))
                inputs.append(ref)
                return ref
            return None

        mid = len(self.nodes)
        if isinstance(value, torch.Tensor):
            self.keep.append(value)
            al = find_alias(value)
            node["size"] = tbytes(value)
            if al is not None:
                node["alias"] = al
                if inplace_hint:
                    node["inplace"] = True
            else:
                self.storage_owner.setdefault(storage_key(value), mid)
            node["shape"] = list(value.shape)
            node["dtype"] = str(value.dtype).replace("torch.", "")
            self.kind[mid] = "tensor"
            self.tensors[mid] = [(None, value)]
        elif isinstance(value, (tuple, list)) and any(isinstance(v, torch.Tensor) for v in value):
            elems = list(value)
            aliases = [find_alias(v) if isinstance(v, torch.Tensor) else None for v in elems]
            tens = [v for v in elems if isinstance(v, torch.Tensor)]
            for v in tens:
                self.keep.append(v)
            roots = set(repr(a) for a, v in zip(aliases, elems) if isinstance(v, torch.Tensor))
            if all(a is not None for a, v in zip(aliases, elems) if isinstance(v, torch.Tensor)) \
                    and len(roots) == 1:
                # every element views one tensor (chunk, split, unbind): the
                # node is a view of it; its getitems view the node.
                a0 = next(a for a, v in zip(aliases, elems) if isinstance(v, torch.Tensor))
                node["size"] = sum(tbytes(v) for v in tens)
                node["alias"] = a0
                if inplace_hint:
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
                self.elem_alias = getattr(self, "elem_alias", {})
                for k, a in enumerate(aliases):
                    if a is not None:
                        self.elem_alias[(mid, k)] = a
            self.tensors[mid] = [(k, v) for k, v in enumerate(elems) if isinstance(v, torch.Tensor)]
        else:
            node["size"] = 0
            self.kind[mid] = "none"
            self.tensors[mid] = []
        node["inputs"] = inputs
        al = node.get("alias")
        if al is not None:
            j = al if isinstance(al, int) else al[0]
            for q in (viewed if al == -1 else self.param_view.get(j, ())):
                if q not in params:
                    params.append(q)
            if al == -1:
                self.param_view[mid] = list(viewed)
            elif j in self.param_view:
                self.param_view[mid] = list(self.param_view[j])
        if params:
            node["params"] = params
        self.add(node)
        self.fx2id[fx_node] = mid
        return mid

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
            self.kind[mid] = "tensor" if isinstance(value, torch.Tensor) else "none"
        else:
            ea = getattr(self, "elem_alias", {}).get((j, idx))
            if ea is not None:
                # element k is a view of an earlier tensor: read the tuple
                # (ordering) and alias that tensor
                node["inputs"] = [[j, idx], ea]
                node["alias"] = ea
                if ea == -1:
                    node["inputs"] = [[j, idx]]
            else:
                node["inputs"] = [[j, idx]]
                if isinstance(value, torch.Tensor) and self.nodes[j]["outputs"][idx] > 0:
                    node["alias"] = [j, idx]
            self.kind[mid] = "tensor" if isinstance(value, torch.Tensor) else "none"
        self.tensors[mid] = [(None, value)] if isinstance(value, torch.Tensor) else []
        self.add(node)
        self.fx2id[fx_node] = mid
        return mid

    def emit_output(self, refs):
        inputs = []
        for r in refs:
            if r not in inputs:
                inputs.append(r)
        return self.add({"name": "output", "op": "output", "size": 0, "inputs": inputs})

    def to_json(self, param_bytes, buffer_bytes, extra=None):
        d = {"name": self.name, "source": self.source, "param_bytes": int(param_bytes),
             "buffer_bytes": int(buffer_bytes)}
        if extra:
            d.update(extra)
        d["nodes"] = self.nodes
        return d


KEYS = ["id", "name", "op", "size", "outputs", "inputs", "alias", "inplace", "shape",
        "dtype", "params", "param"]


def write_graph(d, path):
    """Compact JSON, one node per line."""
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


def count_params(model):
    pb = sum(tbytes(p) for p in model.parameters())
    bb = sum(tbytes(b) for b in model.buffers())
    return pb, bb


def fx_op_name(gm, n):
    if n.op == "call_module":
        return type(gm.get_submodule(n.target)).__name__.lower()
    if n.op == "call_method":
        return str(n.target)
    t = n.target
    if hasattr(t, "overloadpacket"):  # ATen OpOverload: aten.convolution.default
        s = t.overloadpacket.__name__
        return s
    return getattr(t, "__name__", str(t))


INPLACE_OPERATORS = {operator.iadd, operator.isub, operator.imul, operator.itruediv,
                     operator.iand, operator.ior, operator.ixor}


def writes_inplace(gm, n):
    """Does fx node n write into its (first) input?"""
    if n.kwargs.get("inplace") is True:
        return True
    if n.op == "call_module":
        mod = gm.get_submodule(n.target)
        if isinstance(mod, nn.modules.dropout._DropoutNd) and not mod.training:
            return False  # dropout in eval returns its input untouched
        return bool(getattr(mod, "inplace", False))
    if n.op == "call_method":
        t = str(n.target)
        return t.endswith("_") and not t.endswith("__")
    t = n.target
    if t in INPLACE_OPERATORS:
        return True
    if hasattr(t, "_schema"):
        for r in t._schema.returns:
            if r.alias_info is not None and r.alias_info.is_write:
                return True
        return False
    nm = getattr(t, "__name__", "")
    return nm.endswith("_") and not nm.endswith("__")


class ScratchTracker(TorchDispatchMode):
    """Peak bytes of the temporaries an opaque node allocates while it runs.

    A module-level node (nn.MultiheadAttention, torchvision's wrapped
    shifted_window_attention, ...) runs several ATen ops; the tensors they
    allocate and free inside the node are not graph tensors, but they occupy
    memory while the node runs: that is the node's `workspace`.  We count the
    bytes of every new storage the ATen ops inside the node return, release
    them when the last tensor on that storage dies, and report
    max(0, peak - bytes of the node's own new outputs)."""

    def __init__(self, gw):
        super().__init__()
        self.gw = gw
        self.scratch = {}

    def __enter__(self):
        self.count = {}
        self.nbytes = {}
        self.live = 0
        self.peak = 0
        self.known = set(storage_key(t) for t in self.gw.keep)
        return super().__enter__()

    def _release(self, key):
        c = self.count.get(key)
        if c is None:
            return
        if c > 1:
            self.count[key] = c - 1
        else:
            del self.count[key]
            self.live -= self.nbytes.pop(key)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in (out if isinstance(out, (tuple, list)) else (out,)):
            if not isinstance(t, torch.Tensor):
                continue
            key = storage_key(t)
            if key in self.known:
                continue
            if key not in self.count:
                nb = t.storage().nbytes()
                self.count[key] = 0
                self.nbytes[key] = nb
                self.live += nb
                self.peak = max(self.peak, self.live)
            self.count[key] += 1
            weakref.finalize(t, self._release, key)
        return out

    def finish(self, n, r):
        own = 0
        seen = set()
        for t in (r if isinstance(r, (tuple, list)) else (r,)):
            if isinstance(t, torch.Tensor):
                key = storage_key(t)
                if key not in self.known and key not in seen:
                    seen.add(key)
                    own += t.storage().nbytes()
        ws = self.peak - own
        if ws > 0:
            self.scratch[n] = int(ws)
        self.count = {}  # finalizers that fire later are ignored


def walk(gm, gw, args, placeholder_kind, track_scratch=False):
    """Run gm on meta tensors with an Interpreter and emit one node per fx node.

    placeholder_kind(i, fx_node, value) -> None (graph input) or a parameter
    name (the placeholder is a parameter/buffer: not an arena tensor)."""
    results = {}

    tracker = ScratchTracker(gw) if track_scratch else None

    class Walker(torch.fx.Interpreter):
        def run_node(self, n):
            if tracker is not None and n.op in ("call_module", "call_function", "call_method"):
                with tracker:
                    r = super().run_node(n)
                tracker.finish(n, r)
            else:
                r = super().run_node(n)
            results[n] = r
            return r

    ph_index = [0]

    def on_node(n, r):
        if n.op == "placeholder":
            i = ph_index[0]
            ph_index[0] += 1
            pname = placeholder_kind(i, n, r)
            if pname is not None:
                gw.param_of_fx[n] = pname
                if isinstance(r, torch.Tensor):
                    gw.keep.append(r)
                    gw.param_storage.setdefault(storage_key(r), pname)
                return
            if r is None:
                return
            mid = len(gw.nodes)
            node = {"name": n.name, "op": "input", "size": tbytes(r), "inputs": [],
                    "shape": list(r.shape), "dtype": str(r.dtype).replace("torch.", "")}
            gw.keep.append(r)
            gw.add(node)
            gw.fx2id[n] = mid
            gw.kind[mid] = "tensor"
            gw.tensors[mid] = [(None, r)]
            gw.storage_owner.setdefault(storage_key(r), mid)
            return
        if n.op == "get_attr":
            if isinstance(r, torch.Tensor):
                gw.param_of_fx[n] = str(n.target)
                gw.keep.append(r)
                gw.param_storage.setdefault(storage_key(r), str(n.target))
            return
        if n.op == "output":
            return
        if not (isinstance(r, torch.Tensor) or (isinstance(r, (tuple, list)) and
                any(isinstance(v, torch.Tensor) for v in r))):
            # shape arithmetic, size() calls, asserts: metadata only (the
            # shapes are static), no tensor and no data dependency: dropped
            gw.dropped += 1
            return
        if n.op == "call_function" and n.target is operator.getitem:
            if gw.emit_getitem(n, n.name, r) is not None:
                return
        # nodes that only produce a value from parameters or constants and do
        # nothing but view them still become nodes (alias -1)
        mid = gw.emit(n, n.name, fx_op_name(gm, n), r, writes_inplace(gm, n))
        if tracker is not None and tracker.scratch.get(n, 0) > 0:
            gw.nodes[mid]["workspace"] = tracker.scratch[n]

    class Walker2(Walker):
        def run_node(self, n):
            r = super().run_node(n)
            on_node(n, r)
            return r

    w = Walker2(gm)
    out = w.run(*args)
    return out, results


def output_refs(gw, gm):
    """memplan references of the tensors the fx output node returns."""
    out_node = [n for n in gm.graph.nodes if n.op == "output"][0]
    refs = []
    for a in out_node.all_input_nodes:
        mid = gw.ref_of(a)
        if mid is not None:
            refs.append(mid)
    return refs


# ---------------------------------------------------------------------------
# Inference: module-level FX graph


def inference_graph(name, batch):
    model = build_model(name).eval()
    pb, bb = count_params(model)
    gm = torch.fx.symbolic_trace(model)
    gm = gm.to("meta")
    size = image_size(name)
    x = torch.empty(batch, 3, size, size, device="meta")
    stem = "%s_b%d" % (name, batch)
    src = ("torchvision %s (torchvision %s, torch %s) inference batch=%d input=%dx%d float32; "
           "torch.fx module-level graph, shapes on the meta device"
           % (name, torchvision.__version__, torch.__version__, batch, size, size))
    gw = GraphWriter(stem, src)
    gw.gm = gm
    gw.register_params(list(gm.named_parameters()) + list(gm.named_buffers()))
    with torch.no_grad():  # inference: no autograd copies (e.g. before hardswish_)
        walk(gm, gw, (x,), lambda i, n, r: None, track_scratch=True)
    gw.emit_output(output_refs(gw, gm))
    return gw.to_json(pb, bb), gw


# ---------------------------------------------------------------------------
# Training: joint forward+backward ATen graph via functorch's aot_module


class _Captured(Exception):
    pass


class TrainWrapper(nn.Module):
    """model + cross-entropy loss, as a training step computes it."""

    def __init__(self, model, name):
        super().__init__()
        self.model = model
        self.name = name

    def forward(self, x, labels):
        out = self.model(x)
        if isinstance(out, dict):  # segmentation: {"out": ..., "aux": ...}
            loss = F.cross_entropy(out["out"], labels)
            if out.get("aux") is not None:
                loss = loss + 0.5 * F.cross_entropy(out["aux"], labels)
            return loss
        if isinstance(out, tuple):  # InceptionOutputs / GoogLeNetOutputs
            logits = out[0]
            aux = [a for a in out[1:] if a is not None]
            loss = F.cross_entropy(logits, labels)
            w = 0.4 if self.name == "inception_v3" else 0.3
            for a in aux:
                loss = loss + w * F.cross_entropy(a, labels)
            return loss
        return F.cross_entropy(out, labels)


def capture_joint(model, args):
    """The joint forward+backward graph aot_module traces (not functionalized:
    in-place ops stay in place, as eager PyTorch runs them)."""
    from functorch.compile import aot_module
    from functorch._src import config as aot_config
    box = {}

    def partition(joint, joint_inputs):
        box["gm"] = joint
        box["inputs"] = joint_inputs
        raise _Captured()

    def nop(gm, inputs):  # never reached
        return gm

    old = aot_config.use_functionalize
    aot_config.use_functionalize = False
    try:
        compiled = aot_module(model, fw_compiler=nop, bw_compiler=nop, partition_fn=partition)
        try:
            compiled(*args)
        except _Captured:
            pass
    finally:
        aot_config.use_functionalize = old
    if "gm" not in box:
        raise RuntimeError("aot_module did not reach the partitioner")
    return box["gm"], box["inputs"]


def train_graph(name, batch, sgd):
    model = build_model(name).train()
    pb, bb = count_params(model)
    wrapper = TrainWrapper(model, name).to("meta")
    size = image_size(name)
    x = torch.empty(batch, 3, size, size, device="meta")
    if name in SEGMENTATION:
        labels = torch.empty(batch, size, size, dtype=torch.long, device="meta")
    else:
        labels = torch.empty(batch, dtype=torch.long, device="meta")
    joint, (primals, tangents) = capture_joint(wrapper, (x, labels))
    # name the primals: parameters, buffers (by identity), then user inputs
    names = {}
    for n, p in wrapper.named_parameters():
        names.setdefault(id(p), ("param", n[len("model."):]))
    for n, b in wrapper.named_buffers():
        names.setdefault(id(b), ("buffer", n[len("model."):]))
    kinds = []
    for t in primals:
        kinds.append(names.get(id(t), ("input", None)))
    for t in tangents:
        kinds.append(("input", None))
    stem = "%s_train%s_b%d" % (name, "_sgd" if sgd else "", batch)
    src = ("torchvision %s (torchvision %s, torch %s) training step batch=%d input=%dx%d "
           "float32, cross-entropy loss%s; joint forward+backward ATen graph from functorch "
           "aot_module (not functionalized), shapes on the meta device; outputs: loss and "
           "parameter gradients%s"
           % (name, torchvision.__version__, torch.__version__, batch, size, size,
              " (+aux heads)" if name in ("googlenet", "inception_v3") else "",
              "; plus one in-place SGD update per parameter (alias -1), after the backward "
              "pass in the given order, and the output node reads only the loss" if sgd else ""))
    gw = GraphWriter(stem, src)
    gw.register_params([(n[len("model."):], t) for n, t in wrapper.named_parameters()] +
                       [(n[len("model."):], t) for n, t in wrapper.named_buffers()])

    def ph_kind(i, n, r):
        k, pname = kinds[i]
        return pname if k in ("param", "buffer") else None

    # rename graph inputs: x, labels, tangent
    out, results = walk(joint, gw, (list(primals), list(tangents)), ph_kind)
    user_inputs = [n for n in joint.graph.nodes if n.op == "placeholder"
                   and n in gw.fx2id]
    labels_names = ["x", "labels", "loss_grad"]
    for n, nm in zip(user_inputs, labels_names):
        gw.nodes[gw.fx2id[n]]["name"] = nm
    # output structure: [fw outs..., grads per primal]
    out_node = [n for n in joint.graph.nodes if n.op == "output"][0]
    flat_out = list(out_node.args[0])
    if len(flat_out) == 2 and isinstance(flat_out[1], (list, tuple)):
        fw_outs, grads = flat_out
    else:  # make_fx flattened (outs, grads)
        fw_outs, grads = flat_out[:len(tangents)], flat_out[len(tangents):]
    fw_refs = [gw.ref_of(a) for a in fw_outs if isinstance(a, torch.fx.Node)]
    fw_refs = [r for r in fw_refs if r is not None]
    grad_refs = []  # (ref, param name, bytes)
    for k, g in enumerate(grads):
        if not isinstance(g, torch.fx.Node):
            continue
        kind, pname = kinds[k]
        ref = gw.ref_of(g)
        if ref is None:
            continue
        gw.nodes[ref].setdefault("grad_of", pname)
        grad_refs.append((ref, pname, gw.nodes[ref].get("size", 0)))
    extra = {"n_param_grads": len(grad_refs)}
    if sgd:
        n_tokens, remap = add_sgd_updates(gw, grad_refs)
        gw.emit_output([remap(r) for r in fw_refs])
        extra["n_order_tokens"] = n_tokens
    else:
        gw.emit_output(fw_refs + [r for r, _, _ in grad_refs])
    return gw.to_json(pb, bb, extra), gw


def add_sgd_updates(gw, grad_refs):
    """One in-place SGD update per parameter (alias -1: the parameter is not
    an arena tensor), after the backward pass in the given order, as
    optimizer.step() runs.  It reads the gradient, so the gradient dies at its
    update.

    An update must also come after every node that reads the parameter's
    data, or that node would read the updated weight.  Most such readers are
    ancestors of the gradient anyway (convolution_backward reads the weight
    and produces its gradient), but not all: the matmul that computes a
    linear layer's input gradient reads the weight and is no ancestor of the
    weight's gradient.  memplan's in-place edges only cover arena storages, so
    for each such reader we add a size-0 `after` node that reads the reader
    (placed right after it in the given order: it costs no memory there) and
    that the update reads: a data edge reader -> after -> update."""
    nodes = gw.nodes

    def src(r):
        return r if isinstance(r, int) else r[0]

    preds = {n["id"]: [src(r) for r in n["inputs"]] for n in nodes}
    readers = {}
    for n in nodes:
        if "alias" in n and not n.get("inplace"):
            continue  # a pure view reads no data
        for q in n.get("params", ()):
            readers.setdefault(q, []).append(n["id"])
    tokens = {}  # reader id -> token node
    after = {}   # reader id -> token (file order)
    updates = []
    for ref, pname, nb in grad_refs:
        g = src(ref)
        anc, stack = {g}, [g]
        while stack:
            v = stack.pop()
            for u in preds[v]:
                if u not in anc:
                    anc.add(u)
                    stack.append(u)
        deps = []
        for r in readers.get(pname, ()):
            if r in anc:
                continue
            if r not in tokens:
                rn = nodes[r]
                if "outputs" in rn:  # read a free (size-0) output if there is one
                    outs = rn["outputs"]
                    k = min(range(len(outs)), key=lambda i: (outs[i] > 0, outs[i]))
                    rref = [r, k]
                else:
                    rref = r
                tokens[r] = {"name": "after_" + rn["name"], "op": "after", "size": 0,
                             "inputs": [rref]}
                after[r] = tokens[r]
            deps.append(tokens[r])
        updates.append(({"name": "sgd_" + pname.replace(".", "_"), "op": "sgd_update",
                         "size": nb, "inputs": [ref], "alias": -1, "inplace": True,
                         "param": pname, "params": [pname]}, deps))
    # new file order: each token right after its reader, updates at the end
    order = []
    for n in nodes:
        order.append(n)
        if n["id"] in after:
            order.append(after[n["id"]])
    newid = {}
    for i, n in enumerate(order):
        if "id" in n:
            newid[n["id"]] = i

    def remap(r):
        if r == -1:
            return r
        return newid[r] if isinstance(r, int) else [newid[r[0]], r[1]]

    for i, n in enumerate(order):  # tokens have no id yet: ids follow the file order
        n["inputs"] = [remap(r) for r in n["inputs"]]
        if "alias" in n:
            n["alias"] = remap(n["alias"])
        n["id"] = i
    for m in list(gw.fx2id):
        gw.fx2id[m] = newid[gw.fx2id[m]]
    gw.nodes[:] = order
    for upd, deps in updates:
        upd["inputs"] = upd["inputs"][:1] + [d["id"] for d in deps]
        upd["inputs"][0] = remap(upd["inputs"][0])
        gw.add(upd)
    return len(tokens), remap


# ---------------------------------------------------------------------------
# ONNX export (real tensors: torch.onnx runs the model once)


def export_onnx(name, batch, path):
    model = build_model(name).eval()
    size = image_size(name)
    x = torch.randn(batch, 3, size, size)
    # not under no_grad: nn.MultiheadAttention's inference fast path
    # (_native_multi_head_attention) has no ONNX symbolic in torch 1.13
    torch.onnx.export(model, (x,), path, opset_version=13, input_names=["x"],
                      output_names=["out"], do_constant_folding=True)


# ---------------------------------------------------------------------------


def export_one(name, batch, train, sgd, path):
    t0 = time.time()
    if train:
        d, gw = train_graph(name, batch, sgd)
    else:
        d, gw = inference_graph(name, batch)
    d["name"] = os.path.splitext(os.path.basename(path))[0]
    write_graph(d, path)
    return len(d["nodes"]), time.time() - t0, gw.warnings


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--sgd", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--onnx", metavar="FILE", help="export the model with torch.onnx instead")
    ap.add_argument("--all", metavar="OUTDIR")
    ap.add_argument("--batches", default="1,32", help="inference batches for --all")
    ap.add_argument("--train-batch", type=int, default=32, help="training batch for --all")
    ap.add_argument("--models", help="comma-separated subset for --all")
    a = ap.parse_args()
    torch.set_num_threads(1)
    if a.all:
        os.makedirs(a.all, exist_ok=True)
        models = a.models.split(",") if a.models else MODELS
        jobs = []
        for m in models:
            for b in [int(s) for s in a.batches.split(",") if s]:
                jobs.append((m, b, False, False))
        for m in models:
            jobs.append((m, a.train_batch, True, False))
            jobs.append((m, a.train_batch, True, True))
        failures = []
        t_all = time.time()
        for m, b, tr, sg in jobs:
            stem = "%s%s_b%d" % (m, ("_train_sgd" if sg else "_train") if tr else "", b)
            path = os.path.join(a.all, stem + ".json")
            try:
                n, dt, warns = export_one(m, b, tr, sg, path)
                print("%-32s %6d nodes %6.1f s%s" % (stem, n, dt,
                      "  (%d warnings)" % len(warns) if warns else ""), flush=True)
            except Exception as e:  # never abort the run on one model
                msg = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:300]
                                  if str(e).strip() else "")
                failures.append((stem, msg))
                print("%-32s FAILED %s" % (stem, msg), flush=True)
                if os.environ.get("EXPORT_DEBUG"):
                    traceback.print_exc()
        print("total %.1f s, %d graphs, %d failures" % (time.time() - t_all,
              len(jobs) - len(failures), len(failures)))
        for stem, msg in failures:
            print("failed: %s: %s" % (stem, msg))
        return 0
    if not a.model:
        ap.error("--model or --all is required")
    if a.onnx:
        export_onnx(a.model, a.batch, a.onnx)
        print("wrote %s" % a.onnx)
        return 0
    if not a.out:
        ap.error("--out is required")
    if a.sgd and not a.train:
        ap.error("--sgd needs --train")
    n, dt, warns = export_one(a.model, a.batch, a.train, a.sgd, a.out)
    for w in warns:
        print("warning: " + w, file=sys.stderr)
    print("%s: %d nodes, %.1f s" % (a.out, n, dt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
