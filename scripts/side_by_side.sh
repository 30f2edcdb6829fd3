#!/bin/bash
# side_by_side.sh BIN_A BIN_B [RUNS] - two memplan binaries on the rows of the
# scale benchmark, in turn (A B A B ...: a drift of the shared machine meets
# both), RUNS rounds (default 3).  Per row: the median CPU seconds of each,
# the median of the pairwise ratios B/A, the median wall ratio and the peak
# RSS (MiB) of each, from scripts/timed.c.  The rows are those the last
# `make bench-scale` ran (its cmds.txt in build/scale, or SCALE_DIR: run it
# once first), each command with BIN_A or BIN_B in place of its memplan;
# rows that write a file (--out) write bench-scale's again.  ROWS, an
# extended pattern on "LABEL N" (e.g. '@(remat dtr*|info 1000000)'), picks
# rows; all of them take about 7 minutes a round (200 s of rows a binary).
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: side_by_side.sh BIN_A BIN_B [RUNS]" >&2; exit 2; }
A=$(realpath "$1") B=$(realpath "$2") RUNS=${3:-3}
CMDS=${SCALE_DIR:-build/scale}/cmds.txt
[ -s "$CMDS" ] || { echo "side_by_side: no $CMDS: run make bench-scale first" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
${CC:-cc} -O2 -o "$TMP/timed" scripts/timed.c
for ((i = 0; i < RUNS; i++)); do
  while IFS='|' read -r label n cmd; do
    [[ "$label $n" == ${ROWS:-*} ]] || continue
    for v in A B; do
      bin=$A
      [ "$v" = B ] && bin=$B
      # shellcheck disable=SC2086
      set -- $cmd
      shift
      "$TMP/timed" "$TMP/t" "$bin" "$@" > /dev/null 2> "$TMP/err" < /dev/null ||
        { echo "side_by_side: $label $n ($v) failed:" >&2; cat "$TMP/err" >&2; exit 1; }
      echo "$label $n|$v|$i|$(cat "$TMP/t")" >> "$TMP/raw"
    done
  done < "$CMDS"
done
[ -s "$TMP/raw" ] || { echo "side_by_side: no row matches ROWS='${ROWS:-}'" >&2; exit 2; }
python3 - "$TMP/raw" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, v, i, fig = line.rstrip("\n").split("|")
    wall, rss, usr, sys_ = fig.split()
    runs.setdefault(name, {}).setdefault(v, {})[int(i)] = (float(wall), int(rss), float(usr) + float(sys_))
med = statistics.median
print("| row | cpu A s | cpu B s | cpu B/A | wall B/A | RSS A MiB | RSS B MiB |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, r in runs.items():
    a, b = r["A"], r["B"]
    pairs = [i for i in a if i in b]
    print("| %s | %.3f | %.3f | %.3f | %.3f | %d | %d |" % (
        name, med(a[i][2] for i in pairs), med(b[i][2] for i in pairs),
        med(b[i][2] / a[i][2] for i in pairs), med(b[i][0] / a[i][0] for i in pairs),
        max(a[i][1] for i in pairs) // 1024, max(b[i][1] for i in pairs) // 1024))
PY
