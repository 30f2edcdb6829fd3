"""Kernel workspace: the scratch memory an ATen op's CPU kernel allocates
beyond its results, per backend.  This file is the whole model; each rule
says where its numbers come from.

Backends:
  none        the planner's ideal: no kernel scratch.  A node's workspace is
              only what its own ATen ops allocate and free inside it (the
              temporaries of an opaque module, measured on the meta device).
  cpu-onednn  what Debian's torch 1.13.1 allocates on this machine's CPU (AMD
              EPYC with AVX-512, oneDNN 2.6.3, one thread): measured op by op
              with torch.profiler (calibrate.py; `scripts/validate_torch.py
              --ops` compares the table with the measurement of every op the
              models run).

How a rule reads.  A kernel allocates its scratch and results in stages; a
rule lists, for each stage, the bytes alive then (beyond the op's arguments).
The op's peak is the largest stage; its workspace is that peak minus its
results' bytes (memplan counts results and workspace together at the node's
step).  Allocations under 64 bytes are left out (TensorIterator's 8- and
4-byte shape buffers).

oneDNN (torch's mkldnn path) stores activations and weights in blocked
layouts: channels padded to a multiple of BLOCK (16 with AVX-512) and
reordered from and to PyTorch's plain layout around each primitive, so each
blocked copy is a tensor-sized temporary.  Weights are reordered on every
call (eager mode caches nothing)."""
import torch.nn as nn

BLOCK = 16           # oneDNN channel block on AVX-512 (8 on AVX2)
RTUS_EXTRA = 128     # bytes oneDNN adds to its reduce-to-unit-stride buffer
CL_DW_EXTRA = 4224   # channels-last depthwise forward: a constant buffer
CL_EXTRA = 8192      # channels-last forward, not depthwise: a constant buffer
DW_BWD_EXTRA = 5156  # depthwise grad_weight scratch, 5x5 and more: its constant part
SMALL = 64           # allocations below this are ignored


def _prod(xs):
    p = 1
    for x in xs:
        p *= int(x)
    return p


def pad(c, block=BLOCK):
    return (c + block - 1) // block * block


