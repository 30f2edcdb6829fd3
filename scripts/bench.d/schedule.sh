#!/bin/sh
# scripts/bench.d/schedule.sh - the scheduling benchmark of issue 5 (run by
# `make bench` after the default experiment, or by hand from the repository
# root).  Writes results/schedule.md: per family (generated RandWire cells,
# the suite's randwire / nas / real / train graphs, whichever exist) each
# order solver's live peak against the given order and against the proven
# optimum or the best lower bound, planning times, dp's proofs, the sizes
# ilp proves within its limit, and a time-limit check (a search solver given
# --time-limit 1 returns within 1.5 s).  Appends a pointer to
# results/README.md when that file exists.
#
# Environment (defaults in brackets):
#   MEMPLAN [bin/memplan]   RESULTS [results]
#   SCHED_LIMIT [10]   seconds for sa, ga, greedy,sa, greedy,ga per graph
#   DP_LIMIT [60]      seconds for dp per graph (inference, cells)
#   TRAIN_LIMIT [10]   seconds per search solver on a training graph
#   ILP_LIMIT [60]     seconds per ilp run in the size scan
#   CELLS [10]         generated RandWire WS cells (n=32 k=4 p=0.75), seeds 1..CELLS
#   FAMILIES [cells,randwire,nas,real,train,ilp,limits]  sections to run
#   SCHED_OUT [schedule.md]  report file name under RESULTS (to run families
#                      in separate processes: FAMILIES=train SCHED_OUT=schedule_train.md)
set -eu
cd "$(dirname "$0")/../.."
MEMPLAN=${MEMPLAN:-bin/memplan}
RESULTS=${RESULTS:-results}
export MEMPLAN RESULTS
mkdir -p "$RESULTS"
exec nice /usr/bin/python3 - "$@" <<'PY'
import os, re, subprocess, sys, tempfile, time

M = os.environ["MEMPLAN"]
SHOW = os.environ.get("MEMPLAN_SHOW", M)  # how commands name the binary in the report
RES = os.environ["RESULTS"]
SL = float(os.environ.get("SCHED_LIMIT", "10"))
DPL = float(os.environ.get("DP_LIMIT", "60"))
TL = float(os.environ.get("TRAIN_LIMIT", "10"))
IL = float(os.environ.get("ILP_LIMIT", "60"))
CELLS = int(os.environ.get("CELLS", "10"))
FAM = os.environ.get("FAMILIES", "cells,randwire,nas,real,train,ilp,limits").split(",")
tmp = tempfile.mkdtemp(prefix="memplan_sched_")
commands = []

STAGE = re.compile(r"^stage\s+(\S+)\s+(\S+)\s+([\d.]+) ms wall\s+([\d.]+) ms cpu(?:\s+bound (\d+))?\s*(.*)$")

def solve(path, order, limit=0, sets=()):
    cmd = [M, "solve", path, "--order", order, "--place", "noreuse"]
    if limit:
        cmd += ["--time-limit", str(limit)]
    for s in sets:
        cmd += ["--set", s]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    r = {"rc": p.returncode, "wall": wall, "cmd": " ".join([SHOW] + cmd[1:]), "err": p.stderr.strip()}
    if p.returncode != 0:
        return r
    stages = []
    for line in p.stdout.splitlines():
        m = re.match(r"^live peak\s+(\d+)", line)
        if m:
            r["peak"] = int(m.group(1))
        m = re.match(r"^lower bound\s+(\d+)", line)
        if m:
            r["lb"] = int(m.group(1))
        m = STAGE.match(line)
        if m:
            stages.append({"name": m.group(1), "status": m.group(2), "ms": float(m.group(3)),
                           "bound": int(m.group(5) or 0), "msg": m.group(6)})
    order_stages = [s for s in stages if s["name"] != "noreuse"]
    r["stage"] = order_stages[-1] if order_stages else None
    r["order_ms"] = sum(s["ms"] for s in order_stages)
    return r

def info_nodes(path):
    p = subprocess.run([M, "info", path], capture_output=True, text=True)
    m = re.search(r"^nodes\s+(\d+)", p.stdout, re.M)
    return int(m.group(1)) if m else 0

