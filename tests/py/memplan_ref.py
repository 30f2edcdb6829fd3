"""An independent reference of DESIGN.md's semantics (sections 1 and 6).

Written from the text of ../shared/DESIGN.md and the README's "Semantics
decisions" alone, in a different language from memplan, so that the two can
be compared on any input (tests/py/audit.py drives the comparison).  Standard
library only.  Every function raises RefError (a graph or plan that DESIGN
calls invalid) or returns plain data.

Where DESIGN leaves room the README's decisions are followed; the places are
marked "decision:" below.
"""

import json
import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction

INT64_MAX = (1 << 63) - 1
# decision (memplan's, not in DESIGN): a byte count above 2^56 "overflows",
# so that sums of sizes and offsets never wrap in int64
SIZE_MAX = 1 << 56
TOTAL_MAX = 1 << 60   # the sizes of one problem, workspaces included
ALIGN_MAX = 1 << 30
OFFSET_MAX = 1 << 60  # a pinned offset
TIME_MAX = 1 << 40    # CSV times
COST_TOTAL_MAX = float(1 << 60)  # the costs of one graph
REAL_INT_MAX = 1 << 53  # a size written as a real must be below this
PARAM = "param"  # the alias root of `alias: -1`: no arena storage


class RefError(Exception):
    """An input DESIGN calls malformed, or a plan DESIGN calls invalid."""


class NotGraphJSON(RefError):
    """A file memplan reads as networkx node-link data (not modelled here)."""


# ---------------------------------------------------------------- JSON ---

def _no_constant(name):
    raise RefError("not valid JSON: %s" % name)


def _no_duplicate_keys(pairs):
    d = {}
    for k, v in pairs:
        if k in d:  # decision (memplan's): a duplicate key is refused
            raise RefError("duplicate key %r" % k)
        d[k] = v
    return d


def load_json_text(text):
    """JSON with exact numbers: ints stay ints, reals become Decimal."""
    if text.startswith("\ufeff"):  # decision (memplan's): a UTF-8 BOM is skipped
        text = text[1:]
    try:
        return json.loads(text, parse_float=Decimal, parse_constant=_no_constant,
                          object_pairs_hook=_no_duplicate_keys)
    except ValueError as e:
        raise RefError("not valid JSON: %s" % e)


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x):
    return (_is_int(x) or isinstance(x, Decimal)) and not isinstance(x, bool)


def _bytes_value(x, what, nid):
    """A byte count: a non-negative integer that fits in int64 (1.1)."""
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise RefError("node %s: %s is not finite" % (nid, what))
        if x != x.to_integral_value():
            raise RefError("node %s: fractional %s" % (nid, what))
        if abs(x) >= REAL_INT_MAX:  # decision (memplan's): exact reals only
            raise RefError("node %s: %s overflows" % (nid, what))
        x = int(x)  # 4.0 or 1e3 is an integral value
    if not _is_int(x):
        raise RefError("node %s: %s is not a number" % (nid, what))
    if x < 0:
        raise RefError("node %s: negative %s" % (nid, what))
    if x > SIZE_MAX:
        raise RefError("node %s: %s overflows" % (nid, what))
    return x


def _cost_value(x, what, nid):
    if not _is_num(x):
        raise RefError("node %s: %s is not a number" % (nid, what))
    v = float(x)
    if not math.isfinite(v) or v < 0:
        raise RefError("node %s: %s is negative or not finite" % (nid, what))
    return v


# --------------------------------------------------------------- graph ---

class Graph:
    """A graph file (DESIGN 1.1) and its buffers (1.2), order-independent."""

    def __init__(self):
        self.name = ""
        self.n = 0
        self.file_order = []  # node ids in file order
        self.pos = {}         # id -> file position
        self.nout = {}        # id -> number of output slots
        self.out_size = {}    # id -> [bytes per output]
        self.multi = {}       # id -> True when the node was given `outputs`
        self.refs = {}        # id -> [(j, k or None)]
        self.alias = {}       # id -> None | PARAM | (j, k or None)
        self.inplace = {}
        self.ws = {}
        self.op = {}
        self.cost = {}
        self.host_bandwidth = 0.0


def _parse_ref(r, nid, what):
    if _is_int(r):
        return (r, None)
    if isinstance(r, list) and len(r) == 2 and _is_int(r[0]) and _is_int(r[1]):
        return (r[0], r[1])
    raise RefError("node %s: malformed %s %r" % (nid, what, r))


def is_nodelink(obj):
    """decision (memplan's, README "Input formats"): a "links" or "edges" key
    beside a "nodes" array is node-link data unless some node has "inputs"
    (node-link nodes have none); else the keys are unknown keys of 1.1."""
    return (isinstance(obj, dict) and isinstance(obj.get("nodes"), list)
            and ("links" in obj or "edges" in obj)
            and not any(isinstance(nd, dict) and "inputs" in nd for nd in obj["nodes"]))


