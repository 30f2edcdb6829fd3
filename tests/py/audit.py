#!/usr/bin/python3
"""Compare bin/memplan with the independent reference (memplan_ref.py) on
random and hostile inputs: every figure, every validity verdict.

  python3 tests/py/audit.py [--seed S] [--graphs N] [--plans M] [--csvs K]
                            [--invalid I] [--suite] [--keep DIR] [--bin B]
                            [--claims C] [--claims-n N] [--order-claims O]

Exit 0 when nothing disagrees; else every disagreement is printed (and its
inputs kept under --keep) and the exit code is 1.  Deterministic for a seed.
"""

import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memplan_ref as R  # noqa: E402
import audit_gen as G    # noqa: E402

ORDERS = ["given", "greedy", "dfs", "bfs", "lpmf", "best"]
PLACERS = ["bysize", "firstfit", "bestfit", "bysize-ff", "coloring", "noreuse",
           "pool", "hillclimb", "exact", "byconflicts", "bybreadth"]
REMATS = ["keepall", "dtr", "chen-sqrt", "chen-greedy", "rotor", "swap-greedy"]
# every events solver, for the cross-check of claims (--claims)
ALL_REMATS = REMATS + ["remat-sa", "remat-ga", "remat-ilp", "remat-lp", "remat-exact"]
EVENT_FIGS = ["live_peak", "arena", "sum_sizes", "fragmentation", "reuse_ratio",
              "profile_std", "reduction_vs_noreuse", "residencies", "duration",
              "base_time", "overhead", "recompute_time", "recomputed",
              "stall_time", "transferred", "stale_reruns"]


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(float(a) - float(b)) <= rel * max(1.0, abs(float(a)), abs(float(b)))


