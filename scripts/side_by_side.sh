#!/bin/bash
# side_by_side.sh BIN_A BIN_B [RUNS] - two memplan binaries on the rows of the
# scale benchmark, in turn (A B A B ...: a drift of the shared machine meets
# both), RUNS rounds (default 3).  Per row: the median CPU seconds of each,
# the median of the pairwise ratios B/A, the median wall ratio and the peak
# RSS (MiB) of each, from scripts/timed.c.  The inputs are bench-scale's
# (build/scale, or SCALE_DIR): run `make bench-scale` once first.  ROWS
# (an extended pattern on the row names, default all) picks rows.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: side_by_side.sh BIN_A BIN_B [RUNS]" >&2; exit 2; }
A=$(realpath "$1") B=$(realpath "$2") RUNS=${3:-3}
DIR=${SCALE_DIR:-build/scale}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
${CC:-cc} -O2 -o "$TMP/timed" scripts/timed.c
rows=(
  "default 10^6|solve layered_1000000.json --order greedy --place bysize --format json"
  "remat dtr 10^6|solve train_1000000.json --order given --remat dtr --place firstfit --budget-frac 0.6 --format json --no-baseline"
  "remat dtr 10^5|solve train_100000.json --order given --remat dtr --place firstfit --budget-frac 0.6 --format json --no-baseline"
  "remat chen-sqrt 10^6|solve train_1000000.json --order given --remat chen-sqrt --place firstfit --budget-frac 1 --format json --no-baseline"
  "remat chen-sqrt 10^5|solve train_100000.json --order given --remat chen-sqrt --place firstfit --budget-frac 1 --format json --no-baseline"
  "greedy + pool 10^6|solve layered_1000000.json --order greedy --place pool --format json --no-baseline"
  "greedy + pool 10^5|solve layered_100000.json --order greedy --place pool --format json --no-baseline"
  "greedy + firstfit 10^6|solve layered_1000000.json --order greedy --place firstfit --format json --no-baseline"
  "greedy + firstfit 10^5|solve layered_100000.json --order greedy --place firstfit --format json --no-baseline"
  "verify 10^6|verify layered_1000000.json plan_1000000.json"
  "verify 10^5|verify layered_100000.json plan_100000.json"
  "info 10^6|info layered_1000000.json"
  "info 10^5|info layered_100000.json"
  "CSV bysize 10^6|solve lifetimes_1000000.csv --place bysize --format json --no-baseline"
  "CSV firstfit 10^6|solve lifetimes_1000000.csv --place firstfit --format json --no-baseline"
  "CSV firstfit 10^5|solve lifetimes_100000.csv --place firstfit --format json --no-baseline"
)
for ((i = 0; i < RUNS; i++)); do
  for row in "${rows[@]}"; do
    name=${row%%|*} cmd=${row#*|}
    [[ "$name" == ${ROWS:-*} ]] || continue
    for v in A B; do
      bin=$A
      [ "$v" = B ] && bin=$B
      # shellcheck disable=SC2086
      (cd "$DIR" && "$TMP/timed" "$TMP/t" "$bin" $cmd > /dev/null 2> "$TMP/err") ||
        { echo "side_by_side: $name ($v) failed:" >&2; cat "$TMP/err" >&2; exit 1; }
      echo "$name|$v|$i|$(cat "$TMP/t")" >> "$TMP/raw"
    done
  done
done
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