def parse_graph(obj, default_name=""):
    """DESIGN 1.1: the validity rules.  Raises RefError on a malformed file,
    NotGraphJSON on one memplan reads as node-link data."""
    if is_nodelink(obj):
        raise NotGraphJSON("node-link data (a links/edges key, no node with inputs)")
    if not isinstance(obj, dict) or not isinstance(obj.get("nodes"), list):
        raise RefError("not a graph: no nodes array")
    g = Graph()
    g.name = obj.get("name", default_name)
    if "host_bandwidth" in obj:
        g.host_bandwidth = _cost_value(obj["host_bandwidth"], "host_bandwidth", "-")
    nodes = obj["nodes"]
    seen = set()
    for i, nd in enumerate(nodes):
        if not isinstance(nd, dict):
            raise RefError("nodes[%d]: not an object" % i)
        if "id" not in nd:
            raise RefError("nodes[%d]: missing id" % i)
        nid = nd["id"]
        if not _is_int(nid):
            raise RefError("nodes[%d]: id is not an integer" % i)
        if nid in seen:
            raise RefError("node %d: duplicate id" % nid)
        seen.add(nid)
        g.file_order.append(nid)
        _parse_node(g, nd, nid)
    g.n = len(nodes)
    for nid in g.file_order:
        if nid < 0 or nid >= g.n:
            raise RefError("node %d: id out of range 0..%d" % (nid, g.n - 1))
    g.pos = {v: p for p, v in enumerate(g.file_order)}
    total = sum(sum(g.out_size[v]) + g.ws[v] for v in g.file_order if g.alias[v] is None)
    total += sum(g.ws[v] for v in g.file_order if g.alias[v] is not None)
    if total > TOTAL_MAX:  # decision (memplan's): no sum can wrap
        raise RefError("the sizes add up to more than 2^60")
    if sum(g.cost.values()) > COST_TOTAL_MAX:  # decision (memplan's): durations stay finite
        raise RefError("the costs add up to more than 2^60")
    _check_refs(g)
    return g


def _parse_node(g, nd, nid):
    if "size" in nd and "outputs" in nd:
        raise RefError("node %d: both size and outputs" % nid)
    if "outputs" in nd:
        outs = nd["outputs"]
        if not isinstance(outs, list):
            raise RefError("node %d: outputs is not an array" % nid)
        g.out_size[nid] = [_bytes_value(x, "output size", nid) for x in outs]
        g.multi[nid] = True
    else:
        g.out_size[nid] = [_bytes_value(nd.get("size", 0), "size", nid)]
        g.multi[nid] = False
    g.nout[nid] = len(g.out_size[nid])
    ins = nd.get("inputs", [])
    if not isinstance(ins, list):
        raise RefError("node %d: inputs is not an array" % nid)
    g.refs[nid] = [_parse_ref(r, nid, "input") for r in ins]
    a = nd.get("alias")
    if a is None:
        g.alias[nid] = None
    elif _is_int(a) and a == -1:
        g.alias[nid] = PARAM
    else:
        g.alias[nid] = _parse_ref(a, nid, "alias")
    ip = nd.get("inplace", False)
    if not isinstance(ip, bool):
        raise RefError("node %d: inplace is not a boolean" % nid)
    g.inplace[nid] = ip
    g.ws[nid] = _bytes_value(nd.get("workspace", 0), "workspace", nid)
    g.op[nid] = nd.get("op", "")
    if not isinstance(g.op[nid], str):
        raise RefError("node %d: op is not a string" % nid)
    if ip and g.alias[nid] is None:  # decision: which storage would it write?
        raise RefError("node %d: inplace without alias" % nid)
    if "cost" in nd:
        g.cost[nid] = _cost_value(nd["cost"], "cost", nid)
    else:  # DESIGN 6.1: 0 for inputs, outputs and views, else 1
        free = g.op[nid] in ("input", "output") or g.alias[nid] is not None
        g.cost[nid] = 0.0 if free else 1.0


def _check_refs(g):
    for v in g.file_order:
        for (j, k) in g.refs[v]:
            if j < 0 or j >= g.n:
                raise RefError("node %d: input %d out of range" % (v, j))
            if k is not None and (k < 0 or k >= g.nout[j]):
                raise RefError("node %d: input [%d, %d]: output %d out of range"
                               % (v, j, k, k))
            if g.pos[j] >= g.pos[v]:
                raise RefError("node %d: the file order is not topological "
                               "(input %d comes later, or a cycle)" % (v, j))
        a = g.alias[v]
        if a is None or a == PARAM:
            continue
        j, k = a
        if j < 0 or j >= g.n:
            raise RefError("node %d: alias %d out of range" % (v, j))
        if k is not None and (k < 0 or k >= g.nout[j]):
            raise RefError("node %d: alias output %d out of range" % (v, k))
        if k is None and g.nout[j] != 1 and g.alias[j] is None:
            raise RefError("node %d: alias %d names a node with %d outputs"
                           % (v, j, g.nout[j]))
        if not _alias_among_inputs(g, v, j, k):
            raise RefError("node %d: alias not among its inputs" % v)


def _alias_among_inputs(g, v, j, k):
    for (a, b) in g.refs[v]:
        if a != j:
            continue
        if b is None or k is None or b == k:
            return True
    return False


# ---------------------------------------------------- buffers (1.2) ---

