"""Measure the workspace of every ATen op a model really runs on the CPU,
one op at a time, and compare it with a backend's workspace table.

The model runs eagerly on real CPU tensors (one thread) under a
TorchDispatchMode; before each op runs, a copy of its arguments runs the op
alone under torch.profiler with profile_memory=True: the
[memory] events, summed in time order, give the op's own peak; its
workspace is that peak minus the bytes its results still hold when it
returns (what memplan's `workspace` means: scratch alive only while the op
runs).  validate_torch.py --ops prints the comparison."""
import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map

from .dispatch import OpCall


def _copy(t):
    """A tensor with t's storage contents, offset, sizes and strides."""
    if not isinstance(t, torch.Tensor):
        return t
    c = torch.empty(0, dtype=t.dtype)
    c.set_(t.detach().storage().clone(), t.storage_offset(), t.size(), t.stride())
    return c


class _Measure(TorchDispatchMode):
    """Measures each op as it comes (on copies of its arguments, before the
    op itself runs), so only one op's copies exist at a time."""

    def __init__(self, skip):
        super().__init__()
        self.rows = []
        self.skip = skip

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if str(func) not in self.skip:
            self.rows.append(measure_op(func, args, kwargs))
        return func(*args, **kwargs)


def memory_events(fn):
    """The [memory] events (bytes, + allocated, - freed) of fn(), in time order."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as p:
        keep = fn()
    ev = [e for e in p.profiler.kineto_results.events() if e.name() == "[memory]"]
    ev.sort(key=lambda e: e.start_us())  # stable: ties keep the recorded order
    del keep
    return [e.nbytes() for e in ev]


def peak_of(events):
    cur = peak = 0
    for v in events:
        cur += v
        peak = max(peak, cur)
    return peak, cur


def measure_op(func, args, kwargs):
    """(OpCall, measured workspace, events) of one op run alone.  A tensor
    passed twice is copied once (nn.MultiheadAttention's fast path needs
    query is key is value)."""
    memo = {}

    def copy_once(t):
        if not isinstance(t, torch.Tensor):
            return t
        if id(t) not in memo:
            memo[id(t)] = _copy(t)
        return memo[id(t)]
    a, k = tree_map(copy_once, args), tree_map(copy_once, kwargs)
    box = {}

    def run():
        box["out"] = func(*a, **k)
        return box["out"]
    events = memory_events(run)
    peak, end = peak_of(events)
    call = OpCall(func, a, k, box["out"], 0, end)
    return call, peak - end, events


def measure_model_ops(step, skip=()):
    """measure_op for every op step() dispatches, except op names in skip."""
    m = _Measure(set(skip))
    with m:
        step()
    return m.rows


def compare(rows, backend, tolerance=64):
    """Per op name: (ops, ops whose measured workspace is nonzero, ops the
    table gets within `tolerance` bytes, largest error in bytes)."""
    stats = {}
    for call, measured, _ in rows:
        pred = backend.op_workspace(call)
        s = stats.setdefault(call.name, [0, 0, 0, 0])
        s[0] += 1
        s[1] += int(measured > tolerance)
        err = abs(pred - measured)
        s[2] += int(err <= tolerance)
        s[3] = max(s[3], err)
    return stats
