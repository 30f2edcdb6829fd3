#!/bin/sh
# Print every deterministic figure and a digest of every plan for the suite
# graphs under a fixed set of solver pairs: two trees that give the same
# output give the same figures and plans.  Used to check that a restructuring
# or a speed-up changes no number:
#   sh scripts/snapshot.sh > /tmp/a.txt   (old tree)
#   sh scripts/snapshot.sh > /tmp/b.txt   (new tree);  cmp /tmp/a.txt /tmp/b.txt
# BIN overrides the binary; GRAPHS the list of files (default: SUITE.tsv minus
# the `large` tag).
set -eu
BIN=${BIN:-bin/memplan}
PAIRS=${PAIRS:-"given:bysize greedy:bysize lpmf:bysize bfs:bysize dfs:bysize best:bysize \
given:noreuse given:firstfit given:bestfit given:bysize-ff given:pool given:coloring"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GRAPHS=${GRAPHS:-$(awk -F'\t' 'NR > 1 && $5 !~ /(^|,)large(,|$)/ {print $1}' graphs/SUITE.tsv)}
for g in $GRAPHS; do
  for pair in $PAIRS; do
    o=${pair%%:*}; p=${pair#*:}
    case "$g" in *.csv) [ "$o" = given ] || continue ;; esac
    if "$BIN" solve "$g" --order "$o" --place "$p" --format json --out "$tmp/plan" >"$tmp/out" 2>"$tmp/err"; then
      figs=$(grep -E '"(status|live_peak|arena|sum_sizes|lower_bound|fragmentation|reuse_ratio|profile_std|reduction_vs_given|reduction_vs_noreuse)"' "$tmp/out" | tr -d ' \n')
      # the plan proper: order and offsets of a JSON plan (the figures are
      # compared above), the whole CSV of a fixed-lifetime plan
      if grep -q '^ "order": \[' "$tmp/plan"; then
        digest=$(sed -n '/^ "order": \[/,$p' "$tmp/plan" | md5sum | cut -c1-12)
      else
        digest=$(md5sum <"$tmp/plan" | cut -c1-12)
      fi
      echo "$g $o $p $figs plan=$digest"
    else
      echo "$g $o $p exit=$? $(head -c 200 "$tmp/err" | tr '\n' ' ')"
    fi
  done
done