class Model:
    """Buffers, alias roots, readers, graph outputs and edges of a graph."""

    def __init__(self, g):
        self.g = g
        self.size = {}       # buffer key -> bytes (tensors and workspaces)
        self.owner = {}      # buffer key -> owning node
        self.is_ws = {}
        self.root_memo = {}
        self._make_buffers()
        self._alias_sets()
        self._readers()
        self._graph_outputs()
        self._edges()

    # -- tensors and their roots
    def key(self, j, k):
        # "J" the buffer of a single-output node (also `outputs: [x]`),
        # "J:K" output K of a multi-output node
        return str(j) if self.g.nout[j] == 1 else "%d:%d" % (j, k)

    def tensors(self, j, k):
        """The tensors a reference names: `j` all of j's outputs."""
        if k is None:
            return [(j, i) for i in range(self.g.nout[j])]
        return [(j, k)]

    def root(self, j, k):
        """The buffer key owning tensor (j, k), PARAM, or None (no storage)."""
        g = self.g
        a = g.alias[j]
        if a is None:
            return self.key(j, k) if g.out_size[j][k] > 0 else None
        if a == PARAM:
            return PARAM
        aj, ak = a
        if ak is None:
            if g.alias[aj] is not None:
                return self.root(aj, 0) if g.nout[aj] > 0 else self.view_root(aj)
            ak = 0
        return self.root(aj, ak)

    def view_root(self, j):
        """The root of a view node, whatever output (even with none)."""
        a = self.g.alias[j]
        if a == PARAM:
            return PARAM
        aj, ak = a
        if ak is None:
            if self.g.alias[aj] is not None:
                return self.view_root(aj)
            ak = 0
        return self.root(aj, ak)

    def ref_buffers(self, j, k):
        """Buffers (keys) a reference reads, without duplicates, in order."""
        out = []
        for (a, b) in self.tensors(j, k):
            r = self.root(a, b)
            if r is not None and r != PARAM and r not in out:
                out.append(r)
        if self.g.nout[j] == 0 and self.g.alias[j] is not None:
            # decision: naming a view with `outputs: []` reads the storage it
            # views (1.2: a buffer is read through any node of its alias set)
            r = self.view_root(j)
            if r is not None and r != PARAM:
                out.append(r)
        return out

    def _make_buffers(self):
        g = self.g
        self.tensor_bufs = []  # tensor buffer keys in file order
        self.made_by = {v: [] for v in g.file_order}
        for v in g.file_order:
            if g.alias[v] is None:
                for k, s in enumerate(g.out_size[v]):
                    if s > 0:
                        b = self.key(v, k)
                        self.size[b] = s
                        self.owner[b] = v
                        self.is_ws[b] = False
                        self.tensor_bufs.append(b)
                        self.made_by[v].append(b)
        self.ws_bufs = []
        for v in g.file_order:
            if g.ws[v] > 0:
                b = "ws:%d" % v
                self.size[b] = g.ws[v]
                self.owner[b] = v
                self.is_ws[b] = True
                self.ws_bufs.append(b)

    def _alias_sets(self):
        g = self.g
        self.alias_set = {b: {self.owner[b]} for b in self.tensor_bufs}
        self.view_of = {}  # view node -> its root buffer (or PARAM/None)
        for v in g.file_order:
            if g.alias[v] is not None:
                r = self.view_root(v)
                self.view_of[v] = r
                if r is not None and r != PARAM:
                    self.alias_set[r].add(v)

    def _readers(self):
        g = self.g
        self.reads = {}  # node -> distinct buffer keys it reads (in order)
        self.readers = {b: set() for b in self.tensor_bufs}
        for v in g.file_order:
            rs = []
            for (j, k) in g.refs[v]:
                for b in self.ref_buffers(j, k):
                    if b not in rs:
                        rs.append(b)
            self.reads[v] = rs
            for b in rs:
                self.readers[b].add(v)

    def _graph_outputs(self):
        g = self.g
        outs = [v for v in g.file_order if g.op[v] == "output"]
        named = set()
        for v in g.file_order:
            for (j, _k) in g.refs[v]:
                named.add(j)
        self.sinks = [v for v in g.file_order if v not in named]
        go = []
        if outs:
            for o in outs:
                for (j, k) in g.refs[o]:
                    go.extend(self.ref_buffers(j, k))
        else:
            for s in self.sinks:
                if g.alias[s] is None:
                    go.extend(self.ref_buffers(s, None))
                elif g.nout[s] > 0:  # decision: a sink that is a view outputs its
                    # storage; a view with `outputs: []` has no output to give
                    r = self.view_root(s)
                    if r is not None and r != PARAM:
                        go.append(r)
        self.graph_outputs = set(go)

    def _edges(self):
        """Data edges j -> v and the in-place edges of 1.2 (set of pairs)."""
        g = self.g
        self.data_edges = set()
        for v in g.file_order:
            for (j, _k) in g.refs[v]:
                self.data_edges.add((j, v))
        self.inplace_edges = set()
        params = self.param_accesses()
        for v in g.file_order:
            if not g.inplace[v] or g.alias[v] is None:
                continue
            b = self.view_of.get(v)
            if b is None:
                continue
            if b == PARAM:  # decision: a parameter is a storage too (README)
                others = params[self.param_of(v)]
            else:
                others = self.readers[b]
            for w in others:
                if w == v or (g.alias[w] is not None and not g.inplace[w]):
                    continue  # a pure view reads no data
                e = (w, v) if g.pos[w] < g.pos[v] else (v, w)
                if e not in self.data_edges:
                    self.inplace_edges.add(e)
        self.edges = self.data_edges | self.inplace_edges

    # -- parameters: the storage of an `alias: -1` node and its views
    def param_of(self, j):
        """The `alias: -1` node whose storage node j's tensors view."""
        while self.g.alias[j] != PARAM:
            j = self.g.alias[j][0]
        return j

    def param_accesses(self):
        """Per `alias: -1` node p, the nodes that read p's data (through
        any of its views) or write it in place: what 1.2 calls the readers
        of storage p, for the in-place rule only (p owns no arena memory)."""
        g = self.g
        out = {}
        for w in g.file_order:
            if g.inplace[w] and self.view_of.get(w) == PARAM:
                out.setdefault(self.param_of(w), set()).add(w)  # a writer
            for (j, k) in g.refs[w]:
                for (a, c) in self.tensors(j, k):
                    if self.root(a, c) == PARAM:
                        out.setdefault(self.param_of(a), set()).add(w)
                if g.nout[j] == 0 and g.alias[j] is not None and self.view_root(j) == PARAM:
                    out.setdefault(self.param_of(j), set()).add(w)  # an empty view
        return out

    # -- storages written in place (6.2)
    def inplace_storages(self):
        out = set()
        for v in self.g.file_order:
            if self.g.inplace[v]:
                b = self.view_of.get(v)
                if b is not None and b != PARAM:
                    out.add(b)
        return out


