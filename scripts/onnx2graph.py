#!/usr/bin/python3
"""Convert an ONNX model into a memplan graph (DESIGN.md 1.1).

  onnx2graph.py MODEL.onnx --out GRAPH.json [--name NAME] [--dim N=V ...]
                [--default-dim V] [--no-views] [--allow-unknown]

- Shapes come from onnx.shape_inference (run on the file, so models over 2 GB
  with external data work too); symbolic dimensions (a dynamic batch, say) take
  the value given by --dim NAME=VALUE, else --default-dim (default: an error
  naming them).
- Initializers and Constant nodes are parameters: not arena tensors, not
  nodes, counted in param_bytes; so is a view op (below) of parameters only.  Graph inputs that are not initializers
  become `op: "input"` nodes; the graph outputs are read by one `op:
  "output"` node.
- One memplan node per ONNX node; a node with several outputs gets
  `outputs: [...]` and its consumers read `[j, k]` (unused optional outputs
  are size 0).
- ONNX has value semantics, but runtimes (onnxruntime's allocation planner,
  TVM) execute Reshape, Flatten, Squeeze, Unsqueeze and Identity as views of
  their data input: those nodes get `alias` (or `alias: -1` when the data
  input is a parameter).  --no-views turns that off.
- Shape arithmetic with constant values (Shape of a static tensor, Gather,
  Slice, Concat, Div, ... of constants: what torch.onnx writes for chunk or
  view(n, -1)) is evaluated with numpy and replaced by constants before
  shape inference runs again (--no-fold: off); so such nodes are not graph
  nodes, as no runtime with static shapes would run them.
- A tensor whose size cannot be inferred is an error naming it, unless
  --allow-unknown (then it is size 0 and the node says `size_unknown`).
- Control-flow nodes (If, Loop, Scan) are kept as opaque nodes; what their
  subgraphs read from the outer scope is added to their inputs.
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper, shape_inference

ELEM_BYTES = {
    TensorProto.FLOAT: 4, TensorProto.UINT8: 1, TensorProto.INT8: 1, TensorProto.UINT16: 2,
    TensorProto.INT16: 2, TensorProto.INT32: 4, TensorProto.INT64: 8, TensorProto.BOOL: 1,
    TensorProto.FLOAT16: 2, TensorProto.DOUBLE: 8, TensorProto.UINT32: 4,
    TensorProto.UINT64: 8, TensorProto.COMPLEX64: 8, TensorProto.COMPLEX128: 16,
    TensorProto.BFLOAT16: 2,
}
DTYPE_NAME = {v: k.lower() for k, v in TensorProto.DataType.items()}
VIEW_OPS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}


class ConvertError(Exception):
    pass


def tensor_bytes(t):
    n = 1
    for d in t.dims:
        n *= d
    return n * ELEM_BYTES.get(t.data_type, 0)


def subgraph_reads(node):
    """Names a control-flow node's subgraphs read from the outer scope."""
    reads = []
    for attr in node.attribute:
        graphs = list(attr.g and [attr.g] or []) + list(attr.graphs)
        for g in graphs:
            local = set(i.name for i in g.input) | set(i.name for i in g.initializer)
            for n in g.node:
                for nm in n.input:
                    if nm and nm not in local:
                        reads.append(nm)
                local |= set(n.output)
                reads.extend(subgraph_reads(n))
    return reads


# --- folding of shape arithmetic -------------------------------------------
# torch.onnx writes shape computations (Shape -> Gather -> Div -> Slice
# starts, ...) that onnx's shape inference cannot see through, leaving the
# tensors downstream without a size.  With static input shapes these are
# constants: we evaluate them with numpy and replace them by Constant nodes
# (which become parameters of 0 arena bytes), then infer again.


def _np_dtype(elem_type):
    return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type]


