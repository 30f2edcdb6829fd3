#!/usr/bin/python3
"""design_judge: an independent judge of memplan plans, written from
../shared/DESIGN.md sections 1 and 6.1-6.3 alone (Python 3.11 stdlib).

    design_judge.py GRAPH [PLAN] [--align A] [--bandwidth BW] [--initial-sample]

Prints one JSON object: {"valid": bool, "errors": [...], "figures": {...}}.
Without PLAN it judges the given order (what `memplan info` reports).
A malformed graph prints {"graph_error": "..."} and exits 2.

Each rule is one function; its comment quotes the DESIGN line it implements.
"""

AMBIGUITIES = [
    # (id, the question, the readings, the one taken (first = taken))
    ("A1", "outputs: [x] (a one-element list): is its buffer named 'J' or 'J:0'?",
     ["'J' (the node has one output: 'a single-output node'; memplan also accepts 'J:0')",
      "'J:0' (it was given as `outputs`, a tuple)"]),
    ("A2", "alias: -1 with inplace: which storage is written (for in-place edges)?",
     ["one storage per alias:-1 chain (the node with alias -1 is its owner); no buffer",
      "all parameters are one storage", "no storage at all: no in-place edges"]),
    ("A3", "alias [j,k] while inputs holds plain j (or the reverse, j single-output):"
           " is the alias 'among its inputs'?",
     ["yes: compare the tensors read", "no: compare the JSON items literally"]),
    ("A4", "a dead input (op input, nothing reads it, graph has an output node):"
           " birth 0, death = its birth (0) or the step of its node (alias set)?",
     ["death = birth = 0 (the dead-value rule is the specific one)",
      "death = max(birth, step of owner)"]),
    ("A5", "a sink that is an `input` node (no output node in the graph):"
           " is it a graph output?",
     ["yes: 'every output of a node that nothing reads'", "no: inputs are not results"]),
    ("A6", "topological: must the order put `input` nodes before their readers"
           " ('exist before the graph runs wherever the order puts them')?",
     ["yes: a schedule is a topological order of the nodes", "no: inputs may go anywhere"]),
    ("A7", "plan offsets with keys that name no buffer: invalid or ignored?",
     ["ignored (reported as a note)", "invalid"]),
    ("A8", "fragmentation / reuse ratio / reductions when the arena (or sum) is 0",
     ["0 ('a graph with no nodes ... every figure is 0')", "undefined"]),
    ("A9", "events: `run` of an input node ('input nodes never run')",
     ["invalid", "allowed: it re-makes its outputs resident"]),
    ("A10", "events: does an `in J` consume the host copy?",
     ["no: the host copy stays (nothing says it is dropped)", "yes: a second `in` needs a new `out`"]),
    ("A11", "in-place storage 'neither recomputed nor offloaded': is an `out` alone invalid?",
     ["yes: any `out` of in-place storage is an offload (the sentence itself is the rule)",
      "no: only the two sub-bullets are rules (run once; freed after its last reader)"]),
    ("A12", "free J blocks issue until 'every earlier event that uses J has ended:"
            " the runs that read it, and its out': does the run (or in) that made J"
            " resident count?",
     ["no: only readers and outs (literal)", "yes: its producer too"]),
    ("A13", "is the start (the inputs resident before event 0) a memory sample? 6.3 lists"
            " samples at `run` and `in` only; 6.2's last paragraph (keepall has 'exactly the"
            " figures of section 1') needs one when a dead input is freed before the first run,"
            " and an events plan with no run has no sample at all",
     ["no (6.3 literal); --initial-sample gives the other reading",
      "yes: the start is a sample (memplan; also what profile_std is taken over)"]),
    ("A14", "events plans: sum_sizes, profile_std (1.3 names) over what?",
     ["sum_sizes = sum of residency items (+ workspaces); profile_std = std of the samples"
      " (memplan: the same, with the start sample of A13)",
      "the section-1 figures of the plan's order"]),
    ("A15", "events plans: which offset key names which residency? (DESIGN 1.5 names buffers"
            " only; memplan writes 'J' for the first residency and 'J@E' for the one made"
            " resident at event E)",
     ["'J' = first residency, 'J@E' = residency starting at event E; ws likewise"]),
    ("A16", "events: the copy time with bandwidth 0",
     ["infinite (size / 0): a plan with a copy of a non-empty buffer never ends",
      "copies are free"]),
    ("A17", "base_time: 'the sum of every node's cost, each node once': input nodes with an"
            " explicit cost count?",
     ["yes: every node", "no: inputs never run"]),
    ("A18", "a dead input when events free it before the first run: 6.2's consistency claim"
            " (section-1 figures) counts it at step 0, 6.3 samples never see it",
     ["6.3 literal (samples only)"]),
    ("A22", "1.1 'overflowing size': overflowing what?",
     ["above 2^63 - 1 (a signed 64-bit byte count)", "memplan: above 2^56"]),
    ("A23", "6.3 residencies 'on event indices': where does a residency that exists at the start"
            " (an input's) begin?",
     ["before event 0 (index -1): the inputs all coexist at the start",
      "at event 0: an input freed at event 0 is the empty item [0, 0) and conflicts with nothing"]),
    ("A24", "6.3 budget --budget-frac F: F x P exactly, or rounded?",
     ["ceil(F x P): the anchors of 6.4 say 0.9 x 46,319 = 41,688", "floor: live_peak <= F x P"]),
    ("A26", "profile std-dev of a fixed-lifetime file: over which steps?",
     ["the integer times [min lower, max upper) (memplan)", "[0, max upper)"]),
    ("A25", "an events plan's \"order\": DESIGN 1.5 defines it for (order, offsets) plans only",
     ["any topological order (the first runs are checked by 6.2's own rule)",
      "memplan: it must be the order of the first runs"]),
    ("A27", "a view with `outputs: []` named in a later node's inputs: does that node read the"
            " view's storage?",
     ["no: '`j` means every output of node j' and the node has none",
      "yes (memplan: 'A view with outputs: [] still views its storage')"]),
    ("A28", "a node field set to null (size, outputs, alias, workspace)",
     ["malformed (not a number)",
      "memplan: the key left out for alias and workspace; size and outputs malformed"]),
    ("A19", "lower bound of an events plan (6.3 'No plan can go below the largest per-node"
            " need')", ["max over v of (distinct buffers read + outputs + workspace)",
                        "also the graph inputs / graph outputs"]),
    ("A20", "'freed only after its last reader' of in-place storage: last reader in plan order"
            " (any run of any reader) or the last first-run?",
     ["no run of a reader of the storage after any free of it"]),
    ("A21", "the output node's tensors with several `op: output` nodes",
     ["the union over all output nodes"]),
]