# -------------------------------------------------- orders (1.2/1.5) ---

def check_order(m, order):
    """None when `order` is a topological permutation, else the reason."""
    g = m.g
    if not isinstance(order, list) or any(not _is_int(x) for x in order):
        return "order is not a list of node ids"
    if sorted(order) != list(range(g.n)):
        return "order is not a permutation of the nodes"
    step = {v: t for t, v in enumerate(order)}
    for (a, b) in sorted(m.edges):
        if step[a] >= step[b]:
            kind = "in-place" if (a, b) in m.inplace_edges else "data"
            return "%s edge %d -> %d violated" % (kind, a, b)
    return None


def lifetimes(m, order):
    """Closed intervals [birth, death] of every buffer under `order`."""
    g = m.g
    step = {v: t for t, v in enumerate(order)}
    last = g.n - 1
    life = {}
    for b in m.tensor_bufs:
        o = m.owner[b]
        birth = 0 if g.op[o] == "input" else step[o]
        if b in m.graph_outputs:
            death = last
        elif not m.readers[b]:
            death = birth  # a dead value dies at once
        else:
            death = max(step[w] for w in (m.readers[b] | m.alias_set[b]))
        life[b] = (birth, death)
    for b in m.ws_bufs:
        t = step[m.owner[b]]
        life[b] = (t, t)
    return life


def pstd(xs):
    """Population standard deviation, exact mean (Fractions), float result."""
    if not xs:
        return 0.0
    n = len(xs)
    mean = Fraction(sum(xs), n)
    var = sum((Fraction(x) - mean) ** 2 for x in xs) / n
    return math.sqrt(var)


def order_figures(m, order):
    """Figures of 1.3 that depend on the order alone."""
    life = lifetimes(m, order)
    delta = [0] * (m.g.n + 1)
    for b, (lo, hi) in life.items():
        delta[lo] += m.size[b]
        delta[hi + 1] -= m.size[b]
    prof, run = [], 0
    for t in range(m.g.n):
        run += delta[t]
        prof.append(run)
    return {
        "life": life,
        "profile": prof,
        "live_peak": max(prof) if prof else 0,
        "sum_sizes": sum(m.size.values()),
        "profile_std": pstd(prof),
    }


def node_term(m, v):
    """v's term of the per-node bound: distinct buffers read + outputs +
    workspace.  Decision: the outputs of an input that is a dead value live
    at step 0 alone, so where v also holds other bytes (reads, workspace,
    live outputs) at its own step the term is the larger of the two sums,
    not their total (which no order need reach)."""
    g = m.g
    rest = sum(m.size[b] for b in m.reads[v]) + g.ws[v]
    dead = 0
    for b in m.made_by[v]:
        if g.op[v] == "input" and not m.readers[b] and b not in m.graph_outputs:
            dead += m.size[b]
        else:
            rest += m.size[b]
    return max(dead, rest)


def per_node_bound(m):
    """max over v of (distinct buffers read + outputs + workspace)."""
    return max([node_term(m, v) for v in m.g.file_order] or [0])


# ------------------------------------------------- placements (1.3) ---

def placement_figures(items, offsets, live_peak, given_arena=None):
    """items: key -> (size); offsets: key -> offset.  The figures of 1.3."""
    arena = max([offsets[k] + items[k] for k in items] or [0])
    total = sum(items.values())
    f = {"arena": arena, "sum_sizes": total, "live_peak": live_peak}
    # "a graph with no nodes is valid; every figure is 0": a zero
    # denominator gives 0 (decision: also for a graph whose buffers are all
    # of size 0)
    f["fragmentation"] = (arena - live_peak) / arena if arena else 0.0
    f["reuse_ratio"] = total / arena if arena else 0.0
    f["reduction_vs_noreuse"] = 1 - arena / total if total else 0.0
    if given_arena is not None:
        f["reduction_vs_given"] = 1 - arena / given_arena if given_arena else 0.0
    return f


def check_no_overlap(items, life, offsets, conflict):
    """None when no two conflicting items share an address, else the pair."""
    keys = sorted(items, key=lambda k: offsets[k])
    # sweep by offset: compare with every earlier item still reaching here
    active = []
    for k in keys:
        o = offsets[k]
        active = [a for a in active if offsets[a] + items[a] > o]
        for a in active:
            if items[k] > 0 and items[a] > 0 and conflict(life[a], life[k]):
                return (a, k)
        active.append(k)
    return None


