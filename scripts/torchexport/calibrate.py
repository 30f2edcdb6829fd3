"""Measure the workspace of every ATen op a model really runs on the CPU,
one op at a time, and compare it with a backend's workspace table.

The model runs eagerly on real CPU tensors (one thread) under a
TorchDispatchMode that keeps a copy of every op's arguments.  Each op is
then run again alone under torch.profiler with profile_memory=True: the
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


class _Record(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self.calls.append((func, tree_map(_copy, args), tree_map(_copy, kwargs)))
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
    """(OpCall, measured workspace, events) of one op run alone."""
    a, k = tree_map(_copy, args), tree_map(_copy, kwargs)
    box = {}

    def run():
        box["out"] = func(*a, **k)
        return box["out"]
    events = memory_events(run)
    peak, end = peak_of(events)
    call = OpCall(func, a, k, box["out"], 0, end)
    return call, peak - end, events


def record_ops(step):
    """Every ATen op step() dispatches, with copies of its arguments."""
    rec = _Record()
    with rec:
        step()
    return rec.calls


def measure_model_ops(step, skip=()):
    """measure_op for every op of step(), except op names in skip."""
    out = []
    for func, args, kwargs in record_ops(step):
        if str(func) in skip:
            continue
        out.append(measure_op(func, args, kwargs))
    return out


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
