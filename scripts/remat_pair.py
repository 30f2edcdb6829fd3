#!/usr/bin/python3
"""Compare the cells of two recomputation tables (the CSVs `memplan table
--view remat --format csv` writes, e.g. results/remat.csv and
results/remat_strict.csv) solver by solver and budget by budget: how many
cells each planned, and where both did, the geometric mean and range of the
duration ratio (second / first) and how many of the first's plans rerun
stale nodes.  Usage: scripts/remat_pair.py FIRST.csv SECOND.csv"""
import csv
import math
import sys


def load(path):
    cells = {}
    for r in csv.DictReader(open(path)):
        if r["bandwidth_arg"] == "0":
            cells[(r["remat_solver"], r["budget_arg"], r["graph"])] = r
    return cells


def main(first, second):
    a, b = load(first), load(second)
    keys = sorted({(s, bud) for s, bud, _ in b}, key=lambda k: (k[0], -float(k[1].rstrip("x"))))
    print("| solver | budget | plans (first) | plans (second) | both | duration ratio, geo. mean (range) | first's stale plans among both |")
    print("|---|---|---:|---:|---:|---|---:|")
    for s, bud in keys:
        graphs = sorted(g for s2, b2, g in b if (s2, b2) == (s, bud))
        has = lambda t, g: (s, bud, g) in t and t[(s, bud, g)]["overhead"] != ""
        na = sum(has(a, g) for g in graphs)
        nb = sum(has(b, g) for g in graphs)
        both = [g for g in graphs if has(a, g) and has(b, g)]
        ratios = [(1 + float(b[(s, bud, g)]["overhead"])) / (1 + float(a[(s, bud, g)]["overhead"])) for g in both]
        stale = sum(int(a[(s, bud, g)]["stale_reruns"] or 0) > 0 for g in both)
        rng = "%.4f (%.3f-%.3f)" % (math.exp(sum(map(math.log, ratios)) / len(ratios)), min(ratios), max(ratios)) if ratios else "-"
        print("| %s | %s | %d | %d | %d | %s | %d |" % (s, bud, na, nb, len(both), rng, stale))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