def closed_conflict(a, b):
    return a[0] <= b[1] and b[0] <= a[1]


def halfopen_conflict(a, b):
    # decision: the literal test, also for empty lifetimes
    return a[0] < b[1] and b[0] < a[1]


def _num_close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def verify_graph_plan(m, plan):
    """DESIGN 1.5 for a graph plan (a dict read from the plan file).
    Returns the recomputed figures; raises RefError naming the violation."""
    g = m.g
    if not isinstance(plan, dict):
        raise RefError("plan is not an object")
    # decision (memplan's): the graph's name is not checked (a renamed copy
    # still verifies); DESIGN's list of checks does not name it
    align = plan.get("align")
    if not _is_int(align) or align < 1:
        raise RefError("bad align")
    order = plan.get("order")
    why = check_order(m, order)
    if why:
        raise RefError(why)
    offs = plan.get("offsets")
    if not isinstance(offs, dict):
        raise RefError("no offsets")
    # decision (memplan's): every buffer needs its offset ("J" may be
    # written "J:0", not both); a key that names no buffer is an error
    given = offs
    offs = {}
    alt = {k + ":0": k for k in m.size if ":" not in k}
    for k in given:
        if k not in m.size and k not in alt:
            raise RefError("offset key %s names no buffer" % k)
        if k in alt and alt[k] in given:
            raise RefError("offset keys %s and %s name one buffer" % (alt[k], k))
    for k in m.size:
        if k in given:
            offs[k] = given[k]
        elif ":" not in k and not k.startswith("ws:") and k + ":0" in given:
            offs[k] = given[k + ":0"]
        else:
            raise RefError("buffer %s has no offset" % k)
    for k, o in offs.items():
        if not _is_int(o) or o < 0:
            raise RefError("offset of %s is not a non-negative integer" % k)
        if o % align:
            raise RefError("offset of %s is not aligned" % k)
        if o + m.size[k] > INT64_MAX:
            raise RefError("offset of %s overflows" % k)
    of = order_figures(m, order)
    pair = check_no_overlap(m.size, of["life"], offs, closed_conflict)
    if pair:
        raise RefError("buffers %s and %s overlap" % pair)
    f = placement_figures(m.size, offs, of["live_peak"], plan.get("given_arena"))
    f["profile_std"] = of["profile_std"]
    _check_reported(plan, f)
    _check_statuses(plan, f)
    return f


STATUSES = ("optimal", "feasible", "infeasible", "timeout", "error")  # 1.3


def _check_statuses(plan, f):
    """decision (memplan's, AMBIGUITIES 21): "status" is one of 1.3's, a
    stage kind's status one of those or refused/fixed; a plan stating
    optimal states a bound its arena meets (lower_bound, a stage's bound,
    the live peak when the order was not searched)."""
    for k in ("status", "order_status", "remat_status", "place_status"):
        v = plan.get(k)
        if v is not None and v not in STATUSES + (() if k == "status" else ("refused", "fixed")):
            raise RefError("%s %r is not a status" % (k, v))
    if plan.get("status") != "optimal":
        return
    lb = plan.get("lower_bound")
    bounds = [lb if _is_int(lb) else -1]
    if plan.get("order_status") in (None, "fixed"):
        bounds.append(f["live_peak"])
    stages = plan.get("stages")
    for s in stages if isinstance(stages, list) else []:
        if isinstance(s, dict) and _is_int(s.get("bound")):
            bounds.append(s["bound"])
    if f["arena"] > max(bounds):
        raise RefError("optimal, yet the arena %d is above every stated bound %d"
                       % (f["arena"], max(bounds)))


FIGURE_NAMES = ("live_peak", "arena", "sum_sizes", "fragmentation",
                "reuse_ratio", "profile_std", "reduction_vs_noreuse",
                "reduction_vs_given")


INT_FIGURES = ("live_peak", "arena", "sum_sizes")


def _int_equal(stated, want):
    """A byte figure recomputes exactly (1.5): an integer is compared as an
    integer; a real (decision, memplan's reader) only below 2^53, where a
    double holds every integer."""
    if _is_int(stated):
        return stated == want
    return isinstance(stated, Decimal) and abs(want) < REAL_INT_MAX and \
        stated.is_finite() and float(stated) == float(want)


def _check_reported(plan, f):
    for name in FIGURE_NAMES:
        if plan.get(name) is None:  # decision (memplan's): null is not stated
            continue
        if name in f and name in INT_FIGURES:
            if not _int_equal(plan[name], f[name]):
                raise RefError("figure %s: %r, recomputed %r" % (name, plan[name], f[name]))
        elif name in plan and name in f:
            if not _num_close(plan[name] if plan[name] is None else float(plan[name]),
                              f[name]):
                raise RefError("figure %s: %r, recomputed %r" % (name, plan[name], f[name]))


# ------------------------------------------ fixed lifetimes (1.4) ---

class Instance:
    """Rows of a fixed-lifetime CSV, keyed by row index (ids may repeat)."""

    def __init__(self):
        self.ids = []
        self.lo = {}
        self.hi = {}
        self.size = {}
        self.align = {}
        self.pinned = {}
        self.offset_col = False


