#!/bin/sh
# Markdown tables from the rows of scripts/remat/sweep.sh (a TSV file).
set -eu
awk -F'\t' '
function frac(b, k) { return b / k }
/^#/ {
  # "# path: nodes N ... keepall K floor F fixed_floor X (...)"
  split($0, w, " "); name = w[2]; sub(/.*\//, "", name); sub(/:$/, "", name)
  for (i = 1; i < length(w); i++) if (w[i] == "fixed_floor") fixed[name] = w[i + 1]
  next
}
{
  g = $1; s = $2; b = $3; keep[g] = $4; floor[g] = $5; bw[s] = $6
  f = sprintf("%.2f", b / $4 + 1e-9); F[f] = 1; G[g] = 1; S[s] = 1
  if ($7 == "optimal" || $7 == "feasible") {
    ov[g, s, f] = $11; ms[s] = ms[s] " " $15; nplans[s, f]++
    if (!(g SUBSEP s in low) || f + 0 < low[g, s] + 0) low[g, s] = f
  } else if ($7 == "INVALID" || $7 == "OVER_BUDGET") bad++
}
END {
  nf = 0; for (f in F) fl[++nf] = f
  for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++) if (fl[j] + 0 > fl[i] + 0) { t = fl[i]; fl[i] = fl[j]; fl[j] = t }
  ns = split("keepall chen-sqrt chen-greedy rotor dtr swap-greedy swap-greedy+offload", so, " ")
  ng = 0; for (g in G) gl[++ng] = g
  for (i = 1; i <= ng; i++) for (j = i + 1; j <= ng; j++) if (gl[j] < gl[i]) { t = gl[i]; gl[i] = gl[j]; gl[j] = t }
  printf "Budgets are fractions of the keep-all peak of the file order; a cell is the overhead (duration / base_time - 1) of the plan, or - when the solver returned none.  %d graphs.", ng
  if (bad) printf "  **%d plans were invalid or over budget.**", bad
  printf "\n\n### Plans found and median overhead, per solver\n\n| solver |"
  for (i = 1; i <= nf; i++) printf " %s |", fl[i]
  printf "\n|---|"; for (i = 1; i <= nf; i++) printf "---:|"; printf "\n"
  for (k = 1; k <= ns; k++) {
    s = so[k]; if (!(s in S)) continue
    printf "| %s%s |", s, (s ~ /offload/ ? " (" bw[s] " B/unit)" : "")
    for (i = 1; i <= nf; i++) {
      n = 0; for (j = 1; j <= ng; j++) if ((gl[j], s, fl[i]) in ov) v[++n] = ov[gl[j], s, fl[i]] + 0
      if (n == 0) { printf " - |"; continue }
      for (a = 1; a <= n; a++) for (c = a + 1; c <= n; c++) if (v[c] < v[a]) { t = v[a]; v[a] = v[c]; v[c] = t }
      med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf " %d: %.1f%% |", n, 100 * med
    }
    printf "\n"
  }
  printf "\nA cell is `plans: median overhead` over the graphs where the solver found a plan.\n"
  printf "\n### Half the keep-all peak at no more than 20%% overhead\n\n| solver | graphs at 0.50 with <= 20%% | at 0.50 (any overhead) |\n|---|---:|---:|\n"
  for (k = 1; k <= ns; k++) {
    s = so[k]; if (!(s in S)) continue
    a = 0; c = 0
    for (j = 1; j <= ng; j++) if ((gl[j], s, "0.50") in ov) { c++; if (ov[gl[j], s, "0.50"] + 0 <= 0.2) a++ }
    printf "| %s | %d / %d | %d / %d |\n", s, a, ng, c, ng
  }
  printf "\n### Per graph at half the keep-all peak (overhead) and the lowest fraction reached\n\n"
  printf "| graph | keep-all MB | floor | recompute floor |"
  for (k = 2; k <= ns; k++) if (so[k] in S) printf " %s |", so[k]
  printf "\n|---|---:|---:|---:|"; for (k = 2; k <= ns; k++) if (so[k] in S) printf "---|"; printf "\n"
  for (j = 1; j <= ng; j++) {
    g = gl[j]; name = g; sub(/\.json$/, "", name)
    printf "| %s | %.0f | %.2f | %s |", name, keep[g] / 1e6, floor[g] / keep[g], (g in fixed) ? sprintf("%.2f", fixed[g] / keep[g]) : "?"
    for (k = 2; k <= ns; k++) {
      s = so[k]; if (!(s in S)) continue
      cell = ((g, s, "0.50") in ov) ? sprintf("%.1f%%", 100 * ov[g, s, "0.50"]) : "-"
      printf " %s (%s) |", cell, ((g, s) in low) ? low[g, s] : "-"
    }
    printf "\n"
  }
  printf "\n`floor`: mp_events_floor / keep-all (no plan goes below it).  `recompute floor`: what the shared plan builder can never drop (in-place storage, buffers whose recomputation chain ends in a freed buffer), at its worst position, / keep-all: no recompute-only heuristic here goes below it.  In parentheses: the lowest budget fraction with a plan.\n"
}' "$1"
