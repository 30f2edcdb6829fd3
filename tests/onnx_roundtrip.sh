#!/bin/sh
# onnx_roundtrip.sh - end-to-end check of scripts/onnx2graph.py (not part of
# `make test`: it needs Debian's python3-torch, python3-torchvision and
# python3-onnx, see scripts/deps-graphs.sh).
#   torch.onnx export of torchvision MODEL (default resnet18, batch 1)
#   -> onnx2graph.py -> memplan info, and checks the converted graph: one
#   input of the image's size, one output node, parameters not in the arena,
#   a node count within the ONNX node count.  Then a hand-built ONNX model
#   with multi-output nodes (Split, TopK), views (Reshape, Identity), a
#   symbolic batch dimension and an initializer checks the exact conversion.
#   Exits non-zero on any failure.
# Usage: sh tests/onnx_roundtrip.sh [MODEL [BATCH]]
set -eu
cd "$(dirname "$0")/.."
MODEL=${1:-resnet18}
BATCH=${2:-1}
PY=/usr/bin/python3
M=${MEMPLAN:-bin/memplan}
[ -x "$M" ] || { echo "onnx_roundtrip: $M not built (run make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
$PY scripts/export_torchvision.py --model "$MODEL" --batch "$BATCH" --onnx "$tmp/m.onnx" >/dev/null
$PY scripts/onnx2graph.py "$tmp/m.onnx" --name "${MODEL}_onnx_b$BATCH" --out "$tmp/m.json"
"$M" info "$tmp/m.json" > "$tmp/info.txt"
$PY - "$tmp/m.onnx" "$tmp/m.json" "$tmp/info.txt" "$BATCH" <<'PYEOF'
import json, sys
import onnx
from onnx import numpy_helper  # noqa: F401  (onnx.numpy_helper below)
onnx_path, graph_path, info_path, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
m = onnx.load(onnx_path)
d = json.load(open(graph_path))
info = dict(l.split(None, 1) for l in open(info_path) if l.strip())
nodes = d["nodes"]
errors = []
inputs = [n for n in nodes if n["op"] == "input"]
if len(inputs) != 1 or inputs[0]["size"] != batch * 3 * 224 * 224 * 4:
    errors.append("expected one float32 input of %d bytes, got %s"
                  % (batch * 3 * 224 * 224 * 4, [(n["name"], n["size"]) for n in inputs]))
outs = [n for n in nodes if n["op"] == "output"]
if len(outs) != 1 or len(outs[0]["inputs"]) != len(m.graph.output):
    errors.append("expected one output node reading %d tensors" % len(m.graph.output))
inits = set(i.name for i in m.graph.initializer)
if any(n["name"] in inits for n in nodes):
    errors.append("an initializer became a node")
init_bytes = sum(int(onnx.numpy_helper.to_array(i).nbytes) for i in m.graph.initializer)
if d["param_bytes"] < init_bytes:
    errors.append("param_bytes %d < initializer bytes %d" % (d["param_bytes"], init_bytes))
n_ops = sum(1 for n in m.graph.node if n.op_type != "Constant")
if not (0 < len(nodes) <= n_ops + 2):
    errors.append("node count %d vs %d ONNX nodes" % (len(nodes), n_ops))
if int(info["nodes"]) != len(nodes):
    errors.append("memplan info reports %s nodes, file has %d" % (info["nodes"], len(nodes)))
if int(info["live_peak"]) <= 0 or int(info["sum_sizes"]) < int(info["live_peak"]):
    errors.append("implausible figures: %s" % info)
for e in errors:
    print("onnx_roundtrip: FAIL: " + e, file=sys.stderr)
if errors:
    sys.exit(1)
print("onnx_roundtrip: ok: %d ONNX nodes -> %d graph nodes, live_peak %s, param_bytes %d"
      % (len(m.graph.node), len(nodes), info["live_peak"].strip(), d["param_bytes"]))
PYEOF

# Hand-built model: exact expected structure.
$PY - "$tmp/multi.onnx" <<'PYEOF'
import sys
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper
X = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 8, 4])
Y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)
I = helper.make_tensor_value_info("I", TensorProto.INT64, None)
inits = [numpy_helper.from_array(np.ones((4, 4), np.float32), "W"),
         numpy_helper.from_array(np.array([4], np.int64), "k"),
         numpy_helper.from_array(np.array([-1], np.int64), "shp")]
nodes = [helper.make_node("MatMul", ["X", "W"], ["m"], name="mm"),
         helper.make_node("Split", ["m"], ["a", "b"], name="split", axis=1),
         helper.make_node("TopK", ["b", "k"], ["tv", "ti"], name="topk", axis=2),
         helper.make_node("Add", ["a", "tv"], ["s"], name="add"),
         helper.make_node("Reshape", ["s", "shp"], ["Y"], name="reshape"),
         helper.make_node("Identity", ["ti"], ["I"], name="id")]
g = helper.make_graph(nodes, "t", [X], [Y, I], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PYEOF
if $PY scripts/onnx2graph.py "$tmp/multi.onnx" --out "$tmp/multi.json" 2>/dev/null; then
  echo "onnx_roundtrip: FAIL: an unbound symbolic dimension was accepted" >&2; exit 1
fi
$PY scripts/onnx2graph.py "$tmp/multi.onnx" --dim N=3 --out "$tmp/multi.json" >/dev/null
"$M" info "$tmp/multi.json" >/dev/null
$PY - "$tmp/multi.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
got = [(n["op"], n.get("size"), n.get("outputs"), n["inputs"], n.get("alias")) for n in d["nodes"]]
want = [("input", 384, None, [], None),
        ("matmul", 384, None, [0], None),
        ("split", None, [192, 192], [1], None),
        ("topk", None, [192, 384], [[2, 1]], None),
        ("add", 192, None, [[2, 0], [3, 0]], None),
        ("reshape", 192, None, [4], 4),
        ("identity", 384, None, [[3, 1]], [3, 1]),
        ("output", 0, None, [5, 6], None)]
if got != want or d["param_bytes"] != 64 + 8 + 8:
    print("onnx_roundtrip: FAIL: hand-built model converted to\n  %s\n  param_bytes %d"
          % ("\n  ".join(map(str, got)), d["param_bytes"]), file=sys.stderr)
    sys.exit(1)
print("onnx_roundtrip: ok: hand-built multi-output model converts exactly")
PYEOF
