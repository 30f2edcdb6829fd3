#!/bin/sh
# The recomputation/offload sweep of issue 13: every heuristic (and keepall)
# on each graph, at budgets from the keep-all peak down to below the
# feasibility floor, through the registry and the judge (scripts/remat/
# drive.c; until the CLI has --remat).  Prints Markdown tables on stdout;
# the raw rows go to $TSV.
#
#   sh scripts/remat/sweep.sh [GRAPH.json ...]     (default: graphs/real/*_train_*.json)
#
# Environment: FRACS (budget fractions of the keep-all peak of the file
# order), SOLVERS (recomputation alone: bandwidth 0), BW (bytes per cost
# unit for swap-greedy with offload; default: each graph's host_bandwidth,
# else 6250000: a PCIe 4.0 x16 link at 25 GB/s when a unit of the default
# cost, one per operator, stands for 250 us), TSV (default
# $TMPDIR/remat_sweep.tsv).
set -eu
cd "$(dirname "$0")/../.."
FRACS=${FRACS:-1,0.9,0.8,0.7,0.6,0.5,0.45,0.4,0.35,0.3,0.25,0.2}
SOLVERS=${SOLVERS:-keepall,chen-sqrt,chen-greedy,rotor,dtr,swap-greedy}
TSV=${TSV:-${TMPDIR:-/tmp}/remat_sweep.tsv}
DRIVE=$(sh scripts/remat/build.sh | grep remat_drive)
[ $# -gt 0 ] || set -- graphs/real/*_train_*.json
mkdir -p "$(dirname "$TSV")"
: > "$TSV.tmp"
for g in "$@"; do
  # recomputation alone, then swap-greedy with the host link
  nice "$DRIVE" "$g" "$SOLVERS" --frac "$FRACS" --bandwidth 0 >> "$TSV.tmp" || [ $? -eq 3 ]
  hb=$(grep -o '"host_bandwidth": *[0-9.e+]*' "$g" | head -n 1 | sed 's/.*: *//')
  bw=${BW:-${hb:-6250000}}
  nice "$DRIVE" "$g" swap-greedy --frac "$FRACS" --bandwidth "$bw" |
    awk -F'\t' 'BEGIN{OFS="\t"} {$2 = $2 "+offload"; print}' >> "$TSV.tmp" || true
  nice "$DRIVE" "$g" --analyze | sed 's/^/# /' >> "$TSV.tmp"
done
mv "$TSV.tmp" "$TSV"
sh scripts/remat/table.sh "$TSV"