import json
import math
import sys
from collections import namedtuple

INITIAL_SAMPLE = False    # A13: True = the start state is a memory sample (memplan's reading)


class GraphError(Exception):
    pass


# ---------------------------------------------------------------- 1.1 graph

Node = namedtuple("Node", "id op sizes single inputs alias inplace workspace cost")
# sizes: list of output sizes; single: given with `size` (A1);
# inputs: list of (j, k or None); alias: None, -1, (j, None) or (j, k)


def _int(x, what, allow_neg=False):
    # 1.1: "negative, fractional or overflowing size" is an error.
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise GraphError(f"{what}: not a number")
    if isinstance(x, float):
        if not math.isfinite(x) or x != int(x):
            raise GraphError(f"{what}: fractional")
        x = int(x)
    if x < 0 and not allow_neg:
        raise GraphError(f"{what}: negative")
    if x > 2**63 - 1:
        raise GraphError(f"{what}: overflowing")
    return x


def _tensor_ref(x, what):
    # 1.1: "`j` means every output of node j ...; `[j, k]` means output k of node j".
    if isinstance(x, list):
        if len(x) != 2:
            raise GraphError(f"{what}: [j, k] expected")
        return (_int(x[0], what), _int(x[1], what))
    return (_int(x, what), None)


def read_graph(path):
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes", []), list):
        raise GraphError(f"{path}: not a graph object")
    raw = doc.get("nodes", [])
    n = len(raw)
    nodes, seen = [None] * n, set()
    file_order = []
    for r in raw:
        if not isinstance(r, dict) or "id" not in r:
            raise GraphError(f"{path}: node without id")
        i = _int(r["id"], f"{path}: id")
        # 1.1: "`id`: unique integers 0..n-1, in any order".
        if i >= n or i in seen:
            raise GraphError(f"{path}: node {i}: id out of range or duplicate")
        seen.add(i)
        file_order.append(i)
        nodes[i] = _read_node(path, i, r)
    _check_refs(path, nodes, file_order)
    return {"name": doc.get("name"), "nodes": nodes, "order": file_order,
            "host_bandwidth": doc.get("host_bandwidth")}


def _read_node(path, i, r):
    what = f"{path}: node {i}"
    # 1.1: "A node has `size` or `outputs`, not both; `outputs: []` is a node with no output."
    if "size" in r and "outputs" in r:
        raise GraphError(f"{what}: both size and outputs")
    if "outputs" in r:
        if not isinstance(r["outputs"], list):
            raise GraphError(f"{what}: outputs not a list")
        sizes, single = [_int(s, what) for s in r["outputs"]], False
    else:
        sizes, single = [_int(r.get("size", 0), what)], True
    inputs = [_tensor_ref(x, what) for x in r.get("inputs", [])]
    alias = r.get("alias")
    if alias is not None:
        if alias == -1:
            alias = -1
        else:
            alias = _tensor_ref(alias, what)
    ws = _int(r.get("workspace", 0), what)
    op = r.get("op")
    cost = r.get("cost")
    if cost is None:
        # 6.1: "Default: 1, or 0 for `input` and `output` nodes and for views (nodes with `alias`)."
        cost = 0 if (op in ("input", "output") or alias is not None) else 1
    elif isinstance(cost, bool) or not isinstance(cost, (int, float)) or cost < 0:
        raise GraphError(f"{what}: cost not a non-negative number")
    return Node(i, op, sizes, single, inputs, alias, bool(r.get("inplace", False)), ws, cost)