def _attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _eval_node(n, vals, static_shape, opset):
    """Value of n's (single) output from constant inputs, or None."""
    op = n.op_type
    ins = [vals.get(nm) if nm else None for nm in n.input]
    if op == "Shape":
        shp = static_shape(n.input[0])
        if shp is None:
            return None
        out = np.array(shp, dtype=np.int64)
        start, end = _attr(n, "start", 0), _attr(n, "end", None)
        return out[start:end]
    if op == "Size":
        shp = static_shape(n.input[0])
        return None if shp is None else np.array(int(np.prod(shp)), dtype=np.int64)
    if any(x is None for nm, x in zip(n.input, ins) if nm):
        return None
    if op == "Identity":
        return ins[0]
    if op == "Cast":
        return ins[0].astype(_np_dtype(_attr(n, "to")))
    if op == "Gather":
        return np.take(ins[0], ins[1], axis=_attr(n, "axis", 0))
    if op in ("Unsqueeze", "Squeeze"):
        axes = ins[1] if len(ins) > 1 and ins[1] is not None else _attr(n, "axes")
        x = ins[0]
        if op == "Unsqueeze":
            for ax in sorted(int(a) % (x.ndim + len(axes)) for a in axes):
                x = np.expand_dims(x, ax)
            return x
        return np.squeeze(x, axis=None if axes is None else tuple(int(a) for a in axes))
    if op == "Concat":
        return np.concatenate([np.atleast_1d(x) for x in ins], axis=_attr(n, "axis", 0))
    if op in ("Add", "Sub", "Mul", "Div", "Equal", "Max", "Min", "Mod"):
        a, b = ins[0], ins[1]
        if op == "Div":
            if np.issubdtype(a.dtype, np.integer):
                return (np.trunc(a / b)).astype(a.dtype)
            return a / b
        f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Equal": np.equal,
             "Max": np.maximum, "Min": np.minimum, "Mod": np.mod}[op]
        return f(a, b).astype(a.dtype) if op != "Equal" else f(a, b)
    if op == "Slice":
        x, starts, ends = ins[0], ins[1], ins[2]
        axes = ins[3] if len(ins) > 3 and ins[3] is not None else list(range(len(starts)))
        steps = ins[4] if len(ins) > 4 and ins[4] is not None else [1] * len(starts)
        sl = [slice(None)] * x.ndim
        for st, en, ax, sp in zip(starts, ends, axes, steps):
            sl[int(ax)] = slice(int(st), int(en), int(sp))
        return x[tuple(sl)]
    if op == "Reshape":
        return ins[0].reshape([int(d) if d != 0 else ins[0].shape[i]
                               for i, d in enumerate(ins[1])])
    if op == "ConstantOfShape":
        v = _attr(n, "value")
        fill = numpy_helper.to_array(v) if v is not None else np.zeros(1, np.float32)
        return np.full([int(d) for d in ins[0]], fill.reshape(-1)[0], dtype=fill.dtype)
    if op == "Range":
        return np.arange(ins[0], ins[1], ins[2]).astype(ins[0].dtype)
    if op == "ReduceProd":
        return np.prod(ins[0], keepdims=bool(_attr(n, "keepdims", 1))).astype(ins[0].dtype)
    if op == "Where":
        return np.where(ins[0], ins[1], ins[2])
    return None


def fold_shape_arithmetic(model, infer):
    """Replace constant-valued shape computations by Constant nodes."""
    opset = max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [13])
    folded = set()
    for _ in range(20):
        inferred = infer(model)
        types = {}
        for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + \
                list(inferred.graph.output):
            if vi.type.HasField("tensor_type"):
                types[vi.name] = vi.type.tensor_type

        def static_shape(nm):
            tt = types.get(nm)
            if tt is None or not tt.HasField("shape"):
                return None
            if not all(d.HasField("dim_value") for d in tt.shape.dim):
                return None
            return [d.dim_value for d in tt.shape.dim]

        vals = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
        for n in model.graph.node:
            if n.op_type == "Constant":
                v = _attr(n, "value")
                if v is not None:
                    vals[n.output[0]] = numpy_helper.to_array(v)
        changed = 0
        new_nodes = []
        for n in model.graph.node:
            v = None
            if n.op_type != "Constant" and len(n.output) == 1 and not any(
                    a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                    for a in n.attribute):
                try:
                    v = _eval_node(n, vals, static_shape, opset)
                except Exception:
                    v = None
            if v is not None and (v.size <= 4096):
                v = np.asarray(v)
                vals[n.output[0]] = v
                new_nodes.append(onnx.helper.make_node(
                    "Constant", [], [n.output[0]], name=(n.name or n.op_type) + "_folded",
                    value=numpy_helper.from_array(v, n.output[0] + "_value")))
                changed += 1
                folded.add(n.output[0])
            else:
                new_nodes.append(n)
        if not changed:
            return inferred, folded
        del model.graph.node[:]
        model.graph.node.extend(new_nodes)
    return infer(model), folded


