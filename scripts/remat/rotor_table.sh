#!/bin/sh
# rotor, rotor with offload and dtr on the training graphs at one budget
# (default: half the keep-all peak of the file order), through the registry
# and the judge (scripts/remat/drive.c: every plan verified, none over its
# budget).  Prints a Markdown table: each graph's overhead (duration /
# base_time - 1) per solver, or - without a plan; then per solver the plans
# found, how many reach <= 20% overhead, and the median overhead.
#
#   sh scripts/remat/rotor_table.sh [GRAPH.json ...]   (default: graphs/real/*_train_*.json)
#
# Environment: FRAC (default 0.5); BW, bytes per cost unit of the host link
# for rotor+offload (default: each graph's host_bandwidth, else 6250000: a
# PCIe 4.0 x16 link at 25 GB/s when a unit of the default cost, one per
# operator, stands for 250 us); TSV (the rows, default
# $TMPDIR/rotor_table.tsv).
set -eu
cd "$(dirname "$0")/../.."
FRAC=${FRAC:-0.5}
TSV=${TSV:-${TMPDIR:-/tmp}/rotor_table.tsv}
DRIVE=$(sh scripts/remat/build.sh | grep remat_drive)
[ $# -gt 0 ] || set -- graphs/real/*_train_*.json
: > "$TSV.tmp"
for g in "$@"; do
  hb=$(grep -o '"host_bandwidth": *[0-9.e+]*' "$g" | head -n 1 | sed 's/.*: *//')
  bw=${BW:-${hb:-6250000}}
  nice "$DRIVE" "$g" rotor,dtr --frac "$FRAC" --bandwidth 0 >> "$TSV.tmp" || [ $? -eq 3 ]
  nice "$DRIVE" "$g" rotor --frac "$FRAC" --bandwidth "$bw" |
    awk -F'\t' 'BEGIN{OFS="\t"} {$2 = $2 "+offload"; print}' >> "$TSV.tmp" || [ $? -eq 3 ]
done
mv "$TSV.tmp" "$TSV"
awk -F'\t' -v frac="$FRAC" '
{
  g = $1; s = $2; G[g] = 1; keep[g] = $4; bw[s] = $6
  if ($7 == "INVALID" || $7 == "OVER_BUDGET") bad++
  if ($7 == "optimal" || $7 == "feasible") ov[g, s] = $11
}
END {
  ns = split("rotor rotor+offload dtr", so, " ")
  ng = 0; for (g in G) gl[++ng] = g
  for (i = 1; i <= ng; i++) for (j = i + 1; j <= ng; j++) if (gl[j] < gl[i]) { t = gl[i]; gl[i] = gl[j]; gl[j] = t }
  printf "At %s of the keep-all peak of the file order, %d graphs; a cell is the overhead (duration / base_time - 1), - without a plan.", frac, ng
  if (bad) printf "  **%d plans were invalid or over budget.**", bad
  printf "\n\n| graph | keep-all MB |"
  for (k = 1; k <= ns; k++) printf " %s |", so[k]
  printf "\n|---|---:|"; for (k = 1; k <= ns; k++) printf "---:|"; printf "\n"
  for (j = 1; j <= ng; j++) {
    g = gl[j]; name = g; sub(/\.json$/, "", name)
    printf "| %s | %.0f |", name, keep[g] / 1e6
    for (k = 1; k <= ns; k++) printf " %s |", ((g, so[k]) in ov) ? sprintf("%.1f%%", 100 * ov[g, so[k]]) : "-"
    printf "\n"
  }
  printf "\n| solver | plans | <= 20%% overhead | median overhead |\n|---|---:|---:|---:|\n"
  for (k = 1; k <= ns; k++) {
    s = so[k]; n = 0; a = 0
    for (j = 1; j <= ng; j++) if ((gl[j], s) in ov) { v[++n] = ov[gl[j], s] + 0; if (v[n] <= 0.2) a++ }
    for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++) if (v[y] < v[x]) { t = v[x]; v[x] = v[y]; v[y] = t }
    med = n == 0 ? "-" : sprintf("%.1f%%", 100 * (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2))
    printf "| %s%s | %d / %d | %d / %d | %s |\n", s, (s ~ /offload/ ? " (" bw[s] " B/unit)" : ""), n, ng, a, ng, med
  }
}' "$TSV"
