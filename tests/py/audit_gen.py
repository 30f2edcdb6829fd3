"""Random inputs that stress DESIGN 1.1-1.5 and 6: graphs, invalid graphs,
fixed-lifetime CSVs, and mutations of plans.  Deterministic for a
random.Random."""

import copy
import json

SIZES = [0, 1, 3, 7, 64, 100, 128, 1000, 4096, 65536]


BIG_PROB = 0.01  # the share of sizes beyond 2^54 (audit.py --big)


def _size(rng):
    if rng.random() < BIG_PROB:  # beyond 2^53: figures a double cannot hold exactly
        return (1 << 54) + rng.randint(0, 1000)
    if rng.random() < 0.3:
        return rng.randint(1, 5000)
    return rng.choice(SIZES)


class _Slot:
    def __init__(self, kind, nout, view, param=False):
        self.kind, self.nout, self.view = kind, nout, view
        self.param = param  # its alias chain ends at an `alias: -1` node


KINDS = [("input", 12), ("op", 30), ("multi", 10), ("view", 12),
         ("inplace", 12), ("param", 6), ("output", 5), ("zero", 4)]


def _kind(rng, p):
    tot = sum(w for _, w in KINDS)
    x = rng.uniform(0, tot)
    for k, w in KINDS:
        x -= w
        if x <= 0:
            return k
    return "op"


def _ref(rng, slots, j, whole_ok=True):
    """A reference to node (position) j: `j` or `[j, k]`."""
    s = slots[j]
    if s.nout == 0 or (whole_ok and rng.random() < 0.5):
        return j
    return [j, rng.randrange(s.nout)] if s.nout else j


def _alias_ref(rng, slots, j):
    s = slots[j]
    if s.nout == 1 or s.view:
        if rng.random() < 0.6 or s.nout == 0:
            return j
    if s.nout == 0:
        return None
    return [j, rng.randrange(s.nout)]


def gen_graph(rng, n_max=12, name=None):
    """A random valid graph (as a dict), nodes in a shuffled id order."""
    n = rng.choice([0, 1, 2]) if rng.random() < 0.04 else rng.randint(2, n_max)
    only_inputs = rng.random() < 0.03
    slots, nodes = [], []
    for p in range(n):
        kind = "input" if (p == 0 and rng.random() < 0.7) or only_inputs else _kind(rng, p)
        if p == 0 and kind not in ("input", "op", "multi", "zero"):
            kind = "op"
        nd = {"id": p, "name": "n%d" % p, "op": kind, "inputs": []}
        nout, view = 1, False
        if kind == "input":
            if rng.random() < 0.15:  # a tuple of inputs
                nd["outputs"] = [_size(rng) for _ in range(rng.choice([0, 1, 2, 3]))]
                nout = len(nd["outputs"])
            else:
                nd["size"] = _size(rng)
            if rng.random() < 0.3:
                del nd["inputs"]
        elif kind == "multi":
            k = rng.choice([0, 1, 2, 2, 3])
            nd["outputs"] = [_size(rng) for _ in range(k)]
            nout = k
        elif kind == "zero":
            nd["size"] = 0
        elif kind == "output":
            nd["size"] = 0
        else:
            nd["size"] = _size(rng)
        earlier = list(range(p))
        param = kind == "param"
        if kind in ("view", "inplace") and earlier:
            # an optimizer step: an in-place update of a parameter (or a
            # view of one) that earlier nodes may read, later ones too
            params = [q for q in earlier if slots[q].param]
            if kind == "inplace" and params and rng.random() < 0.6:
                j = rng.choice(params)
            else:
                j = rng.choice(earlier)
            param = slots[j].param
            a = _alias_ref(rng, slots, j)
            if a is None:
                kind, param = "op", False
            else:
                nd["alias"] = a
                nd["inputs"].append(a)
                view = True
                if kind == "inplace":
                    nd["inplace"] = True
                if rng.random() < 0.3:
                    nd["outputs"] = [_size(rng) for _ in range(rng.choice([0, 1, 1, 2]))]
                    nd.pop("size", None)
                    nout = len(nd["outputs"])
        elif kind in ("view", "inplace"):
            kind = "op"
        if kind == "param":
            nd["alias"] = -1
            view = True
            if rng.random() < 0.3:
                nd["inplace"] = True
        if kind != "input" and earlier:
            k = rng.choice([0, 1, 1, 2, 2, 3]) if kind != "output" else rng.randint(1, 3)
            for _ in range(k):
                nd["inputs"].append(_ref(rng, slots, rng.choice(earlier)))
            if rng.random() < 0.1 and nd["inputs"]:
                nd["inputs"].append(copy.deepcopy(rng.choice(nd["inputs"])))
            rng.shuffle(nd["inputs"])
        nd["op"] = {"op": "op", "multi": "split", "view": "view", "inplace": "relu_",
                    "param": "param_view", "zero": "size", "output": "output",
                    "input": "input"}[kind]
        if rng.random() < 0.15:
            nd["workspace"] = _size(rng)
        if rng.random() < 0.3:
            nd["cost"] = rng.choice([0, 1, 2.5, round(rng.uniform(0, 4), 3)])
        slots.append(_Slot(kind, nout, view, param))
        nodes.append(nd)
    # a trailing output node sometimes (reading views too)
    if n >= 2 and rng.random() < 0.15:
        nd = {"id": n, "op": "output", "size": 0,
              "inputs": [_ref(rng, slots, rng.randrange(n)) for _ in range(rng.randint(1, 3))]}
        nodes.append(nd)
        slots.append(_Slot("output", 1, False))
        n += 1
    perm = list(range(n))
    if rng.random() < 0.7:
        rng.shuffle(perm)
    _renumber(nodes, perm)
    g = {"name": name or "rand", "nodes": nodes}
    if rng.random() < 0.4:
        g["host_bandwidth"] = rng.choice([1, 50, 1000, 12.5])
    return g


