#!/usr/bin/python3
"""place_diff.py - run two memplan binaries' placer side by side on random
fixed-lifetime problems (MiniMalloc CSV) and stop at the first answer that
differs: the arena and status of the minimisation, then of the decisions at
the optimum and one byte below as capacities.  For a mutant that survives
the unit tests (scripts/mutate.py), e.g.

  python3 scripts/place_diff.py --a bin/memplan --b /tmp/mutant/bin/memplan \\
      --seed 11 -n 200 --align --set exact.twins=0

Not part of `make test`.  Exit 1 at a difference (printed with its CSV),
0 when there is none."""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile


def problem(rng, align):
    """Random lifetimes over up to 20 steps; sizes of a few bytes, so that
    ties and equal floors are common; alignments 1-8 with --align."""
    if align:
        n, head = rng.randint(5, 16), "id,lower,upper,size,alignment"
    else:
        n, head = rng.randint(8, 24), "id,lower,upper,size"
    steps, top = rng.randint(6, 20), rng.choice([4, 8, 64])
    rows = [head]
    for i in range(n):
        lo = rng.randrange(steps)
        hi = lo + 1 + rng.randrange(max(1, min(8, steps - lo)))
        if align:
            rows.append(f"{i},{lo},{hi},{rng.choice([2, 4, 8])},{rng.choice([1, 2, 4, 8])}")
        else:
            rows.append(f"{i},{lo},{hi},{rng.randint(1, top)}")
    return "\n".join(rows) + "\n"


def answer(binary, path, args, extra):
    cmd = [binary, "solve", path, "--place", args.place, "--format", "json", "--no-baseline",
           "--time-limit", str(args.time_limit)] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        d = json.loads(p.stdout)
        return (p.returncode, d.get("arena"), d.get("place_status"))
    except ValueError:
        return (p.returncode, None, p.stderr.strip()[:120])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="one memplan binary")
    ap.add_argument("--b", required=True, help="the other")
    ap.add_argument("--place", default="exact")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=100, help="problems")
    ap.add_argument("--align", action="store_true", help="an alignment column")
    ap.add_argument("--time-limit", type=float, default=10)
    ap.add_argument("--set", action="append", default=[], help="a solver option, as memplan's --set")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    opts = sum([["--set", s] for s in args.set], [])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "problem.csv")
        for t in range(args.n):
            text = problem(rng, args.align)
            with open(path, "w") as f:
                f.write(text)
            runs = [opts]
            a = answer(args.a, path, args, opts)
            if a[0] == 0 and a[1]:
                runs += [opts + ["--capacity", str(c)] for c in (a[1], a[1] - 1)]
            for extra in runs:
                x, y = answer(args.a, path, args, extra), answer(args.b, path, args, extra)
                if x != y:
                    print(f"problem {t}, {' '.join(extra)}: {x} against {y}\n{text}", end="")
                    return 1
    print(f"the same answers on {args.n} problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
