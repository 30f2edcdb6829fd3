#!/usr/bin/python3
"""bench_limits.py (make bench-limits) - does every solver of the registry
keep its time limit and its memory cap on a large graph?

DESIGN 4: solvers that search stop within their time limit with the best plan
so far; exact solvers that would exceed a memory or size cap refuse with a
clear message instead of thrashing.  Each solver of `memplan solvers` runs once
on a generated graph of N nodes (default 10^5) with --time-limit LIMIT
(default 5 s): order solvers with firstfit on the layered DAG of bench_scale.sh,
placers after the greedy order on it and again after the given order on its
training step (every activation lives across the middle step: greedy by size
is quadratic there), events stages (recomputation/offload) on that training
step at 0.6 of the live peak with firstfit; last, the default solve of the
training step with its baseline (given + bysize, which gets its own limit).  The row gives the
solver's own stage time (the JSON's *_ms), the whole process's wall time and
peak RSS per node, and a verdict: within the limit (stage time <= LIMIT +
SLACK, default 1 s), refused (the size or memory cap), or over.  Solvers that
do not search (one greedy pass) take no limit; the table says so when they
run past it.  Writes results/limits.md (atomically), or results/limits_N.md
when N is not the default 10^5.

Environment: MEMPLAN (bin/memplan), RESULTS (results), SCALE_DIR (build/scale,
shared with bench_scale.sh), N, LIMIT, SLACK, KILL (seconds after which a
run is killed, default 20 x LIMIT + 60), ONLY (solver names, comma-separated).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMPLAN = os.environ.get("MEMPLAN", os.path.join(ROOT, "bin/memplan"))
RESULTS = os.environ.get("RESULTS", os.path.join(ROOT, "results"))
SCALE_DIR = os.environ.get("SCALE_DIR", os.path.join(ROOT, "build/scale"))
N = int(os.environ.get("N", "100000"))
LIMIT = float(os.environ.get("LIMIT", "5"))
SLACK = float(os.environ.get("SLACK", "1"))
KILL = float(os.environ.get("KILL", str(20 * LIMIT + 60)))
ONLY = [s for s in os.environ.get("ONLY", "").split(",") if s]

STAGE_MS = {"order": "order_ms", "offsets": "place_ms", "offsets-train": "place_ms", "both": "place_ms",
            "events": "remat_ms", "baseline": "place_ms"}


def missing(path):
    return not os.path.exists(path) or os.path.getsize(path) == 0


def graphs():
    """The layered DAG and the training step of bench_scale.sh (same commands)."""
    os.makedirs(SCALE_DIR, exist_ok=True)
    layered = os.path.join(SCALE_DIR, "layered_%d.json" % N)
    train = os.path.join(SCALE_DIR, "train_%d.json" % N)
    if missing(layered):
        subprocess.run([MEMPLAN, "gen", "layered", "-n", str(N), "--seed", "1", "--out", layered], check=True)
    if missing(train):
        subprocess.run([MEMPLAN, "gen", "sp", "-n", str(N // 2), "--par-prob", "0.2", "--backward",
                        "--seed", "1", "--out", train], check=True)
    return layered, train


def registry():
    """(name, kind) of every solver, from `memplan solvers`."""
    out = subprocess.run([MEMPLAN, "solvers"], check=True, capture_output=True, text=True).stdout
    rows = re.findall(r"^(\S+)\s+(order|offsets|both|events)\s", out, re.M)
    return [r for r in rows if not ONLY or r[0] in ONLY]


def command(name, kind, layered, train):
    common = ["--time-limit", "%g" % LIMIT, "--no-baseline", "--format", "json"]
    if kind == "baseline":
        return [MEMPLAN, "solve", train, "--order", "given", "--place", name, "--time-limit", "%g" % LIMIT,
                "--format", "json"]
    if kind == "offsets-train":
        return [MEMPLAN, "solve", train, "--order", "given", "--place", name] + common
    if kind == "order":
        return [MEMPLAN, "solve", layered, "--order", name, "--place", "firstfit"] + common
    if kind == "offsets":
        return [MEMPLAN, "solve", layered, "--order", "greedy", "--place", name] + common
    if kind == "both":
        return [MEMPLAN, "solve", layered, "--order", name] + common
    return [MEMPLAN, "solve", train, "--order", "given", "--remat", name, "--place", "firstfit",
            "--budget-frac", "0.6"] + common


def run(cmd):
    """(exit code or 'killed', wall s, peak RSS KB, JSON or None, stderr's last line)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.time()
        try:
            p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", tf.name] + cmd, capture_output=True,
                               text=True, timeout=KILL)
        except subprocess.TimeoutExpired:
            return "killed", time.time() - t0, None, None, ""
        last = (tf.read().strip().splitlines() or ["- -"])[-1].split()
    wall, rss = float(last[0]), int(last[1])
    try:
        js = json.loads(p.stdout)
    except ValueError:
        js = None
    err = (p.stderr.strip().splitlines() or [""])[-1]
    return p.returncode, wall, rss, js, err


