"""Per-node figures computed from the ATen ops each node dispatched:
`workspace` (backend.py), `cost` (cost.py) and, for training graphs,
`phase`.  Run before any node is inserted (holds, tokens): the records are
keyed by node id."""
from . import cost as costmodel

NO_COST_OPS = {"input", "output", "hold", "after", "getitem"}


def workspace(gw, backend):
    for mid, calls in gw.calls.items():
        n = gw.nodes[mid]
        ws = None
        mod = gw.module_of.get(mid)
        if mod is not None:
            ws = backend.module_workspace(mod, [t for _, t in gw.tensors.get(mid, [])])
        if ws is None:
            ws = backend.node_workspace(calls, gw.own_bytes.get(mid, 0))
        if ws > 0:
            n["workspace"] = int(ws)
        else:
            n.pop("workspace", None)


def costs(gw):
    """Every node gets `cost`: 0 for inputs, outputs, views and tokens
    (DESIGN 6.1), else the reference-device estimate of its ops."""
    for n in gw.nodes:
        calls = gw.calls.get(n["id"], [])
        if n["op"] in NO_COST_OPS or ("alias" in n and not n.get("inplace")) or not calls:
            n["cost"] = 0
        else:
            n["cost"] = costmodel.node_cost(calls)


def phases(gw, tangent_ids):
    """fwd before the first node that depends on the incoming gradient of
    the loss, bwd from there on; nodes already marked (opt) keep theirs; an
    input takes the phase of its first reader (x: fwd, the loss gradient and
    kept gradients: bwd, optimizer state: opt), the output node the phase of
    the node before it."""
    reach = set(tangent_ids)
    first = None
    for n in gw.nodes:
        if n["id"] in reach:
            continue
        if any((r if isinstance(r, int) else r[0]) in reach for r in n["inputs"]):
            reach.add(n["id"])
            if first is None:
                first = n["id"]
    for n in gw.nodes:
        if "phase" in n or n["op"] in ("input", "output"):
            continue
        n["phase"] = "fwd" if first is None or n["id"] < first else "bwd"
    first_reader = {}
    for n in gw.nodes:
        for r in n["inputs"]:
            first_reader.setdefault(r if isinstance(r, int) else r[0], n)
    for n in gw.nodes:
        if n["op"] == "input":
            rd = first_reader.get(n["id"])
            n["phase"] = rd.get("phase", "fwd") if rd is not None and rd["op"] != "output" \
                else "fwd"
        elif n["op"] == "output":
            n["phase"] = gw.nodes[n["id"] - 1]["phase"] if n["id"] > 0 else "fwd"
