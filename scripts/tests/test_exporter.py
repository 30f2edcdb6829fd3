"""Unit tests of the PyTorch exporter (scripts/torchexport).  They need
Debian's python3-torch and python3-torchvision; `make test-exporter` runs
them (cd scripts && python3 -m unittest discover -s tests -t .).

Graphs are built on the meta device (seconds); one test measures a real
eager run on the CPU (resnet18 at batch 1, a few seconds)."""
import json
import os
import subprocess
import tempfile
import unittest

import torch
import torch.nn as nn

from torchexport import calibrate, cost
from torchexport.backend import BACKENDS
from torchexport.cli import build
from torchexport.dispatch import NodeRecorder
from torchexport.graph import write_graph
from torchexport.inference import inference_graph, module_graph

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEMPLAN = os.path.join(ROOT, "bin", "memplan")
NONE, ONEDNN = BACKENDS["none"], BACKENDS["cpu-onednn"]


def info(d):
    """memplan info --format json of graph dict d."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "g.json")
        write_graph(d, path)
        out = subprocess.run([MEMPLAN, "info", path, "--format", "json"], check=True,
                             capture_output=True, text=True).stdout
    return json.loads(out)


def meta_call(fn):
    """The OpCalls fn() dispatches on meta tensors."""
    rec = NodeRecorder()
    with rec:
        r = fn()
    return rec.finish(r)[0]


class Residual(unittest.TestCase):
    """Issue 15.1: a residual `out += identity` is in place, as eager runs it."""

    def check(self, name, blocks):
        gw, _, _, _ = inference_graph(name, 1, NONE)
        adds = [n for n in gw.nodes if n["op"] == "add_"]
        self.assertEqual(len(adds), blocks)
        for n in adds:
            self.assertTrue(n.get("inplace"), n["name"])
            self.assertIn("alias", n)
            self.assertNotIn("size", [k for k in n if k == "outputs"])
        # the walk dispatched exactly the eager run's ATen ops
        self.assertEqual([w for w in gw.warnings if "differ" in w], [])

    def test_resnet18(self):
        self.check("resnet18", 8)

    def test_resnet50(self):
        self.check("resnet50", 16)


class Pre(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 8, 3, padding=1)

    def forward(self, x):
        return self.a(x)


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Conv2d(8, 8, 1)
        self.c = nn.Conv2d(8, 8, 1)

    def forward(self, h):
        return self.c(torch.relu(self.b(h)))


class Net(nn.Module):
    """Net's frame holds h while self.inner runs: eager frees h only when
    inner returns, although inner's last read of h is its first op."""

    def __init__(self):
        super().__init__()
        self.pre = Pre()
        self.inner = Inner()

    def forward(self, x):
        h = self.pre(x)
        return self.inner(h)


class EagerHolds(unittest.TestCase):
    def graph(self, with_eager):
        gw, pb, bb, extra = module_graph(
            Net, lambda: torch.empty(2, 4, 16, 16, device="meta"), "net", "test net",
            NONE, with_eager)
        return gw, gw.to_json(pb, bb, extra)

    def test_hold_keeps_block_input(self):
        gw, d = self.graph(True)
        holds = [n for n in gw.nodes if n["op"] == "hold"]
        self.assertEqual(len(holds), 1)
        byname = {n["name"]: n for n in gw.nodes}
        h = byname["pre_a"]["id"]
        self.assertIn(h, holds[0]["inputs"])
        # the hold comes right after inner's last node
        self.assertEqual(gw.nodes[holds[0]["id"] - 1]["name"], "inner_c")
        # the caller holds x to the end
        out = gw.nodes[-1]
        self.assertIn(byname["x"]["id"], out["inputs"])

    def test_peak_grows_by_the_held_tensor(self):
        _, ideal = self.graph(False)
        _, held = self.graph(True)
        h_bytes = 2 * 8 * 16 * 16 * 4
        x_bytes = 2 * 4 * 16 * 16 * 4
        # inside inner the ideal graph holds two of its tensors; eager also
        # holds h (Net's frame) and x (the caller)
        self.assertEqual(info(ideal)["live_peak"], 2 * h_bytes)
        self.assertEqual(info(held)["live_peak"], 2 * h_bytes + h_bytes + x_bytes)


