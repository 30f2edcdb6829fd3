#!/usr/bin/python3
"""Validate the exporter against eager PyTorch: memplan's live peak of each
exported graph against the allocator peak that eager execution really
reaches, measured on this machine's CPU.

For every row (model x mode) the exporter writes three graphs:
  ideal      --backend none, no holds: the planner's ideal (the suite's graphs)
  workspace  --backend cpu-onednn: plus the kernels' scratch
  model      --backend cpu-onednn --eager (inference): plus eager's holds
and `bin/memplan info GRAPH --format json` gives each one's live peak.
The measurement runs the same model (torchexport.models.build_model, the
same seed) in a child process: one thread, torch.profiler with
profile_memory=True around one step, the [memory] events summed in time
order; its peak plus the bytes of the tensors alive before the step that
memplan counts (the input and labels; kept gradients and optimizer state) is
the measured peak.  Parameters are excluded on both sides.  Training rows
with state measure a step after the first: the kept gradients (zeroed) and
the optimizer's state exist, created as torch 1.13 creates them.  (A
warm-up run changes no inference peak: resnet18, vit_b_16 and
mobilenet_v3_large at batch 1 measure the same with and without one.)

The report gives, per row, ratio = measured / model and the gap between the
ideal and the measurement split into what the workspace model explains,
what the eager holds explain, and the remainder.

  validate_torch.py [--models a,b] [--modes infer1,infer32,train,train_adam]
                    [--train-batch 4] [--out results/validation.md]
  validate_torch.py --ops [--models a,b] [--ops-batch 2] [--append REPORT]
        (the workspace table against every op the models run, measured alone)
  validate_torch.py --savings [--models a,b] [--out results/validation.md]
        (appends: the arena of a static plan against each measured eager peak)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

MODES = {
    # mode: (train, batch from --train-batch?, optimizer, keep_grads, eager holds)
    "infer1": (False, 1, None, False, True),
    "infer32": (False, 32, None, False, True),
    "train": (True, None, None, False, False),
    "train_adam": (True, None, "adam", True, False),
}
TARGET = 0.02


def _import_torch():
    import torch
    torch.set_num_threads(1)
    return torch


# -- measurement (child process) ----------------------------------------------

def measure(name, train, batch, optimizer, keep_grads):
    """Measured peak bytes of one eager step, as described in the docstring."""
    torch = _import_torch()
    from torchexport import calibrate, models
    from torchexport.training import OPTIMIZERS
    model = models.build_model(name)
    if not train:
        model.eval()
        x, _ = models.example_inputs(name, batch, device="cpu")
        with torch.no_grad():
            events = calibrate.memory_events(lambda: model(x))
        return calibrate.peak_of(events)[0] + x.numel() * x.element_size()
    model.train()
    w = models.TrainWrapper(model, name)
    x, labels = models.example_inputs(name, batch, device="cpu", train=True)
    opt = OPTIMIZERS[optimizer](list(model.parameters())) if optimizer else None
    alive = [x, labels] + init_state(model, opt, keep_grads)

    def step():
        loss = w(x, labels)
        loss.backward()
        if opt is not None:
            opt.step()
        return loss
    events = calibrate.memory_events(step)
    seen, base = set(), 0
    for t in alive:
        key = t.storage().data_ptr()
        if key not in seen:
            seen.add(key)
            base += t.storage().nbytes()
    return calibrate.peak_of(events)[0] + base


def init_state(model, opt, keep_grads):
    """The tensors a step after the first finds: kept gradients (zeroed, as
    zero_grad(set_to_none=False) leaves them) and the optimizer state torch
    1.13 creates on its first step (Adam: step counter and both moments;
    SGD with momentum: the buffer).  Returns them."""
    torch = _import_torch()
    alive = []
    for p in model.parameters():
        if keep_grads:
            p.grad = torch.zeros_like(p)
            alive.append(p.grad)
        if opt is None:
            continue
        group = opt.param_groups[0]
        st = opt.state[p]
        if isinstance(opt, torch.optim.Adam):
            st["step"] = torch.tensor(1.0)
            st["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            st["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        elif group.get("momentum", 0):
            st["momentum_buffer"] = torch.zeros_like(p)
        alive += [t for t in st.values() if isinstance(t, torch.Tensor)]
    return alive


def child_measure(name, mode, batch, timeout):
    train, _, opt, keep, _ = MODES[mode]
    cmd = [sys.executable, os.path.abspath(__file__), "--measure", name, mode, str(batch)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if r.returncode != 0:
        raise RuntimeError("measurement failed: " + r.stderr.strip().splitlines()[-1][:200])
    return int(r.stdout.strip().splitlines()[-1]), time.time() - t0


# -- prediction -----------------------------------------------------------------

def live_peak(memplan, path):
    r = subprocess.run([memplan, "info", path, "--format", "json"], capture_output=True,
                       text=True, check=True)
    return int(json.loads(r.stdout)["live_peak"])


def predict(memplan, tmp, name, mode, batch):
    """Live peaks of the ideal, workspace and model graphs of one row."""
    from torchexport.cli import build
    from torchexport.graph import write_graph
    train, _, opt, keep, holds = MODES[mode]
    peaks = {}
    variants = [("ideal", "none", False), ("workspace", "cpu-onednn", False)]
    if holds:
        variants.append(("model", "cpu-onednn", True))
    for label, backend, eager in variants:
        d, _ = build(name, batch, train=train, optimizer=opt, keep_grads=keep,
                     backend=backend, with_eager=eager, costs=False)
        path = os.path.join(tmp, "%s_%s_%s.json" % (name, mode, label))
        write_graph(d, path)
        peaks[label] = live_peak(memplan, path)
    peaks.setdefault("model", peaks["workspace"])
    return peaks


# -- report -------------------------------------------------------------------------

def existing_rows(path):
    """(model, mode, batch) -> table row of a report written before."""
    rows = {}
    if not os.path.exists(path):
        return rows
    for line in open(path):
        f = [c.strip() for c in line.split("|")]
        if len(f) > 4 and f[3].isdigit():
            rows[(f[1], f[2], int(f[3]))] = line.rstrip("\n")
    return rows


def fmt(n):
    return "{:,}".format(n)


def row_md(name, mode, batch, p, measured):
    ratio = measured / p["model"]
    ws = p["workspace"] - p["ideal"]
    holds = p["model"] - p["workspace"]
    rest = measured - p["model"]
    flag = "" if abs(ratio - 1) <= TARGET else " **"
    return ("| %s | %s | %d | %s | %s | %s | %.4f%s | %s | %s | %s |"
            % (name, mode.rstrip("0123456789"), batch, fmt(p["ideal"]), fmt(p["model"]),
               fmt(measured), ratio, flag, fmt(ws), fmt(holds), fmt(rest)))


HEADER = """| model | mode | batch | ideal live peak | model live peak | measured eager peak | measured / model | workspace explains | eager holds explain | remainder |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"""


def write_report(path, rows, cmdline, train_batch, notes):
    lines = ["# Validation: memplan's live peak against eager PyTorch's allocator peak", "",
             "Generated by `%s` (scripts/validate_torch.py; `make validate`)." % cmdline, "",
             __doc__.split("\n\n")[1].strip(), "",
             "ideal = `--backend none`, no holds (the graphs of the suite); model = "
             "`--backend cpu-onednn`, plus `--eager` for inference; training rows at "
             "batch %d (train: first step's semantics, gradients as outputs; train_adam: "
             "torch.optim.Adam with gradients kept between steps).  `**` marks a ratio "
             "more than %d%% from 1.  workspace explains = model-without-holds - ideal; "
             "eager holds explain = model - model-without-holds; remainder = measured - "
             "model." % (train_batch, int(TARGET * 100)), "", HEADER]
    lines += rows
    if notes:
        lines += ["", "## Notes", ""] + notes

    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


# -- what static planning saves ------------------------------------------------------

def arena(memplan, path):
    """Arena of memplan's plan in the file order, placed by hillclimb (10 s)."""
    plan = path[:-len(".json")] + ".plan.json"
    r = subprocess.run([memplan, "solve", path, "--place", "hillclimb", "--time-limit", "10",
                        "--format", "json", "--out", plan],
                       capture_output=True, text=True, check=True)
    return int(json.loads(r.stdout)["arena"])