def _renumber(nodes, perm):
    def rr(r):
        if isinstance(r, list):
            return [perm[r[0]], r[1]]
        return perm[r] if r != -1 else -1
    for nd in nodes:
        nd["id"] = perm[nd["id"]]
        if "inputs" in nd:
            nd["inputs"] = [rr(r) for r in nd["inputs"]]
        if "alias" in nd:
            nd["alias"] = rr(nd["alias"])


# ------------------------------------------------ invalid graphs ---

def break_graph(rng, g):
    """A copy of valid graph g with one rule of 1.1 broken (or an odd but
    valid change): returns (text, what)."""
    g = copy.deepcopy(g)
    nodes = g["nodes"]
    n = len(nodes)
    choices = ["dupid", "idrange", "inrange", "negsize", "fracsize", "bigsize",
               "cycle", "aliasnotin", "outindex", "sizeandoutputs", "badref",
               "missingid", "negws", "negcost", "nancost", "strsize", "aliasmulti",
               "inplacenoalias", "notjson", "selfref", "intfloat", "reorder",
               "aliasinput", "extrakey", "noinputs", "nodesobj", "extralinks", "bom"]
    what = rng.choice(choices)
    if n == 0 and what not in ("notjson", "nodesobj", "bom"):
        what = "extrakey"
    i = rng.randrange(n) if n else 0
    if what == "dupid":
        nodes[i]["id"] = nodes[(i + 1) % n]["id"]
    elif what == "idrange":
        nodes[i]["id"] = n + rng.randint(0, 3)
    elif what == "inrange":
        nodes[i].setdefault("inputs", []).append(rng.choice([n, n + 5, -1, -3]))
    elif what == "negsize":
        nodes[i].pop("outputs", None)
        nodes[i]["size"] = -rng.randint(1, 100)
    elif what == "fracsize":
        nodes[i].pop("outputs", None)
        nodes[i]["size"] = rng.choice([0.5, 2.25, 100.1])
    elif what == "bigsize":
        nodes[i].pop("outputs", None)
        nodes[i]["size"] = rng.choice([2 ** 56, 2 ** 56 + 1, 2 ** 63, 2 ** 70, 10 ** 30])
    elif what == "cycle":
        if n >= 2:
            a, b = rng.sample(range(n), 2)
            nodes[a].setdefault("inputs", []).append(nodes[b]["id"])
            nodes[b].setdefault("inputs", []).append(nodes[a]["id"])
    elif what == "aliasnotin":
        nodes[i]["alias"] = nodes[rng.randrange(n)]["id"]
        nodes[i]["inputs"] = [r for r in nodes[i].setdefault("inputs", [])
                              if (r[0] if isinstance(r, list) else r) != nodes[i]["alias"]]
    elif what == "outindex":
        nodes[i].setdefault("inputs", []).append([nodes[rng.randrange(n)]["id"], rng.choice([1, 2, 3, 7])])
    elif what == "sizeandoutputs":
        nodes[i]["size"] = 5
        nodes[i]["outputs"] = [5]
    elif what == "badref":
        nodes[i].setdefault("inputs", []).append(rng.choice([[0], [0, 0, 0], "0", [0.5, 0], None, True]))
    elif what == "missingid":
        del nodes[i]["id"]
    elif what == "negws":
        nodes[i]["workspace"] = -1
    elif what == "negcost":
        nodes[i]["cost"] = -0.5
    elif what == "nancost":
        return (_replace_cost(g, i, rng.choice(["NaN", "Infinity", "-1e400", "1e400"])), what)
    elif what == "strsize":
        nodes[i].pop("outputs", None)
        nodes[i]["size"] = rng.choice(["5", True, None, [5]])
    elif what == "aliasmulti":
        nodes[i]["alias"] = nodes[i - 1]["id"] if i else nodes[0]["id"]
        nodes[i].setdefault("inputs", []).append(nodes[i]["alias"])
    elif what == "inplacenoalias":
        nodes[i].pop("alias", None)
        nodes[i]["inplace"] = True
    elif what == "notjson":
        return (json.dumps(g)[:-rng.randint(1, 5)], what)
    elif what == "selfref":
        nodes[i].setdefault("inputs", []).append(nodes[i]["id"])
    elif what == "intfloat":
        nodes[i].pop("outputs", None)
        return (_replace_size(g, i, rng.choice(["4.0", "1e2", "1E3", "0.0", "-0"])), what)
    elif what == "reorder":
        rng.shuffle(nodes)
    elif what == "aliasinput":
        nodes[i]["alias"] = -1
    elif what == "extrakey":
        g["param_bytes"] = 12345
        g["extra"] = {"x": [1, 2]}
        for nd in nodes:
            nd["shape"] = [1, 2, 3]
            nd["dtype"] = "float32"
    elif what == "extralinks":  # unknown keys of 1.1 when a node has inputs
        g[rng.choice(["edges", "links"])] = rng.choice([[], {}, [{"source": 0, "target": 1}]])
    elif what == "bom":
        return ("\ufeff" + json.dumps(g), what)
    elif what == "noinputs":
        nodes[i].pop("inputs", None)
    elif what == "nodesobj":
        g["nodes"] = rng.choice([{}, None, 5, "x"])
    return (json.dumps(g), what)


