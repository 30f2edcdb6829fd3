#!/bin/sh
# swap-greedy with a host link, held to the plans it makes today: one line
# per case, the case and the sha256 of its plan file (--out) and of its
# figures (--format json, the time columns left out).  A faster swap-greedy
# must keep every line (issue 14: the same plans as before).
#   sh tests/swap_link_golden.sh record FILE [quick]   write the lines
#   sh tests/swap_link_golden.sh check FILE [quick]    compare (exit 1: a case differs)
# quick: the random graphs and resnet18 only (seconds); the whole set: the
# suite's training graphs at 0.8/0.6/0.5 with their own link and two more,
# and 300 random training steps (several minutes).  Run from the repo root.
set -u
BIN=${BIN:-bin/memplan}
mode=${1:?record or check}
file=${2:?file of lines}
quick=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# a file's hash without its time columns (the plan file carries them too)
untimed() { grep -v -E '_ms": ' "$1" | sha256sum | cut -c1-16; }

# one case: its line, "case<TAB>plan hash<TAB>figures hash" (no plan file: -)
one() {
  name=$1
  shift
  rm -f "$tmp/plan.json"
  "$BIN" solve "$@" --remat swap-greedy --place firstfit --no-baseline --format json \
    --out "$tmp/plan.json" >"$tmp/fig.json" 2>/dev/null
  rc=$?
  ph=-
  [ -s "$tmp/plan.json" ] && ph=$(untimed "$tmp/plan.json")
  fh=$(untimed "$tmp/fig.json")
  printf '%s\trc %s\t%s\t%s\n' "$name" "$rc" "$ph" "$fh"
}

cases() {
  for s in $(seq 1 150); do
    fam=sp
    [ $((s % 2)) = 0 ] && fam=layered
    n=$((20 + s % 7 * 15))
    g=$tmp/g.json
    "$BIN" gen $fam -n $n --backward --seed "$s" --out "$g"
    for bw in 3e4 1e6; do
      f=0.$((4 + s % 5))
      one "gen $fam -n $n seed $s f $f bw $bw" "$g" --budget-frac "$f" --bandwidth "$bw"
    done
  done
  if [ -n "$quick" ]; then
    graphs=graphs/real/resnet18_train_b32.json
  else
    graphs=$(awk -F'\t' 'NR > 1 && $5 ~ /(^|,)train(,|$)/ { print $1 }' graphs/SUITE.tsv)
  fi
  for g in $graphs; do
    for f in 0.8 0.6 0.5; do
      one "$g f $f own" "$g" --budget-frac $f
      for bw in 5e3 1e6; do one "$g f $f bw $bw" "$g" --budget-frac $f --bandwidth $bw; done
    done
  done
}

case $mode in
record) cases >"$file" ;;
check)
  cases >"$tmp/now"
  # quick runs a subset: compare it with the recorded lines of those cases
  cut -f1 "$tmp/now" >"$tmp/names"
  awk -F'\t' 'NR == FNR { want[$1] = 1; next } $1 in want' "$tmp/names" "$file" >"$tmp/want"
  if ! diff "$tmp/want" "$tmp/now" >"$tmp/diff" || [ ! -s "$tmp/now" ]; then
    echo "FAIL swap_link_golden: $(grep -c '^>' "$tmp/diff") of $(wc -l <"$tmp/now") cases differ:"
    head -20 "$tmp/diff"
    exit 1
  fi
  echo "swap_link_golden: $(wc -l <"$tmp/now") cases as recorded"
  ;;
*) echo "usage: $0 record|check FILE [quick]" >&2 && exit 2 ;;
esac