def parse_csv(text, default_align=1):
    """MiniMalloc's CSV (1.4).  Raises RefError on a malformed file."""
    if text.startswith("\ufeff"):  # a UTF-8 byte order mark
        text = text[1:]
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    rows = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip() != ""]
    if not rows:
        raise RefError("empty CSV: no header")
    head = [c.strip() for c in rows[0][1].split(",")]
    for need in ("id", "lower", "upper", "size"):
        if need not in head:
            raise RefError(":%d: missing column '%s'" % (rows[0][0], need))
    if len(set(head)) != len(head):
        raise RefError("duplicate column")
    inst = Instance()
    inst.offset_col = "offset" in head
    for ln, text_row in rows[1:]:
        cells = [c.strip() for c in text_row.split(",")]
        if len(cells) != len(head):
            raise RefError(":%d: %d fields, the header has %d" % (ln, len(cells), len(head)))
        row = dict(zip(head, cells))
        i = len(inst.ids)
        if row["id"] in inst.ids:  # decision (memplan's)
            raise RefError(":%d: duplicate id %s" % (ln, row["id"]))
        vals = {}
        for c in ("lower", "upper", "size", "alignment"):
            # decision (memplan's): an empty alignment cell sets nothing
            if c in row and not (c == "alignment" and row[c] == ""):
                vals[c] = _csv_int(row[c], c, ln)
        # decision (memplan's): an empty offset field or -1 pins nothing
        if "offset" in row and row["offset"] not in ("", "-1"):
            vals["offset"] = _csv_int(row["offset"], "offset", ln)
        # decision (memplan's limits, src/util.h)
        for c, lim in (("lower", TIME_MAX), ("upper", TIME_MAX), ("size", SIZE_MAX),
                       ("alignment", ALIGN_MAX), ("offset", OFFSET_MAX)):
            if c in vals and vals[c] > lim:
                raise RefError(":%d: field '%s' above its limit" % (ln, c))
        if vals["lower"] > vals["upper"]:
            raise RefError(":%d: lower %d > upper %d" % (ln, vals["lower"], vals["upper"]))
        # decision (memplan's): with the column, default_align (--align) is not used
        al = vals.get("alignment", 1 if "alignment" in row else default_align)
        if al < 1:
            raise RefError(":%d: alignment below 1" % ln)
        inst.ids.append(row["id"])
        if sum(inst.size.values()) + vals["size"] > TOTAL_MAX:
            raise RefError(":%d: the sizes add up to more than 2^60" % ln)
        inst.lo[i], inst.hi[i], inst.size[i] = vals["lower"], vals["upper"], vals["size"]
        inst.align[i] = al
        if "offset" in vals:
            inst.pinned[i] = vals["offset"]
    return inst


def _csv_int(s, col, ln):
    t = s[1:] if s[:1] in "+-" else s
    if not t.isdigit() or not t.isascii():
        raise RefError(":%d: field '%s' is not an integer" % (ln, col))
    v = int(s)
    if v < 0:
        raise RefError(":%d: field '%s' is negative" % (ln, col))
    if v > INT64_MAX:
        raise RefError(":%d: field '%s' overflows" % (ln, col))
    return v


def csv_figures(inst, offsets):
    rows = range(len(inst.ids))
    life = {i: (inst.lo[i], inst.hi[i]) for i in rows}
    t0 = min(inst.lo.values()) if inst.ids else 0
    t1 = max(inst.hi.values()) if inst.ids else 0
    delta = [0] * (max(0, t1 - t0) + 1)
    for i in rows:
        if inst.hi[i] > inst.lo[i]:
            delta[inst.lo[i] - t0] += inst.size[i]
            delta[inst.hi[i] - t0] -= inst.size[i]
    prof, run = [], 0
    for t in range(max(0, t1 - t0)):
        run += delta[t]
        prof.append(run)
    peak = max(prof) if prof else 0
    f = placement_figures(inst.size, offsets, peak)
    f["profile_std"] = pstd(prof)
    f["life"] = life
    return f


def verify_csv_plan(inst, plan_inst):
    """A placed CSV against its instance: same buffers, pins kept, aligned,
    no overlap of conflicting buffers.  Returns the figures."""
    if not plan_inst.offset_col:
        raise RefError("the plan has no offset column")
    used = set()
    offs = {}
    for i, bid in enumerate(inst.ids):
        j = next((j for j, b in enumerate(plan_inst.ids) if b == bid and j not in used), None)
        if j is None:
            raise RefError("buffer %s has no row in the plan" % bid)
        used.add(j)
        if (plan_inst.lo[j], plan_inst.hi[j], plan_inst.size[j]) != (inst.lo[i], inst.hi[i], inst.size[i]):
            raise RefError("buffer %s changed" % bid)
        if j not in plan_inst.pinned:
            raise RefError("buffer %s has no offset" % bid)
        offs[i] = plan_inst.pinned[j]
        if i in inst.pinned and offs[i] != inst.pinned[i]:
            raise RefError("pinned buffer %s moved" % bid)
        if offs[i] % inst.align[i]:
            raise RefError("buffer %s is not aligned" % bid)
    f = csv_figures(inst, offs)
    pair = check_no_overlap(inst.size, f["life"], offs, halfopen_conflict)
    if pair:
        raise RefError("rows %s and %s overlap" % pair)
    return f


# --------------------------------------------- event plans (6.2) ---

RUN, FREE, OUT, IN = "run", "free", "out", "in"


