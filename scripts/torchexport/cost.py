"""Node costs (DESIGN.md 6.1): a roofline estimate of each ATen op on one
named reference device, summed over the ops a node dispatches.

Reference device (REFERENCE below): NVIDIA A100-SXM4-40GB, FP32 on the CUDA
cores (19.5 TFLOP/s peak; PyTorch >= 1.12 runs float32 matmuls without TF32
by default), HBM2 at 1555 GB/s, and a fixed 5 us per kernel for the launch
and the tail of a small kernel.  The unit of `cost` is the microsecond.

  cost(op) = launch + max(flops / peak_flops, bytes / bandwidth)

FLOPs (one multiply-add = 2):
  convolution            2 * N * Cout * Hout * Wout * (Cin / groups) * kh * kw
                         (+ N * Cout * Hout * Wout for the bias); transposed:
                         the same with input and output swapped
  convolution_backward   the forward's count for each of grad_input and
                         grad_weight that is computed, N * Cout * Hout * Wout
                         for grad_bias
  mm, addmm, bmm, baddbmm  2 * M * N * K per matrix (+ M * N for the add)
  every other op         1 per element of its largest tensor (they are memory
                         bound on the reference device: their cost is bytes)
Bytes: every tensor argument read (a broadcast tensor counts the memory it
spans, not its numel) plus every result written; gathers (embedding,
index_select, gather, nll_loss forward) read only the rows they gather.
Zero: ops that only make views (view, t, transpose, expand, slice, split,
getitem, ... : every result aliases an input and nothing is written), and
nodes that run no op: inputs, outputs, views, `hold` and `after` tokens.

host_bandwidth (DESIGN 6.1, bytes per cost unit) is written for a PCIe 4.0
x16 link, the A100's: 25 GB/s per direction, the usual effective rate of its
31.5 GB/s raw (pinned host memory), i.e. 25,000 bytes per microsecond."""

REFERENCE = {
    "device": "NVIDIA A100-SXM4-40GB (FP32 CUDA cores, HBM2)",
    "peak_flops": 19.5e12,      # FLOP/s
    "bandwidth": 1555e9,        # bytes/s
    "launch_us": 5.0,           # per kernel
    "host_link": "PCIe 4.0 x16",
    "host_bandwidth": 25e9,     # bytes/s per direction
}

UNIT = "microsecond"

GATHERS = {"embedding", "index_select", "gather", "nll_loss_forward", "nll_loss2d_forward"}


def host_bandwidth():
    """Bytes per cost unit on the host link."""
    return int(REFERENCE["host_bandwidth"] / 1e6)


def _span_bytes(t):
    """Bytes a tensor's elements span in memory (less than numel for a
    broadcast tensor with zero strides)."""
    if t.numel == 0:
        return 0
    span = 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride))
    return min(span, t.numel) * t.itemsize


def _prod(xs):
    p = 1
    for x in xs:
        p *= int(x)
    return p


def _conv_flops(x, w, out, transposed, groups):
    if transposed:  # the gradient of a convolution from `out` to `x`
        x, out = out, x
    cin = x.shape[1]
    macs = _prod(out.shape) * (cin // groups) * _prod(w.shape[2:])
    return 2 * macs


def flops(call):
    p = call.packet
    a = call.args
    outs = call.outs
    if p == "convolution" and outs:
        x, w, b = a[0], a[1], a[2]
        f = _conv_flops(x, w, outs[0], a[6], a[8])
        return f + (_prod(outs[0].shape) if b is not None else 0)
    if p == "convolution_backward":
        gy, x, w = a[0], a[1], a[2]
        transposed, groups, mask = a[7], a[9], a[10]
        one = _conv_flops(x, w, gy, transposed, groups)
        return one * (int(bool(mask[0])) + int(bool(mask[1]))) + \
            (_prod(gy.shape) if mask[2] else 0)
    if p in ("mm", "addmm") and outs:
        m1, m2 = (a[0], a[1]) if p == "mm" else (a[1], a[2])
        f = 2 * m1.shape[0] * m1.shape[1] * m2.shape[1]
        return f + (_prod(outs[0].shape) if p == "addmm" else 0)
    if p in ("bmm", "baddbmm") and outs:
        m1, m2 = (a[0], a[1]) if p == "bmm" else (a[1], a[2])
        f = 2 * m1.shape[0] * m1.shape[1] * m1.shape[2] * m2.shape[2]
        return f + (_prod(outs[0].shape) if p == "baddbmm" else 0)
    sizes = [t.numel for t in call.tensor_args()] + [t.numel for t in outs]
    return max(sizes) if sizes else 0


def moved_bytes(call):
    ins = call.tensor_args()
    if call.packet in GATHERS:
        idx = [t for t in ins if t.dtype in ("int64", "int32")]
        written = sum(t.nbytes for t in call.outs)
        return written * 2 + sum(t.nbytes for t in idx)
    return sum(_span_bytes(t) for t in ins) + sum(t.nbytes for t in call.outs)


def is_view_only(call):
    """An op that only makes views: every result aliases an argument, and
    nothing is written.  It launches no kernel."""
    if call.written:
        return False
    keys = set(t.key for t in call.tensor_args())
    return all(t.key in keys for t in call.outs)


def op_cost(call, ref=REFERENCE):
    """Microseconds on the reference device."""
    if is_view_only(call):
        return 0.0
    t_compute = flops(call) / ref["peak_flops"]
    t_memory = moved_bytes(call) / ref["bandwidth"]
    return ref["launch_us"] + 1e6 * max(t_compute, t_memory)


def node_cost(calls, ref=REFERENCE):
    return round(sum(op_cost(c, ref) for c in calls), 3)