def mib(x):
    return "%.2f" % (x / 1048576.0)

def pct(a, b):
    return "%+.1f%%" % (100.0 * (a - b) / b) if b else "n/a"

def suite(tag_any, tag_none=()):
    out = []
    try:
        rows = open("graphs/SUITE.tsv").read().splitlines()[1:]
    except OSError:
        return out
    for row in rows:
        f = row.split("\t")
        if len(f) < 5:
            continue
        tags = f[4].split(",")
        if not any(t in tags for t in tag_any) or any(t in tags for t in tag_none):
            continue
        if os.path.exists(f[0]) and f[0].endswith(".json"):
            out.append(f[0])
    return out

HEUR = ["given", "greedy", "lpmf", "bfs", "dfs", "best"]
# budgets: sa 4 restarts x 1e6 moves, ga 20000 generations, each also cut by
# the time limit (SCHED_LIMIT)
SEARCH = [("sa", ["sa.iters=1e6"]), ("ga", ["ga.generations=20000"]),
          ("greedy,sa", ["sa.iters=1e6"]), ("greedy,ga", ["ga.generations=20000"])]
md = []
summary = []

def family(title, paths, dp_limit, search_limit):
    if not paths:
        md.append("\n## %s\n\nNo graphs of this family in the suite yet.\n" % title)
        return
    md.append("\n## %s\n" % title)
    md.append("Cells: live peak change against the given order / gap to the proven optimum "
              "(dp, status optimal) or, where dp stopped, to the best lower bound; "
              "planning time (order stage, ms) in the second table.\n")
    names = HEUR + ["dp"] + [s for s, _ in SEARCH]
    md.append("| graph | nodes | given MiB | optimum MiB | " + " | ".join(names) + " |")
    md.append("|" + "---|" * (4 + len(names)))
    times = []
    proved = 0
    within = {s: [0, 0] for s, _ in SEARCH}
    dp_times = []
    for p in paths:
        n = info_nodes(p)
        res = {}
        for h in HEUR:
            res[h] = solve(p, h)
        res["dp"] = solve(p, "dp", dp_limit)
        for s, sets in SEARCH:
            res[s] = solve(p, s, search_limit, sets)
        given = res["given"].get("peak", 0)
        d = res["dp"]
        opt = d.get("peak") if d.get("stage") and d["stage"]["status"] == "optimal" else None
        bound = max([r["stage"]["bound"] for r in res.values() if r.get("stage")] + [d.get("lb", 0)])
        ref = opt if opt is not None else bound
        if opt is not None:
            proved += 1
            dp_times.append(d["order_ms"])
        cells, tcells = [], []
        for k in names:
            r = res[k]
            if r["rc"] != 0 or "peak" not in r:
                cells.append("error")
                tcells.append("-")
                continue
            st = r["stage"]["status"] if r.get("stage") else ""
            mark = "*" if k == "dp" and st == "optimal" else ""
            cells.append("%s / %s%s" % (pct(r["peak"], given), pct(r["peak"], ref), mark))
            tcells.append("%.1f" % r["order_ms"])
            if k in within and opt is not None:
                within[k][1] += 1
                if r["peak"] <= opt * 1.01:
                    within[k][0] += 1
        name = os.path.basename(p).replace(".json", "")
        md.append("| %s | %d | %s | %s | %s |" % (name, n, mib(given),
                  mib(opt) if opt is not None else "(bound %s)" % mib(bound), " | ".join(cells)))
        times.append("| %s | %s |" % (name, " | ".join(tcells)))
        commands.append(res["dp"]["cmd"])
    md.append("\n`*` dp proved the optimum.  Planning time (ms):\n")
    md.append("| graph | " + " | ".join(names) + " |")
    md.append("|" + "---|" * (1 + len(names)))
    md.extend(times)
    line = "%s: dp proved %d of %d graphs" % (title, proved, len(paths))
    if dp_times:
        line += " (max %.1f ms, median %.1f ms)" % (max(dp_times), sorted(dp_times)[len(dp_times) // 2])
    line += "; within 1% of the optimum: " + ", ".join(
        "%s %d/%d" % (s, w[0], w[1]) for s, w in within.items())
    summary.append(line)
    md.append("\n" + line + "\n")

if "cells" in FAM and CELLS > 0:
    paths = []
    for s in range(1, CELLS + 1):
        f = os.path.join(tmp, "randwire_ws_n32_k4_p075_s%d.json" % s)
        subprocess.run([M, "gen", "randwire", "--model", "ws", "-n", "32", "-k", "4", "-p", "0.75",
                        "--seed", str(s), "--out", f], check=True)
        paths.append(f)
    commands.append("%s gen randwire --model ws -n 32 -k 4 -p 0.75 --seed S --out F  (S = 1..%d)" % (SHOW, CELLS))
    family("Operator-level RandWire cells (generated: WS n=32 k=4 p=0.75)", paths, DPL, SL)
if "randwire" in FAM:
    family("Suite RandWire graphs (tag randwire)", suite(["randwire"], ["tiny"]), DPL, SL)
if "nas" in FAM:
    family("Suite NAS cells (tag nas)", suite(["nas"], ["tiny"]), DPL, SL)
if "real" in FAM:
    family("Real inference graphs (tag real, not train)", suite(["real"], ["train"]), DPL, SL)

if "train" in FAM:
    paths = suite(["train"])
    md.append("\n## Training graphs (tag train)\n")
    if not paths:
        md.append("No training graphs in the suite yet.\n")
    else:
        md.append("Each solver's live peak against the given order and against the best of "
                  "Inductor's three orders (lpmf, bfs, dfs); `bound` is the min-cut lower bound "
                  "(schedbound.h: when v runs, the cheapest set of executed nodes that holds v and "
                  "its ancestors and none of its descendants leaves every buffer it made and "
                  "something outside still reads live; a max flow per node) or dp's, whichever is "
                  "larger; gap = best peak found vs that bound.  ga and greedy,sa (each using the "
                  "whole limit unless the peak meets the bound) and dp run with --time-limit %g.\n" % TL)
        names = ["greedy", "lpmf", "bfs", "dfs", "best", "ga", "greedy,sa", "dp"]
        md.append("| graph | nodes | given MiB | best of 3 MiB | node bound MiB | bound MiB | " +
                  " | ".join(names) + " | gap |")
        md.append("|" + "---|" * (7 + len(names)))
        for p in paths:
            n = info_nodes(p)
            res = {"given": solve(p, "given")}
            for h in ["greedy", "lpmf", "bfs", "dfs", "best"]:
                res[h] = solve(p, h)
            res["ga"] = solve(p, "ga", TL, ["ga.generations=1e9"])
            res["greedy,sa"] = solve(p, "greedy,sa", TL)
            res["dp"] = solve(p, "dp", TL)
            given = res["given"].get("peak", 0)
            b3 = min(res[k].get("peak", 1 << 62) for k in ["lpmf", "bfs", "dfs"])
            bound = max([r["stage"]["bound"] for r in res.values() if r.get("stage")] + [0])
            nodeb = res["given"].get("lb", 0)
            cells = []
            bestp = min(r.get("peak", 1 << 62) for r in res.values())
            for k in names:
                r = res[k]
                if "peak" not in r:
                    cells.append("error")
                    continue
                cells.append("%s / %s" % (pct(r["peak"], given), pct(r["peak"], b3)))
            md.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
                os.path.basename(p).replace(".json", ""), n, mib(given), mib(b3), mib(nodeb),
                mib(bound), " | ".join(cells), pct(bestp, bound)))
            commands.append(res["greedy,sa"]["cmd"])
            commands.append(res["ga"]["cmd"])
        md.append("\nCells: change vs the given order / vs the best of lpmf, bfs, dfs.\n")