def parse_events(m, evs):
    """[["run", v] | [kind, "J"]] -> [(kind, arg)], checked for shape."""
    if not isinstance(evs, list):
        raise RefError("events is not an array")
    out = []
    for i, e in enumerate(evs):
        if not isinstance(e, list) or len(e) != 2 or e[0] not in (RUN, FREE, OUT, IN):
            raise RefError("event %d: malformed" % i)
        kind, arg = e
        if kind == RUN:
            if not _is_int(arg) or arg < 0 or arg >= m.g.n:
                raise RefError("event %d: no such node" % i)
        else:
            if not isinstance(arg, str) or arg not in m.tensor_bufs:
                raise RefError("event %d: no such buffer %r" % (i, arg))
        out.append((kind, arg))
    return out


def verify_events(m, evs, bandwidth):
    """The rules of 6.2.  Returns None when valid, else (index, reason)."""
    g = m.g
    inputs = [v for v in g.file_order if g.op[v] == "input"]
    resident = set(b for v in inputs for b in m.made_by[v])
    host = set()
    runs = {v: 0 for v in g.file_order}
    first = []
    pinned = m.inplace_storages()
    pinned_nodes = set()
    for b in pinned:
        pinned_nodes |= m.alias_set[b]
    # a parameter written in place is such a storage too: its views run once
    written = {m.param_of(w) for w in g.file_order if g.inplace[w] and m.view_of.get(w) == PARAM}
    pinned_nodes |= {v for v in g.file_order if m.view_of.get(v) == PARAM and m.param_of(v) in written}
    step = {}
    for i, (kind, x) in enumerate(evs):
        if kind == RUN:
            if g.op[x] == "input":
                return (i, "an input node runs")
            if x in pinned_nodes and runs[x] >= 1:
                return (i, "a node of an in-place storage's alias set runs twice")
            for b in m.reads[x]:
                if b not in resident:
                    return (i, "node %d reads %s, not resident" % (x, b))
            if runs[x] == 0:
                for (a, c) in m.edges:
                    if c == x and g.op[a] != "input" and runs[a] == 0:
                        return (i, "first run of %d before %d" % (x, a))
                first.append(x)
            for b in m.made_by[x]:
                if b in resident:
                    return (i, "%s made resident while resident" % b)
            resident.update(m.made_by[x])
            runs[x] += 1
        elif kind == FREE:
            if x not in resident:
                return (i, "free of %s, not resident" % x)
            resident.discard(x)
        elif kind == OUT:
            if bandwidth <= 0:
                return (i, "a copy without a host link")
            if x in pinned:
                return (i, "in-place storage %s offloaded" % x)
            if x not in resident:
                return (i, "out of %s, not resident" % x)
            host.add(x)
        elif kind == IN:
            if bandwidth <= 0:
                return (i, "a copy without a host link")
            if x not in host:
                return (i, "in of %s without a host copy" % x)
            if x in resident:
                return (i, "%s made resident while resident" % x)
            resident.add(x)
    for v in g.file_order:
        if g.op[v] != "input" and runs[v] == 0:
            return (len(evs), "node %d never runs" % v)
    for b in m.graph_outputs:
        if b not in resident:
            return (len(evs), "graph output %s not resident at the end" % b)
    return None


def events_first_runs(m, evs):
    seen, first = set(), []
    for kind, x in evs:
        if kind == RUN and x not in seen:
            seen.add(x)
            first.append(x)
    return first


def check_events_order(m, evs, order):
    """An event plan's stated "order" (1.5's key; a decision): every node
    once, the non-input nodes in the order of their first runs, the inputs
    (they never run, 6.2) anywhere, as section 1 lets an order put them.
    None when it holds, else why not."""
    g = m.g
    if not isinstance(order, list) or len(order) != g.n:
        return "order does not list every node"
    if any(not _is_int(v) or v < 0 or v >= g.n for v in order):
        return "order names no node"
    if len(set(order)) != g.n:
        return "order names a node twice"
    if [v for v in order if g.op[v] != "input"] != events_first_runs(m, evs):
        return "order is not the first runs' order"
    return None


def events_memory(m, evs):
    """Samples (6.3), the residencies as fixed-lifetime items, and their
    sizes.  Residency keys: (buffer, time made); workspaces ("ws:v", k)."""
    g = m.g
    inputs = [v for v in g.file_order if g.op[v] == "input"]
    cur = 0
    open_res = {}
    items = {}
    life = {}
    for v in inputs:
        for b in m.made_by[v]:
            cur += m.size[b]
            open_res[b] = 0
    # decision: the start is a sample when the graph has an input node
    # (section 1's input step); without one it has none, and 6.2's
    # equivalence rule then gives section 1's profile exactly
    samples = [cur] if inputs else []
    t = 0
    for kind, x in evs:
        if kind == RUN:
            t += 1
            for b in m.made_by[x]:
                cur += m.size[b]
                open_res[b] = t
            samples.append(cur + g.ws[x])
            if g.ws[x] > 0:
                key = ("ws:%d" % x, t)
                items[key] = g.ws[x]
                life[key] = (t, t + 1)
        elif kind == IN:
            t += 1
            cur += m.size[x]
            open_res[x] = t
            samples.append(cur)
        elif kind == FREE:
            cur -= m.size[x]
            key = (x, open_res.pop(x))
            items[key] = m.size[x]
            life[key] = (key[1], t + 1)
    for b, t0 in open_res.items():
        key = (b, t0)
        items[key] = m.size[b]
        life[key] = (t0, t + 1)
    return samples, items, life


