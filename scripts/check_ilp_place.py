#!/usr/bin/python3
"""Check ilp-place's claims against exact on random small MiniMalloc CSVs.

Usage: python3 scripts/check_ilp_place.py [TRIALS] [MEMPLAN]  (defaults 150,
bin/memplan).  Trial t draws, with random.Random(t), 4-8 buffers of
lifetimes in [0, 10), sizes log-uniform from 8 bytes up to 2^20, 2^24, 2^27,
2^28 or 2^33, one alignment of 1, 8 or 64.  When exact proves an optimum
OPT, ilp-place must not claim `optimal` at another arena nor place below
OPT, must not call capacity OPT infeasible, and must not fit OPT - 1.
Prints each wrong claim and the count; exits 1 when there is one.  About
100 s for 150 trials on 2 cores (not part of make test; tests/cli.sh keeps
one instance).
"""
import json
import math
import random
import subprocess
import sys

TRIALS = int(sys.argv[1]) if len(sys.argv) > 1 else 150
MEMPLAN = sys.argv[2] if len(sys.argv) > 2 else "bin/memplan"
CSV = "/tmp/check_ilp_place.csv"


def solve(place, extra):
    p = subprocess.run([MEMPLAN, "solve", CSV, "--place", place, "--time-limit", "5",
                        "--format", "json"] + extra, capture_output=True, text=True)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"status": "no output", "arena": None}


def instance(t):
    r = random.Random(t)
    n = r.randint(4, 8)
    top = r.choice([2**20, 2**24, 2**27, 2**28, 2**33])
    al = r.choice([1, 8, 64])
    rows = ["id,lower,upper,size,alignment"]
    for i in range(n):
        lo = r.randint(0, 6)
        hi = lo + r.randint(1, 4)
        size = int(2 ** r.uniform(3, math.log2(top)))
        rows.append("%d,%d,%d,%d,%d" % (i, lo, hi, size, al))
    return "\n".join(rows) + "\n"


def main():
    wrong = 0
    for t in range(TRIALS):
        with open(CSV, "w") as f:
            f.write(instance(t))
        e = solve("exact", [])
        if e["status"] != "optimal":
            continue
        opt = e["arena"]
        a = solve("ilp-place", [])
        c = solve("ilp-place", ["--capacity", str(opt)])
        d = solve("ilp-place", ["--capacity", str(opt - 1)])
        bad = []
        if a["status"] == "optimal" and a["arena"] != opt:
            bad.append("optimal at %s" % a["arena"])
        if a["arena"] is not None and a["arena"] < opt:
            bad.append("placed below the optimum")
        if c["status"] == "infeasible":
            bad.append("infeasible at capacity %d" % opt)
        if d["status"] not in ("infeasible", "error", "timeout"):
            bad.append("%s at capacity %d" % (d["status"], opt - 1))
        for b in bad:
            print("trial %d (exact's optimum %d): ilp-place %s" % (t, opt, b))
        wrong += len(bad)
    print("check_ilp_place: %d trials, %d wrong claims" % (TRIALS, wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