if "ilp" in FAM:
    md.append("\n## ilp: graph sizes proved within %g s\n" % IL)
    md.append("Random layered DAGs (`memplan gen layered -n N --seed 1`) and the suite's tiny "
              "NAS/RandWire cells; ilp (GLPK, time-indexed model, warm start) against dp.\n")
    md.append("| graph | nodes | ilp status | ilp s | ilp peak | ilp bound | dp peak | agree |")
    md.append("|---|---|---|---|---|---|---|---|")
    fails = 0
    graphs = [(f, None) for f in suite(["tiny"]) if ("nas" in f or "randwire" in f)]
    for N in [10, 15, 20, 25, 30, 35, 40, 50, 60]:
        graphs.append((os.path.join(tmp, "layered_n%d.json" % N), N))
    for f, N in graphs:
        if N is not None:
            if fails >= 2:
                break
            subprocess.run([M, "gen", "layered", "-n", str(N), "--seed", "1", "--out", f], check=True)
        r = solve(f, "ilp", IL)
        d = solve(f, "dp", IL)
        st = r["stage"]["status"] if r.get("stage") else "error"
        if N is not None:
            fails = fails + 1 if st != "optimal" else 0
        agree = ""
        if st == "optimal" and d.get("stage") and d["stage"]["status"] == "optimal":
            agree = "yes" if r["peak"] == d["peak"] else "NO"
        md.append("| %s | %d | %s | %.1f | %s | %s | %s | %s |" % (
            os.path.basename(f).replace(".json", ""), info_nodes(f), st, r["wall"],
            r.get("peak", "-"), r["stage"]["bound"] if r.get("stage") else "-", d.get("peak", "-"), agree))
        commands.append(r["cmd"])
    md.append("")

