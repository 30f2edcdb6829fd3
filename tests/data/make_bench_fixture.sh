#!/bin/sh
# Regenerate tests/data/bench_results.csv, the rows test_table.c reads: small
# generated graphs on which dp and exact prove optima, sa with a tiny budget
# that varies over seeds, a fixed-lifetime problem and a broken graph; 3 seeds
# and 3 timed repeats per cell; the provenance columns are fixed so that the
# file names no machine.  After regenerating, review the tables it gives and
# write them to tests/data/table_expected.* (see test_table.c).
#   sh tests/data/make_bench_fixture.sh      (from the repository root)
set -eu
M=${MEMPLAN:-bin/memplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$M" gen layered -n 9 --seed 1 --name g0 --out "$T/g0.json"
"$M" gen sp -n 10 --seed 2 --name g1 --out "$T/g1.json"
"$M" gen tree -n 11 --seed 3 --name g2 --out "$T/g2.json"
printf 'id,lower,upper,size\n0,0,3,100\n1,1,4,50\n2,3,6,70\n3,4,7,30\n4,0,7,8\n' >"$T/p0.csv"
printf '{"name": "broken", "nodes": [{"id": 0, "size": -5, "inputs": []}]}\n' >"$T/broken.json"
cat >"$T/fixture.json" <<'J'
{"name": "fixture",
 "graphs": ["g0.json", "g1.json", "g2.json", "p0.csv", "broken.json"],
 "order": ["given", "greedy", "dp", "sa"], "place": ["bysize", "exact"],
 "seeds": [1, 2, 3], "time_limits": [1], "repeat": 3,
 "options": ["sa.iters=20", "sa.restarts=1"]}
J
MEMPLAN_VERSION=fixture "$M" bench "$T/fixture.json" --results "$T/r.sqlite" --quiet
sqlite3 "$T/r.sqlite" "UPDATE results SET machine = 'fixture-host', cpu = 'fixture cpu',
  started_at = '2026-11-30T05:26:07Z', experiment = 'fixture'"
"$M" export "$T/r.sqlite" --out tests/data/bench_results.csv
echo "make_bench_fixture: wrote tests/data/bench_results.csv"
