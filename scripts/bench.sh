#!/bin/sh
# make bench: run the default experiment, then regenerate results/ from it:
#   results/default.sqlite   every row (not committed: .gitignore)
#   results/default.csv      the same rows as CSV (committed)
#   results/tables.md|.tex|.csv  generated tables
#   results/*.svg, *.png     plots
#   results/README.md        machine, date, version, tables, plots, how to reproduce
# With BENCH_FULL=1 (make bench-full), every executable scripts/bench.d/*.sh
# runs next (long benchmarks: scheduling, placement; cwd = repository root,
# MEMPLAN and RESULTS set); each may write under results/ and append its own
# section to results/README.md.
#
# Environment: EXPERIMENT (default scripts/experiments/default.json),
# REMAT_SLICE (default scripts/experiments/remat_default.json: a few
# recomputation cells run into the same results file when memplan solve has
# --remat; empty: none), JOBS
# (default 2), REPEAT (timed runs per cell, default 1), FRESH=1 to start from
# an empty results file (default: resume: cells that ended are kept; cells
# with status error or timeout run again, and so do stale rows: a solver
# rebuilt since, a graph file changed; refusals under a size cap are kept).
# memplan bench prints a start line and a progress line every 30 s on stderr
# (a line kept up to date on a terminal), and the summary on stdout (into
# results/.bench.log while it runs, printed at the end).
set -eu
cd "$(dirname "$0")/.."
MEMPLAN=${MEMPLAN:-bin/memplan}
EXPERIMENT=${EXPERIMENT:-scripts/experiments/default.json}
REMAT_SLICE=${REMAT_SLICE-scripts/experiments/remat_default.json}
if [ -n "$REMAT_SLICE" ] && ! "$MEMPLAN" solve --help | grep -q -- '--remat'; then
  echo "bench.sh: $MEMPLAN solve has no --remat: the recomputation slice $REMAT_SLICE is left out" >&2
  REMAT_SLICE=""
fi
JOBS=${JOBS:-2}
REPEAT=${REPEAT:-1}
RESULTS=${RESULTS:-results}
DB=$RESULTS/default.sqlite
export MEMPLAN RESULTS
mkdir -p "$RESULTS"
[ "${FRESH:-0}" = 1 ] && rm -f "$DB" "$DB-wal" "$DB-shm"

t0=$(date +%s)
status=0
nice "$MEMPLAN" bench "$EXPERIMENT" --jobs "$JOBS" --repeat "$REPEAT" --results "$DB" --retry-failed \
  > "$RESULTS/.bench.log" || status=$?
if [ "$status" -eq 0 ] && [ -n "$REMAT_SLICE" ]; then
  nice "$MEMPLAN" bench "$REMAT_SLICE" --jobs "$JOBS" --repeat "$REPEAT" --results "$DB" \
    --retry-failed >> "$RESULTS/.bench.log" || status=$?
fi
cat "$RESULTS/.bench.log"
[ "$status" -eq 0 ] || { echo "bench.sh: memplan bench failed (exit $status)" >&2; exit "$status"; }
t1=$(date +%s)

"$MEMPLAN" export "$DB" --format csv --out "$RESULTS/default.csv"
"$MEMPLAN" table "$DB" --format md --out "$RESULTS/tables.md"
"$MEMPLAN" table "$DB" --format latex --out "$RESULTS/tables.tex"
"$MEMPLAN" table "$DB" --format csv --out "$RESULTS/tables.csv"
rm -f "$RESULTS/tables_remat.csv"
[ -n "$REMAT_SLICE" ] && "$MEMPLAN" table "$DB" --format csv --view remat --out "$RESULTS/tables_remat.csv"

# ---- plots -------------------------------------------------------------
rm -f "$RESULTS"/profile_*.svg "$RESULTS"/profile_*.png "$RESULTS"/placement_*.svg \
  "$RESULTS"/placement_*.png "$RESULTS"/pareto_*.svg "$RESULTS"/pareto_*.png \
  "$RESULTS"/overhead*.svg "$RESULTS"/overhead*.png