class Workspace(unittest.TestCase):
    """The cpu-onednn table against numbers measured on this machine's CPU."""

    def conv(self, n, c, h, co, k, stride=1, pad=0, groups=1):
        x = torch.empty(n, c, h, h, device="meta")
        w = torch.empty(co, c // groups, k, k, device="meta")
        calls = meta_call(lambda: torch.ops.aten.convolution(
            x, w, None, [stride] * 2, [pad] * 2, [1, 1], False, [0, 0], groups))
        return ONEDNN.op_workspace(calls[0])

    def test_measured_convolutions(self):
        # values from calibrate.measure_op (see backend.py)
        self.assertEqual(self.conv(1, 512, 7, 512, 3, pad=1), 9537536)    # resnet18 layer4
        self.assertEqual(self.conv(1, 3, 224, 64, 7, 2, 3), 3211264)      # first conv
        self.assertEqual(self.conv(1, 24, 56, 144, 1), 0)                 # native 1x1
        self.assertEqual(self.conv(1, 16, 14, 48, 3, pad=1), 112896)      # native im2col
        self.assertEqual(self.conv(1, 256, 14, 512, 1, 2), 775296)        # 1x1 stride 2
        self.assertEqual(self.conv(1, 24, 56, 24, 3, 2, 1, 24), 427648)   # depthwise, padded
        self.assertEqual(self.conv(4, 256, 14, 512, 1, 2), 1377408)       # rtus per thread

    def test_none_has_no_kernel_scratch(self):
        x = torch.empty(1, 512, 7, 7, device="meta")
        w = torch.empty(512, 512, 3, 3, device="meta")
        calls = meta_call(lambda: torch.ops.aten.convolution(
            x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1))
        self.assertEqual(NONE.op_workspace(calls[0]), 0)

    def test_table_matches_a_measurement(self):
        # a real run on the CPU: channels are multiples of 16, so the
        # padding rule agrees on AVX2 and AVX-512 machines
        torch.set_num_threads(1)
        x = torch.randn(1, 64, 28, 28)
        w = torch.randn(128, 64, 3, 3)
        func = torch.ops.aten.convolution.default
        call, measured, _ = calibrate.measure_op(
            func, (x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), {})
        self.assertEqual(ONEDNN.op_workspace(call), measured)

    def test_mha_fast_path(self):
        m = nn.MultiheadAttention(768, 12, batch_first=True).eval()
        out = torch.empty(1, 197, 768)
        ble = 197 * 768 * 4
        self.assertEqual(ONEDNN.module_workspace(m, [out]),
                         max(6 * ble, 3 * ble + 12 * 197 * 197 * 4) - ble)
        self.assertIsNone(NONE.module_workspace(m, [out]))
        m.train()
        self.assertIsNone(ONEDNN.module_workspace(m, [out]))


class Costs(unittest.TestCase):
    def test_conv_roofline(self):
        x = torch.empty(8, 64, 56, 56, device="meta")
        w = torch.empty(64, 64, 3, 3, device="meta")
        call = meta_call(lambda: torch.ops.aten.convolution(
            x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1))[0]
        flops = 2 * 8 * 64 * 56 * 56 * 64 * 9
        nbytes = (8 * 64 * 56 * 56 * 2 + 64 * 64 * 9) * 4
        ref = cost.REFERENCE
        want = ref["launch_us"] + 1e6 * max(flops / ref["peak_flops"], nbytes / ref["bandwidth"])
        self.assertAlmostEqual(cost.op_cost(call), want, places=6)

    def test_views_cost_nothing(self):
        x = torch.empty(4, 8, device="meta")
        self.assertEqual(cost.op_cost(meta_call(lambda: x.t())[0]), 0.0)
        self.assertEqual(cost.op_cost(meta_call(lambda: x.view(32))[0]), 0.0)
        self.assertGreater(cost.op_cost(meta_call(lambda: x.relu_())[0]), 0.0)

    def test_every_node_has_a_cost(self):
        gw, _, _, _ = inference_graph("resnet18", 1, NONE)
        for n in gw.nodes:
            self.assertIn("cost", n)
            if n["op"] in ("input", "output") or ("alias" in n and not n.get("inplace")):
                self.assertEqual(n["cost"], 0, n["name"])
            if n["op"] == "conv2d":
                self.assertGreater(n["cost"], cost.REFERENCE["launch_us"])


class Training(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d, _ = build("resnet18", 2, train=True, optimizer="adam", keep_grads=True)
        cls.nodes = cls.d["nodes"]

    def test_loads(self):
        i = info(self.d)
        self.assertEqual(i["nodes"], len(self.nodes))

    def test_phases_in_order(self):
        order = {"fwd": 0, "bwd": 1, "opt": 2}
        ran = [order[n["phase"]] for n in self.nodes if n["op"] not in ("input", "output")]
        self.assertEqual(ran, sorted(ran))
        byname = {n["name"]: n for n in self.nodes}
        self.assertEqual(byname["x"]["phase"], "fwd")
        self.assertEqual(byname["loss_grad"]["phase"], "bwd")
        self.assertEqual(byname["grad_fc_weight"]["phase"], "bwd")
        self.assertEqual(byname["exp_avg_fc_weight"]["phase"], "opt")

    def test_state_lives_across_the_step(self):
        out = self.nodes[-1]
        state = [n["id"] for n in self.nodes if n["op"] == "input" and
                 n["name"].startswith(("grad_", "exp_avg_"))]
        self.assertEqual(len(state), 3 * 62)  # resnet18 has 62 parameter tensors
        for s in state:
            self.assertIn(s, out["inputs"])

    def test_updates_in_place_on_parameters(self):
        ups = [n for n in self.nodes if n["op"] == "addcdiv_"]
        self.assertEqual(len(ups), 62)
        for n in ups:
            self.assertEqual(n["alias"], -1)
            self.assertTrue(n["inplace"])
        # the fc weight is read by the matmul of the input gradient, which is
        # no ancestor of its update: an `after` token orders them
        self.assertGreater(self.d["n_order_tokens"], 0)

    def test_accumulation_in_place(self):
        acc = [n for n in self.nodes if n["name"].startswith("accumulate_")]
        self.assertEqual(len(acc), 62)
        for n in acc:
            self.assertTrue(n["inplace"])
            self.assertEqual(self.nodes[n["alias"]]["op"], "input")


class Transformer(unittest.TestCase):
    def test_tiny_gpt_step(self):
        from torchexport import gpt
        gpt.CONFIGS["gpt_test"] = gpt.Config(2, 64, 4, 100, 16, 0.1)
        try:
            d, _ = build("gpt_test", 2, train=True, optimizer="adam", keep_grads=True)
        finally:
            del gpt.CONFIGS["gpt_test"]
        i = info(d)
        self.assertEqual(i["nodes"], len(d["nodes"]))
        ops = set(n["op"] for n in d["nodes"])
        for op in ("embedding", "native_layer_norm", "bmm", "_softmax", "bernoulli_",
                   "embedding_dense_backward", "addcdiv_"):
            self.assertIn(op, ops)
        self.assertEqual(set(n["phase"] for n in d["nodes"]), {"fwd", "bwd", "opt"})
        # the LM head is tied to the token embedding: one parameter, one
        # kept gradient, one pair of moments, one update
        names = [n["name"] for n in d["nodes"]]
        self.assertIn("grad_tok_weight", names)
        self.assertNotIn("grad_head_weight", names)
        self.assertEqual(len([m for m in names if m.startswith("exp_avg_sq_")]),
                         d["n_param_grads"])
        self.assertEqual(len([n for n in d["nodes"] if n["op"] == "addcdiv_"]),
                         d["n_param_grads"])

    def test_to_meta_keeps_ties(self):
        from torchexport import models
        m = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10, bias=False))
        m[1].weight = m[0].weight
        sig = models.param_signature(m)
        models.to_meta(m)
        self.assertIs(m[1].weight, m[0].weight)
        self.assertEqual(m[0].weight.device.type, "meta")
        models.check_params(sig, m, "tied")
        u = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10, bias=False))
        u[1].weight = u[0].weight
        u.to("meta")  # Module.to unties: the check must say so
        with self.assertRaises(RuntimeError):
            models.check_params(sig, u, "untied")


