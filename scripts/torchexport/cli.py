"""Command line of scripts/export_torchvision.py (see its docstring)."""
import argparse
import os
import sys
import time
import traceback

import torch

from . import annotate, cost, models
from .backend import BACKENDS
from .graph import write_graph
from .inference import inference_graph
from .training import OPTIMIZERS, add_update_tokens, train_graph

# the graphs `--all` writes per model: (file suffix, train, optimizer, keep_grads)
SUITE_VARIANTS = [
    ("_train", True, None, False),
    ("_train_sgd", True, "sgd", False),
    ("_train_adam", True, "adam", True),
]
# the large transformer training steps `--large` writes: (model, batch)
LARGE = [("gpt2_small", 8), ("gpt2_48l", 1)]


def build(name, batch, train=False, optimizer=None, keep_grads=False, backend="none",
          with_eager=False, costs=True):
    """The graph dict and the exporter's warnings."""
    be = BACKENDS[backend]
    if train:
        gw, pb, bb, extra, step = train_graph(name, batch, be, optimizer, keep_grads)
        annotate.workspace(gw, be)
        annotate.costs(gw)
        tangent = [gw.fx2id[n] for n in step.joint.graph.nodes
                   if n.op == "placeholder" and n in gw.fx2id][-1:]
        annotate.phases(gw, tangent)
        if optimizer:
            extra["n_order_tokens"] = add_update_tokens(gw)
    else:
        gw, pb, bb, extra = inference_graph(name, batch, be, with_eager)
    if not costs:
        for n in gw.nodes:
            n.pop("cost", None)
    else:
        extra["cost_unit"] = cost.UNIT
        extra["cost_model"] = ("roofline on %s: max(FLOPs / %.4g FLOP/s, bytes / %.4g B/s) + "
                               "%g us per kernel (scripts/torchexport/cost.py)"
                               % (cost.REFERENCE["device"], cost.REFERENCE["peak_flops"],
                                  cost.REFERENCE["bandwidth"], cost.REFERENCE["launch_us"]))
        extra["host_bandwidth"] = cost.host_bandwidth()
        extra["host_link"] = "%s, %g GB/s per direction" % (
            cost.REFERENCE["host_link"], cost.REFERENCE["host_bandwidth"] / 1e9)
    extra["backend"] = backend
    return gw.to_json(pb, bb, extra), gw.warnings


def export_one(path, name, batch, **kw):
    t0 = time.time()
    d, warnings = build(name, batch, **kw)
    d["name"] = os.path.splitext(os.path.basename(path))[0]
    write_graph(d, path)
    return len(d["nodes"]), time.time() - t0, warnings


def suite_jobs(models_, batches, train_batch, backend):
    jobs = []
    for m in models_:
        for b in batches:
            jobs.append(("%s_b%d" % (m, b), m, b, {"backend": backend}))
    for m in models_:
        for suffix, train, opt, keep in SUITE_VARIANTS:
            jobs.append(("%s%s_b%d" % (m, suffix, train_batch), m, train_batch,
                         {"train": train, "optimizer": opt, "keep_grads": keep,
                          "backend": backend}))
    return jobs


def large_jobs(backend):
    return [("%s_train_adam_b%d" % (m, b), m, b,
             {"train": True, "optimizer": "adam", "keep_grads": True, "backend": backend})
            for m, b in LARGE]


def run_jobs(outdir, jobs):
    """Export every job; one failure never stops the others.  Returns the
    number of failures."""
    os.makedirs(outdir, exist_ok=True)
    failures = []
    t_all = time.time()
    for stem, m, b, kw in jobs:
        path = os.path.join(outdir, stem + ".json")
        try:
            n, dt, warns = export_one(path, m, b, **kw)
            print("%-36s %6d nodes %6.1f s%s" % (stem, n, dt,
                  "  (%d warnings)" % len(warns) if warns else ""), flush=True)
        except Exception as e:  # report and go on
            first = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
            failures.append((stem, "%s: %s" % (type(e).__name__, first)))
            print("%-36s FAILED %s" % (stem, failures[-1][1]), flush=True)
            if os.environ.get("EXPORT_DEBUG"):
                traceback.print_exc()
    print("total %.1f s, %d graphs, %d failures" % (time.time() - t_all,
          len(jobs) - len(failures), len(failures)))
    for stem, msg in failures:
        print("failed: %s: %s" % (stem, msg))
    return len(failures)


def parser(doc):
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--train", action="store_true", help="a training step")
    ap.add_argument("--optimizer", choices=sorted(OPTIMIZERS),
                    help="add the optimizer step (with --train)")
    ap.add_argument("--sgd", action="store_true", help="same as --optimizer sgd")
    ap.add_argument("--keep-grads", action="store_true",
                    help="gradients kept between steps (with --train)")
    ap.add_argument("--backend", choices=sorted(BACKENDS), default="none",
                    help="kernel workspace model (default none: the planner's ideal)")
    ap.add_argument("--eager", action="store_true",
                    help="add the holds of eager execution (inference)")
    ap.add_argument("--no-cost", action="store_true", help="leave out node costs")
    ap.add_argument("--out")
    ap.add_argument("--onnx", metavar="FILE", help="export the model with torch.onnx instead")
    ap.add_argument("--all", metavar="OUTDIR", help="the suite's torchvision graphs")
    ap.add_argument("--large", metavar="OUTDIR", help="the suite's large transformer graphs")
    ap.add_argument("--batches", default="1,32", help="inference batches for --all")
    ap.add_argument("--train-batch", type=int, default=32, help="training batch for --all")
    ap.add_argument("--models", help="comma-separated subset for --all")
    return ap


def export_onnx(name, batch, path):
    """torch.onnx export (real tensors: torch.onnx runs the model once)."""
    model = models.build_model(name).eval()
    x, _ = models.example_inputs(name, batch, device="cpu")
    # not under no_grad: nn.MultiheadAttention's inference fast path
    # (_native_multi_head_attention) has no ONNX symbolic in torch 1.13
    torch.onnx.export(model, (x,), path, opset_version=13, input_names=["x"],
                      output_names=["out"], do_constant_folding=True)


def main(doc):
    ap = parser(doc)
    a = ap.parse_args()
    torch.set_num_threads(1)
    if a.all or a.large:
        fails = 0
        if a.all:
            ms = a.models.split(",") if a.models else models.MODELS
            bs = [int(s) for s in a.batches.split(",") if s]
            fails += run_jobs(a.all, suite_jobs(ms, bs, a.train_batch, a.backend))
        if a.large:
            fails += run_jobs(a.large, large_jobs(a.backend))
        return 1 if fails else 0
    if not a.model:
        ap.error("--model, --all or --large is required")
    if a.onnx:
        export_onnx(a.model, a.batch, a.onnx)
        print("wrote %s" % a.onnx)
        return 0
    if not a.out:
        ap.error("--out is required")
    opt = "sgd" if a.sgd else a.optimizer
    if (opt or a.keep_grads) and not a.train:
        ap.error("--optimizer, --sgd and --keep-grads need --train")
    if a.eager and a.train:
        ap.error("--eager applies to inference graphs")
    n, dt, warns = export_one(a.out, a.model, a.batch, train=a.train, optimizer=opt,
                              keep_grads=a.keep_grads, backend=a.backend,
                              with_eager=a.eager, costs=not a.no_cost)
    for w in warns:
        print("warning: " + w, file=sys.stderr)
    print("%s: %d nodes, %.1f s" % (a.out, n, dt))
    return 0
