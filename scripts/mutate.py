#!/usr/bin/python3
"""Mutation testing of C sources: see scripts/mutate.sh for the usage.

Each mutant is one small change at one site of one file (a comparison or
logical operator swapped, + and - swapped, a condition negated, a constant
0/1 flipped, a `continue;`, `break;` or assignment deleted).  The sites are
found on the code with comments and literals masked out; per file a seeded
shuffle picks at most CAP of them, so a run is repeatable.  Every mutant is
built and tested in a scratch copy of the tree (never the tree itself); a
mutant that does not compile is not a mutant and is not counted.
"""
import argparse
import difflib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

# operator swaps: pattern on the masked code, replacement text
SWAPS = [
    ("rel", r"(?<![<>=!\-])<(?![<=])", "<="),
    ("rel", r"(?<![<>])<=", "<"),
    ("rel", r"(?<![<>=\-])>(?![>=])", ">="),
    ("rel", r"(?<![<>])>=", ">"),
    ("eq", r"==", "!="),
    ("eq", r"!=", "=="),
    ("logic", r"&&", "||"),
    ("logic", r"\|\|", "&&"),
    ("arith", r"(?<=[\w)\]] )\+(?= [\w(])", "-"),
    ("arith", r"(?<=[\w)\]] )-(?= [\w(])", "+"),
    ("arith", r"\+=", "-="),
    ("arith", r"-=", "+="),
    ("const", r"(?<![\w.])0(?![\w.])", "1"),
    ("const", r"(?<![\w.])1(?![\w.])", "0"),
    ("bool", r"\btrue\b", "false"),
    ("bool", r"\bfalse\b", "true"),
]
DECISION = {"rel", "eq", "logic", "neg", "del"}