def savings(memplan, names, report):
    """Markdown lines: per inference row of REPORT, the measured eager peak
    against the arena of a static plan of the same ops in the same order,
    with the kernels' scratch (cpu-onednn, no eager holds) and without it
    (the planner's ideal graph, as in the suite)."""
    from torchexport.cli import build
    from torchexport.graph import write_graph
    rows = existing_rows(report)
    lines = ["| model | batch | measured eager peak | static plan, cpu-onednn | saving | "
             "static plan, ideal graph | saving |", "|---|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            for batch in (1, 32):
                row = rows.get((name, "infer", batch))
                if row is None:
                    continue
                measured = int(row.split("|")[6].strip().replace(",", ""))
                cells = []
                for backend in ("cpu-onednn", "none"):
                    d, _ = build(name, batch, backend=backend, costs=False)
                    path = os.path.join(tmp, "%s_b%d_%s.json" % (name, batch, backend))
                    write_graph(d, path)
                    a = arena(memplan, path)
                    cells += [fmt(a), "%.1f%%" % (100.0 * (1 - a / measured))]
                lines.append("| %s | %d | %s | %s |" % (name, batch, fmt(measured),
                                                         " | ".join(cells)))
                print(lines[-1], file=sys.stderr, flush=True)
    return lines


# -- per-op check ---------------------------------------------------------------------

def check_ops(names, batch):
    """Markdown lines: the cpu-onednn table against every ATen op of a
    training step and an inference pass of each model, run one at a time."""
    torch = _import_torch()
    from torchexport import calibrate, models
    from torchexport.backend import BACKENDS
    rows = []
    for name in names:
        m = models.build_model(name).train()
        w = models.TrainWrapper(m, name)
        x, labels = models.example_inputs(name, batch, device="cpu", train=True)
        rows += calibrate.measure_model_ops(lambda: w(x, labels).backward())
        m.eval()
        with torch.no_grad():
            rows += calibrate.measure_model_ops(lambda: m(x))
        print("measured the ops of %s" % name, file=sys.stderr, flush=True)
    stats = calibrate.compare(rows, BACKENDS["cpu-onednn"])
    lines = ["| op | ops run | with workspace | table within 64 B | largest error (bytes) |",
             "|---|---:|---:|---:|---:|"]
    for op, (n, nz, ok, err) in sorted(stats.items()):
        if nz or ok < n:
            lines.append("| %s | %d | %d | %d | %s |" % (op, n, nz, ok, fmt(err)))
    total = sum(v[0] for v in stats.values())
    good = sum(v[2] for v in stats.values())
    lines += ["", "%d ops of %d models (training step and inference at batch %d): the "
              "table is within 64 bytes of the measurement on %d; ops with no workspace "
              "measured and none predicted are not listed." % (total, len(names), batch, good)]
    return lines


def command_line():
    """This run's command, less --out (the report is the output)."""
    args = sys.argv[1:]
    if "--out" in args:
        i = args.index("--out")
        args = args[:i] + args[i + 2:]
    return " ".join(["scripts/validate_torch.py"] + args)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", help="comma-separated (default: every suite model)")
    ap.add_argument("--modes", default="infer1,infer32,train,train_adam")
    ap.add_argument("--train-batch", type=int, default=4)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "validation.md"))
    ap.add_argument("--memplan", default=os.path.join(ROOT, "bin", "memplan"))
    ap.add_argument("--timeout", type=int, default=4 * 3600, help="seconds per measurement")
    ap.add_argument("--resume", action="store_true",
                    help="keep the rows the report already has, measure the others")
    ap.add_argument("--ops", action="store_true", help="check the workspace table op by op")
    ap.add_argument("--append", metavar="REPORT",
                    help="with --ops: append the check to REPORT instead of printing it")
    ap.add_argument("--ops-batch", type=int, default=2)
    ap.add_argument("--savings", action="store_true",
                    help="append to the report (--out) what a static plan saves over the "
                    "measured eager peak, per inference row")
    ap.add_argument("--measure", nargs=3, metavar=("MODEL", "MODE", "BATCH"),
                    help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.measure:
        name, mode, batch = a.measure
        train, _, opt, keep, _ = MODES[mode]
        print(measure(name, train, int(batch), opt, keep))
        return 0
    _import_torch()
    from torchexport import models
    names = a.models.split(",") if a.models else models.MODELS
    if a.savings:
        lines = savings(a.memplan, names, a.out)
        with open(a.out, "a") as f:
            f.write("\n".join(["", "## What static planning saves over eager execution", "",
                                "Generated by `%s`.  Each inference "
                                "row above: eager PyTorch's measured allocator peak (bytes in "
                                "use, before any fragmentation of its allocator) against the "
                                "arena of `memplan solve GRAPH --place hillclimb --time-limit 10` "
                                "(the file order, which is eager's order; fragmentation "
                                "included) on "
                                "the graph of the same model without eager's holds: with the "
                                "CPU kernels' scratch (`--backend cpu-onednn`: what a static "
                                "plan of the same kernels needs) and without it (the suite's "
                                "graph).  saving = 1 - arena / measured." % command_line(),
                                ""] + lines) + "\n")
        return 0
    if a.ops:
        lines = check_ops(names, a.ops_batch)
        if not a.append:
            print("\n".join(lines))
            return 0
        with open(a.append, "a") as f:
            f.write("\n".join(["", "## The workspace table, op by op", "",
                                "Generated by `scripts/validate_torch.py %s`.  Each ATen op "
                                "the models run, run again alone on the CPU under "
                                "torch.profiler (torchexport/calibrate.py): its measured "
                                "workspace (peak minus what its results hold) against "
                                "backend.py's cpu-onednn table." % " ".join(sys.argv[1:]),
                                ""] + lines) + "\n")
        return 0
    rows, notes = [], []
    done = existing_rows(a.out) if a.resume else {}
    cmdline = command_line()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            for mode in a.modes.split(","):
                batch = MODES[mode][1] or a.train_batch
                key = (name, mode.rstrip("0123456789"), batch)
                if key in done:
                    rows.append(done[key])
                    continue
                try:
                    p = predict(a.memplan, tmp, name, mode, batch)
                    measured, dt = child_measure(name, mode, batch, a.timeout)
                except Exception as e:  # one row never stops the others
                    notes.append("- %s %s batch %d: %s" % (name, mode, batch, e))
                    print("%s %s: %s" % (name, mode, e), file=sys.stderr, flush=True)
                    continue
                rows.append(row_md(name, mode, batch, p, measured))
                print("%s (%.0f s)" % (rows[-1], dt), file=sys.stderr, flush=True)
                write_report(a.out, rows, cmdline, a.train_batch, notes)
    write_report(a.out, rows, cmdline, a.train_batch, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