def _check_refs(path, nodes, file_order):
    pos = {v: p for p, v in enumerate(file_order)}
    for v in nodes:
        what = f"{path}: node {v.id}"
        for (j, k) in v.inputs:
            # 1.1: "input out of range", "output index out of range", "cycle".
            if j >= len(nodes):
                raise GraphError(f"{what}: input {j} out of range")
            if k is not None and k >= len(nodes[j].sizes):
                raise GraphError(f"{what}: output index {k} of {j} out of range")
            # 1.1: "It must be topological; if it is not, the reader says so (file, node id)".
            if pos[j] >= pos[v.id]:
                raise GraphError(f"{what}: reads {j}, not earlier in the file (not topological)")
        if v.alias not in (None, -1):
            j, k = v.alias
            if j >= len(nodes):
                raise GraphError(f"{what}: alias out of range")
            if k is not None and k >= len(nodes[j].sizes):
                raise GraphError(f"{what}: alias output index out of range")
            # 1.1: "`j` alone only when j has one output or is itself a view".
            if k is None and len(nodes[j].sizes) != 1 and nodes[j].alias is None:
                raise GraphError(f"{what}: alias {j} names a node with several outputs")
            # 1.1: "which must be among its inputs" (A3: compare the tensors read).
            if not _alias_among_inputs(nodes, v):
                raise GraphError(f"{what}: alias not among the inputs")


def _tensors_of(nodes, ref):
    j, k = ref
    return [(j, k)] if k is not None else [(j, kk) for kk in range(len(nodes[j].sizes))]


def _alias_among_inputs(nodes, v):
    read = {t for ref in v.inputs for t in _tensors_of(nodes, ref)}
    return all(t in read for t in _tensors_of(nodes, v.alias))


# ---------------------------------------------------------------- 1.2 storages and buffers

def storage_of(nodes, j, k):
    """1.2: "A node with `alias` belongs to the buffer of its alias root (follow `alias`
    links to the tensor that owns storage); `alias: -1` roots own nothing."
    Returns ('t', j, k) for an owning tensor, ('p', j) for a parameter root (A2)."""
    seen = set()
    while nodes[j].alias is not None:
        if j in seen:
            raise GraphError(f"node {j}: alias cycle")
        seen.add(j)
        a = nodes[j].alias
        if a == -1:
            return ("p", j)
        j, k = a[0], (a[1] if a[1] is not None else 0)
    return ("t", j, k if k is not None else 0)


def buffer_name(nodes, s):
    """1.5: "J" the buffer of a single-output node J, "J:K" output K of a multi-output node (A1)."""
    _, j, k = s
    return str(j) if len(nodes[j].sizes) == 1 else f"{j}:{k}"


def is_buffer(nodes, s):
    # 1.2: "Every output tensor of a node without `alias` and of size > 0 is a buffer."
    return s[0] == "t" and nodes[s[1]].sizes[s[2]] > 0


def size_of(nodes, s):
    return nodes[s[1]].sizes[s[2]] if is_buffer(nodes, s) else 0


def all_buffers(nodes):
    return [("t", v.id, k) for v in nodes if v.alias is None
            for k in range(len(v.sizes)) if v.sizes[k] > 0]


def storages_read(nodes, v):
    """The storages node v reads (each once): 1.2 "readers ... through its owner (`j` or
    `[j, k]` naming that output), or through any node of its alias set"."""
    out = []
    for ref in v.inputs:
        for (j, k) in _tensors_of(nodes, ref):
            s = storage_of(nodes, j, k)
            if s not in out:
                out.append(s)
    return out


def readers_of(nodes):
    r = {}
    for v in nodes:
        for s in storages_read(nodes, v):
            r.setdefault(s, set()).add(v.id)
    return r


def alias_sets(nodes):
    """1.2: "The *alias set* of a buffer is its owning node plus every node whose alias root it is"."""
    a = {}
    for v in nodes:
        if v.alias is None:
            for k in range(len(v.sizes)):
                a.setdefault(("t", v.id, k), set()).add(v.id)
        else:
            a.setdefault(storage_of(nodes, v.id, 0), set()).add(v.id)
    return a


def graph_outputs(nodes):
    """1.2: "the tensors read by a node with `op: "output"` where the graph has one, and
    otherwise every output of a node that nothing reads (a sink)" (A5, A21)."""
    outs = [v for v in nodes if v.op == "output"]
    if outs:
        return {s for v in outs for s in storages_read(nodes, v)}
    read = {j for v in nodes for (j, _) in v.inputs}
    return {storage_of(nodes, v.id, k) for v in nodes if v.id not in read
            for k in range(len(v.sizes))}


def data_edges(nodes):
    return {(j, v.id) for v in nodes for (j, _) in v.inputs}


def inplace_edges(nodes, file_order):
    """1.2: "If node v writes storage b in place, then every other node w that reads b keeps
    its file-order relation to v ... (A pure view, a node with `alias` that is not `inplace`,
    reads no data and gets no such edge.)"."""
    pos = {v: p for p, v in enumerate(file_order)}
    rd = readers_of(nodes)
    edges = set()
    for v in nodes:
        if not v.inplace or v.alias is None:
            continue
        b = storage_of(nodes, v.id, 0)
        for w in rd.get(b, ()):
            if w == v.id or (nodes[w].alias is not None and not nodes[w].inplace):
                continue
            edges.add((w, v.id) if pos[w] < pos[v.id] else (v.id, w))
    return edges


# ---------------------------------------------------------------- 1.2 lifetimes

