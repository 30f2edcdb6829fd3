#!/bin/sh
# The recomputation counterpart of snapshot.sh: every deterministic figure
# and a digest of every event plan of the suite's training graphs, for each
# recomputation solver of REMAT at the budgets of FRACS.  Two trees that
# print the same bytes give the same plans:
#   sh scripts/snapshot_remat.sh > /tmp/a.txt   (old tree)
#   sh scripts/snapshot_remat.sh > /tmp/b.txt   (new tree);  cmp /tmp/a.txt /tmp/b.txt
# BIN overrides the binary; GRAPHS the list of files (default: the suite's
# `train` graphs minus `large`).
set -eu
BIN=${BIN:-bin/memplan}
REMAT=${REMAT:-"keepall chen-sqrt chen-greedy dtr rotor swap-greedy"}
FRACS=${FRACS:-"0.4 0.6 0.85"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GRAPHS=${GRAPHS:-$(awk -F'\t' 'NR > 1 && $5 ~ /(^|,)train(,|$)/ && $5 !~ /(^|,)large(,|$)/ {print $1}' graphs/SUITE.tsv)}
for g in $GRAPHS; do
  for r in $REMAT; do
    for f in $FRACS; do
      if "$BIN" solve "$g" --order given --remat "$r" --place firstfit --budget-frac "$f" \
        --format json --no-baseline --out "$tmp/plan" >"$tmp/out" 2>"$tmp/err"; then
        figs=$(grep -E '"(status|live_peak|arena|duration|overhead|recompute_time|recomputed|transferred|budget)"' "$tmp/out" | tr -d ' \n')
        # the plan proper: everything but the stage times
        digest=$(grep -vE '_ms"|"(time|wall|seconds|version)' "$tmp/plan" | md5sum | cut -c1-12)
        echo "$g $r $f $figs plan=$digest"
      else
        echo "$g $r $f exit=$? $(head -c 200 "$tmp/err" | tr '\n' ' ')"
      fi
    done
  done
done