def _replace_size(g, i, text):
    g["nodes"][i]["size"] = "@@SIZE@@"
    return json.dumps(g).replace('"@@SIZE@@"', text)


def _replace_cost(g, i, text):
    g["nodes"][i]["cost"] = "@@COST@@"
    return json.dumps(g).replace('"@@COST@@"', text)


# --------------------------------------------------- CSV instances ---

def gen_csv(rng):
    """A random MiniMalloc CSV (text): pinned offsets, alignment column,
    empty lifetimes, CRLF, blank lines, shuffled columns."""
    k = rng.choice([0, 1]) if rng.random() < 0.05 else rng.randint(2, 14)
    cols = ["id", "lower", "upper", "size"]
    with_align = rng.random() < 0.35
    with_pin = rng.random() < 0.3
    if with_align:
        cols.append("alignment")
    if with_pin:
        cols.append("offset")
    if rng.random() < 0.3:
        rng.shuffle(cols)
    rows = []
    pinned_top = 0
    # ids as MiniMalloc writes them ("0", "1", ..: the reader's index path)
    # or names
    id_form = "%d" if rng.random() < 0.4 else "b%d"
    for b in range(k):
        lo = rng.randint(0, 12)
        hi = lo + rng.choice([0, 1, 1, 2, 3, 5, 8])
        size = rng.choice([0, 1, 3, 4, 8, 16, 100, rng.randint(1, 64)])
        al = rng.choice([1, 1, 2, 4, 8, 16]) if with_align else 1
        row = {"id": id_form % b, "lower": lo, "upper": hi, "size": size, "alignment": al}
        if with_pin:
            if rng.random() < 0.35:
                # pins stacked one above the other, aligned: always feasible
                off = -(-pinned_top // al) * al
                row["offset"] = off
                pinned_top = off + size
            else:
                row["offset"] = ""
        rows.append(row)
    if with_pin:
        for r in rows:
            if r["offset"] == "":
                r["offset"] = rng.choice(["", "-1"])
    eol = "\r\n" if rng.random() < 0.2 else "\n"
    lines = [",".join(cols)]
    for r in rows:
        lines.append(",".join(str(r[c]) for c in cols))
        if rng.random() < 0.05:
            lines.append("")
    text = eol.join(lines) + (eol if rng.random() < 0.8 else "")
    return text


def break_csv(rng, text):
    lines = text.replace("\r\n", "\n").split("\n")
    head = lines[0].split(",")
    body = [i for i in range(1, len(lines)) if lines[i].strip()]
    what = rng.choice(["lohi", "negsize", "nonint", "missingcol", "fields",
                       "dupid", "bigint", "zeroalign", "float"])
    if not body and what not in ("missingcol",):
        what = "missingcol"
    if what == "missingcol":
        drop = rng.choice(["id", "lower", "upper", "size"])
        idx = head.index(drop)
        lines = [",".join(c for j, c in enumerate(ln.split(",")) if j != idx) if ln.strip() else ln
                 for ln in lines]
        return "\n".join(lines), what
    i = rng.choice(body)
    cells = lines[i].split(",")
    col = {c: j for j, c in enumerate(head)}
    if what == "lohi":
        cells[col["lower"]] = str(int(cells[col["upper"]]) + rng.randint(1, 3))
    elif what == "negsize":
        cells[col["size"]] = "-4"
    elif what == "nonint":
        cells[col[rng.choice(["lower", "upper", "size"])]] = rng.choice(["x", "", "1x", "0x10"])
    elif what == "fields":
        cells.append("9") if rng.random() < 0.5 else cells.pop()
    elif what == "dupid":
        j = rng.choice(body)
        if j != i:
            cells[col["id"]] = lines[j].split(",")[col["id"]]
        else:
            what = "dupid-self"
    elif what == "bigint":
        cells[col["size"]] = "99999999999999999999999"
    elif what == "zeroalign":
        if "alignment" in col:
            cells[col["alignment"]] = "0"
        else:
            what = "zeroalign-none"
    elif what == "float":
        cells[col["size"]] = "4.5"
    lines[i] = ",".join(cells)
    return "\n".join(lines), what