def lifetimes(g, order):
    """{storage or ('ws', v): (birth, death, size)} under `order` (1.2)."""
    nodes, n = g["nodes"], len(order)
    step = {v: t for t, v in enumerate(order)}
    rd, al, gout = readers_of(nodes), alias_sets(nodes), graph_outputs(nodes)
    life = {}
    for b in all_buffers(nodes):
        owner = nodes[b[1]]
        # 1.2: "birth(b) = the step of b's owner; 0 for the outputs of `input` nodes".
        birth = 0 if owner.op == "input" else step[owner.id]
        readers = rd.get(b, set())
        if b in gout:
            death = n - 1            # 1.2: "Graph outputs live to the last step."
        elif not readers:
            death = birth            # 1.2: "a dead value ...: it dies at once, at its birth step" (A4)
        else:
            # 1.2: "death(b) = the largest step among b's readers and its alias set".
            death = max(step[u] for u in readers | al[b])
        life[b] = (birth, death, size_of(nodes, b))
    for v in nodes:
        if v.workspace > 0:
            # 1.2: "A node's workspace is a buffer of its own, alive only at its own step."
            life[("ws", v.id)] = (step[v.id], step[v.id], v.workspace)
    return life


def key_of(nodes, b):
    return f"ws:{b[1]}" if b[0] == "ws" else buffer_name(nodes, b)


# ---------------------------------------------------------------- 1.3 figures

def profile(life, n):
    # 1.3: "Live profile M(t) = the sum of the sizes of the buffers alive at t."
    d = [0] * (n + 1)
    for (a, e, s) in life.values():
        d[a] += s
        d[e + 1] -= s
    m, cur = [], 0
    for t in range(n):
        cur += d[t]
        m.append(cur)
    return m


def pop_std(xs):
    # 1.3: "the population standard deviation of M(t) over the steps".
    if not xs:
        return 0.0
    mu = sum(xs) / len(xs)
    return math.sqrt(sum((x - mu) ** 2 for x in xs) / len(xs))


def node_need(g, v):
    """1.3 / 6.3: "the distinct buffers v reads + v's outputs + v's workspace"."""
    nodes = g["nodes"]
    reads = sum(size_of(nodes, s) for s in storages_read(nodes, v))
    outs = sum(v.sizes) if v.alias is None else 0
    return reads + outs + v.workspace


def sched_lower_bound(g):
    return max((node_need(g, v) for v in g["nodes"]), default=0)


def ratio_figures(arena, live_peak, total):
    # 1.3: fragmentation, reuse ratio, reduction vs no reuse (A8 for zeros).
    return {"fragmentation": (arena - live_peak) / arena if arena else 0.0,
            "reuse_ratio": total / arena if arena else 0.0,
            "reduction_vs_noreuse": 1 - arena / total if total else 0.0}