class Audit:
    def __init__(self, args):
        self.bin = args.bin
        self.keep = args.keep
        self.tmp = tempfile.mkdtemp(prefix="memplan-audit-")
        self.fails = []
        self.count = {}
        self.verbose = args.verbose
        self.batch = None
        self.n_mut = args.mutations
        self.profile = args.profile
        self.prof = {}
        if args.batch:  # the CLI's commands forked from one process (mp_batch.c)
            self.batch = subprocess.Popen([args.batch], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True)

    # ---------------------------------------------------------- tools
    def mp(self, *args):
        """`memplan ARGS`: (exit code, stdout, stderr)."""
        if self.profile:
            t0 = time.time()
            r = self._mp(*args)
            k = " ".join(a for a in args[:1] + tuple(x for i, x in enumerate(args)
                                                     if i and args[i - 1] in ("--order", "--place", "--remat")))
            self.prof[k] = self.prof.get(k, 0.0) + time.time() - t0
            return r
        return self._mp(*args)

    def _mp(self, *args):
        if self.batch is None:
            p = subprocess.run([self.bin] + list(args), capture_output=True, text=True)
            return p.returncode, p.stdout, p.stderr
        out, err = self.path("batch.out"), self.path("batch.err")
        assert not any("\t" in a or "\n" in a for a in args)
        self.batch.stdin.write("\t".join([out, err] + list(args)) + "\n")
        self.batch.stdin.flush()
        rc = int(self.batch.stdout.readline())
        with open(out) as fo, open(err) as fe:
            return rc, fo.read(), fe.read()

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, text):
        with open(self.path(name), "w", newline="", encoding="utf-8") as f:
            f.write(text)
        return self.path(name)

    def tick(self, what, k=1):
        self.count[what] = self.count.get(what, 0) + k

    def fail(self, cat, msg, files=()):
        n = len(self.fails)
        self.fails.append((cat, msg))
        print("DISAGREE [%s] %s" % (cat, msg))
        if self.keep:
            os.makedirs(self.keep, exist_ok=True)
            for f in files:
                if os.path.exists(f):
                    dst = os.path.join(self.keep, "%03d_%s_%s" % (n, cat, os.path.basename(f)))
                    with open(f, "rb") as a, open(dst, "wb") as b:
                        b.write(a.read())

    def same(self, cat, what, mine, theirs, files):
        if isinstance(mine, float) or isinstance(theirs, float):
            ok = close(mine, theirs)
        else:
            ok = mine == theirs
        if not ok:
            self.fail(cat, "%s: reference %r, memplan %r" % (what, mine, theirs), files)
        return ok

    # --------------------------------------------------------- graphs
    def graph(self, text, rng, name="g", deep=True):
        """Parse verdict, info, solves, plan checks and mutations of one graph."""
        f = self.write(name + ".json", text)
        try:
            ref = R.parse_graph(R.load_json_text(text), name)
            m = R.Model(ref)
        except R.NotGraphJSON:
            self.tick("node-link files skipped")
            return None
        except R.RefError as e:
            m, why = None, str(e)
        self.tick("graph files")
        rc, out, err = self.mp("info", f, "--format", "json")
        if m is None:
            if rc != 1:
                self.fail("validity", "%s: reference refuses (%s), memplan info exits %d"
                          % (name, why, rc), [f])
            plan = self.path(name + ".plan")
            if os.path.exists(plan):
                os.unlink(plan)
            rc2, _o, _e = self.mp("solve", f, "--out", plan)
            if rc2 != 1 or os.path.exists(plan):
                self.fail("validity", "%s: solve of a refused file exits %d (plan %s)"
                          % (name, rc2, os.path.exists(plan)), [f])
            self.tick("graphs refused by both" if rc == 1 else "graphs refused")
            return None
        if rc != 0:
            self.fail("validity", "%s: reference accepts, memplan exits %d: %s"
                      % (name, rc, err.strip()[:200]), [f])
            return None
        self.tick("graphs accepted by both")
        self.check_info(m, json.loads(out), f)
        if deep:
            self.check_solves(m, f, rng)
        return m

    def check_info(self, m, info, f):
        g = m.g
        of = R.order_figures(m, g.file_order)
        mine = {
            "nodes": g.n,
            "buffers": len(m.size),
            "sum_sizes": of["sum_sizes"],
            "live_peak": of["live_peak"],
            "lower_bound": R.per_node_bound(m),
            "inputs": sum(1 for v in g.file_order if g.op[v] == "input"),
            "graph_outputs": len(m.graph_outputs),
            "views": sum(1 for v in g.file_order if g.alias[v] is not None),
            "inplace_nodes": sum(1 for v in g.file_order if g.inplace[v]),
            "workspaces": len(m.ws_bufs),
            "inplace_edges": len(m.inplace_edges),
            "data_edges": len(m.data_edges),
        }
        for k, v in mine.items():
            self.same("info", "%s %s" % (os.path.basename(f), k), v, info.get(k), [f])

    def solve(self, f, *args):
        plan = f + ".plan.json"
        if os.path.exists(plan):
            os.unlink(plan)
        rc, out, err = self.mp("solve", f, "--format", "json", "--out", plan, *args)
        res = json.loads(out) if out.strip().startswith("{") else None
        pl = None
        if os.path.exists(plan):
            with open(plan) as fp:
                pl = R.load_json_text(fp.read())
        return rc, res, pl, plan, err

    def check_solves(self, m, f, rng):
        align = rng.choice([None, None, 1, 8, 64, 3])
        aa = ["--align", str(align)] if align else []
        rc, base, bplan, _p, err = self.solve(f, "--place", "bysize", *aa)
        if rc != 0:
            self.fail("solve", "%s: given+bysize exits %d: %s" % (f, rc, err[:200]), [f])
            return
        given_arena = base["arena"]
        self.check_plan_result(m, f, base, bplan, given_arena, "given+bysize")
        order = rng.choice(ORDERS)
        placer = rng.choice(PLACERS)
        extra = ["--time-limit", "5"] if placer in ("hillclimb", "exact") else []
        extra += ["--set", "hillclimb.fill=0"] if placer == "hillclimb" else []
        rc, res, plan, ppath, err = self.solve(f, "--order", order, "--place", placer, *aa, *extra)
        self.tick("solves")
        if rc == 0:
            self.check_plan_result(m, f, res, plan, given_arena, order + "+" + placer)
            self.verify_verdict(m, f, ppath, plan, True, "solver plan")
            self.mutate_plans(m, f, plan, rng, self.n_mut)
        elif rc != 3:
            self.fail("solve", "%s: %s+%s exits %d: %s" % (f, order, placer, rc, err[:200]), [f])
        self.constructed_plans(m, f, rng, bplan, given_arena, self.n_mut)

    def check_plan_result(self, m, f, res, plan, given_arena, label):
        cat = "figures"
        files = [f]
        why = R.check_order(m, plan["order"])
        if why:
            self.fail(cat, "%s %s: memplan's order is invalid by the reference: %s"
                      % (f, label, why), files)
            return
        if set(plan["offsets"]) != set(m.size):
            self.fail("naming", "%s %s: buffer keys: reference %s, memplan %s"
                      % (f, label, sorted(m.size), sorted(plan["offsets"])), files)
            return
        try:
            mine = R.verify_graph_plan(m, dict(plan, given_arena=given_arena))
        except R.RefError as e:
            self.fail(cat, "%s %s: the reference refuses memplan's plan: %s" % (f, label, e), files)
            return
        for k in R.FIGURE_NAMES:
            if k in mine:
                self.same(cat, "%s %s %s" % (os.path.basename(f), label, k), mine[k], res.get(k), files)
        self.same(cat, "%s %s buffers" % (f, label), len(m.size), res.get("buffers"), files)
        lb = res.get("lower_bound")
        pn = R.per_node_bound(m)
        if lb is None or lb < pn or lb > mine["live_peak"]:
            self.fail("bound", "%s %s: lower_bound %r outside [per-node %d, live peak %d]"
                      % (f, label, lb, pn, mine["live_peak"]), files)
        # 1.3: "for a fixed order, its live peak"
        if res.get("order_status") == "fixed" and lb != mine["live_peak"]:
            self.fail("bound", "%s %s: order fixed, lower_bound %r is not its live peak %d"
                      % (f, label, lb, mine["live_peak"]), files)
        if res.get("status") == "optimal":
            bounds = [res["live_peak"]] if res.get("order_status") == "fixed" else [lb]
            bounds += [s.get("bound") or 0 for s in res.get("stages", [])]
            if res["arena"] not in bounds:
                self.fail("status", "%s %s: optimal, arena %d meets no bound %s"
                          % (f, label, res["arena"], bounds), files)
        self.tick("plans compared")

    def verify_verdict(self, m, f, ppath, plan, expect_ok, label):
        rc, out, err = self.mp("verify", f, ppath)
        self.tick("verify calls")
        if expect_ok and rc != 0:
            self.fail("verify", "%s %s: the reference accepts, memplan verify exits %d: %s"
                      % (f, label, rc, err.strip()[:300]), [f, ppath])
        if not expect_ok and rc != 1:
            self.fail("verify", "%s %s: the reference refuses (%s), memplan verify exits %d"
                      % (f, label, expect_ok is False and plan or "", rc), [f, ppath])

    def ref_verdict(self, m, plan):
        try:
            R.verify_graph_plan(m, plan)
            return None
        except R.RefError as e:
            return str(e)

    def judge(self, m, f, plan, label):
        ppath = self.write("mut.plan.json", json.dumps(plan, default=float))
        why = self.ref_verdict(m, plan)
        rc, out, err = self.mp("verify", f, ppath)
        self.tick("verify calls")
        self.tick("plans judged")
        if why is None and rc != 0:
            self.fail("verify", "%s %s: the reference accepts, memplan exits %d: %s"
                      % (f, label, rc, err.strip()[:300]), [f, ppath])
        elif why is not None and rc != 1:
            self.fail("verify", "%s %s: the reference refuses (%s), memplan exits %d"
                      % (f, label, why, rc), [f, ppath])

    def mutate_plans(self, m, f, plan, rng, k=3):
        for _ in range(k):
            p = json.loads(json.dumps(plan, default=float))
            what = self.mutate(m, p, rng)
            self.judge(m, f, p, "mutation " + what)

    def mutate(self, m, p, rng):
        keys = list(p["offsets"])
        order = p["order"]
        what = rng.choice(["swap", "move", "offset", "offset-collide", "misalign",
                           "dropkey", "addkey", "figure", "graph", "align"])
        if what in ("swap", "move") and len(order) >= 2:
            i, j = rng.sample(range(len(order)), 2)
            if what == "swap":
                order[i], order[j] = order[j], order[i]
            else:
                order.insert(j, order.pop(i))
        elif what == "offset" and keys:
            k = rng.choice(keys)
            p["offsets"][k] = max(0, p["offsets"][k] + rng.choice([-1, 1]) * p["align"])
        elif what == "offset-collide" and len(keys) >= 2:
            a, b = rng.sample(keys, 2)
            p["offsets"][a] = p["offsets"][b]
        elif what == "misalign" and keys:
            p["offsets"][rng.choice(keys)] += 1
        elif what == "dropkey" and keys:
            del p["offsets"][rng.choice(keys)]
        elif what == "addkey":
            p["offsets"][rng.choice(["ws:0", "999", "0:7", str(m.g.n)])] = 0
        elif what == "figure":
            k = rng.choice(["live_peak", "arena", "sum_sizes", "profile_std",
                            "fragmentation", "reuse_ratio", "reduction_vs_noreuse",
                            "reduction_vs_given"])
            if isinstance(p.get(k), int):
                p[k] += rng.choice([-1, 1])
            elif p.get(k) is not None:
                p[k] = p[k] * 1.000001 + 1e-6
        elif what == "graph":
            p["graph"] = p["graph"] + "x"
        elif what == "align":
            p["align"] = rng.choice([1, 2 * p["align"], 3])
        return what

    # plans built by the reference: random (often invalid) orders and a
    # tight placement under the reference's lifetimes
    def constructed_plans(self, m, f, rng, bplan, given_arena, k=2):
        for _ in range(k):
            order = self.random_order(m, rng)
            p = {"graph": m.g.name, "align": bplan["align"], "order": order,
                 "given_arena": given_arena}
            if R.check_order(m, order) is None:
                life = R.lifetimes(m, order)
                offs = tight_place(m.size, life, R.closed_conflict, lambda k: p["align"], rng)
                p["offsets"] = offs
                of = R.order_figures(m, order)
                fig = R.placement_figures(m.size, offs, of["live_peak"], given_arena)
                fig["profile_std"] = of["profile_std"]
                p.update(fig)
            else:
                p["offsets"] = dict(bplan["offsets"])
                for k2 in R.FIGURE_NAMES:
                    if k2 in bplan:
                        p[k2] = bplan[k2]
            self.judge(m, f, p, "constructed plan")

    def random_order(self, m, rng):
        g = m.g
        edges = m.data_edges if rng.random() < 0.5 else m.edges
        indeg = {v: 0 for v in g.file_order}
        succ = {v: [] for v in g.file_order}
        for a, b in edges:
            indeg[b] += 1
            succ[a].append(b)
        ready = [v for v in g.file_order if indeg[v] == 0]
        order = []
        while ready:
            v = ready.pop(rng.randrange(len(ready)))
            order.append(v)
            for w in succ[v]:
                indeg[w] -= 1
                if indeg[w] == 0:
                    ready.append(w)
        return order

    # ----------------------------------------------------- event plans
    def events(self, m, f, rng, mutations=3):
        g = m.g
        remat = rng.choice(REMATS)
        of = R.order_figures(m, g.file_order)
        frac = rng.choice(["1", "1", "1.5", "0.95", "0.9", "0.8", "0.75", "0.6", "0.55", "0.5"])
        args = ["--remat", remat]
        order = None
        if rng.random() < 0.3:
            order = rng.choice(ORDERS[:5])
        floor = R.events_floor(m)
        if rng.random() < 0.3:
            args += ["--budget-frac", frac]
            # the live peak of the order handed to the stage: known here
            # for the file order only
            if order in (None, "given"):
                budget = R.budget_frac(frac, of["live_peak"])
            else:  # the live peak of the order the order stage hands on
                rc0, res0, _p0, _pp0, _e0 = self.solve(f, "--order", order, "--place", "noreuse")
                budget = R.budget_frac(frac, res0["live_peak"]) if rc0 == 0 and res0 else None
        else:
            hi = max(floor, of["live_peak"])
            budget = rng.choice([max(0, floor - 1), floor, hi, hi, rng.randint(floor, hi),
                                 rng.randint(floor, hi)])
            args += ["--budget", str(budget)]
        bw = None
        if rng.random() < 0.5:
            bw = rng.choice([0, 1, 64, 1000, 2.5])
            args += ["--bandwidth", str(bw)]
        bandwidth = float(bw) if bw is not None else g.host_bandwidth
        if order:
            args += ["--order", order]
        args += ["--place", rng.choice(["bysize", "firstfit", "noreuse", "bestfit"])]
        rc, res, plan, ppath, err = self.solve(f, *args)
        self.tick("event solves")
        lbl = "%s %s" % (f, " ".join(args))
        if res is not None and budget is not None:
            self.same("events", lbl + " budget", budget, res.get("budget"), [f])
        if budget is None:
            self.tick("event solves of another order's budget")
            return
        if budget < floor:
            self.tick("event solves below the floor")
            if rc != 3 or (res or {}).get("remat_status") != "infeasible":
                self.fail("events", "%s: budget %d below the floor %d, memplan exits %d (%s)"
                          % (lbl, budget, floor, rc, (res or {}).get("remat_status")), [f])
            return
        if rc != 0:
            self.tick("event solves without plan: %s %s" % (remat, (res or {}).get("remat_status")))
            if rc != 3:
                self.fail("events", "%s: exits %d: %s" % (lbl, rc, err[:200]), [f])
            if remat == "keepall" and (res or {}).get("order_solver") == "given" and \
                    of["live_peak"] <= budget:
                self.fail("events", "%s: keepall finds no plan within a budget above the peak" % lbl, [f])
            return
        self.tick("event plans compared")
        if any(e[0] in ("out", "in") for e in plan["events"]):
            self.tick("event plans compared: with copies")
        evs = R.parse_events(m, plan["events"])
        why = R.verify_events(m, evs, bandwidth)
        if why:
            self.fail("events", "%s: the reference refuses memplan's plan: %s" % (lbl, why), [f, ppath])
            return
        mine = self.event_figures(m, evs, bandwidth, plan["offsets"], f, ppath, lbl)
        if mine is None:
            return
        for k in EVENT_FIGS:
            self.same("events", "%s %s" % (lbl, k), mine[k], res.get(k), [f, ppath])
        if mine["live_peak"] > budget:
            self.fail("events", "%s: live peak %d over the budget %d" % (lbl, mine["live_peak"], budget), [f])
        first = R.events_first_runs(m, evs)
        self.same("events", lbl + " order", self.events_order(m, first), plan["order"], [f, ppath])
        input_ws = any(g.ws[v] for v in g.file_order if g.op[v] == "input")
        if remat == "keepall" and order in (None, "given") and not input_ws:
            # an input's workspace is live at its step in section 1 but
            # never held by an event plan (inputs never run): DESIGN 6.2's
            # equivalence cannot hold there (reported as an ambiguity)
            self.equivalence(m, evs, mine, of, lbl, f)
        self.verify_verdict(m, f, ppath, plan, True, "event plan")
        for _ in range(mutations):
            self.mutate_events(m, f, plan, evs, bandwidth, rng)

    def claims(self, m, f, rng):
        """Every events solver on one budget, bandwidth and order: each plan
        judged by the reference, then each claim (optimal, infeasible, a
        stage's duration bound) held against the other solvers' plans that
        follow the same order (README: a claim's scope)."""
        g = m.g
        floor = R.events_floor(m)
        hi = max(floor, R.order_figures(m, g.file_order)["live_peak"])
        budget = rng.choice([floor, hi, rng.randint(floor, hi), rng.randint(floor, hi),
                             (floor + hi) // 2])
        bw = rng.choice([None, 0, 1, 64, 1000])
        args = ["--budget", str(budget), "--place", "bysize"]
        if bw is not None:
            args += ["--bandwidth", str(bw)]
        bandwidth = float(bw) if bw is not None else g.host_bandwidth
        order = [v for v in g.file_order if g.op[v] != "input"]
        plans, claims = [], []
        for remat in ALL_REMATS:
            lbl = "%s %s %s" % (f, remat, " ".join(args))
            tl = ["--time-limit", "10"] if remat in ("remat-ilp", "remat-lp", "remat-exact") else []
            rc, res, plan, ppath, err = self.solve(f, "--remat", remat, *tl, *args)
            self.tick("claims: solves")
            if rc not in (0, 3) or res is None:
                self.fail("claims", "%s: exits %d: %s" % (lbl, rc, err[:200]), [f])
                continue
            st = res.get("remat_status")
            bound = max([s.get("duration_bound") or 0 for s in res.get("stages", [])
                         if s.get("solver") == remat] + [0])
            if rc == 0:
                evs = R.parse_events(m, plan["events"])
                why = R.verify_events(m, evs, bandwidth)
                if why:
                    self.fail("claims", "%s: the reference refuses the plan: %s" % (lbl, why), [f, ppath])
                    continue
                fig = R.events_figures(m, evs, bandwidth)
                if fig["live_peak"] > budget:
                    self.fail("claims", "%s: live peak %d over the budget" % (lbl, fig["live_peak"]), [f])
                follows = R.events_first_runs(m, evs) == order
                plans.append((remat, fig["duration"], follows))
                self.tick("claims: plans")
                if st == "optimal":
                    claims.append((remat, "optimal", fig["duration"]))
            elif st == "infeasible":
                claims.append((remat, "infeasible", None))
            if bound > 0:
                claims.append((remat, "bound", bound))
        for who, what, d in claims:
            self.tick("claims: %s" % what)
            for other, dur, follows in plans:
                if not follows:
                    continue
                if what == "infeasible" or dur < d - 1e-9 * max(1.0, abs(d)):
                    self.fail("claims", "%s %s: %s says %s %s, %s's plan lasts %r"
                              % (f, " ".join(args), who, what, d, other, dur), [f])

    def order_claims(self, m, f, rng):
        """Order solvers against the brute-force optimum of the live peak:
        no order below it, no lower_bound above it, and `optimal` order
        statuses exactly at it."""
        opt = brute_min_peak(m)
        if opt is None:
            return
        self.tick("order claims: graphs")
        for order in ["given", "greedy", "lpmf", "best", "sa", "ga", "dp", "ilp", "joint-ilp"]:
            args = ["--place", "noreuse"] if order != "joint-ilp" else []
            tl = ["--time-limit", "5"] if order in ("ilp", "joint-ilp", "dp", "sa", "ga") else []
            if order in ("sa", "ga"):
                tl += ["--set", "%s.fill=0" % order]
            rc, res, plan, ppath, err = self.solve(f, "--order", order, *args, *tl)
            self.tick("order claims: solves")
            lbl = "%s --order %s" % (f, order)
            if rc != 0 or res is None:
                if rc != 3:
                    self.fail("order-claims", "%s: exits %d: %s" % (lbl, rc, err[:200]), [f])
                continue
            peak, lb, st = res.get("live_peak"), res.get("lower_bound"), res.get("order_status")
            if peak is None or peak < opt:
                self.fail("order-claims", "%s: live peak %r below the optimum %d" % (lbl, peak, opt), [f])
            if st == "fixed":  # 1.3: a fixed order's bound is its live peak
                if lb != peak:
                    self.fail("order-claims", "%s: order fixed, lower_bound %r, live peak %r"
                              % (lbl, lb, peak), [f])
            elif lb is None or lb > opt:
                self.fail("order-claims", "%s: lower_bound %r above the optimum %d" % (lbl, lb, opt), [f])
            if st == "optimal" and peak != opt:
                self.fail("order-claims", "%s: order optimal at %r, the optimum is %d" % (lbl, peak, opt), [f])
            if st == "optimal":
                self.tick("order claims: optimal")
            if order == "joint-ilp" and res.get("status") == "optimal":
                self.joint_claim(m, f, res["arena"])
        self.place_claims(m, f)

    def joint_claim(self, m, f, arena):
        """joint-ilp's optimal arena (every order, every placement) against
        other orders placed by exact and bysize."""
        self.tick("order claims: joint optimal")
        for order, placer in [("dp", "exact"), ("given", "exact"), ("greedy", "exact"),
                              ("lpmf", "bysize")]:
            rc, res, _pl, _pp, err = self.solve(f, "--order", order, "--place", placer,
                                                "--time-limit", "5")
            if rc == 0 and res["arena"] < arena:
                self.fail("order-claims", "%s: joint-ilp says optimal arena %d, %s+%s places in %d"
                          % (f, arena, order, placer, res["arena"]), [f])

    def place_claims(self, m, f):
        """Placers of the given order: a placement claimed optimal, or a
        placer's bound, is never above another placer's arena."""
        arenas, claims = [], []
        for placer in PLACERS + ["ilp-place"]:
            tl = ["--time-limit", "5"] if placer in ("hillclimb", "exact", "ilp-place") else []
            if placer == "hillclimb":
                tl += ["--set", "hillclimb.fill=0"]
            rc, res, plan, ppath, err = self.solve(f, "--place", placer, *tl)
            self.tick("place claims: solves")
            if rc != 0 or res is None:
                if rc != 3:
                    self.fail("place-claims", "%s --place %s: exits %d: %s" % (f, placer, rc, err[:200]), [f])
                continue
            arenas.append((placer, res["arena"]))
            if res.get("place_status") == "optimal":
                claims.append((placer, "optimal", res["arena"]))
            for st in res.get("stages", []):
                if st.get("solver") == placer and (st.get("bound") or 0) > 0:
                    claims.append((placer, "bound", st["bound"]))
        for who, what, v in claims:
            self.tick("place claims: %s" % what)
            for other, a in arenas:
                if a < v:
                    self.fail("place-claims", "%s: %s says %s %d, %s places in %d"
                              % (f, who, what, v, other, a), [f])

    def events_order(self, m, first):
        g = m.g
        return [v for v in g.file_order if g.op[v] == "input"] + first

    def stir_order(self, m, order, rng):
        """An event plan's "order" as a plan may state it: mostly memplan's
        (inputs first), often with the inputs moved anywhere (valid), now
        and then with two positions swapped (valid only if the non-input
        nodes keep their order)."""
        order = list(order)
        ins = [v for v in order if m.g.op[v] == "input"]
        r = rng.random()
        if r < 0.3 and ins:
            order = [v for v in order if m.g.op[v] != "input"]
            for v in ins:
                order.insert(rng.randint(0, len(order)), v)
            self.tick("event plans with inputs moved in \"order\"")
        elif r < 0.4 and len(order) >= 2:
            i, j = rng.sample(range(len(order)), 2)
            order[i], order[j] = order[j], order[i]
        return order

    def residency_keys(self, m, evs, items):
        """memplan's names: the first residency of J is "J", a later one
        "J@k" (k the index of the event that made it); "ws:J" likewise."""
        seen = set()
        names = {}
        k_of_time = {0: None}
        t = 0
        for i, (kind, x) in enumerate(evs):
            if kind in (R.RUN, R.IN):
                t += 1
                k_of_time[t] = i
        for key in sorted(items, key=lambda kk: kk[1]):
            b, t0 = key
            if b not in seen:
                names[key] = b
                seen.add(b)
            else:
                names[key] = "%s@%d" % (b, k_of_time[t0])
        return names

    def event_figures(self, m, evs, bandwidth, offsets, f, ppath, lbl):
        fig = R.events_figures(m, evs, bandwidth)
        names = self.residency_keys(m, evs, fig["items"])
        if sorted(names.values()) != sorted(offsets):
            self.fail("naming", "%s: residencies: reference %s, memplan %s"
                      % (lbl, sorted(names.values()), sorted(offsets)), [f, ppath])
            return None
        offs = {key: offsets[names[key]] for key in fig["items"]}
        pair = R.check_no_overlap(fig["items"], fig["life"], offs, R.halfopen_conflict)
        if pair:
            self.fail("events", "%s: residencies %s overlap" % (lbl, pair), [f, ppath])
        pf = R.placement_figures(fig["items"], offs, fig["live_peak"])
        fig.update({k: pf[k] for k in ("arena", "fragmentation", "reuse_ratio",
                                       "reduction_vs_noreuse")})
        return fig

    def inputless(self, g, rng, name):
        """6.2's equivalence rule where it holds to the letter: the graph
        with its input nodes made ordinary sources has no start sample, so
        keep-all on the file order has section 1's profile, std-dev
        included."""
        g = json.loads(json.dumps(g))
        for nd in g["nodes"]:
            if nd.get("op") == "input":
                nd["op"] = "zeros"
        m = self.graph(json.dumps(g), rng, name, deep=False)
        if m is None:
            return
        f = self.path(name + ".json")
        of = R.order_figures(m, m.g.file_order)
        rc, res, plan, ppath, err = self.solve(f, "--remat", "keepall", "--budget-frac", "1",
                                               "--place", "noreuse")
        lbl = "%s keepall (inputs made sources)" % f
        if rc != 0 or res is None or plan is None:
            self.fail("equivalence", "%s: exits %d: %s" % (lbl, rc, err[:200]), [f])
            return
        evs = R.parse_events(m, plan["events"])
        rf = R.events_figures(m, evs, 0.0)
        for k in ("live_peak", "sum_sizes", "profile_std"):
            self.same("equivalence", "%s %s (section 1)" % (lbl, k), of[k], res.get(k), [f])
            self.same("equivalence", "%s %s (reference)" % (lbl, k), rf[k], res.get(k), [f])
        self.verify_verdict(m, f, ppath, plan, True, "keep-all plan without inputs")
        self.tick("keep-all plans of graphs without inputs")

    def equivalence(self, m, evs, mine, of, lbl, f):
        """6.2: the keep-all plan of the file order has section 1's figures."""
        ref_evs = R.keepall_events(m, m.g.file_order)
        rf = R.events_figures(m, ref_evs, 0.0)
        self.tick("equivalence checks")
        if rf["live_peak"] != of["live_peak"]:
            self.fail("equivalence", "%s: the reference's keep-all plan peaks at %d, "
                      "section 1 at %d" % (lbl, rf["live_peak"], of["live_peak"]), [f])
        if rf["sum_sizes"] != of["sum_sizes"]:
            self.fail("equivalence", "%s: keep-all sum %d, section 1 %d"
                      % (lbl, rf["sum_sizes"], of["sum_sizes"]), [f])
        # memplan's keepall is that plan: section 1's peak and sum
        self.same("equivalence", lbl + " keepall live_peak", of["live_peak"], mine["live_peak"], [f])
        self.same("equivalence", lbl + " keepall sum_sizes", of["sum_sizes"], mine["sum_sizes"], [f])
        # the start sample (a decision, taken only when the graph has an
        # input node) makes profile_std differ from section 1's when no
        # single input runs first: counted, not failed.  Without an input
        # node there is no start sample and 6.2 holds to the letter.
        has_input = any(m.g.op[v] == "input" for v in m.g.file_order)
        if not has_input:
            self.same("equivalence", lbl + " keepall profile_std (no input node)",
                      of["profile_std"], mine["profile_std"], [f])
            self.same("equivalence", lbl + " reference keep-all profile_std (no input node)",
                      of["profile_std"], rf["profile_std"], [f])
            self.tick("keep-all plans of graphs without inputs: profile_std = section 1's")
        elif not close(mine["profile_std"], of["profile_std"]):
            self.tick("keep-all plans whose profile_std differs from section 1 (start sample)")

    def mutate_events(self, m, f, plan, evs, bandwidth, rng):
        evs = list(evs)
        what = rng.choice(["drop", "dup", "swap", "free", "offload", "remat",
                           "retarget", "run-input", "out", "in", "window", "window",
                           "window", "window"])
        bufs = m.tensor_bufs
        n = len(evs)
        if what == "drop" and n:
            evs.pop(rng.randrange(n))
        elif what == "dup" and n:
            i = rng.randrange(n)
            evs.insert(i, evs[i])
        elif what == "swap" and n >= 2:
            i = rng.randrange(n - 1)
            evs[i], evs[i + 1] = evs[i + 1], evs[i]
        elif what == "free" and bufs:
            evs.insert(rng.randint(0, n), (R.FREE, rng.choice(bufs)))
        elif what in ("offload", "remat") and bufs:
            b = rng.choice(bufs)
            i = rng.randint(0, n)
            j = rng.randint(i, n)
            if what == "offload":
                evs[j:j] = [(R.IN, b)]
                evs[i:i] = [(R.OUT, b), (R.FREE, b)]
            else:
                evs[j:j] = [(R.RUN, m.owner[b])]
                evs[i:i] = [(R.FREE, b)]
        elif what == "retarget" and n:
            i = rng.randrange(n)
            if evs[i][0] == R.RUN:
                evs[i] = (R.RUN, rng.randrange(m.g.n))
            elif bufs:
                evs[i] = (evs[i][0], rng.choice(bufs))
        elif what == "run-input":
            ins = [v for v in m.g.file_order if m.g.op[v] == "input"]
            if ins:
                evs.insert(rng.randint(0, n), (R.RUN, rng.choice(ins)))
        elif what in ("out", "in") and bufs:
            evs.insert(rng.randint(0, n), (what, rng.choice(bufs)))
        elif what.startswith("window") and bufs:
            # a chain of windows, each kept only while the plan stays valid
            bw = bandwidth if bandwidth > 0 else 1.0
            for _ in range(rng.randint(1, 6)):
                trial = list(evs)
                self.window(m, trial, rng.choice(bufs), rng.random() < 0.6, rng)
                if R.verify_events(m, trial, bw) is None:
                    evs = trial
            if any(k in (R.OUT, R.IN) for k, _x in evs):
                what = "window-offload"
        self.judge_events(m, f, plan, evs, bandwidth, what, rng)

    def window(self, m, evs, b, offload, rng):
        """Between two uses of b: copy it out and free it after the first,
        bring it back (or rerun its owner) just before the second; an
        optional free/out in the middle; mostly valid plans that move time."""
        uses = [i for i, (k, x) in enumerate(evs)
                if (k == R.RUN and (b in m.reads[x] or b in m.made_by[x])) or
                (k == R.IN and x == b)]
        if len(uses) < 2:
            return
        a = rng.randrange(len(uses) - 1)
        i, j = uses[a] + 1, uses[a + 1]
        if offload:
            evs[j:j] = [(R.IN, b)]
            evs[i:i] = [(R.OUT, b), (R.FREE, b)] if rng.random() < 0.8 else [(R.OUT, b)]
        else:
            evs[j:j] = [(R.RUN, m.owner[b])]
            evs[i:i] = [(R.FREE, b)]

    def judge_events(self, m, f, plan, evs, bandwidth, what, rng):
        p = json.loads(json.dumps(plan, default=float))
        p["events"] = [[k, x] for k, x in evs]
        if what == "window-offload" and bandwidth <= 0 and rng.random() < 0.9:
            bandwidth = rng.choice([1, 64, 2.5, 1000.0])
            p["bandwidth"] = bandwidth
        why = R.verify_events(m, evs, bandwidth)
        if why is None:
            fig = R.events_figures(m, evs, bandwidth)
            names = self.residency_keys(m, evs, fig["items"])
            al = p["align"]
            offs = tight_place(fig["items"], fig["life"], R.halfopen_conflict, lambda k: al, rng)
            p["offsets"] = {names[k]: o for k, o in offs.items()}
            pf = R.placement_figures(fig["items"], offs, fig["live_peak"], p.get("given_arena"))
            fig.update(pf)
            for k in EVENT_FIGS + ["reduction_vs_given"]:
                p[k] = fig[k]
            p["order"] = self.stir_order(m, self.events_order(m, R.events_first_runs(m, evs)), rng)
            bad = R.check_events_order(m, evs, p["order"])
            if bad:
                why = (len(evs), bad)
            elif fig["live_peak"] > p["budget"]:
                why = (len(evs), "over the budget")
        self.tick("event plans judged: %s" % ("valid" if why is None else "invalid"))
        if why is None and any(k in (R.OUT, R.IN) for k, _x in evs):
            self.tick("event plans judged: valid, with copies")
        ppath = self.write("mut.events.json", json.dumps(p, default=float))
        rc, out, err = self.mp("verify", f, ppath)
        self.tick("event plans judged")
        if why is None and rc != 0:
            self.fail("events-verify", "%s %s: the reference accepts, memplan exits %d: %s"
                      % (f, what, rc, err.strip()[:300]), [f, ppath])
        elif why is not None and rc != 1:
            self.fail("events-verify", "%s %s: the reference refuses (%s), memplan exits %d"
                      % (f, what, why, rc), [f, ppath])

    # ------------------------------------------------------------ CSV
    def csv(self, text, rng, name="c"):
        f = self.write(name + ".csv", text)
        try:
            inst = R.parse_csv(text)
        except R.RefError as e:
            inst, why = None, str(e)
        out = self.path(name + ".out.csv")
        if os.path.exists(out):
            os.unlink(out)
        placer = rng.choice(["bysize", "firstfit", "bestfit", "bysize-ff", "noreuse", "exact",
                             "hillclimb", "coloring", "byconflicts", "bybreadth"])
        extra = ["--time-limit", "5"] if placer in ("exact", "hillclimb") else []
        extra += ["--set", "hillclimb.fill=0"] if placer == "hillclimb" else []
        rc, so, err = self.mp("solve", f, "--place", placer, "--format", "json", "--out", out, *extra)
        self.tick("csv files")
        if inst is None:
            if rc != 1 or os.path.exists(out):
                self.fail("csv-validity", "%s: reference refuses (%s), memplan exits %d"
                          % (name, why, rc), [f])
            return
        if rc == 3:
            self.tick("csv without plan")
            return
        if rc != 0:
            self.fail("csv-validity", "%s: reference accepts, memplan %s exits %d: %s"
                      % (name, placer, rc, err.strip()[:200]), [f])
            return
        res = json.loads(so)
        with open(out, newline="") as fp:
            otext = fp.read()
        try:
            mine = R.verify_csv_plan(inst, R.parse_csv(otext))
        except R.RefError as e:
            self.fail("csv", "%s %s: the reference refuses memplan's placement: %s"
                      % (name, placer, e), [f, out])
            return
        for k in ("live_peak", "arena", "sum_sizes", "profile_std", "fragmentation",
                  "reuse_ratio", "reduction_vs_noreuse"):
            self.same("csv", "%s %s %s" % (name, placer, k), mine[k], res.get(k), [f, out])
        self.same("csv", name + " lower_bound (max-live)", mine["live_peak"], res.get("lower_bound"), [f])
        self.tick("csv plans compared")
        rc, _o, err = self.mp("verify", f, out)
        if rc != 0:
            self.fail("csv-verify", "%s: memplan refuses its own placement: %s" % (name, err[:200]), [f, out])
        for _ in range(self.n_mut):
            self.csv_mutation(inst, f, otext, rng)

    def csv_mutation(self, inst, f, otext, rng):
        lines = otext.replace("\r\n", "\n").split("\n")
        head = lines[0].split(",")
        body = [i for i in range(1, len(lines)) if lines[i].strip()]
        if not body:
            return
        i = rng.choice(body)
        cells = lines[i].split(",")
        col = head.index("offset")
        what = rng.choice(["up", "down", "zero", "collide", "misalign", "size"])
        o = int(cells[col])
        if what == "up":
            cells[col] = str(o + rng.choice([1, 4, 16]))
        elif what == "down":
            cells[col] = str(max(0, o - rng.choice([1, 4, 16])))
        elif what == "zero":
            cells[col] = "0"
        elif what == "collide":
            cells[col] = lines[rng.choice(body)].split(",")[col]
        elif what == "misalign":
            cells[col] = str(o + 1)
        elif what == "size":
            cells[head.index("size")] = str(int(cells[head.index("size")]) + 1)
        lines[i] = ",".join(cells)
        text = "\n".join(lines)
        p = self.write("mut.out.csv", text)
        try:
            R.verify_csv_plan(inst, R.parse_csv(text))
            why = None
        except R.RefError as e:
            why = str(e)
        rc, _o, err = self.mp("verify", f, p)
        self.tick("csv plans judged")
        if (why is None) != (rc == 0) or rc not in (0, 1):
            self.fail("csv-verify", "%s %s: reference %s, memplan verify exits %d: %s"
                      % (f, what, why or "accepts", rc, err.strip()[:200]), [f, p])


def brute_min_peak(m, cap=50000):
    """The smallest live peak over every topological order (data and
    in-place edges), by enumeration; None beyond `cap` orders."""
    g = m.g
    preds = {v: set() for v in g.file_order}
    for a, b in m.edges:
        preds[b].add(a)
    best, count, order, done = [None], [0], [], set()

    def rec():
        if count[0] > cap:
            return
        if len(order) == g.n:
            count[0] += 1
            p = R.order_figures(m, order)["live_peak"]
            if best[0] is None or p < best[0]:
                best[0] = p
            return
        for v in g.file_order:
            if v not in done and preds[v] <= done:
                done.add(v)
                order.append(v)
                rec()
                order.pop()
                done.discard(v)
    rec()
    return None if count[0] > cap else best[0]


def tight_place(items, life, conflict, align_of, rng):
    """Lowest-offset placement in a random order: conflicting items never
    overlap, others share addresses whenever they can."""
    keys = list(items)
    rng.shuffle(keys)
    placed = {}
    for k in keys:
        a = align_of(k)
        cands = [0] + [placed[j] + items[j] for j in placed]
        best = None
        for c in sorted(set(-(-c // a) * a for c in cands)):
            ok = True
            for j, o in placed.items():
                if items[k] and items[j] and conflict(life[j], life[k]) and \
                        c < o + items[j] and o < c + items[k]:
                    ok = False
                    break
            if ok:
                best = c
                break
        placed[k] = best
    return placed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="bin/memplan")
    ap.add_argument("--batch", default=None,
                    help="build/mp_batch: the same commands, forked from one process (fast)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--graphs", type=int, default=200)
    ap.add_argument("--plans", type=int, default=50, help="graphs given an event plan")
    ap.add_argument("--csvs", type=int, default=40)
    ap.add_argument("--invalid", type=int, default=60)
    ap.add_argument("--n-max", type=int, default=12)
    ap.add_argument("--claims", type=int, default=0,
                    help="graphs (<= --claims-n nodes) given every events solver")
    ap.add_argument("--claims-n", type=int, default=10)
    ap.add_argument("--big", type=float, default=G.BIG_PROB, help="share of sizes beyond 2^54")
    ap.add_argument("--order-claims", type=int, default=0,
                    help="graphs (<= 8 nodes) whose order solvers meet the brute-force optimum")
    ap.add_argument("--mutations", type=int, default=2,
                    help="mutated and constructed plans judged per solver plan")
    ap.add_argument("--suite", action="store_true", help="also the suite graphs and CSVs")
    ap.add_argument("--suite-max-nodes", type=int, default=400)
    ap.add_argument("--keep", default=None, help="copy the inputs of each disagreement here")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="disagreements and one summary line")
    ap.add_argument("--profile", action="store_true", help="time spent per command kind")
    args = ap.parse_args()
    G.BIG_PROB = args.big
    a = Audit(args)
    rng = random.Random(args.seed)
    graphs, dicts = [], []
    for i in range(args.graphs):
        g = G.gen_graph(rng, args.n_max, name="r%d" % i)
        m = a.graph(json.dumps(g), rng, "r%d" % i)
        if m is not None:
            graphs.append((m, a.path("r%d.json" % i)))
            dicts.append(g)
    for i in range(args.invalid):
        g = G.gen_graph(rng, args.n_max, name="b%d" % i)
        text, what = G.break_graph(rng, g)
        a.tick("broken: " + what)
        a.graph(text, rng, "b%d" % i, deep=False)
    for m, f in graphs[:args.plans]:
        a.events(m, f, rng, mutations=a.n_mut + 1)
    for k, g in enumerate(dicts[:args.plans // 4]):
        a.inputless(g, rng, "z%d" % k)
    small = [(m, f) for m, f in graphs if 0 < m.g.n <= args.claims_n]
    for m, f in small[:args.claims]:
        a.claims(m, f, rng)
    tiny = [(m, f) for m, f in graphs if 0 < m.g.n <= 8]
    for m, f in tiny[:args.order_claims]:
        a.order_claims(m, f, rng)
    for i in range(args.csvs):
        text = G.gen_csv(rng)
        a.csv(text, rng, "c%d" % i)
        if rng.random() < 0.5:
            bad, what = G.break_csv(rng, text)
            a.tick("broken csv: " + what)
            a.csv(bad, rng, "cb%d" % i)
    if args.suite:
        suite(a, rng, args)
    if a.batch is not None:
        a.batch.stdin.close()
        a.batch.wait()
    shutil.rmtree(a.tmp, ignore_errors=True)
    report(a, args.quiet)
    if a.profile:
        for k, t in sorted(a.prof.items(), key=lambda kv: -kv[1])[:15]:
            print("%8.2f s  %s" % (t, k))
    sys.exit(1 if a.fails else 0)


def suite(a, rng, args):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    files = sorted(glob.glob(os.path.join(root, "graphs", "**", "*.json"), recursive=True))
    anchors = os.path.join(root, "..", "shared", "anchors")
    files += sorted(glob.glob(os.path.join(anchors, "checkmate", "*.json")))
    for f in files:
        with open(f) as fp:
            text = fp.read()
        obj = json.loads(text)
        if not isinstance(obj, dict) or "nodes" not in obj or R.is_nodelink(obj) or \
                len(obj["nodes"]) > args.suite_max_nodes:
            continue
        name = os.path.splitext(os.path.basename(f))[0]
        m = a.graph(text, rng, name)
        a.tick("suite graphs")
        if m is not None:
            a.events(m, a.path(name + ".json"), rng, mutations=a.n_mut)
    csvs = sorted(glob.glob(os.path.join(root, "graphs", "minimalloc", "**", "*.csv"), recursive=True))
    for f in csvs:
        with open(f, newline="") as fp:
            a.csv(fp.read(), rng, os.path.splitext(os.path.basename(f))[0])
        a.tick("suite csvs")


def report(a, quiet=False):
    if not quiet:
        for k in sorted(a.count):
            print("%-40s %d" % (k, a.count[k]))
    cats = {}
    for c, _m in a.fails:
        cats[c] = cats.get(c, 0) + 1
    keys = ("graph files", "plans judged", "event plans compared", "event plans judged",
            "csv files", "csv plans judged", "claims: plans")
    print("audit: %d disagreements %s(%s)" % (len(a.fails), cats if cats else "",
                                            ", ".join("%s %d" % (k, a.count.get(k, 0)) for k in keys)))


if __name__ == "__main__":
    main()
