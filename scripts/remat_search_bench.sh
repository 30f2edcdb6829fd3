#!/bin/sh
# remat_search_bench.sh - the search-based recomputation solvers (remat-sa,
# remat-ga) measured as issue 13 asks, as Markdown tables on stdout (one
# raw line per run on stderr: graph solver frac budget duration overhead
# recomputed status wall_ms cpu_ms note).  Every run is one
#   bin/memplan solve GRAPH --remat SOLVER --budget-frac F --time-limit LIMIT
#       --seed SEED [--bandwidth BW] [--set SOLVER.OPT=VAL] --format json
# (the harness verifies and measures every plan with the judge).
#   rl     Moccasin's random-layered graphs RL100 and RL250 at budgets 0.9
#          and 0.8 x P(pi), read where they are, ../shared/anchors/checkmate/
#          (--input-format nodelink; skipped when absent), never copied.
#   train  the torchvision training graphs (graphs/real/*_train_b32.json):
#          overhead against budget, FRACS of the given order's peak.
#
#   sh scripts/remat_search_bench.sh [rl|train|all]
#   env: LIMIT (10 s a run), SEED (1), BW (0: no offload), FRACS, GRAPHS,
#        SOLVERS (a solver with options: remat-ga:reorder=0,local=100)
set -eu
cd "$(dirname "$0")/.."
what=${1:-all}
LIMIT=${LIMIT:-10}
SEED=${SEED:-1}
BW=${BW:-0}
ANCHORS=${ANCHORS:-../shared/anchors/checkmate}
make -s bin/memplan >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run GRAPH SPEC FRAC [SOLVE ARGS]: one raw line (tab-separated), echoed to stderr
run() {
  g=$1 spec=$2 f=$3
  shift 3
  s=${spec%%:*}
  set -- "$@" --remat "$s" --budget-frac "$f" --time-limit "$LIMIT" --seed "$SEED" --format json
  [ "$BW" = 0 ] || set -- "$@" --bandwidth "$BW"
  if [ "$spec" != "$s" ]; then
    for o in $(printf '%s' "${spec#*:}" | tr ',' ' '); do set -- "$@" --set "$s.$o"; done
  fi
  line=$(nice bin/memplan solve "$g" "$@" 2>"$tmp/err" | python3 -c '
import json, sys
spec, frac = sys.argv[1], sys.argv[2]
try:
    r = json.load(sys.stdin)
except ValueError:
    r = {}
st = [x for x in r.get("stages", []) if x.get("solver") == r.get("remat_solver")]
def num(k, fmt):
    v = r.get(k)
    return "" if v is None else fmt % v
print("\t".join([r.get("graph", "?"), spec, frac, num("budget", "%d"), num("duration", "%.17g"),
                 num("overhead", "%.6f"), num("recomputed", "%d"), r.get("remat_status", "no plan"),
                 "%.0f" % st[0]["wall_ms"] if st else "", "%.0f" % st[0]["cpu_ms"] if st else "",
                 (st[0].get("message") or "") if st else ""]))
' "$spec" "$f") || true
  [ -n "$line" ] || line="$(basename "$g")	$spec	$f	$(tr '\n\t' '  ' <"$tmp/err")"
  printf '%s\n' "$line" >&2
  printf '%s\n' "$line"
}

rl() {
  echo "### Moccasin's random-layered graphs, $LIMIT s per run (seed $SEED)"
  echo
  echo "| graph | budget | solver | duration | overhead | recomputed | status | wall (s) | cpu (s) |"
  echo "|---|---|---|---:|---:|---:|---|---:|---:|"
  for n in 100 250; do
    src=$ANCHORS/random_layered_n$n.json
    if [ ! -f "$src" ]; then
      echo "| RL$n | | (absent: $src) | | | | | | |"
      continue
    fi
    for f in 0.9 0.8; do
      for spec in ${SOLVERS:-remat-sa remat-ga:reorder=0 remat-ga}; do
        run "$src" "$spec" "$f" --input-format nodelink | awk -F'\t' -v g="RL$n" '{
          printf "| %s | %s x P = %s | %s | %s | %.3f%% | %s | %s | %.1f | %.1f |\n",
            g, $3, $4, $2, $5, 100 * $6, $7, $8, $9 / 1000, $10 / 1000 }'
      done
    done
  done
  echo
}

train() {
  FRACS=${FRACS:-"0.9 0.7 0.5 0.4"}
  GRAPHS=${GRAPHS:-$(ls graphs/real/*_train_b32.json)}
  for spec in ${SOLVERS:-remat-sa remat-ga}; do
    echo "### $spec: overhead (%) against budget (fraction of the keep-all peak), $LIMIT s per run"
    echo
    printf '| graph | nodes |'
    for f in $FRACS; do printf ' %s |' "$f"; done
    printf '\n|---|---:|'
    for f in $FRACS; do printf -- '---:|'; done
    echo
    for g in $GRAPHS; do
      nodes=$(bin/memplan info "$g" | awk '$1 == "nodes" {print $2}')
      row=""
      for f in $FRACS; do
        cell=$(run "$g" "$spec" "$f" | awk -F'\t' '{
          if ($8 == "infeasible") print "below floor"; else if ($5 == "") print "no plan";
          else printf "%.1f", 100 * $6 }')
        row="$row $cell |"
      done
      echo "| $(basename "$g" .json) | $nodes |$row"
    done
    echo
  done
}

case $what in
rl) rl ;;
train) train ;;
all) rl && train ;;
*) echo "usage: sh scripts/remat_search_bench.sh [rl|train|all]" >&2; exit 2 ;;
esac