class InplaceActivation(unittest.TestCase):
    """In a training graph an in-place activation allocates nothing: the joint
    graph already has the copy autograd saves (the clone before it); walked
    with grad mode on, autograd cloned the input again inside silu_."""

    def test_no_workspace(self):
        m = nn.Sequential(nn.Conv2d(3, 8, 3), nn.SiLU(inplace=True), nn.Conv2d(8, 8, 3),
                          nn.Hardswish(inplace=True), nn.Conv2d(8, 8, 3),
                          nn.ReLU6(inplace=True), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(8, 10))
        from torchexport import models
        models.MODELS.append("inplace_test")
        old = models.build_model
        models.build_model = lambda name: m if name == "inplace_test" else old(name)
        try:
            d, _ = build("inplace_test", 2, train=True)
        finally:
            models.build_model = old
            models.MODELS.remove("inplace_test")
        acts = [n for n in d["nodes"] if n["op"] in ("silu_", "hardswish_", "hardtanh_")]
        self.assertEqual(len(acts), 3)
        for n in acts:
            self.assertTrue(n.get("inplace"), n["name"])
            self.assertEqual(n.get("workspace", 0), 0, n["name"])


class Validation(unittest.TestCase):
    """Issue 15's target on one row: the model's live peak equals the
    measured eager allocator peak (resnet18, batch 1, this machine)."""

    def test_resnet18_b1(self):
        import validate_torch
        d, _ = build("resnet18", 1, backend="cpu-onednn", with_eager=True, costs=False)
        predicted = info(d)["live_peak"]
        measured = validate_torch.measure("resnet18", False, 1, None, False)
        self.assertEqual(predicted, measured)


if __name__ == "__main__":
    unittest.main()