def bysize(items, align):
    """2: `bysize` (greedy by size, best fit) on items [(lo, hi_inclusive, size, id)] ->
    arena. Ties by larger size first, then earlier birth, then id (A: tie rule unknown)."""
    placed, top = [], 0
    for (lo, hi, s, _) in sorted(items, key=lambda x: (-x[2], x[0], str(x[3]))):
        if s == 0:
            continue
        busy = sorted((o, o + ps) for (plo, phi, ps, o) in placed if plo <= hi and lo <= phi)
        best, cur = None, 0
        for (a, e) in busy:
            cand = -(-cur // align) * align
            if cand + s <= a and (best is None or a - cur < best[1]):
                best = (cand, a - cur)
            cur = max(cur, e)
        off = best[0] if best else -(-cur // align) * align
        placed.append((lo, hi, s, off))
        top = max(top, off + s)
    return top


def _off(offsets, key):
    """An offset for the figures (a bad one is reported by check_offsets, counted as 0 here)."""
    o = offsets.get(key, 0)
    return o if isinstance(o, int) and not isinstance(o, bool) else 0


def figures_1_3(g, order, offsets, align):
    nodes, n = g["nodes"], len(order)
    life = lifetimes(g, order)
    m = profile(life, n)
    live_peak = max(m, default=0)
    total = sum(s for (_, _, s) in life.values())      # 1.3: "sum of sizes = all buffers, workspaces included"
    arena = max((_off(offsets, key_of(nodes, b)) + s for b, (_, _, s) in life.items() if s), default=0)
    given_life = lifetimes(g, g["order"])
    given_arena = bysize([(a, d, s, key_of(nodes, b)) for b, (a, d, s) in given_life.items()], align)
    f = {"nodes": n, "buffers": len(life), "live_peak": live_peak, "arena": arena,
         "sum_sizes": total, "profile_std": pop_std(m),
         "sched_lower_bound": sched_lower_bound(g), "given_arena": given_arena,
         # 1.3: "reduction = 1 - arena / baseline ... the given order placed by `bysize`".
         "reduction_vs_given": 1 - arena / given_arena if given_arena else 0.0}
    f.update(ratio_figures(arena, live_peak, total))
    return f, life


# ---------------------------------------------------------------- 1.5 verification

def check_order(g, order, errors, what="order"):
    """1.5: "the order is a permutation and topological (including in-place edges)" (A6)."""
    n = len(g["nodes"])
    if sorted(order) != list(range(n)):
        errors.append(f"{what}: not a permutation of the {n} nodes")
        return False
    pos = {v: p for p, v in enumerate(order)}
    for (a, b) in data_edges(g["nodes"]) | inplace_edges(g["nodes"], g["order"]):
        if pos[a] >= pos[b]:
            errors.append(f"{what}: edge {a} -> {b} not respected")
            return False
    return True


def check_offsets(items, offsets, align, errors, notes, overlap):
    """1.5: "every offset is aligned; no two buffers with intersecting lifetimes intersect in
    address". items: {key: (lo, hi, size)}; overlap(a, b) says whether lifetimes intersect."""
    for k in offsets:
        if k not in items:
            notes.append(f"offset {k}: names no buffer (A7)")
    placed = []
    for k, (lo, hi, s) in items.items():
        if s == 0:
            continue
        o = offsets.get(k)
        if o is None:
            errors.append(f"buffer {k}: no offset")
            continue
        if isinstance(o, bool) or not isinstance(o, int) or o < 0:
            errors.append(f"buffer {k}: offset {o!r} is not a non-negative integer")
            continue
        if o % align:
            errors.append(f"buffer {k}: offset {o} not a multiple of {align}")
        placed.append((k, lo, hi, o, o + s))
    active = []                      # a sweep over lifetimes: compare only live pairs
    for (k1, lo1, hi1, a1, e1) in sorted(placed, key=lambda p: p[1]):
        active = [p for p in active if overlap((p[1], p[2]), (lo1, hi1)) or p[2] > lo1]
        for (k2, lo2, hi2, a2, e2) in active:
            if overlap((lo1, hi1), (lo2, hi2)) and a1 < e2 and a2 < e1:
                errors.append(f"buffers {k2} and {k1} live together and overlap in address")
        active.append((k1, lo1, hi1, a1, e1))


def closed_overlap(x, y):
    return x[0] <= y[1] and y[0] <= x[1]       # 1.2: "Intervals are closed"


def half_open_overlap(x, y):
    return x[0] < y[1] and y[0] < x[1]         # 1.4: "half-open [lower, upper)"


# ---------------------------------------------------------------- 6.2 events: validity

def parse_buffer_name(g, name):
    """6.2: "Buffers are named as in 1.5: "J" or "J:K"." -> storage, or None."""
    nodes = g["nodes"]
    try:
        if ":" in str(name):
            j, k = (int(x) for x in str(name).split(":"))
        else:
            j, k = int(name), None
    except ValueError:
        return None
    if not 0 <= j < len(nodes) or nodes[j].alias is not None:
        return None
    single = len(nodes[j].sizes) == 1
    if k is None:
        b = ("t", j, 0) if single else None
    else:
        b = ("t", j, k) if (not single and k < len(nodes[j].sizes)) else None
    return b if b is not None and is_buffer(nodes, b) else None


def replay(g, events, errors):
    """Walk the events once (6.2), collecting residencies and the trace the figures need."""
    nodes = g["nodes"]
    resident = {b: -1 for b in all_buffers(nodes) if nodes[b[1]].op == "input"}
    host, runs, first_run, trace, res = set(), {}, [], [], []
    # 6.2: "`input` nodes never run: their outputs are resident at the start."
    for i, ev in enumerate(events):
        if not isinstance(ev, list) or len(ev) != 2 or ev[0] not in ("run", "free", "out", "in"):
            errors.append(f"event {i}: malformed {ev!r}")
            continue
        kind, arg = ev
        if kind == "run":
            rule_run(g, i, arg, resident, runs, first_run, res, errors)
        else:
            b = parse_buffer_name(g, arg)
            if b is None:
                errors.append(f"event {i}: {kind} {arg!r} names no buffer")
                continue
            rule_move(g, i, kind, b, resident, host, res, errors)
        trace.append((i, kind, arg))
    for b, lo in resident.items():
        res.append((b, lo, len(events)))
    return runs, first_run, res, resident


def rule_run(g, i, v, resident, runs, first_run, res, errors):
    nodes = g["nodes"]
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < len(nodes):
        errors.append(f"event {i}: run of unknown node {v!r}")
        return
    if nodes[v].op == "input":
        errors.append(f"event {i}: run of input node {v} ('input nodes never run', A9)")
    # 6.2: "Every tensor v reads must be resident; for a view, its root's storage."
    for s in storages_read(nodes, nodes[v]):
        if is_buffer(nodes, s) and s not in resident:
            errors.append(f"event {i}: run {v} reads {buffer_name(nodes, s)}, not resident")
    # 6.2: "v's output buffers become resident"; "never made resident while it is resident".
    if nodes[v].alias is None:
        for k in range(len(nodes[v].sizes)):
            b = ("t", v, k)
            if not is_buffer(nodes, b):
                continue
            if b in resident:
                errors.append(f"event {i}: run {v} makes {buffer_name(nodes, b)} resident while it is")
            else:
                resident[b] = i
    if nodes[v].workspace > 0:
        res.append((("ws", v), i, i + 1))
    if v not in runs:
        first_run.append(v)
    runs[v] = runs.get(v, 0) + 1


def rule_move(g, i, kind, b, resident, host, res, errors):
    name = buffer_name(g["nodes"], b)
    if kind in ("out", "free") and b not in resident:
        # 6.2: "`out` and `free` need the buffer resident".
        errors.append(f"event {i}: {kind} {name}: not resident")
        return
    if kind == "out":
        host.add(b)                   # 6.2: "J then has a host copy" (A10)
    elif kind == "free":
        res.append((b, resident.pop(b), i))
    elif kind == "in":
        if b not in host:
            errors.append(f"event {i}: in {name}: no host copy")   # 6.2: "`in` needs a host copy"
        if b in resident:
            errors.append(f"event {i}: in {name}: already resident")
            return
        resident[b] = i


def check_events(g, events):
    """6.2 "Valid means all of the following"."""
    nodes, errors = g["nodes"], []
    runs, first_run, res, resident = replay(g, events, errors)
    # 6.2: "Every node other than an input runs at least once."
    for v in nodes:
        if v.op != "input" and v.id not in runs:
            errors.append(f"node {v.id} never runs")
    # 6.2: "The first runs form a topological order of the data and in-place edges of 1.2."
    pos = {v: p for p, v in enumerate(first_run)}
    for (a, b) in data_edges(nodes) | inplace_edges(nodes, g["order"]):
        if a in pos and b in pos and pos[a] >= pos[b]:
            errors.append(f"first runs: edge {a} -> {b} not respected")
    # 6.2: "The graph outputs are resident when the plan ends."
    for s in graph_outputs(nodes):
        if is_buffer(nodes, s) and s not in resident:
            errors.append(f"graph output {buffer_name(nodes, s)} not resident at the end")
    rule_inplace_stays(g, events, runs, errors)
    return errors, runs, first_run, res


def rule_inplace_stays(g, events, runs, errors):
    """6.2: "A storage that a node writes in place ...: the nodes of its alias set run exactly
    once; it is freed only after its last reader." (A11, A20)"""
    nodes = g["nodes"]
    al, rd = alias_sets(nodes), readers_of(nodes)
    for s in {storage_of(nodes, v.id, 0) for v in nodes if v.inplace and v.alias is not None}:
        for u in al.get(s, ()):
            if nodes[u].op != "input" and runs.get(u, 0) != 1:
                errors.append(f"in-place storage: node {u} of its alias set runs {runs.get(u, 0)} times")
        if s[0] != "t":
            continue
        name = buffer_name(nodes, s)
        frees = [i for i, e in enumerate(events) if e == ["free", name]]
        last_read = max((i for i, e in enumerate(events)
                         if e[0] == "run" and e[1] in rd.get(s, ())), default=-1)
        if any(e == ["out", name] for e in events):
            # 6.2: "A storage that a node writes in place is neither recomputed nor offloaded" (A11)
            errors.append(f"in-place storage {name}: offloaded (out)")
        if frees and frees[0] < last_read:
            errors.append(f"in-place storage {name}: freed at event {frees[0]} before its last reader (event {last_read})")


# ---------------------------------------------------------------- 6.3 memory

def memory_samples(g, events):
    """6.3: "A `run v` adds v's outputs and workspace. The memory is sampled, then the workspace
    is released. An `in J` adds J, and the memory is sampled. A `free` subtracts." (A13)"""
    nodes = g["nodes"]
    mem = sum(size_of(nodes, b) for b in all_buffers(nodes) if nodes[b[1]].op == "input")
    has_input = any(v.op == "input" for v in nodes)
    samples = [mem] if INITIAL_SAMPLE and has_input else []
    for kind, arg in events:
        if kind == "run":
            v = nodes[arg]
            outs = sum(v.sizes) if v.alias is None else 0
            mem += outs + v.workspace
            samples.append(mem)
            mem -= v.workspace
        elif kind == "in":
            mem += size_of(nodes, parse_buffer_name(g, arg))
            samples.append(mem)
        elif kind == "free":
            mem -= size_of(nodes, parse_buffer_name(g, arg))
    return samples


def residency_items(g, res):
    """6.3: "Each residency of a buffer, from the event that makes it resident to the event that
    frees it (or to the end), is one item of a fixed-lifetime problem (1.4) on event indices."
    Keys as memplan names them (A15): 'J' for the first residency, 'J@E' for later ones."""
    nodes, items, first = g["nodes"], {}, {}
    for (b, lo, hi) in sorted(res, key=lambda r: r[1]):
        base = key_of(nodes, b)
        size = nodes[b[1]].workspace if b[0] == "ws" else size_of(nodes, b)
        key = base if base not in first else f"{base}@{lo}"
        first.setdefault(base, lo)
        # A23: buffers resident at the start (lo = -1) all live together before event 0.
        items[key] = (lo, hi, size)
    return items


# ---------------------------------------------------------------- 6.3 time

def simulate(g, events, bandwidth):
    """6.3 "Time is a deterministic simulation." Returns the end time of every event."""
    nodes = g["nodes"]
    issue = 0.0                         # "event i is issued no earlier than event i-1"
    free_at = {"run": 0.0, "out": 0.0, "in": 0.0}   # "one compute stream, ... two copy streams"
    ready = {b: 0.0 for b in all_buffers(nodes) if nodes[b[1]].op == "input"}
    last_out, uses, ends = {}, {}, []
    for kind, arg in events:
        if kind == "free":
            b = parse_buffer_name(g, arg)
            # "A `free J` blocks the issue of every later event until every earlier event that
            # uses J has ended: the runs that read it, and its `out`." (A12)
            issue = max([issue] + uses.pop(b, []))
            ends.append(issue)
            continue
        if kind == "run":
            v = nodes[arg]
            reads = [s for s in storages_read(nodes, v) if is_buffer(nodes, s)]
            # "A run starts when it is issued, the compute stream is free, and each buffer it
            # reads is ready: the run or `in` that made it resident has ended."
            start = max([issue, free_at["run"]] + [ready.get(s, 0.0) for s in reads])
            end = start + v.cost
            free_at["run"] = end
            for s in reads:
                uses.setdefault(s, []).append(end)
            if v.alias is None:
                for k in range(len(v.sizes)):
                    if is_buffer(nodes, ("t", v.id, k)):
                        ready[("t", v.id, k)] = end
        else:
            b = parse_buffer_name(g, arg)
            t = copy_time(size_of(nodes, b), bandwidth)   # "A copy of J takes size(J) / bandwidth."
            if kind == "out":
                # "An `out J` starts when it is issued, its stream is free and J is ready."
                start = max(issue, free_at["out"], ready.get(b, 0.0))
                end = start + t
                last_out[b] = end
                uses.setdefault(b, []).append(end)
            else:
                # "An `in J` starts when it is issued, its stream is free and the `out` that made
                # J's host copy has ended."
                start = max(issue, free_at["in"], last_out.get(b, 0.0))
                end = start + t
                ready[b] = end
            free_at[kind] = end
        ends.append(end)
    return ends


def copy_time(size, bandwidth):
    if size == 0:
        return 0.0
    if not bandwidth:
        return math.inf      # A16
    return size / bandwidth


def figures_6_3(g, events, runs_first, bandwidth):
    nodes = g["nodes"]
    samples = memory_samples(g, events)
    ends = simulate(g, events, bandwidth)
    duration = max(ends, default=0.0)       # "the time when the last event ends"
    base = sum(v.cost for v in nodes)       # 6.1: "the sum of every node's cost, each node once" (A17)
    seen, rec_t, rec_n, run_cost, moved = set(), 0.0, 0, 0.0, 0
    for kind, arg in events:
        if kind == "run":
            run_cost += nodes[arg].cost
            if arg in seen:                 # "the cost of every run after a node's first"
                rec_t += nodes[arg].cost
                rec_n += 1
            seen.add(arg)
        elif kind in ("in", "out"):
            moved += size_of(nodes, parse_buffer_name(g, arg))   # "bytes copied, both directions"
    return {"live_peak": max(samples, default=0), "samples_std": pop_std(samples),
            "duration": duration, "base_time": base,
            # undefined when base_time is 0, but 1.1: "A graph with no nodes ...; every figure is 0"
            "overhead": duration / base - 1 if base else (0.0 if not nodes else None),
            "recompute_time": rec_t, "recomputed": rec_n,
            "stall_time": duration - run_cost, "transferred": moved,
            "remat_lower_bound": sched_lower_bound(g),
            "stale_reruns": stale_reruns(g, events)}


def stale_reruns(g, events):
    """Not a DESIGN figure (memplan's): runs of a reader w of in-place storage b, after w's
    first run, that come after a later in-place write of b (w would read overwritten data)."""
    nodes, count = g["nodes"], 0
    edges = inplace_edges(nodes, g["order"])
    writers_after = {}
    for (a, b) in edges:
        if nodes[b].inplace:
            writers_after.setdefault(a, set()).add(b)
    ran = set()
    for kind, arg in events:
        if kind != "run":
            continue
        if arg in ran and any(w in ran for w in writers_after.get(arg, ())):
            count += 1
        ran.add(arg)
    return count


# ---------------------------------------------------------------- 1.4 fixed-lifetime problems

def read_csv(path):
    """1.4: MiniMalloc's CSV `id,lower,upper,size`, half-open [lower, upper), optional
    `alignment` and `offset` columns; "Blank lines and CRLF line ends are accepted"."""
    with open(path, newline="") as f:
        lines = [ln.strip("\r\n").strip() for ln in f.read().replace("\r\n", "\n").split("\n")]
    lines = [ln for ln in lines if ln]
    head = [h.strip() for h in lines[0].split(",")]
    rows = {}
    for ln in lines[1:]:
        r = dict(zip(head, (x.strip() for x in ln.split(","))))
        rows[r["id"]] = {k: (int(v) if k != "id" and v != "" else v) for k, v in r.items()}
    return rows


def judge_csv(problem, solution, align=1):
    errors, prob, sol = [], read_csv(problem), read_csv(solution)
    if set(prob) != set(sol):
        errors.append("the solution's ids are not the problem's")
    items, offsets = {}, {}
    for k, r in prob.items():
        a = r.get("alignment") or align
        items[k] = (r["lower"], r["upper"], r["size"])
        o = sol.get(k, {}).get("offset")
        offsets[k] = o
        if r.get("offset") not in (None, "") and o != r["offset"]:
            errors.append(f"{k}: pinned at {r['offset']}, placed at {o}")   # 1.4 "pins that buffer"
        if isinstance(o, int) and o % a:
            errors.append(f"{k}: offset {o} not a multiple of its alignment {a}")
    notes = []
    check_offsets(items, offsets, 1, errors, notes, half_open_overlap)
    pts = sorted({lo for (lo, _, _) in items.values()})
    peak = max((sum(s for (lo, hi, s) in items.values() if lo <= t < hi) for t in pts), default=0)
    arena = max((offsets[k] + s for k, (_, _, s) in items.items()
                 if s and isinstance(offsets[k], int)), default=0)
    total = sum(s for (_, _, s) in items.values())
    # A26: "over the steps" of a fixed-lifetime file: the integer times [min lower, max upper)
    lo0 = min((lo for (lo, _, _) in items.values()), default=0)
    hi0 = max((hi for (_, hi, _) in items.values()), default=0)
    d = {}
    for (lo, hi, sz) in items.values():
        if lo < hi:
            d[lo] = d.get(lo, 0) + sz
            d[hi] = d.get(hi, 0) - sz
    prof, cur = [], 0
    for t in range(lo0, hi0):
        cur += d.get(t, 0)
        prof.append(cur)
    fig = {"live_peak": peak, "arena": arena, "sum_sizes": total, "buffers": len(items),
           "profile_std": pop_std(prof)}
    fig.update(ratio_figures(arena, peak, total))
    return {"valid": not errors, "errors": errors, "figures": fig}


# ---------------------------------------------------------------- the judge

def judge(g, plan, align=None, bandwidth=None):
    errors, notes = [], []
    nodes = g["nodes"]
    if align is None:
        align = plan.get("align", 64)
    if isinstance(align, bool) or not isinstance(align, int) or align < 1:
        return {"valid": False, "errors": [f"align {align!r} is not a positive integer"], "figures": {}}
    order = plan.get("order", g["order"])
    offsets = plan.get("offsets", {})
    if not isinstance(offsets, dict):
        errors.append("offsets is not an object")
        offsets = {}
    order_ok = isinstance(order, list) and check_order(g, order, errors)
    events = plan.get("events")
    if events is None:
        if not order_ok:
            return {"valid": False, "errors": errors, "figures": {}}
        fig, life = figures_1_3(g, order, offsets, align)
        items = {key_of(nodes, b): v for b, v in life.items()}
        check_offsets(items, offsets, align, errors, notes, closed_overlap)
        fig["lower_bound_fixed_order"] = fig["live_peak"]   # 1.3: "for a fixed order, its live peak"
    else:
        if not isinstance(events, list):
            return {"valid": False, "errors": ["events is not a list"], "figures": {}}
        ev_errors, runs, first_run, res = check_events(g, events)
        errors += ev_errors
        if ev_errors:
            return {"valid": False, "errors": errors, "notes": notes, "figures": {}}
        if bandwidth is None:
            bandwidth = plan.get("bandwidth", g.get("host_bandwidth"))
        items = residency_items(g, res)
        check_offsets(items, offsets, align, errors, notes, half_open_overlap)
        fig = figures_6_3(g, events, first_run, bandwidth)
        arena = max((_off(offsets, k) + s for k, (_, _, s) in items.items() if s), default=0)
        total = sum(s for (_, _, s) in items.values())
        fig.update({"arena": arena, "sum_sizes": total, "residencies": len(items)})
        fig.update(ratio_figures(arena, fig["live_peak"], total))
        if order_ok:
            f1, _ = figures_1_3(g, order, {}, align)
            fig["order_live_peak"] = f1["live_peak"]
            fig["given_arena"] = f1["given_arena"]
            fig["reduction_vs_given"] = 1 - arena / f1["given_arena"] if f1["given_arena"] else 0.0
    fig["align"] = align
    check_reported(plan, fig, errors)
    return {"valid": not errors, "errors": errors, "notes": notes, "figures": fig}


EXACT = ("nodes", "buffers", "live_peak", "arena", "sum_sizes", "recomputed", "transferred",
         "residencies", "stale_reruns", "given_arena")
REAL = ("fragmentation", "reuse_ratio", "reduction_vs_noreuse", "duration", "base_time",
        "overhead", "recompute_time", "stall_time", "profile_std")


def check_reported(plan, fig, errors):
    """1.5: "the reported figures recompute exactly". given_arena (bysize's tie rule is not
    DESIGN's) is taken from the plan to check reduction_vs_given; a lower_bound must lie
    between the bound every plan meets and the live peak; a budget must hold (6.3)."""
    fig = dict(fig)
    if "samples_std" in fig:
        fig["profile_std"] = fig["samples_std"]
    if plan.get("given_arena"):
        fig["given_arena"] = plan["given_arena"]
        fig["reduction_vs_given"] = 1 - fig["arena"] / plan["given_arena"]
    for k in EXACT:
        if plan.get(k) is not None and k in fig and plan[k] != fig[k]:
            errors.append(f"reported {k} {plan[k]} != recomputed {fig[k]}")
    for k in REAL + ("reduction_vs_given",):
        if plan.get(k) is not None and fig.get(k) is not None and not close(plan[k], fig[k]):
            errors.append(f"reported {k} {plan[k]} != recomputed {fig[k]}")
    lb, floor = plan.get("lower_bound"), fig.get("remat_lower_bound", fig.get("sched_lower_bound"))
    if lb is not None and floor is not None and not floor <= lb <= fig["live_peak"]:
        errors.append(f"reported lower_bound {lb} not in [{floor}, {fig['live_peak']}]")
    if plan.get("budget") is not None and fig["live_peak"] > plan["budget"]:
        errors.append(f"live peak {fig['live_peak']} above the budget {plan['budget']}")


def close(a, b, rel=1e-9):
    if a == b:
        return True
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= rel * max(1.0, abs(a), abs(b))
    return False


def main(argv):
    args, opts = [], {}
    it = iter(argv)
    for a in it:
        if a == "--initial-sample":
            global INITIAL_SAMPLE
            INITIAL_SAMPLE = True
        elif a in ("--align", "--bandwidth"):
            opts[a[2:]] = float(next(it)) if a == "--bandwidth" else int(next(it))
        else:
            args.append(a)
    try:
        g = read_graph(args[0])
    except (GraphError, ValueError, KeyError, TypeError) as e:
        print(json.dumps({"graph_error": str(e)}))
        return 2
    plan = {"order": g["order"], "offsets": None} if len(args) < 2 else json.load(open(args[1]))
    if len(args) < 2:
        fig, _ = figures_1_3(g, g["order"], {}, opts.get("align", 64))
        print(json.dumps({"valid": True, "errors": [], "figures": fig}))
        return 0
    out = judge(g, plan, opts.get("align"), opts.get("bandwidth"))
    print(json.dumps(out, indent=1, default=str))
    return 0 if out["valid"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
