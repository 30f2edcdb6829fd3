#!/bin/sh
# remat_search_bench.sh - the search-based recomputation solvers (remat-sa,
# remat-ga) measured as issue 13 asks, as Markdown tables on stdout (the
# raw lines of every run on stderr):
#   rl     Moccasin's random-layered graphs RL100 and RL250 at budgets 0.9
#          and 0.8 x P(pi), LIMIT seconds per run.  The files are read from
#          ../shared/anchors/checkmate/ (skipped when absent) and converted
#          to memplan JSON in a temporary directory (node key `name`, links
#          "0" -> "1", graph.order the given order, out_cost bytes, duration
#          time), never copied into the project.
#   train  the torchvision training graphs (graphs/real/*_train_*.json):
#          overhead against budget, FRACS of the given order's peak, LIMIT
#          seconds per run.
# Until `memplan solve --remat` exists, each run goes through
# scripts/remat_search_drive.c (the registry, then the judge: every plan is
# verified and evaluated by src/events*).
#
#   sh scripts/remat_search_bench.sh [rl|train|all]
#   env: LIMIT (10), SEED (1), BW (0: no offload), FRACS, GRAPHS, SOLVERS
#   (a solver with options: remat-ga:reorder=0,local=100)
set -eu
cd "$(dirname "$0")/.."
what=${1:-all}
LIMIT=${LIMIT:-10}
SEED=${SEED:-1}
BW=${BW:-0}
ANCHORS=${ANCHORS:-../shared/anchors/checkmate}
make -s lib >/dev/null
DRIVE=build/remat_search_drive
# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -Isolvers -o "$DRIVE" scripts/remat_search_drive.c \
  build/libmemplan.a $(pkg-config --cflags --libs igraph jansson cairo) -lglpk -lsqlite3 -lm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # graph solver frac [opts...]: one raw line, echoed to stderr
  g=$1 s=$2 f=$3
  shift 3
  line=$(nice "$DRIVE" "$g" "$s" "$f" "$LIMIT" "$SEED" "$BW" "$@")
  printf '%s\n' "$line" >&2
  printf '%s\n' "$line"
}

moccasin_json() { # node-link file -> memplan graph JSON
  python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
key = {n["name"]: i for i, n in enumerate(d["nodes"])}
ins = {i: [] for i in range(len(d["nodes"]))}
for l in d["links"]:
    ins[key[l["1"]]].append(key[l["0"]])
nodes = [{"id": key[k], "name": str(k), "size": d["nodes"][key[k]]["out_cost"],
          "cost": d["nodes"][key[k]]["duration"], "inputs": ins[key[k]]} for k in d["graph"]["order"]]
json.dump({"name": d["graph"]["name"], "nodes": nodes}, open(sys.argv[2], "w"))
EOF
}

rl() {
  SOLVERS_RL=${SOLVERS:-"remat-sa remat-ga:reorder=0 remat-ga"}
  echo "### Moccasin's random-layered graphs, $LIMIT s per run (seed $SEED)"
  echo
  echo "| graph | budget | solver | duration | overhead | recomputed | status | time (s) |"
  echo "|---|---|---|---:|---:|---:|---|---:|"
  for n in 100 250; do
    src=$ANCHORS/random_layered_n$n.json
    if [ ! -f "$src" ]; then
      echo "| RL$n | | (absent: $src) | | | | | |"
      continue
    fi
    moccasin_json "$src" "$tmp/rl$n.json"
    for f in 0.9 0.8; do
      for spec in $SOLVERS_RL; do
        s=${spec%%:*} opt=
        [ "$spec" = "$s" ] || opt=${spec#*:}
        # shellcheck disable=SC2086
        run "$tmp/rl$n.json" "$s" "$f" $(printf '%s' "$opt" | tr ',' ' ') |
          awk -F'\t' -v g="RL$n" -v spec="$spec" '{printf "| %s | %s x %s = %s | %s | %s | %s%% | %s | %s | %.1f |\n",
            g, $3, $4, $5, spec, $8, $10, $11, $14, $15 / 1000}'
      done
    done
  done
  echo
}

train() {
  FRACS=${FRACS:-"0.9 0.8 0.7 0.6 0.5 0.4 0.3"}
  GRAPHS=${GRAPHS:-$(ls graphs/real/*_train_b32.json)}
  for spec in ${SOLVERS:-remat-sa remat-ga}; do
    s=${spec%%:*} opt=
    [ "$spec" = "$s" ] || opt=$(printf '%s' "${spec#*:}" | tr ',' ' ')
    echo "### $spec: overhead (%) against budget (fraction of the keep-all peak), $LIMIT s per run"
    echo
    printf '| graph | nodes | floor / peak |'
    for f in $FRACS; do printf ' %s |' "$f"; done
    printf '\n|---|---:|---:|'
    for f in $FRACS; do printf -- '---:|'; done
    echo
    for g in $GRAPHS; do
      nodes=$(bin/memplan info "$g" | awk '$1 == "nodes" {print $2}')
      row=""
      ratio=""
      for f in $FRACS; do
        # shellcheck disable=SC2086
        line=$(run "$g" "$s" "$f" $opt)
        ratio=$(printf '%s\n' "$line" | awk -F'\t' '{printf "%.3f", $6 / $4}')
        cell=$(printf '%s\n' "$line" | awk -F'\t' '{ if ($14 == "infeasible") print "below floor";
          else if ($14 == "no plan") print "no plan"; else printf "%.1f", $10 }')
        row="$row $cell |"
      done
      echo "| $(basename "$g" .json) | $nodes | $ratio |$row"
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
