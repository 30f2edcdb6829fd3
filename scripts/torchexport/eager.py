"""What eager PyTorch keeps alive, from the ATen ops it really runs.

The model runs eagerly on meta tensors under a TorchDispatchMode that
numbers every op and every storage, and notes after which op each storage
dies (weakref finalizers fire when the last tensor on it is dropped).  The
caller holds the input for the whole forward and each Python frame holds its
locals (a block's input, until the block returns), so storages die later
than their last reader; a static planner need not copy that, and the default
graph does not.

The eager op sequence is aligned with the ops the fx walk dispatched (they
are the same ops: the walk runs the same module code).  The alignment checks
the in-place detection (a residual `+=` must dispatch add_ in both), maps
each graph buffer to its eager storage, and gives `--eager` its holds: a
size-0 `hold` node right after the node during which eager frees a storage
that the graph frees earlier, reading that buffer."""
import bisect
import difflib
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from .compat import eager_composites
from .dispatch import storage_key
from .graph import renumber


class EagerTrace(TorchDispatchMode):
    """Op names, result storages and storage deaths of an eager run."""

    def __init__(self):
        super().__init__()
        self.ops = []      # (op name, [storage id of each tensor result])
        self.deaths = {}   # storage id -> index of the last op run before it died
        self._live = {}    # storage key -> [storage id, tensor count]
        self._next = 0

    def track(self, t, pinned=False):
        """Storage id of t's storage (a new id for a storage not seen alive)."""
        key = storage_key(t)
        ent = self._live.get(key)
        if ent is None:
            ent = [self._next, 0]
            self._next += 1
            self._live[key] = ent
        ent[1] += 1
        if not pinned:
            weakref.finalize(t, self._drop, key, ent[0])
        return ent[0]

    def _drop(self, key, sid):
        ent = self._live.get(key)
        if ent is None or ent[0] != sid:
            return
        ent[1] -= 1
        if ent[1] == 0:
            del self._live[key]
            self.deaths[sid] = len(self.ops) - 1

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        sids = [self.track(t) for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        self.ops.append((str(func), sids))
        return out


def eager_trace(model, inputs):
    """Run model(*inputs) eagerly under no_grad with the caller holding the
    inputs and the result; returns the trace and the inputs' storage ids."""
    tr = EagerTrace()
    for p in list(model.parameters()) + list(model.buffers()):
        tr.track(p, pinned=True)
    in_sids = [tr.track(x, pinned=True) for x in inputs]
    with torch.no_grad(), eager_composites(), tr:
        out = model(*inputs)
    del out
    return tr, in_sids


def align(fx_names, eager_names):
    """Map eager op index -> fx op index over the matching runs of names, and
    count the ops that differ."""
    sm = difflib.SequenceMatcher(None, fx_names, eager_names, autojunk=False)
    to_fx, differ = {}, []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                to_fx[j1 + k] = i1 + k
        else:
            differ.append((fx_names[i1:i2], eager_names[j1:j2]))
    return to_fx, differ


def fx_op_sequence(gw):
    """(memplan id, OpCall) for every op of the walk, in the given order."""
    return [(mid, c) for mid in range(len(gw.nodes)) for c in gw.calls.get(mid, [])]


def last_use(nodes):
    """Storage owner (id, or (id, k) for output k of a multi-output node) ->
    the last position that reads it, directly or through a view, or views
    it."""
    def owner(ref):
        j, k = (ref, None) if isinstance(ref, int) else ref
        n = nodes[j]
        if "alias" in n:
            return None if n["alias"] == -1 else owner(n["alias"])
        if "outputs" in n:
            return [(j, q) for q in range(len(n["outputs"]))] if k is None else [(j, k)]
        return [j]

    last = {}
    for n in nodes:
        refs = list(n["inputs"]) + ([n["alias"]] if n.get("alias", -1) != -1 else [])
        for r in refs:
            for o in owner(r) or ():
                last[o] = max(last.get(o, -1), n["id"])
    return last


def storage_map(gw, fx_seq, trace, to_fx, input_pairs):
    """graph storage key -> eager storage id, from the aligned ops' results.
    In op order, later results win: a storage key of the walk can belong to
    a temporary that died before a graph tensor reused its address, but
    graph tensors are kept alive, so the last op that returns a key returns
    the graph tensor (or a view of it, on the same eager storage)."""
    fx_of_eager = {}
    for j, i in sorted(to_fx.items()):
        _, call = fx_seq[i]
        for meta, sid in zip(call.outs, trace.ops[j][1]):
            fx_of_eager[meta.key] = sid
    for fx_t, sid in input_pairs:
        fx_of_eager[storage_key(fx_t)] = sid
    return fx_of_eager


def check_alignment(gw, model, inputs):
    """The runs of ops where the walk and the eager run differ."""
    trace, _ = eager_trace(model, inputs)
    fx_seq = fx_op_sequence(gw)
    return align([c.name for _, c in fx_seq], [nm for nm, _ in trace.ops])[1]


def eager_holds(gw, model, inputs, fx_inputs):
    """Add the holds of eager execution to gw's graph (see the module
    docstring).  Returns (number of hold nodes, ops that differ)."""
    trace, in_sids = eager_trace(model, inputs)
    fx_seq = fx_op_sequence(gw)
    to_fx, differ = align([c.name for _, c in fx_seq], [nm for nm, _ in trace.ops])
    sid_of = storage_map(gw, fx_seq, trace, to_fx, list(zip(fx_inputs, in_sids)))
    aligned = sorted(to_fx)
    nodes = gw.nodes
    last = last_use(nodes)
    out_node = nodes[-1]
    held = {}  # position s -> refs held through s
    for mid in range(len(nodes) - 1):
        for owner, ref, t in _owned(gw, mid):
            sid = sid_of.get(storage_key(t))
            if sid is None:
                continue
            d = trace.deaths.get(sid)
            if d is None:  # alive when forward returns: the caller holds it
                if ref not in out_node["inputs"]:
                    out_node["inputs"].append(ref)
                continue
            s = _fx_node_at(d, aligned, to_fx, fx_seq)
            if s is not None and s > last.get(owner, -1):
                held.setdefault(s, []).append(ref)
    _insert_holds(gw, held)
    return len(held), differ


def _owned(gw, mid):
    """(owner key, reference, tensor) of each buffer node mid owns."""
    n = gw.nodes[mid]
    if "alias" in n or n["op"] == "output":
        return []
    if "outputs" in n:
        return [((mid, k), [mid, k], t) for k, t in gw.tensors.get(mid, [])
                if n["outputs"][k] > 0]
    if n.get("size", 0) > 0 and gw.tensors.get(mid):
        return [(mid, mid, gw.tensors[mid][0][1])]
    return []


def _fx_node_at(d, aligned, to_fx, fx_seq):
    """The graph node running when eager op d ran (the last aligned op at or
    before d)."""
    k = bisect.bisect_right(aligned, d)
    return fx_seq[to_fx[aligned[k - 1]]][0] if k else None


def _insert_holds(gw, held):
    order = []
    for n in gw.nodes:
        order.append(n)
        refs = held.get(n["id"])
        if refs:
            order.append({"name": "hold_" + n["name"], "op": "hold", "size": 0,
                          "inputs": [n["id"]] + refs, "cost": 0})
    renumber(gw.nodes, order)