def events_time(m, evs, bandwidth):
    """The deterministic simulation of 6.3: (duration, sum of run costs)."""
    g = m.g
    issue = 0.0
    comp = to_host = from_host = 0.0
    ready = {}
    for v in g.file_order:
        if g.op[v] == "input":
            for b in m.made_by[v]:
                ready[b] = 0.0
    out_end = {}     # buffer -> end of its latest out
    read_ends = {}   # buffer -> latest end of a run reading it
    last_end = 0.0
    run_cost = 0.0
    for kind, x in evs:
        if kind == RUN:
            start = max([issue, comp] + [ready[b] for b in m.reads[x]])
            end = start + g.cost[x]
            comp = end
            run_cost += g.cost[x]
            for b in m.made_by[x]:
                ready[b] = end
            for b in m.reads[x]:
                read_ends[b] = max(read_ends.get(b, 0.0), end)
        elif kind == OUT:
            start = max(issue, to_host, ready[x])
            end = start + m.size[x] / bandwidth
            to_host = end
            out_end[x] = max(out_end.get(x, 0.0), end)
        elif kind == IN:
            start = max(issue, from_host, out_end[x])
            end = start + m.size[x] / bandwidth
            from_host = end
            ready[x] = end
        else:  # FREE: holds the issue of what follows
            end = max(issue, read_ends.get(x, 0.0), out_end.get(x, 0.0))
            issue = end
            read_ends.pop(x, None)
        last_end = max(last_end, end)
    return last_end, run_cost


def stale_reruns(m, evs):
    """Reruns that read a storage (a buffer or a parameter) whose in-place
    writes done so far are not those before the node in the file order."""
    g = m.g
    writers = {}  # storage -> file positions of its in-place writers
    for w in g.file_order:
        if g.inplace[w] and m.view_of.get(w) is not None:
            b = m.view_of[w]
            key = ("p", m.param_of(w)) if b == PARAM else ("b", b)
            writers.setdefault(key, []).append(g.pos[w])
    reads = {v: set() for v in g.file_order}
    for v in g.file_order:
        if g.alias[v] is not None and not g.inplace[v]:
            continue  # a pure view reads no data
        reads[v] |= {("b", b) for b in m.reads[v]}
    for p, users in m.param_accesses().items():
        for v in users:
            if g.alias[v] is None or g.inplace[v]:
                reads[v].add(("p", p))
    done, ran, stale = {}, set(), 0
    for kind, x in evs:
        if kind != RUN:
            continue
        if x in ran and any(len([q for q in writers[s] if q < g.pos[x]]) != done.get(s, 0)
                            for s in reads[x] if s in writers):
            stale += 1
        ran.add(x)
        if g.inplace[x] and m.view_of.get(x) is not None:
            b = m.view_of[x]
            key = ("p", m.param_of(x)) if b == PARAM else ("b", b)
            done[key] = done.get(key, 0) + 1
    return stale


def events_figures(m, evs, bandwidth):
    g = m.g
    samples, items, life = events_memory(m, evs)
    duration, run_cost = events_time(m, evs, bandwidth)
    base = sum(g.cost[v] for v in g.file_order)
    seen = set()
    rec_t, rec_n, moved = 0.0, 0, 0
    for kind, x in evs:
        if kind == RUN:
            if x in seen:
                rec_t += g.cost[x]
                rec_n += 1
            seen.add(x)
        elif kind in (OUT, IN):
            moved += m.size[x]
    return {
        "samples": samples, "items": items, "life": life,
        "live_peak": max(samples, default=0), "profile_std": pstd(samples),
        "sum_sizes": sum(items.values()), "residencies": len(items),
        "duration": duration, "base_time": base,
        # 1.1: every figure of a graph with no nodes is 0
        "overhead": duration / base - 1 if base > 0 else (0.0 if g.n == 0 else None),
        "recompute_time": rec_t, "recomputed": rec_n,
        "stall_time": duration - run_cost, "transferred": moved,
        "stale_reruns": stale_reruns(m, evs),
    }


def events_floor(m):
    """6.3's floor: the largest per-node need (nodes that run: inputs never
    do), and (decisions) the input buffers of the start sample and the graph
    outputs resident together at the end."""
    g = m.g
    ins = sum(m.size[b] for v in g.file_order if g.op[v] == "input" for b in m.made_by[v])
    outs = sum(m.size[b] for b in m.graph_outputs)
    need = 0
    for v in g.file_order:
        if g.op[v] != "input":
            need = max(need, sum(m.size[b] for b in m.reads[v] + m.made_by[v]) + g.ws[v])
    return max(ins, outs, need)


def keepall_events(m, order):
    """The plan of 6.2's equivalence rule: run each node once in `order`,
    free every buffer right after its last reader (dead: after its birth
    step; a dead input's is step 0, as section 1 has it, so it is freed
    after the first step's run, not before)."""
    g = m.g
    life = lifetimes(m, order)
    evs = []
    dies = {}
    for b in m.tensor_bufs:
        if b in m.graph_outputs:
            continue
        dies.setdefault(life[b][1], []).append(b)
    for t, v in enumerate(order):
        if g.op[v] != "input":
            evs.append((RUN, v))
        evs.extend((FREE, b) for b in dies.get(t, []))
    return evs


def budget_frac(frac_text, peak):
    """ceil(F x P), exactly, from the decimal text of F."""
    try:
        f = Fraction(Decimal(frac_text))
    except (InvalidOperation, ValueError):
        raise RefError("bad fraction")
    return math.ceil(f * peak)