if "limits" in FAM:
    md.append("\n## Time limits: --time-limit 1 returns within 1.5 s\n")
    md.append("Wall time of the whole `memplan solve` process (parsing and evaluation included).\n")
    md.append("| solver | graph | status | wall s | ok |")
    md.append("|---|---|---|---|---|")
    big = os.path.join(tmp, "layered_n300.json")
    subprocess.run([M, "gen", "layered", "-n", "300", "--seed", "1", "--out", big], check=True)
    mid = os.path.join(tmp, "layered_n50.json")
    subprocess.run([M, "gen", "layered", "-n", "50", "--seed", "1", "--out", mid], check=True)
    train = suite(["train"])
    cases = [("dp", big, []), ("sa", big, ["sa.iters=1e9"]), ("ga", big, ["ga.generations=1e9"]),
             ("greedy,sa", big, ["sa.iters=1e9"]), ("greedy,ga", big, ["ga.generations=1e9"]),
             ("ilp", mid, [])]
    if train:
        t = max(train, key=info_nodes)
        cases += [("dp", t, []), ("sa", t, ["sa.iters=1e9"]), ("ga", t, ["ga.generations=1e9"])]
    for s, f, sets in cases:
        r = solve(f, s, 1, sets)
        st = r["stage"]["status"] if r.get("stage") else "error"
        md.append("| %s | %s | %s | %.2f | %s |" % (s, os.path.basename(f), st, r["wall"],
                                                   "yes" if r["wall"] <= 1.5 else "NO"))
        commands.append(r["cmd"])

head = ["# Scheduling solvers (issue 5)", "",
        "Generated by `scripts/bench.d/schedule.sh` on %s (%s, %d cores). " % (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.uname().nodename, os.cpu_count()),
        "Settings: SCHED_LIMIT=%g DP_LIMIT=%g TRAIN_LIMIT=%g ILP_LIMIT=%g CELLS=%d FAMILIES=%s." % (
            SL, DPL, TL, IL, CELLS, ",".join(FAM)),
        "Peaks are live peaks (DESIGN 1.3), computed by the evaluator; every plan is verified by "
        "`memplan solve`.", "", "## Summary", ""] + ["- " + s for s in summary]
out = head + md + ["", "## Commands", "", "```"] + sorted(set(commands))[:60] + ["```", ""]
OUT = os.environ.get("SCHED_OUT", "schedule.md")
open(os.path.join(RES, OUT), "w").write("\n".join(out))
readme = os.path.join(RES, "README.md")
if os.path.exists(readme):
    txt = open(readme).read()
    if "results/%s" % OUT not in txt:
        open(readme, "a").write("\n## Scheduling (%s)\n\nSee [%s](%s) (results/%s, written by "
                                "scripts/bench.d/schedule.sh).\n" % (OUT, OUT, OUT, OUT))
print("schedule.sh: wrote %s" % os.path.join(RES, OUT))
for s in summary:
    print("  " + s)
PY