q() { sqlite3 -separator ' ' "$DB" "$1"; }
NOREMAT="remat_solver = ''" # order and placement cells (the remat slice has its own plot)
# every registered order solver, for the profile plot (--order once per solver)
orders=$("$MEMPLAN" solvers | awk '$2 == "order" { printf " --order %s", $1 }')
PLOTS=""
plot() { # name, then the plot arguments; writes NAME.svg and NAME.png
  name=$1
  shift
  if nice "$MEMPLAN" plot "$@" --out "$RESULTS/$name.svg" --out "$RESULTS/$name.png"; then
    PLOTS="$PLOTS $name"
  else
    echo "bench.sh: plot $name failed" >&2
  fi
}
# memory profile of every scheduler on each real graph of the run
for path in $(q "SELECT DISTINCT path FROM results WHERE nodes > 0 AND path LIKE '%real/%' AND $NOREMAT ORDER BY path"); do
  [ -f "$path" ] || continue
  g=$(basename "$path" .json)
  # shellcheck disable=SC2086
  plot "profile_$g" profile "$path" $orders --time-limit 2
done
# placement chart of the best plan found on each real graph and on the
# smallest fixed-lifetime problem
for path in $(q "SELECT DISTINCT path FROM results WHERE path LIKE '%real/%' AND $NOREMAT ORDER BY path") \
  $(q "SELECT path FROM results WHERE nodes = 0 AND arena IS NOT NULL ORDER BY buffers, path LIMIT 1"); do
  [ -f "$path" ] || continue
  best=$(q "SELECT order_solver, place_solver, seed FROM results WHERE path = '$path' AND arena IS NOT NULL AND $NOREMAT ORDER BY arena, plan_ms, order_solver, place_solver LIMIT 1")
  [ -n "$best" ] || continue
  set -- $best
  g=$(basename "$(basename "$path" .json)" .csv)
  plot "placement_$g" placement "$path" --order "$1" --place "$2" --seed "$3" --time-limit 2
done
# arena against planning time, every graph
for g in $(q "SELECT DISTINCT graph FROM results WHERE arena IS NOT NULL AND $NOREMAT ORDER BY graph"); do
  plot "pareto_$g" pareto "$DB" --graph "$g"
done
# the recomputation slice: overhead against budget
[ "$(q "SELECT count(*) FROM results WHERE remat_solver != '' AND arena IS NOT NULL")" -gt 0 ] &&
  plot "overhead" overhead "$DB"

