#!/bin/sh
# A stand-in for `memplan solve` in the recomputation cells of the bench
# tests (tests/test_bench.c): the bench is under test, not the solvers, so
# the figures follow from the arguments.  The keep-all peak is 1000 bytes
# ("0.8x" is 800); below 300 (the floor) the cell is infeasible, exit 3; else
# the plan peaks at the budget, its duration is 100 + (1000 - budget) / 10
# against base_time 100, and 64 bytes are copied when the link is not 0;
# the sum of sizes is 2000 and the derived figures agree with the others
# (bench refuses figures that contradict each other).
# A call without --remat runs the real memplan (MEMPLAN_REAL).  Each call is
# appended to FAKE_LOG when set.
[ -n "${FAKE_LOG:-}" ] && echo "$*" >>"$FAKE_LOG"
case " $* " in *" --remat "*) ;; *) exec "$MEMPLAN_REAL" "$@" ;; esac
graph=$(basename "$2" .json) remat="" frac="" budget="" bw=""
while [ $# -gt 0 ]; do
  case $1 in
  --remat) remat=$2; shift ;;
  --budget-frac) frac=$2; shift ;;
  --budget) budget=$2; shift ;;
  --bandwidth) bw=$2; shift ;;
  esac
  shift
done
[ -n "$frac" ] && budget=$(awk -v f="$frac" 'BEGIN { x = f * 1000; printf "%d", x == int(x) ? x : int(x) + 1 }')
head="\"graph\": \"$graph\", \"nodes\": 4, \"buffers\": 4, \"align\": 64, \"order_solver\": \"given\",
 \"remat_solver\": \"$remat\", \"place_solver\": \"bysize\", \"order_status\": \"fixed\",
 \"budget\": $budget, \"bandwidth\": ${bw:-0}, \"base_time\": 100"
if [ "$budget" -lt 300 ]; then
  echo "{$head, \"status\": \"infeasible\", \"remat_status\": \"infeasible\", \"has_figures\": false,
 \"arena\": null, \"lower_bound\": 300, \"message\": \"fake: below the floor 300\"}"
  exit 3
fi
x=0
[ "${bw:-0}" = 0 ] || x=64
awk -v h="$head" -v b="$budget" -v x="$x" 'BEGIN {
  d = 100 + (1000 - b) / 10
  printf "{%s, \"status\": \"feasible\", \"remat_status\": \"feasible\", \"place_status\": \"optimal\",\n", h
  printf " \"has_figures\": true, \"live_peak\": %d, \"arena\": %d, \"sum_sizes\": 2000,\n", b, b
  printf " \"lower_bound\": 300, \"fragmentation\": 0, \"reuse_ratio\": %.17g, \"profile_std\": 1,\n", 2000 / b
  printf " \"reduction_vs_noreuse\": %.17g, \"residencies\": 7, \"duration\": %g, \"overhead\": %.17g,\n", 1 - b / 2000, d, d / 100 - 1
  printf " \"recompute_time\": %g, \"recomputed\": %d, \"stall_time\": 0, \"transferred\": %d,\n", d - 100, (1000 - b) / 100, x
  printf " \"order_ms\": 0.1, \"remat_ms\": 0.5, \"place_ms\": 0.1, \"plan_ms\": 0.7, \"order_cpu_ms\": 0.1,\n"
  printf " \"remat_cpu_ms\": 0.5, \"place_cpu_ms\": 0.1}\n"
}'