def verdict(kind, rc, js, stage_s):
    if rc == "killed":
        return "killed after %g s" % KILL
    status = js.get("status") if js else None
    if kind == "baseline":  # the chain and the baseline have a limit each
        whole = "%s; reduction_vs_given %s" % (
            "chain within the limit" if stage_s is not None and stage_s <= LIMIT + SLACK else "chain over",
            "absent" if js and js.get("reduction_vs_given") is None else "computed")
        return whole
    if status == "refused":
        return "refused (size or memory cap)"
    if stage_s is None:
        return "exit %s, no figures" % rc
    timing = ("within the limit" if stage_s <= LIMIT + SLACK else
              "over the limit by %.1f s" % (stage_s - LIMIT))
    return timing if js and js.get("has_figures") else timing + ", no plan"


def row(name, kind, layered, train):
    cmd = command(name, kind, layered, train)
    rc, wall, rss, js, err = run(cmd)
    ms = js.get(STAGE_MS[kind]) if js else None
    stage_s = ms / 1000.0 if isinstance(ms, (int, float)) else None
    v = verdict(kind, rc, js, stage_s)
    status = js.get("status") if js else ("killed" if rc == "killed" else "exit %s" % rc)
    msg = (js.get("message") if js else None) or (err if rc != 0 else "")
    shown = " ".join(os.path.relpath(c, ROOT) if c.startswith("/") else c for c in cmd)
    print("bench-limits: %-12s %-8s %-9s stage %s s, wall %.2f s, %s" %
          (name, kind, status, "-" if stage_s is None else "%.2f" % stage_s, wall, v), flush=True)
    return {"name": name, "kind": kind, "status": status, "stage": stage_s, "wall": wall,
            "rss": rss, "verdict": v, "msg": msg, "cmd": shown}


def cell(x, fmt):
    return "-" if x is None else fmt % x


def report(rows, version):
    nodes = N
    lines = ["# Time limits and memory caps at %d nodes" % nodes, "",
             "Generated by `make bench-limits` (scripts/bench_limits.py) at %s, %s, on this"
             " 2-core machine.  Every solver of the registry, `--time-limit %g`, no baseline;"
             " order solvers with firstfit and placers (kind offsets) after the greedy order on"
             " `memplan gen layered -n %d --seed 1`; placers again (offsets-train), after the"
             " given order, and events stages on `memplan gen sp -n %d"
             " --par-prob 0.2 --backward --seed 1`, the latter at 0.6 of its live peak with firstfit;"
             " last (baseline), its default solve with the baseline of reduction_vs_given"
             " (given + bysize), which gets a limit of its own."
             "  Stage: the solver's own wall time (the JSON's order_ms / place_ms /"
             " remat_ms); within the limit: at most %g s + %g s.  Whole: the process (read,"
             " solve, verify, evaluate, write).  A solver that does not search (one greedy pass:"
             " the list orders, the fit placers) takes no limit: 'over' is then its"
             " running time; bysize and bysize-ff stop 0.5 s past the deadline (status timeout,"
             " birth-order first fit)." % (version, time.strftime("%Y-%m-%d"), LIMIT,
                                                    N, N // 2, LIMIT, SLACK), "",
             "| solver | kind | status | stage s | whole s | peak RSS B/node | verdict |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        per = None if r["rss"] is None else r["rss"] * 1024.0 / nodes
        lines.append("| %s | %s | %s | %s | %.2f | %s | %s |" % (
            r["name"], r["kind"], r["status"], cell(r["stage"], "%.2f"), r["wall"], cell(per, "%.0f"),
            r["verdict"]))
    lines += ["", "Messages (refusals, failures):", ""]
    lines += ["- %s" % r["msg"] if r["msg"].startswith(r["name"] + ":") else "- %s: %s" % (r["name"], r["msg"])
              for r in rows if r["msg"]]
    lines += ["", "Commands:", ""] + ["- `%s`" % r["cmd"] for r in rows]
    return "\n".join(lines) + "\n"


def main():
    if not os.path.exists("/usr/bin/time"):
        sys.exit("bench-limits: /usr/bin/time is missing (make deps installs it)")
    # the commit the measured binary was built from, as every other report names it
    out = subprocess.run([MEMPLAN, "--version"], capture_output=True, text=True).stdout
    version = out[out.find("(") + 1:out.rfind(")")] if "(" in out else "unknown"
    layered, train = graphs()
    solvers = registry()
    solvers += [(name, "offsets-train") for name, kind in solvers if kind == "offsets"]
    if not ONLY or "baseline" in ONLY:
        solvers.append(("firstfit", "baseline"))
    rows = [row(name, kind, layered, train) for name, kind in solvers]
    os.makedirs(RESULTS, exist_ok=True)
    out = os.path.join(RESULTS, "limits.md" if N == 100000 else "limits_%d.md" % N)
    fd, tmp = tempfile.mkstemp(dir=RESULTS, prefix=".limits.")
    with os.fdopen(fd, "w") as f:
        f.write(report(rows, version))
    os.replace(tmp, out)
    print("bench-limits: wrote %s" % out)


if __name__ == "__main__":
    main()
