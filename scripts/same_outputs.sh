#!/bin/bash
# same_outputs.sh BIN_A BIN_B SET - do two memplan binaries give the same
# answers?  Runs each solve of SET with both, with --no-baseline --format json
# --out, and compares the JSON output and the plan file byte for byte, the
# `_ms` lines (clock readings) aside.  Prints each case that differs and
# "cases N differ D"; exits 1 if any differs.  For a change meant to change
# no output (a faster data structure, a cache): BIN_A built before it.
#   SET placers: firstfit, bestfit, coloring, bybreadth on every JSON graph of
#       graphs/SUITE.tsv under 20,000 nodes (greedy order), given + firstfit,
#       dfs + bestfit, dtr + firstfit at 0.7 of the peak; the four placers on
#       the first 40 MiniMalloc CSVs of ../shared/anchors/minimalloc
#   SET orders: greedy, lpmf and best with noreuse on the same graphs and on
#       48 graphs of `BIN_A gen` (sp, tree, chain, nas, layered, randwire with
#       in-place writes, workspace, backward passes, 6 seeds each)
set -u
cd "$(dirname "$0")/.."
[ $# -eq 3 ] || { echo "usage: same_outputs.sh BIN_A BIN_B placers|orders" >&2; exit 2; }
A=$(realpath "$1") B=$(realpath "$2") SET=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0 bad=0

# one FILE ARGS...: the solve with both binaries, compared
one() {
  local f=$1 v
  shift
  for v in A B; do
    local bin=$A
    [ $v = B ] && bin=$B
    timeout 300 "$bin" solve "$f" "$@" --no-baseline --format json --out "$TMP/plan$v" 2>&1 |
      grep -v '_ms"' > "$TMP/out$v"
    echo "rc=${PIPESTATUS[0]}" >> "$TMP/out$v"
    [ -f "$TMP/plan$v" ] && grep -v '_ms"' "$TMP/plan$v" > "$TMP/p$v" || : > "$TMP/p$v"
    rm -f "$TMP/plan$v"
  done
  n=$((n + 1))
  if ! cmp -s "$TMP/outA" "$TMP/outB" || ! cmp -s "$TMP/pA" "$TMP/pB"; then
    bad=$((bad + 1))
    echo "DIFF $f $*"
  fi
}

graphs=$(awk -F'\t' 'NR > 1 && $1 ~ /json$/ && $3 < 20000 {print $1}' graphs/SUITE.tsv)
case $SET in
placers)
  for g in $graphs; do
    for p in firstfit bestfit coloring bybreadth; do one "$g" --order greedy --place $p; done
    one "$g" --order given --place firstfit
    one "$g" --order dfs --place bestfit
    one "$g" --order given --remat dtr --place firstfit --budget-frac 0.7
  done
  for c in $(ls ../shared/anchors/minimalloc/*.csv 2>/dev/null | head -40); do
    for p in firstfit bestfit coloring bybreadth; do one "$c" --place $p; done
  done
  ;;
orders)
  k=0
  for fam in "sp -n 300 --par-prob 0.5 --inplace-prob 0.3 --ws-prob 0.3" \
    "sp -n 200 --par-prob 0.2 --backward --inplace-prob 0.5" "tree -n 300 --backward --input-prob 0.3" \
    "chain -n 200 --ws-prob 1 --inplace-prob 0.7 --backward" \
    "nas --cells 2 --blocks 3 --inplace-prob 0.3 --ws-prob 0.5" "layered -n 2000" "randwire -n 300" \
    "sp -n 1000 --par-prob 0.8 --backward --inplace-prob 0.3 --ws-prob 0.2"; do
    for s in 1 2 3 4 5 6; do
      k=$((k + 1))
      # shellcheck disable=SC2086
      "$A" gen $fam --seed $s --out "$TMP/g$k.json" || exit 2
    done
  done
  for g in $graphs "$TMP"/g*.json; do
    for o in greedy lpmf best; do one "$g" --order $o --place noreuse; done
  done
  ;;
*)
  echo "same_outputs: unknown set '$SET' (placers, orders)" >&2
  exit 2
  ;;
esac
echo "cases $n differ $bad"
[ $bad -eq 0 ]