# ---- README ------------------------------------------------------------
# the commit the binary was built from, "-dirty" when a file outside
# results/ differed at build time (the results written by this script do not
# count): memplan --version says it (scripts/gen_commit.sh)
version=$("$MEMPLAN" --version | sed -n 's/.*(\(.*\))$/\1/p')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
ncpu=$(nproc 2>/dev/null || echo "?")
os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME" || uname -s)
cells=$(q "SELECT count(*) FROM results")
failed=$(q "SELECT count(*) FROM results WHERE arena IS NULL AND status != 'refused'")
refused=$(q "SELECT count(*) FROM results WHERE status = 'refused'")
summary=$(awk '/^bench / { printf "%s%s", sep, $0; sep = "; then " }' "$RESULTS/.bench.log")
cell_s=$(q "SELECT printf('%.0f', total(wall_s)) FROM results")
{
  echo "# memplan results: the default experiment"
  echo
  echo "Generated by \`make bench\` (scripts/bench.sh); do not edit by hand."
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- memplan: $version"
  echo "- machine: $(hostname), $cpu, $ncpu cores, $os"
  echo "- experiment: [$EXPERIMENT](../$EXPERIMENT)${REMAT_SLICE:+ and the recomputation slice [$REMAT_SLICE](../$REMAT_SLICE)}, $cells cells ($failed without a plan, $refused refused under a size cap), $JOBS jobs, $REPEAT timed run(s) per cell"
  echo "- last invocation: $summary"
  echo "- cells: $cell_s s of child-process wall time in total (the experiment alone, on $JOBS jobs, takes about half of that)"
  echo
  echo "## Reproduce"
  echo
  echo '```sh'
  echo "make bench                      # = the commands below"
  echo "bin/memplan bench $EXPERIMENT --jobs $JOBS --repeat $REPEAT --results $DB --retry-failed"
  [ -n "$REMAT_SLICE" ] && echo "bin/memplan bench $REMAT_SLICE --jobs $JOBS --repeat $REPEAT --results $DB --retry-failed"
  echo "bin/memplan export $DB --format csv --out $RESULTS/default.csv"
  echo "bin/memplan table $DB --format md     # or latex, csv"
  echo "bin/memplan plot pareto $DB --graph GRAPH --out pareto.svg"
  [ -n "$REMAT_SLICE" ] && echo "bin/memplan plot overhead $DB --out overhead.svg"
  echo '```'
  echo
  echo "Rerunning resumes (finished cells are kept; cells with status error or timeout run again, and so"
  echo "do stale rows: a solver rebuilt since, or a graph file changed); \`FRESH=1 make bench\` starts over."
  echo "Gaps are against each graph's own bound, stored once per graph in the results file (the"
  echo "min-cut bound; max-live for fixed-lifetime problems), whatever solvers ran."
  echo "The rows are in [default.csv](default.csv) (every column of DESIGN 1.3 plus the cell,"
  echo "version and machine); the tables also as [LaTeX](tables.tex) and [CSV](tables.csv)${REMAT_SLICE:+ (recomputation: [tables_remat.csv](tables_remat.csv))}."
  echo
  echo "## Tables"
  echo
  cat "$RESULTS/tables.md"
  echo
  echo "## Plots"
  echo
  for p in $PLOTS; do
    case $p in
    profile_*) what="memory profile M(t) of every scheduler, lower bound dashed" ;;
    placement_*) what="placement of the best plan found (time x address), peak moment marked" ;;
    pareto_*) what="arena against planning time, Pareto front in red" ;;
    overhead) what="recomputation: overhead against budget, one curve per solver" ;;
    esac
    echo "### ${p#*_}: $what"
    echo
    echo "![$p]($p.png) ([SVG]($p.svg))"
    echo
  done
  reports=""
  for r in schedule.md schedule_train.md placement.md remat.md; do
    [ -f "$RESULTS/$r" ] && reports="$reports $r"
  done
  if [ -n "$reports" ]; then
    echo "## Further benchmarks"
    echo
    echo "Longer runs, regenerated by \`make bench-full\` (the default experiment plus"
    echo "every scripts/bench.d/*.sh hook; each report names its date and commands):"
    echo
    for r in $reports; do
      head=$(sed -n 's/^# //p' "$RESULTS/$r" | head -1)
      echo "- [$r]($r) (results/$r): $head"
    done
    echo
  fi
  if [ "$failed" -gt 0 ]; then
    echo "## Cells without a plan"
    echo
    echo "| graph | order | place | seed | status | message |"
    echo "|---|---|---|---:|---|---|"
    sqlite3 -separator ' | ' "$DB" "SELECT '| ' || graph, order_solver, place_solver, seed, status, replace(coalesce(message, ''), '|', '/') || ' |' FROM results WHERE arena IS NULL AND status != 'refused' ORDER BY graph, order_solver, place_solver, seed"
    echo
  fi
  if [ "$refused" -gt 0 ]; then
    echo "## Refused under a size cap (not failures)"
    echo
    echo "| graph | order | place | cells | message |"
    echo "|---|---|---|---:|---|"
    sqlite3 -separator ' | ' "$DB" "SELECT '| ' || graph, order_solver, place_solver, count(*), replace(coalesce(min(message), ''), '|', '/') || ' |' FROM results WHERE status = 'refused' GROUP BY graph, order_solver, place_solver ORDER BY graph, order_solver, place_solver"
    echo
  fi
} > "$RESULTS/README.md.tmp"
mv "$RESULTS/README.md.tmp" "$RESULTS/README.md"
rm -f "$RESULTS/.bench.log"
echo "bench.sh: $RESULTS/README.md written ($((t1 - t0)) s of experiment)"

# ---- hooks: other benchmark sections --------------------------------------
if [ "${BENCH_FULL:-0}" = 1 ] && [ -d scripts/bench.d ]; then
  for hook in scripts/bench.d/*.sh; do
    [ -x "$hook" ] || continue
    echo "bench.sh: running $hook"
    "$hook" || echo "bench.sh: $hook failed (exit $?)" >&2
  done
fi