def convert(path, name=None, dims=None, default_dim=None, views=True, allow_unknown=False,
            fold=True):
    dims = dims or {}
    model = onnx.load(path, load_external_data=False)
    # bind symbolic input dimensions first, so inference sees static shapes
    inits = set(i.name for i in model.graph.initializer)
    for vi in model.graph.input:
        if vi.name in inits or not vi.type.HasField("tensor_type"):
            continue
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_param") or not d.HasField("dim_value"):
                v = dims.get(d.dim_param, default_dim)
                if v is not None:
                    d.dim_value = v  # clears dim_param (a oneof)

    def infer(m):
        try:
            return shape_inference.infer_shapes(m, data_prop=True)
        except ValueError:  # over 2 GB in memory: infer through a file
            import tempfile
            with tempfile.TemporaryDirectory() as td:
                a, b = os.path.join(td, "in.onnx"), os.path.join(td, "out.onnx")
                onnx.save(m, a)
                shape_inference.infer_shapes_path(a, b, data_prop=True)
                return onnx.load(b, load_external_data=False)

    if fold:
        inferred, folded = fold_shape_arithmetic(model, infer)
    else:
        inferred, folded = infer(model), set()
    n_folded = len(folded)
    g = inferred.graph

    types = {}
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        if vi.type.HasField("tensor_type"):
            types[vi.name] = vi.type.tensor_type

    params = {}  # name -> bytes
    for init in g.initializer:
        params[init.name] = tensor_bytes(init)
    for init in g.sparse_initializer:
        params[init.values.name] = tensor_bytes(init.values) + tensor_bytes(init.indices)
    for n in g.node:
        if n.op_type == "Constant":
            if n.output[0] in folded:  # computed metadata, or a copy of a weight
                params[n.output[0]] = 0
                continue
            for a in n.attribute:
                if a.name == "value" and a.t is not None:
                    params[n.output[0]] = tensor_bytes(a.t)
                    break
            else:
                params[n.output[0]] = 0

    unresolved = set()
    unknown = []

    def size_of(nm):
        tt = types.get(nm)
        if tt is None or not tt.HasField("shape"):
            unknown.append(nm)
            return 0, None, None
        shape = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                shape.append(d.dim_value)
            elif d.HasField("dim_param") and d.dim_param in dims:
                shape.append(dims[d.dim_param])
            elif default_dim is not None:
                shape.append(default_dim)
            else:
                unresolved.add(d.dim_param or "?")
                shape.append(0)
        n = 1
        for s in shape:
            n *= s
        eb = ELEM_BYTES.get(tt.elem_type)
        if eb is None:
            unknown.append(nm)
            return 0, shape, DTYPE_NAME.get(tt.elem_type)
        return n * eb, shape, DTYPE_NAME.get(tt.elem_type)

    nodes = []
    producer = {}  # tensor name -> (node id, k, n_outputs)

    def ref(nm):
        j, k, nout = producer[nm]
        return j if nout == 1 else [j, k]

    for inp in g.input:
        if inp.name in params:
            continue  # an initializer listed as an input (old exporters)
        size, shape, dt = size_of(inp.name)
        nd = {"id": len(nodes), "name": inp.name, "op": "input", "size": size, "inputs": []}
        if shape is not None:
            nd["shape"] = shape
            nd["dtype"] = dt
        producer[inp.name] = (nd["id"], 0, 1)
        nodes.append(nd)

    n_unknown_nodes = 0
    for i, n in enumerate(g.node):
        if n.op_type == "Constant":
            continue
        if n.op_type in VIEW_OPS and len(n.output) == 1 and n.input and \
                all(nm in params for nm in n.input if nm):
            # a view of a parameter (torch.onnx dedups equal weights this way)
            # is that parameter: no node, no extra bytes
            params[n.output[0]] = 0
            continue
        nid = len(nodes)
        nd = {"id": nid, "name": n.name or "%s_%d" % (n.op_type, i),
              "op": n.op_type.lower()}
        inputs, pread = [], []
        for nm in list(n.input) + subgraph_reads(n):
            if not nm:
                continue  # an omitted optional input
            if nm in params:
                if nm not in pread:
                    pread.append(nm)
                continue
            if nm not in producer:
                raise ConvertError("%s: node %s reads %s, which no earlier node produces "
                                   "(the node list is not topologically sorted)"
                                   % (path, nd["name"], nm))
            r = ref(nm)
            if r not in inputs:
                inputs.append(r)
        outs = list(n.output)
        sizes, shapes = [], []
        before = len(unknown)
        for nm in outs:
            if not nm:
                sizes.append(0)
                shapes.append((None, None))
                continue
            s, shp, dt = size_of(nm)
            sizes.append(s)
            shapes.append((shp, dt))
        if len(unknown) > before:
            n_unknown_nodes += 1
            nd["size_unknown"] = True
        if len(outs) == 1:
            nd["size"] = sizes[0]
            if shapes[0][0] is not None:
                nd["shape"], nd["dtype"] = shapes[0]
        else:
            nd["outputs"] = sizes
        nd["inputs"] = inputs
        if views and n.op_type in VIEW_OPS and len(outs) == 1 and n.input:
            data = n.input[0]
            if data in params:
                nd["alias"] = -1
            elif data in producer:
                nd["alias"] = ref(data)
        if pread:
            nd["params"] = pread
        for k, nm in enumerate(outs):
            if nm:
                producer[nm] = (nid, k, len(outs))
        nodes.append(nd)

    if unresolved:
        raise ConvertError("%s: symbolic dimensions %s have no value: give --dim NAME=VALUE "
                           "or --default-dim" % (path, ", ".join(sorted(unresolved))))
    if unknown and not allow_unknown:
        raise ConvertError("%s: shape inference left %d tensors without a size (first: %s); "
                           "--allow-unknown makes them size 0"
                           % (path, len(unknown), ", ".join(unknown[:5])))
    out_refs = []
    for o in g.output:
        if o.name in producer:
            r = ref(o.name)
            if r not in out_refs:
                out_refs.append(r)
    nodes.append({"id": len(nodes), "name": "output", "op": "output", "size": 0,
                  "inputs": out_refs})
    stem = name or os.path.splitext(os.path.basename(path))[0]
    src = ("ONNX %s (ir %d, opset %s, producer %s %s) via onnx2graph.py, onnx %s shape "
           "inference" % (
        os.path.basename(path), model.ir_version,
        ",".join("%s:%d" % (o.domain or "ai.onnx", o.version) for o in model.opset_import),
        model.producer_name, model.producer_version, onnx.__version__))
    if n_folded:
        src += ", %d shape-arithmetic nodes folded to constants" % n_folded
    return {"name": stem, "source": src, "param_bytes": sum(params.values()),
            "nodes": nodes}, len(unknown)


