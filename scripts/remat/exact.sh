#!/bin/sh
# The exact recomputation/offload solvers of issue 13 through the registry
# and the judge (scripts/remat/drive.c, until the CLI has --remat):
#  1. remat-ilp and remat-lp (and keepall) on Moccasin's random-layered
#     graphs at 0.9 and 0.8 x P(pi), each under a 60 s and a 600 s limit;
#  2. remat-exact against remat-ilp on small training chains (x -> a1 .. ak
#     -> the loss -> gk .. g1, gi reading g(i+1) and a(i-1): the activations
#     a backward pass saves; sizes 1-4 MiB and costs drawn per seed, a
#     backward node costing twice its forward one), recomputation alone and
#     with a host link.
# Prints Markdown on stdout; the raw rows go to $TSV.
#
#   sh scripts/remat/exact.sh [GRAPH ...]
#
# Default graphs: ../shared/anchors/checkmate/random_layered_n100.json and
# _n250.json (read there, never copied; skipped with a note when absent or
# when this build cannot read them).  Environment: LIMITS (60,600), FRACS
# (0.9,0.8), SOLVERS (keepall,remat-lp,remat-ilp), SMALL (the chain
# lengths k of part 2: 4,6,8; empty: skip), BW (bytes per cost unit for
# part 2: 1048576, a copy of 1 MiB takes one cost unit), TSV (default $TMPDIR/remat_exact.tsv).  Long: run it
# with nice on a quiet machine (part 1 alone is up to 2 x 2 x 2 x 600 s).
set -eu
cd "$(dirname "$0")/../.."
LIMITS=${LIMITS:-60,600}
FRACS=${FRACS:-0.9,0.8}
SOLVERS=${SOLVERS:-keepall,remat-lp,remat-ilp}
SMALL=${SMALL-4,6,8}
BW=${BW:-1048576}
TSV=${TSV:-${TMPDIR:-/tmp}/remat_exact.tsv}
DRIVE=$(sh scripts/remat/build.sh | grep remat_drive)
ANCHORS=../shared/anchors/checkmate
[ $# -gt 0 ] || set -- "$ANCHORS/random_layered_n100.json" "$ANCHORS/random_layered_n250.json"
mkdir -p "$(dirname "$TSV")"
: > "$TSV.tmp"
skipped=""
for g in "$@"; do
  if [ ! -r "$g" ] || ! "$DRIVE" "$g" keepall --frac 1 > /dev/null 2>&1; then
    skipped="$skipped $g"
    continue
  fi
  for l in $(echo "$LIMITS" | tr ',' ' '); do
    nice "$DRIVE" "$g" "$SOLVERS" --frac "$FRACS" --time-limit "$l" |
      awk -F'\t' -v l="$l" 'BEGIN{OFS="\t"} {print "big", l, $0}' >> "$TSV.tmp" || true
  done
done
tmp=${TMPDIR:-/tmp}/remat_exact_graphs.$$
mkdir -p "$tmp"
# a training chain of k layers as DESIGN 1.1 JSON (deterministic per seed)
chain() {
  awk -v k="$1" -v seed="$2" 'BEGIN {
    srand(seed); M = 1048576
    printf "{\"name\":\"chain%d_s%d\",\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":%d,\"inputs\":[]}", k, seed, M
    for (i = 1; i <= k + 1; i++) { sz[i] = int(1 + 3 * rand()) * M; c[i] = 1 + int(4 * rand())
      printf ",{\"id\":%d,\"size\":%d,\"cost\":%d,\"inputs\":[%d]}", i, sz[i], c[i], i - 1 }
    for (i = k - 1; i >= 1; i--)
      printf ",{\"id\":%d,\"size\":%d,\"cost\":%d,\"inputs\":[%d,%d]}", 2 * k + 1 - i, sz[i], 2 * c[i + 1], 2 * k - i, i - 1
    printf "]}\n" }'
}
for k in $(echo "$SMALL" | tr ',' ' '); do
  for seed in 1 2 3; do
    f="$tmp/chain${k}_s$seed.json"
    chain "$k" "$seed" > "$f"
    for bw in 0 "$BW"; do
      nice "$DRIVE" "$f" remat-exact,remat-ilp --frac 0.9,0.8,0.7,0.6,0.5 --bandwidth "$bw" --time-limit 60 |
        awk -F'\t' 'BEGIN{OFS="\t"} {print "small", 60, $0}' >> "$TSV.tmp" || true
    done
  done
done
rm -rf "$tmp"
mv "$TSV.tmp" "$TSV"

# Columns after the two added: graph solver budget keepall floor bandwidth
# status peak duration base overhead recomputed transferred stall solve_ms note
awk -F'\t' -v skipped="$skipped" '
function bound(st, dur, note,   m) {
  if (st == "optimal") return dur
  if (match(note, /at least [0-9.e+]+/)) return substr(note, RSTART + 9, RLENGTH - 9)
  return "-"
}
$1 == "big" {
  rows[++nb] = sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %.1f |", $3, $5, $4, $2,
                       $9, ($9 == "optimal" || $9 == "feasible" || $9 == "timeout") ? sprintf("%.2f%%", 100 * $13) : "-",
                       ($9 == "optimal" || $9 == "feasible" || $9 == "timeout") ? $11 : "-",
                       bound($9, $11, $18), $17 / 1000)
}
$1 == "small" {
  key = $3 SUBSEP $5 SUBSEP $8; G[$3] = 1
  st[key, $4] = $9; du[key, $4] = $11; ms[key, $4] = $17
  if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
}
END {
  if (skipped != "") printf "Skipped (absent, or not readable by this build):%s\n\n", skipped
  if (nb) {
    print "### remat-ilp and remat-lp on Moccasin'"'"'s random-layered graphs\n"
    print "Budget: ceil(F x P(pi)), P(pi) the live peak of the file order.  Overhead = duration / base_time - 1.  Bound: a lower bound on the duration of every plan without copies whose first runs follow the file order (remat-ilp: its relaxation valid for every plan, RM_BOUND; remat-lp: that relaxation'"'"'s LP; keepall: the duration floor)."
    print ""
    print "| graph | budget | solver | limit (s) | status | overhead | duration | bound | time (s) |"
    print "|---|---:|---|---:|---|---:|---:|---:|---:|"
    for (i = 1; i <= nb; i++) print rows[i]
    print ""
  }
  if (nk) {
    print "### remat-exact against remat-ilp on small training chains\n"
    print "Limit 60 s.  bw 0: recomputation alone; otherwise bytes per cost unit of the host link.  A cell: status and duration (time in s)."
    print ""
    print "| graph | budget | bw | remat-exact | remat-ilp |"
    print "|---|---:|---:|---|---|"
    for (i = 1; i <= nk; i++) {
      split(order[i], k, SUBSEP)
      printf "| %s | %s | %s |", k[1], k[2], k[3]
      n = split("remat-exact remat-ilp", s, " ")
      for (j = 1; j <= n; j++) {
        c = order[i] SUBSEP s[j]
        if (c in st) printf " %s %s (%.2f) |", st[c], (st[c] == "optimal" || st[c] == "feasible") ? du[c] : "", ms[c] / 1000
        else printf " - |"
      }
      printf "\n"
    }
  }
}' "$TSV"