def _conv_out_hw(x, w, stride, padding, dilation):
    return [(x.shape[2 + i] + 2 * padding[i] - dilation[i] * (w.shape[2 + i] - 1) - 1)
            // stride[i] + 1 for i in range(2)]


class Conv:
    """A 2-d convolution's geometry and the layout oneDNN gives it."""

    def __init__(self, x, w, stride, padding, dilation, transposed, groups, threads=1):
        self.x, self.w = x, w
        self.n, self.cin = x.shape[0], x.shape[1]
        self.cout = w.shape[0]
        self.k = list(w.shape[2:])
        self.g = groups
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.transposed = transposed
        self.hw_out = _conv_out_hw(x, w, stride, padding, dilation)
        self.one = self.k == [1, 1]
        self.strided = any(s > 1 for s in stride)
        self.dilated = any(d > 1 for d in dilation)
        self.threads = threads
        self.channels_last = (not x.contiguous) and x.stride[1] == 1

    def uses_mkldnn(self):
        """torch 1.13's ConvParams::use_mkldnn for float32 CPU tensors: 1x1
        unstrided convolutions of small batches go to the native kernel when
        single-threaded, and so do small problems without groups."""
        if self.transposed or len(self.k) != 2:
            return False
        n = self.n
        return ((self.strided or self.dilated or n >= 16 or not self.one or self.threads > 1)
                and (self.g > 1 or (self.k[0] > 3 and self.k[1] > 3) or n > 1
                     or _prod(self.x.shape) > 20480))

    def cpad(self, c):
        """Channels of a blocked tensor: padded to the block, or per group
        to 8 for grouped convolutions with fewer than 16 channels a group."""
        if self.g == 1 or self.g == c:
            return pad(c)
        per = c // self.g
        return self.g * (pad(per) if per >= BLOCK else pad(per, 8))

    def first_conv(self):
        """oneDNN's first-convolution kernels read the plain input (fewer
        than 16 input channels, no groups): no input reorder."""
        return self.cin < BLOCK and self.g == 1

    def bytes_in(self, blocked=True):
        c = self.cpad(self.cin) if blocked else self.cin
        return self.n * c * _prod(self.x.shape[2:]) * 4

    def bytes_out(self, blocked=True):
        c = self.cpad(self.cout) if blocked else self.cout
        return self.n * c * _prod(self.hw_out) * 4

    def depthwise(self):
        return self.g > 1 and self.g == self.cin == self.cout

    def weight_bytes(self):
        return _prod(self.w.shape) * 4

    def weight_blocked(self):
        kk = _prod(self.k)
        if self.g == self.cin and self.g > 1:          # depthwise
            return self.cpad(self.cout) * kk * 4
        if self.g > 1:
            return _prod(self.w.shape) * 4
        cin = self.cin if self.first_conv() else self.cpad(self.cin)
        return self.cpad(self.cout) * cin * kk * 4

    def rtus(self):
        """1x1 strided convolutions copy the strided input into a dense
        per-thread buffer (oneDNN's reduce-to-unit-stride)."""
        if not (self.one and self.strided):
            return 0
        return self.threads * self.cpad(self.cin) * _prod(self.hw_out) * 4 + RTUS_EXTRA

    def rtus_weights(self):
        """grad_weight's reduce-to-unit-stride buffer holds one chunk of
        input channel blocks: the largest divisor of the block count between
        2 and 8, or all blocks when there is none (measured: 64 channels ->
        64, 160 -> 80, 208 -> 208, 256 and more -> 128)."""
        if not (self.one and self.strided):
            return 0
        nb = pad(self.cin) // BLOCK
        divs = [d for d in range(2, 9) if nb % d == 0]
        chunk = (max(divs) if divs else nb) * BLOCK
        return self.threads * chunk * _prod(self.hw_out) * 4 + RTUS_EXTRA

    def unit_spatial(self):
        """Batches of 16 and more, 1x1 kernel, 1x1 output (squeeze-excitation
        layers): oneDNN allocates Cout padded x 4 + 128 bytes of scratch."""
        if self.one and not self.strided and self.n >= 16 and _prod(self.hw_out) == 1:
            return pad(self.cout) * 4 + RTUS_EXTRA
        return 0

    def input_copy(self):
        """The native kernel copies a non-contiguous input (ShuffleNet's
        channel shuffle) into a contiguous one first."""
        return 0 if self.x.contiguous else self.x.nbytes

    def columns(self):
        """The native kernel's im2col buffer (none for 1x1 unstrided)."""
        if self.one and not self.strided and not any(self.padding):
            return 0
        return self.n * self.cin * _prod(self.k) * _prod(self.hw_out) * 4


def _conv_of(call):
    a = call.args
    return Conv(a[1 if call.packet == "convolution_backward" else 0],
                a[2 if call.packet == "convolution_backward" else 1],
                a[4 if call.packet == "convolution_backward" else 3],
                a[5 if call.packet == "convolution_backward" else 4],
                a[6 if call.packet == "convolution_backward" else 5],
                a[7 if call.packet == "convolution_backward" else 6],
                a[9 if call.packet == "convolution_backward" else 8])


def conv_forward(call):
    """Measured patterns (calibrate.py on the convolutions of the 15 models):
    native kernel: [columns, out]; oneDNN: [rtus, x_blk, w_blk, y_blk] while
    computing, then [y_blk, out] while reordering y_blk into the plain
    result.  Channels-last inputs (ConvNeXt) are oneDNN's native layout: a
    depthwise convolution allocates [out, w_blk, CL_DW_EXTRA], any other
    [out, two weight-sized buffers, CL_EXTRA]."""
    c = _conv_of(call)
    out = c.bytes_out(False)
    if not c.uses_mkldnn():
        return [c.input_copy() + c.columns() + out]
    if c.channels_last:
        if c.depthwise():
            return [out + c.weight_blocked() + CL_DW_EXTRA]
        return [out + 2 * c.weight_bytes() + CL_EXTRA]
    x = 0 if c.first_conv() else c.bytes_in()
    y = c.bytes_out()
    return [c.rtus() + c.unit_spatial() + x + c.weight_blocked() + y, y + out]


def conv_backward(call):
    """grad_input stage: [gy_blk, w_blk, gi_blk, rtus], then [gi_blk, gi];
    grad_weight stage: [gi, gy_blk, x_blk, gw_blk, gb_blk, rtus_w], then
    [gi, gw_blk, gb_blk, gw, gb].  Depthwise kernels of 5x5 and more compute
    grad_weight from a scratch of C*kh*kw*16 + DW_BWD_EXTRA bytes instead of
    reordered copies.  A non-contiguous grad_output (the gradient of a slice
    of a cat) is first copied, and the copy lives through the op.  The
    native kernel allocates only its results."""
    c = _conv_of(call)
    gy, mask = call.args[0], call.args[10]
    gi = c.bytes_in(False) if mask[0] else 0
    gw = c.weight_bytes() if mask[1] else 0
    gb = c.cout * 4 if mask[2] else 0
    if c.uses_mkldnn() and c.channels_last:
        gyc = 0 if gy.stride[1] == 1 else gy.nbytes  # into channels-last
        return [gyc + st for st in _conv_backward_cl(c, gi, gw, gb)]
    gyc = 0 if gy.contiguous else gy.nbytes
    if not c.uses_mkldnn():
        return [gyc + c.input_copy() + gi + gw + gb]
    stages = []
    gy_blk = c.bytes_out()
    if mask[0]:
        gi_blk = c.bytes_in()
        stages += [gyc + gy_blk + c.weight_blocked() + gi_blk + c.rtus(), gyc + gi_blk + gi]
    if mask[1] or mask[2]:
        gw_blk = c.weight_blocked() if mask[1] else 0
        gb_blk = pad(c.cout) * 4 if mask[2] else 0
        if c.depthwise() and min(c.k) >= 5:
            scratch = c.cout * _prod(c.k) * 16 + DW_BWD_EXTRA
            stages += [gyc + gi + gw_blk + gb_blk + scratch]
        else:
            x_blk = 0 if c.first_conv() else c.bytes_in()
            stages += [gyc + gi + gy_blk + x_blk + gw_blk + gb_blk + c.rtus_weights()]
        stages += [gyc + gi + gw_blk + gb_blk + gw + gb]
    return stages


def _conv_backward_cl(c, gi, gw, gb):
    """Channels-last (ConvNeXt): depthwise: [gi, w_blk], then [gi, scratch of
    C*kh*kw*1024 bytes for kernels of 5x5 and more, 64*C + 128 and 4*C with
    a bias], then [gi, scratch, bias buffers, gw_blk, gw]; any other:
    [gi, four weight-sized buffers, two bias-sized ones]."""
    bias = 8 * c.cout if gb else 0
    if not c.depthwise():
        return [gi + 4 * c.weight_bytes() + bias]
    scratch = c.cout * _prod(c.k) * 1024 if min(c.k) >= 5 else 0
    stages = [gi + c.weight_blocked()]
    if gb:
        stages.append(gi + scratch + 64 * c.cout + 128 + 4 * c.cout)
    return stages + [gi + scratch + bias + c.weight_blocked() + gw]


def batch_norm(call):
    """Two per-channel buffers (mean and inverse std) while normalising, in
    training and in evaluation; in training the saved mean and inverse std
    are results too (in evaluation they are empty on the CPU, while the meta
    kernel returns them with C elements: they are not counted)."""
    x, training = call.args[0], call.args[5]
    saved = sum(t.nbytes for t in call.outs[1:]) if training else 0
    return [call.outs[0].nbytes + saved + 2 * x.shape[1] * 4]


def batch_norm_backward(call):
    """A grad_output-sized temporary besides the three gradients."""
    x = call.args[1]
    return [sum(t.nbytes for t in call.outs) + x.nbytes]


def layer_norm(call):
    """A non-contiguous input is copied first (a LayerNorm over permuted
    channels, in ConvNeXt and Swin)."""
    x = call.args[0]
    return [sum(t.nbytes for t in call.outs) + (0 if x.contiguous else x.nbytes)]


def layer_norm_backward(call):
    """Two buffers of the normalised width, plus a copy of a non-contiguous
    input or grad_output."""
    gy, x, shape = call.args[0], call.args[1], call.args[2]
    width = _prod(shape)
    copy = sum(t.nbytes for t in (gy, x) if not t.contiguous)
    return [sum(t.nbytes for t in call.outs) + 2 * width * 4 + copy]


def contiguous_grad(call):
    """max_pool2d backward copies a non-contiguous grad_output."""
    gy = call.args[0]
    return [sum(t.nbytes for t in call.outs) + (0 if gy.contiguous else gy.nbytes)]


def roll(call):
    """A roll over k dimensions rolls one dimension at a time: k - 1
    intermediate copies, one alive at a time."""
    dims = call.args[2] if len(call.args) > 2 else ()
    extra = call.outs[0].nbytes if len(dims) > 1 else 0
    return [call.outs[0].nbytes + extra]


def upsample_bilinear(call):
    """Per output row and column: two source indices (int64) and two
    weights (float32)."""
    out = call.outs[0]
    h, w = out.shape[-2], out.shape[-1]
    return [out.nbytes + 2 * (h + w) * (8 + 4)]


def _mha_stages(b, l, e, heads):
    ble = b * l * e * 4
    return [6 * ble, 3 * ble + b * heads * l * l * 4, 5 * ble]


def native_mha(call):
    """The fused op itself (see mha_fast_path)."""
    q, heads = call.args[0], call.args[4]
    b, l, e = q.shape
    return _mha_stages(b, l, e, heads)


def mha_fast_path(module, results):
    """nn.MultiheadAttention in evaluation under no_grad, self-attention with
    batch_first and no mask: eager CPU runs the fused
    _native_multi_head_attention (the meta device never takes that path).
    Measured stages, B x L x E input, H heads, float32: [qkv projection 3BLE,
    packed q/k/v 3BLE], then [q/k/v 3BLE, scores B*H*L*L], then [q/k/v,
    attention 1BLE, result 1BLE]."""
    m = module
    if not isinstance(m, nn.MultiheadAttention) or m.training or not m.batch_first:
        return None
    if m.bias_k is not None or m.bias_v is not None or m.dropout or m.add_zero_attn \
            or not m._qkv_same_embed_dim or m.num_heads % 2:
        return None
    if not results or len(results[0].shape) != 3:
        return None
    b, l, e = results[0].shape
    return max(_mha_stages(b, l, e, m.num_heads)) - b * l * e * 4


CPU_ONEDNN = {
    "convolution": conv_forward,
    "convolution_backward": conv_backward,
    "native_batch_norm": batch_norm,
    "native_batch_norm_backward": batch_norm_backward,
    "native_layer_norm": layer_norm,
    "native_layer_norm_backward": layer_norm_backward,
    "max_pool2d_with_indices_backward": contiguous_grad,
    "roll": roll,
    "upsample_bilinear2d": upsample_bilinear,
    "_native_multi_head_attention": native_mha,
}


MODULE_RULES = {"cpu-onednn": [mha_fast_path]}


class Backend:
    def __init__(self, name, rules):
        self.name = name
        self.rules = rules

    def module_workspace(self, module, results):
        """A whole module's workspace where eager runs a fused fast path
        instead of the ops the meta device dispatched; None otherwise."""
        for rule in MODULE_RULES.get(self.name, []):
            ws = rule(module, results)
            if ws is not None:
                return ws
        return None

    def op_workspace(self, call):
        """Scratch bytes call's kernel needs beyond its results."""
        rule = self.rules.get(call.packet)
        if rule is None:
            return 0
        peak = max(rule(call))
        ws = peak - sum(t.nbytes for t in call.outs)
        return ws if ws >= SMALL else 0

    def node_workspace(self, calls, own):
        """A node's workspace: the peak, over its ops, of the temporaries it
        holds plus the op's results and kernel scratch, minus the bytes its
        own result keeps."""
        peak = 0
        for c in calls:
            peak = max(peak, c.live_before + c.new_bytes + self.op_workspace(c))
        return max(0, peak - own)


BACKENDS = {"none": Backend("none", {}), "cpu-onednn": Backend("cpu-onednn", CPU_ONEDNN)}