def mask_code(text):
    """The text with comments, strings, char literals and preprocessor lines
    blanked (same length, newlines kept), so patterns see code alone."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and text[i:].lstrip(" \t").startswith("#"):
            j = text.find("\n", i)
            j = n if j < 0 else j
            while j < n and text[j - 1] == "\\":
                j = text.find("\n", j + 1)
                j = n if j < 0 else j
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            line_start = c == "\n" or (line_start and c in " \t")
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
        line_start = False
    return "".join(out)


def body_depths(masked):
    """Brace depth at each offset: sites at depth 0 are declarations."""
    depth, d = [], 0
    for c in masked:
        if c == "{":
            d += 1
        depth.append(d)
        if c == "}":
            d -= 1
    return depth


def matching_paren(masked, i):
    d = 0
    for j in range(i, len(masked)):
        if masked[j] == "(":
            d += 1
        elif masked[j] == ")":
            d -= 1
            if d == 0:
                return j
    return -1


def find_sites(text):
    """Every candidate mutant: (start, end, replacement, op)."""
    masked = mask_code(text)
    depth = body_depths(masked)
    sites = []
    for op, pat, rep in SWAPS:
        for m in re.finditer(pat, masked):
            if depth[m.start()] == 0:
                continue
            if op == "const" and re.search(r"\[\s*$", masked[max(0, m.start() - 20):m.start()]):
                continue  # an array size or index of 0/1 is seldom logic
            sites.append((m.start(), m.end(), rep, op))
    for m in re.finditer(r"\b(if|while)\s*\(", masked):
        if depth[m.start()] == 0:
            continue
        o = m.end() - 1
        c = matching_paren(masked, o)
        if c > 0:
            sites.append((o + 1, c, "!(" + text[o + 1:c] + ")", "neg"))
    for m in re.finditer(r"(?m)^[ \t]*(continue;|break;|[\w.\->\[\]]+ (?:[-+*/|&]?=) [^;{}]*;)[ \t]*$",
                         masked):
        s = m.start(1)
        if depth[s] == 0:
            continue
        sites.append((s, m.end(1), ";", "del"))
    # loop bounds in for headers are boilerplate (a mutant there mostly
    # reads out of bounds): leave them out
    heads = []
    for m in re.finditer(r"\bfor\s*\(", masked):
        heads.append((m.end() - 1, matching_paren(masked, m.end() - 1)))
    sites = [x for x in sites if not any(o < x[0] < c for o, c in heads)]
    sites.sort()
    return sites


def pick(path, text, seed, cap, ops):
    sites = [s for s in find_sites(text) if s[3] in ops]
    rng = random.Random("%s:%s" % (seed, os.path.basename(path)))
    rng.shuffle(sites)
    # decision sites first (comparisons, logic, negations, deletions)
    sites.sort(key=lambda s: s[3] not in DECISION)
    return sites[:cap] if cap > 0 else sites


def run(cmd, cwd, timeout=None, log=None):
    p = subprocess.Popen(cmd, cwd=cwd, shell=True, stdin=subprocess.DEVNULL,
                         stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT,
                         start_new_session=True)
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.wait()
        kill_strays(cwd)
        return None


def kill_strays(root):
    """Kill what still runs in the scratch tree: Check forks each test into a
    process group of its own, which killpg above does not reach, and the
    runner that would have timed it out is gone."""
    root = os.path.realpath(root)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink("/proc/%s/cwd" % pid)
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + "/"):
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass


def make_scratch(src, dst):
    """A copy of the tree without .git (the build then records commit
    "unknown" and no git command can touch the real tree's index)."""
    ign = shutil.ignore_patterns(".git", "build-asan", "results")
    shutil.copytree(src, dst, symlinks=True, ignore=ign, dirs_exist_ok=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", help="sources to mutate (paths in the tree)")
    ap.add_argument("-t", "--test", default="", help="test command, run by sh in the copy")
    # bin/memplan too: test_bench, test_bench_batch and tests/cli.sh run the
    # CLI, which would otherwise stay the unmutated one
    ap.add_argument("-b", "--build", default="make -j1 build/test_memplan bin/memplan",
                    help="incremental build command (default: %(default)s)")
    ap.add_argument("-s", "--seed", default="1")
    ap.add_argument("-n", "--cap", type=int, default=10, help="mutants per file (0: all)")
    ap.add_argument("--ops", default="rel,eq,logic,neg,del,arith,const,bool")
    ap.add_argument("--only", default="", help="comma-separated mutant ids (FILE#K) to run")
    ap.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    ap.add_argument("--timeout", type=float, default=0,
                    help="seconds per test run (default: 3x the unmutated run, at least 20)")
    ap.add_argument("--tree", default=".", help="source tree (default: .)")
    ap.add_argument("--scratch", default="", help="copy dir (default: a new one in /tmp, removed)")
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    ops = set(a.ops.split(","))
    only = set(x for x in a.only.split(",") if x)

    plan = []
    for f in a.files:
        text = open(os.path.join(tree, f)).read()
        for k, (s, e, rep, op) in enumerate(pick(f, text, a.seed, a.cap, ops), 1):
            mid = "%s#%d" % (os.path.basename(f), k)
            if not only or mid in only:
                plan.append((mid, f, text, s, e, rep, op))
    if a.list:
        for mid, f, text, s, e, rep, op in plan:
            line = text.count("\n", 0, s) + 1
            print("%-18s %s:%d %-5s %r -> %r" % (mid, f, line, op, text[s:e][:60], rep[:60]))
        return 0

    if not a.test:
        ap.error("a test command (-t) is needed unless --list")
    scratch = a.scratch or tempfile.mkdtemp(prefix="memplan-mutants.")
    print("# scratch copy: %s" % scratch, flush=True)
    make_scratch(tree, scratch)
    log = open(os.path.join(scratch, "mutate.log"), "w")
    if run(a.build, scratch, log=log) != 0:
        print("# the unmutated tree does not build: see %s/mutate.log" % scratch)
        return 2
    t0 = time.time()
    if run(a.test, scratch, log=log) != 0:
        print("# the tests fail on the unmutated tree: see %s/mutate.log" % scratch)
        return 2
    timeout = a.timeout or max(20.0, 3 * (time.time() - t0))
    print("# unmutated test run %.1f s, timeout %.0f s" % (time.time() - t0, timeout), flush=True)

    counts = {}
    for mid, f, text, s, e, rep, op in plan:
        path = os.path.join(scratch, f)
        mutant = text[:s] + rep + text[e:]
        line = text.count("\n", 0, s) + 1
        with open(path, "w") as fh:
            fh.write(mutant)
        if run(a.build, scratch, log=log) != 0:
            verdict = "build-failed"
        else:
            rc = run(a.test, scratch, timeout=timeout, log=log)
            verdict = "timeout" if rc is None else "killed" if rc != 0 else "survived"
        with open(path, "w") as fh:
            fh.write(text)
        c = counts.setdefault(f, {})
        c[verdict] = c.get(verdict, 0) + 1
        print("%-12s %-18s %s:%d %s" % (verdict.upper(), mid, f, line, op), flush=True)
        if verdict in ("survived", "timeout") or os.environ.get("MUTATE_DIFFS"):
            diff = difflib.unified_diff(text.splitlines(), mutant.splitlines(), f, f + " (mutant)",
                                        n=0, lineterm="")
            print("\n".join("    " + d for d in list(diff)[2:]), flush=True)
    run(a.build, scratch, log=log)  # leave the copy built as it was
    log.close()
    if not a.scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    tot = {}
    for f, c in counts.items():
        for k, v in c.items():
            tot[k] = tot.get(k, 0) + v
        print("# %s: %s" % (f, " ".join("%s=%d" % kv for kv in sorted(c.items()))))
    print("summary: %d mutants, %d killed, %d survived, %d timeout (%d build-failed, not counted)"
          % (sum(v for k, v in tot.items() if k != "build-failed"), tot.get("killed", 0),
             tot.get("survived", 0), tot.get("timeout", 0), tot.get("build-failed", 0)))
    return 1 if tot.get("survived") else 0


if __name__ == "__main__":
    sys.exit(main())