def write_graph(d, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("{")
        for k, v in d.items():
            if k != "nodes":
                f.write(json.dumps(k) + ": " + json.dumps(v) + ",\n ")
        f.write('"nodes": [\n')
        for i, n in enumerate(d["nodes"]):
            f.write("  " + json.dumps(n, separators=(",", ":")))
            f.write(",\n" if i + 1 < len(d["nodes"]) else "\n")
        f.write("]}\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--out", required=True)
    ap.add_argument("--name")
    ap.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                    help="value of a symbolic dimension (repeatable)")
    ap.add_argument("--default-dim", type=int, help="value of any other symbolic dimension")
    ap.add_argument("--no-views", action="store_true",
                    help="do not treat Reshape/Flatten/Squeeze/Unsqueeze/Identity as views")
    ap.add_argument("--allow-unknown", action="store_true")
    ap.add_argument("--no-fold", action="store_true",
                    help="do not fold constant shape arithmetic (Shape, Gather, Slice, ...)")
    a = ap.parse_args()
    dims = {}
    for s in a.dim:
        k, _, v = s.partition("=")
        if not v.isdigit():
            ap.error("--dim wants NAME=VALUE, got %r" % s)
        dims[k] = int(v)
    try:
        d, n_unknown = convert(a.model, a.name, dims, a.default_dim, not a.no_views,
                               a.allow_unknown, not a.no_fold)
    except (ConvertError, onnx.checker.ValidationError, OSError) as e:
        print("onnx2graph: %s" % e, file=sys.stderr)
        return 1
    write_graph(d, a.out)
    print("%s: %d nodes%s" % (a.out, len(d["nodes"]),
          ", %d tensors of unknown size (0)" % n_unknown if n_unknown else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
