# scripts/bench.d/lib.sh - shared by the benchmark hooks (sourced, not run).
# A hook writes experiment files, runs them with `memplan bench` (resumable:
# rerunning a hook skips the cells its results files hold), and writes its
# report from `memplan table` views; the scripts compute no figure.
#
# Needs: MEMPLAN, W (the work directory: experiments, generated graphs,
# results files), JOBS, REPORT (the report being written), CMDS (a file that
# collects the commands for the report's last section).

# jarr A B C -> ["A", "B", "C"]
jarr() {
  sep=""
  printf '['
  for x in "$@"; do
    printf '%s"%s"' "$sep" "$x"
    sep=", "
  done
  printf ']'
}

# experiment NAME GRAPHS ORDERS PLACES LIMIT [OPTIONS [EXTRA]]: writes $W/NAME.json;
# GRAPHS, ORDERS, PLACES, OPTIONS are JSON arrays; EXTRA more keys (", \"capacity\": 5").
# REPEAT (default 1): timed runs per cell.
experiment() {
  cat >"$W/$1.json" <<EOF
{"name": "$1", "manifest": "$ROOT/graphs/SUITE.tsv", "graphs": $2,
 "order": $3, "place": $4, "seeds": [1], "time_limits": [$5], "repeat": ${REPEAT:-1},
 "options": ${6:-[]}, "mem_limit_mb": 8192, "grace_s": 10${7:-}}
EOF
}

# run NAME RESULTS: run experiment NAME into $W/RESULTS.sqlite
run() {
  echo "$(basename "$0"): bench $1 -> $2.sqlite" >&2
  echo "$MEMPLAN bench $W/$1.json --results $W/$2.sqlite --jobs $JOBS --retry-failed" >>"$CMDS"
  nice "$MEMPLAN" bench "$W/$1.json" --results "$W/$2.sqlite" --jobs "$JOBS" --retry-failed >&2
}

# pivot RESULTS [table options]: a pivot table of $W/RESULTS.sqlite into the report
pivot() {
  f=$1
  shift
  echo "$MEMPLAN table $W/$f.sqlite --view pivot $*" >>"$CMDS"
  "$MEMPLAN" table "$W/$f.sqlite" --view pivot --brief "$@" >>"$REPORT"
  echo >>"$REPORT"
}

# solvers A B ... -> --solver A --solver B ...
solvers() {
  for s in "$@"; do printf ' --solver %s' "$s"; done
}

# The notes every pivot of a report shares (the tables run with --brief).
pivot_notes() {
  cat >>"$REPORT" <<'NOTES'
How to read the tables: one row per graph, one column per solver. "bound" is the graph's own
lower bound, computed once per graph whatever solvers ran (the min-cut bound of
src/schedbound.h, valid for every order; max-live for a fixed-lifetime problem), raised to a
proven optimum or a proven bound a run reported, once it checks against every value reached
(marked *). Peak and arena cells read "change against the baseline / gap to the bound", with
a * after the gap when a run of that solver proved the optimum and the proof checks. Times
are medians in ms (the range over repeats when it varies). The summary rows count the graphs
each solver planned within 1% of the bound and those it proved optimal (with the max and
median time of the proofs).

NOTES
}

# The report's end: how to rerun it.
commands_section() {
  {
    echo "## Commands"
    echo
    echo '```sh'
    cat "$CMDS"
    echo '```'
  } >>"$REPORT"
}
