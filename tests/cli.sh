#!/bin/sh
# CLI tests: exit codes, error messages and "no partial output file".
# Run from the repo root by `make test-cli`.
set -u
BIN=${BIN:-bin/memplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { # expect CODE DESCRIPTION -- command...
  want=$1; shift; what=$1; shift
  "$@" >"$T/out" 2>"$T/err"; got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "$what: exit $got, wanted $want; stderr: $(head -c 300 "$T/err")"; fi
}
cat >"$T/g.json" <<'J'
{"nodes":[{"id":0,"op":"input","size":100,"inputs":[]},{"id":1,"size":200,"inputs":[0]},{"id":2,"size":50,"inputs":[1]}]}
J
expect 0 "solve" $BIN solve "$T/g.json"
expect 0 "solve json" $BIN solve "$T/g.json" --format json --out "$T/plan.json"
[ -s "$T/plan.json" ] && ok || bad "plan written"
expect 0 "verify" $BIN verify "$T/g.json" "$T/plan.json"
expect 2 "unknown solver" $BIN solve "$T/g.json" --order nosuch
expect 2 "no file" $BIN solve
expect 1 "missing file" $BIN solve "$T/none.json"
printf '{"nodes":[{"id":0,"size":-1}]}' >"$T/neg.json"
expect 1 "negative size" $BIN solve "$T/neg.json" --out "$T/neg.plan"
[ -e "$T/neg.plan" ] && bad "no output on bad input" || ok
grep -q "neg.json" "$T/err" && grep -q "node 0" "$T/err" && ok || bad "error names file and node"

# ---- one file per class of bad input: exit 1, an error naming the file and
# the node or line, no output file, a pre-existing output file left intact,
# no temporary file left behind ----
badcase() { # badcase NAME SUFFIX 'what the message must contain' CONTENT [extra solve flags]
  name=$1; suf=$2; needle=$3; content=$4; shift 4
  f="$T/$name$suf"
  printf '%s' "$content" >"$f"
  rm -f "$T/out.plan"
  expect 1 "$name: solve" $BIN solve "$f" --out "$T/out.plan" "$@"
  [ -e "$T/out.plan" ] && bad "$name: an output file was created" || ok
  grep -q "$f" "$T/err" && ok || bad "$name: the message does not name the file: $(cat "$T/err")"
  grep -q -- "$needle" "$T/err" && ok || bad "$name: the message lacks '$needle': $(cat "$T/err")"
  echo keep >"$T/keep.plan"
  expect 1 "$name: solve over an existing plan" $BIN solve "$f" --out "$T/keep.plan" "$@"
  [ "$(cat "$T/keep.plan")" = keep ] && ok || bad "$name: the existing output file was changed"
  ls "$T" | grep -q 'plan\.tmp' && bad "$name: a temporary file was left behind" || ok
  expect 1 "$name: info" $BIN info "$f" "$@"
}
N0='{"id":0,"size":100,"inputs":[]}'
badcase notjson .json "not valid JSON" 'hello, world'
badcase truncated .json "not valid JSON" '{"nodes":[{"id":0,"size":1'
badcase dupid .json "node 0: duplicate id" "{\"nodes\":[$N0,$N0]}"
badcase missingid .json "nodes\[1\]: missing id" "{\"nodes\":[$N0,{\"size\":5}]}"
badcase inrange .json "node 1.*out of range" "{\"nodes\":[$N0,{\"id\":1,\"size\":5,\"inputs\":[7]}]}"
badcase outindex .json "node 1.*output 3" "{\"nodes\":[$N0,{\"id\":1,\"size\":5,\"inputs\":[[0,3]]}]}"
badcase negsize .json "node 0: negative" '{"nodes":[{"id":0,"size":-1}]}'
badcase fracsize .json "node 0: fractional" '{"nodes":[{"id":0,"size":2.5}]}'
badcase bigreal .json "node 0.*overflows" '{"nodes":[{"id":0,"size":1e30}]}'
badcase bigint .json ":2.*overflows" '{"nodes":[
{"id":0,"size":99999999999999999999999}]}'
badcase cycle .json "cycle" "{\"nodes\":[$N0,{\"id\":1,\"size\":5,\"inputs\":[2]},{\"id\":2,\"size\":5,\"inputs\":[1]}]}"
badcase nottopo .json "node 0.*not topological" '{"nodes":[{"id":0,"size":5,"inputs":[1]},{"id":1,"size":7,"inputs":[]}]}'
badcase aliasin .json "node 2.*not among its inputs" "{\"nodes\":[$N0,{\"id\":1,\"size\":5},{\"id\":2,\"size\":5,\"inputs\":[1],\"alias\":0}]}"
badcase aliascycle .json "alias cycle" "{\"nodes\":[$N0,{\"id\":1,\"size\":5,\"inputs\":[2],\"alias\":2},{\"id\":2,\"size\":5,\"inputs\":[1],\"alias\":1}]}" --toposort
badcase csvlohi .csv ":3: lower 5 > upper 3" 'id,lower,upper,size
a,0,3,4
b,5,3,4
'
badcase csvcol .csv ":1: missing column 'size'" 'id,lower,upper
a,0,3
'
badcase csvnum .csv ":2: field 'size' is not an integer" 'id,lower,upper,size
a,0,3,four
'
# --toposort accepts the non-topological file
expect 0 "--toposort sorts" $BIN solve "$T/nottopo.json" --toposort --out "$T/topo.plan"
expect 0 "--toposort verify" $BIN verify "$T/nottopo.json" "$T/topo.plan" --toposort

# ---- odd but valid input ----
printf '{"nodes":[]}' >"$T/empty.json"
expect 0 "empty graph" $BIN solve "$T/empty.json" --format json --out "$T/empty.plan"
grep -q '"live_peak": 0' "$T/out" && grep -q '"arena": 0' "$T/out" && ok || bad "empty graph: figures 0"
expect 0 "empty graph verify" $BIN verify "$T/empty.json" "$T/empty.plan"
printf 'id,lower,upper,size\r\n\r\nb1,0,3,4\r\nb2,3,9,4\r\n\r\nb3,0,9,4\r\nb4,9,21,4\r\nb5,0,21,4\r\n\r\n' >"$T/crlf.csv"
expect 0 "CRLF and blank lines" $BIN solve "$T/crlf.csv" --format json --out "$T/crlf.plan.csv"
grep -q '"live_peak": 12' "$T/out" && grep -q '"arena": 12' "$T/out" && ok || bad "CRLF csv figures"
expect 0 "CRLF csv verify" $BIN verify "$T/crlf.csv" "$T/crlf.plan.csv"
printf 'id,lower,upper,size\n' >"$T/header.csv"
expect 0 "header-only csv" $BIN solve "$T/header.csv" --out "$T/header.plan.csv"
expect 0 "header-only csv info" $BIN info "$T/header.csv"

# ---- usage errors exit 2 ----
expect 2 "no command" $BIN
expect 2 "unknown command" $BIN frobnicate
expect 2 "unknown option" $BIN solve "$T/g.json" --frob
expect 2 "bad --align" $BIN solve "$T/g.json" --align zero
expect 2 "bad --align 0" $BIN solve "$T/g.json" --align 0
expect 2 "bad --format" $BIN solve "$T/g.json" --format xml
expect 2 "bad --time-limit" $BIN solve "$T/g.json" --time-limit -1
expect 2 "two files" $BIN solve "$T/g.json" "$T/g.json"
expect 2 "unknown option value" $BIN solve "$T/g.json" --set nosuch=1
expect 2 "placer as order" $BIN solve "$T/g.json" --order bysize
expect 2 "order as placer" $BIN solve "$T/g.json" --place greedy
expect 2 "verify: one file" $BIN verify "$T/g.json"
expect 2 "info: no file" $BIN info
expect 2 "info: unknown option" $BIN info "$T/g.json" --frob
rm -f "$T/u.plan"
expect 2 "usage error writes nothing" $BIN solve "$T/g.json" --order nosuch --out "$T/u.plan"
[ -e "$T/u.plan" ] && bad "usage error created the output file" || ok

# ---- --help on every subcommand exits 0 (the list comes from memplan --help) ----
expect 0 "--help" $BIN --help
cmds=$($BIN --help | awk '/^  [a-z]/ {print $1}')
[ -n "$cmds" ] && ok || bad "memplan --help lists no commands"
for c in $cmds; do
  expect 0 "$c --help" $BIN "$c" --help
  [ -s "$T/out" ] && ok || bad "$c --help printed nothing on stdout"
done

# ---- verify rejects tampered plans, naming the violation ----
cat >"$T/v.json" <<'J'
{"nodes":[{"id":0,"size":1000,"inputs":[]},{"id":1,"size":500,"inputs":[0]},{"id":2,"size":10,"inputs":[1]},
{"id":3,"size":100,"inputs":[2]},{"id":4,"size":100,"inputs":[3],"alias":3,"inplace":true},{"id":5,"size":7,"inputs":[3]}]}
J
expect 0 "tamper: solve" $BIN solve "$T/v.json" --format json --out "$T/v.plan"
expect 0 "tamper: untouched plan verifies" $BIN verify "$T/v.json" "$T/v.plan"
# the plan is indented JSON: one key per line ("0": 0 is buffer 0 at offset 0)
off0=$(sed -n 's/^ *"0": \([0-9]*\),*$/\1/p' "$T/v.plan")
sed 's/^\( *\)"1": [0-9]*/\1"1": '"$off0"'/' "$T/v.plan" >"$T/v1.plan"
expect 1 "tamper: overlapping offset" $BIN verify "$T/v.json" "$T/v1.plan"
grep -q "overlap" "$T/err" && ok || bad "overlap not named: $(cat "$T/err")"
sed 's/^\( *\)"2": \([0-9]*\)/\1"2": \21/' "$T/v.plan" >"$T/v2.plan"
expect 1 "tamper: unaligned offset" $BIN verify "$T/v.json" "$T/v2.plan"
grep -q "not a multiple of its alignment" "$T/err" && ok || bad "alignment not named: $(cat "$T/err")"
sed 's/^\( *\)"arena": \([0-9]*\)/\1"arena": 1\2/' "$T/v.plan" >"$T/v3.plan"
expect 1 "tamper: wrong figure" $BIN verify "$T/v.json" "$T/v3.plan"
grep -q "figure arena" "$T/err" && ok || bad "figure not named: $(cat "$T/err")"
# node 5 reads 3 before 4 writes it in place (file order): 4 before 5 is wrong
tr -d ' \n' <"$T/v.plan" | sed 's/"order":\[0,1,2,3,4,5\]/"order":[0,1,2,3,5,4]/' >"$T/v4.plan"
grep -q '"order":\[0,1,2,3,5,4\]' "$T/v4.plan" && ok || bad "tamper: could not rewrite the order"
sed 's/"order":\[0,1,2,3,5,4\]/"order":[0,1,2,3,4,5]/' "$T/v4.plan" >"$T/v5.plan"
expect 0 "tamper: compacted plan still verifies" $BIN verify "$T/v.json" "$T/v5.plan"
expect 1 "tamper: reader after an in-place write it must precede" $BIN verify "$T/v.json" "$T/v4.plan"
grep -q "in-place" "$T/err" && ok || bad "in-place edge not named: $(cat "$T/err")"
cat >"$T/v6.json" <<'J'
{"nodes":[{"id":0,"size":1000,"inputs":[]},{"id":1,"size":500,"inputs":[0]},{"id":2,"size":10,"inputs":[1]},
{"id":3,"size":100,"inputs":[2]},{"id":5,"size":7,"inputs":[3]},{"id":4,"size":100,"inputs":[3],"alias":3,"inplace":true}]}
J
expect 0 "tamper: solve (reader first)" $BIN solve "$T/v6.json" --out "$T/v6.plan"
tr -d ' \n' <"$T/v6.plan" | sed 's/"order":\[0,1,2,3,5,4\]/"order":[0,1,2,3,4,5]/' >"$T/v7.plan"
grep -q '"order":\[0,1,2,3,4,5\]' "$T/v7.plan" && ok || bad "tamper: could not rewrite the order (v7)"
expect 1 "tamper: order against an in-place edge" $BIN verify "$T/v6.json" "$T/v7.plan"
grep -q "in-place" "$T/err" && ok || bad "in-place edge not named: $(cat "$T/err")"
expect 1 "verify: plan is not JSON" $BIN verify "$T/v.json" "$T/v.json.missing"

# ---- a solver failure (exit 3) leaves an existing output file intact ----
echo keep >"$T/keep.plan"
expect 3 "capacity too small" $BIN solve "$T/v.json" --capacity 10 --out "$T/keep.plan"
[ "$(cat "$T/keep.plan")" = keep ] && ok || bad "exit 3 changed the existing output file"
# ---- bench: a solver's fingerprint follows its sources and the solver library
# sources it includes, not the model (scripts/gen_fingerprints.sh) ----
F="$T/fp"
mkdir -p "$F/solvers/lib" "$F/build/solvers"
printf 'int foo;\n' >"$F/solvers/foo.c"
printf 'int h;\n' >"$F/solvers/lib/h.h"
printf 'int hc;\n' >"$F/solvers/lib/h.c"
printf 'build/solvers/foo.o: solvers/foo.c solvers/lib/h.h \\\n src/model.h\nsolvers/lib/h.h:\nsrc/model.h:\n' >"$F/build/solvers/foo.d"
fp() { (cd "$F" && sh "$ROOT/scripts/gen_fingerprints.sh" build solvers/foo.c) | sed -n 's/.*solver_foo, "\([0-9a-f]*\)".*/\1/p'; }
ROOT=$(pwd)
h1=$(fp)
[ ${#h1} -eq 16 ] && ok || bad "fingerprint: no 16-digit hash ($h1)"
[ "$(fp)" = "$h1" ] && ok || bad "fingerprint: not deterministic"
echo 'int hc2;' >>"$F/solvers/lib/h.c"
h2=$(fp)
[ "$h2" != "$h1" ] && ok || bad "fingerprint: a change in solvers/lib/h.c (behind h.h) left it unchanged"
echo 'int foo2;' >>"$F/solvers/foo.c"
[ "$(fp)" != "$h2" ] && ok || bad "fingerprint: a change in the solver left it unchanged"
# ---- harness: statuses the harness can check, no figures without a plan,
# the baseline (issue 11 items 1-5) ----
S=graphs/examples/seed_example.json
expect 3 "searched order: not infeasible" $BIN solve $S --order bfs --place exact --capacity 12582912 --format json
grep -q '"status": "error"' "$T/out" && grep -q '"place_status": "infeasible"' "$T/out" && ok ||
  bad "bfs+exact at 12 MiB: $(cat "$T/out")"
grep -q "every order" "$T/err" && ok || bad "no-plan message: $(cat "$T/err")"
grep -q '"live_peak": null' "$T/out" && ok || bad "a run without a plan printed figures"
expect 3 "fixed order: infeasible" $BIN solve $S --order given --place exact --capacity 12582912 --format json
grep -q '"status": "infeasible"' "$T/out" && grep -q '"order_status": "fixed"' "$T/out" && ok ||
  bad "given+exact at 12 MiB: $(cat "$T/out")"
expect 0 "greedy fits 12 MiB" $BIN solve $S --order greedy --place exact --capacity 12582912
expect 0 "worked example" $BIN solve $S
grep -q '^status        optimal (order fixed: not searched; placement optimal)$' "$T/out" && ok ||
  bad "worked example status: $(grep status "$T/out")"
expect 3 "refused stage" $BIN solve $S --order ilp --set ilp.max_nodes=2 --format json
grep -q '"arena": null' "$T/out" && grep -Eq '"order_status": "(refused|error)"' "$T/out" &&
  grep -q '"has_figures": false' "$T/out" && ok ||
  bad "refused stage figures: $(cat "$T/out")"
expect 3 "refused stage, text" $BIN solve $S --order ilp --set ilp.max_nodes=2
grep -q '^arena\|^live peak' "$T/out" && bad "refused stage printed figures in text" || ok
expect 0 "--no-baseline" $BIN solve $S --no-baseline --format json --out "$T/nb.plan"
grep -q '"reduction_vs_given": null' "$T/out" && grep -q '"given_arena": null' "$T/out" && ok ||
  bad "--no-baseline figures: $(cat "$T/out")"
expect 0 "--no-baseline plan verifies" $BIN verify $S "$T/nb.plan"
expect 0 "baseline plan" $BIN solve $S --order greedy --out "$T/b.plan"
sed 's/"given_arena": [0-9]*/"given_arena": 1/' "$T/b.plan" >"$T/b1.plan"
expect 1 "verify: wrong stated baseline" $BIN verify $S "$T/b1.plan"
grep -q "reduction_vs_given" "$T/err" && ok || bad "baseline tamper not named: $(cat "$T/err")"
# ---- recomputation and offload (DESIGN 6): --remat with a budget, the
# statuses and figures, event plans written, verified and tampered with ----
L="$T/long.json" # x -> f1..f8 -> loss, b8(f8, loss) .. b1(f1, b2), sizes 10: peak 100, floor 30
{
  printf '{"name":"long","nodes":[{"id":0,"op":"input","size":10,"inputs":[]}'
  for i in 1 2 3 4 5 6 7 8 9; do printf ',{"id":%d,"size":10,"inputs":[%d]}' $i $((i - 1)); done
  printf ',{"id":10,"size":10,"inputs":[8,9]}'
  for i in 11 12 13 14 15 16 17; do printf ',{"id":%d,"size":10,"inputs":[%d,%d]}' $i $((18 - i)) $((i - 1)); done
  printf ']}\n'
} >"$L"
expect 0 "remat: keepall at the order's peak" $BIN solve "$L" --remat keepall --budget-frac 1 --format json --out "$T/r.plan"
for k in '"remat_solver": "keepall"' '"remat_status": "optimal"' '"budget": 100,' '"live_peak": 100,' \
  '"duration": 17.0' '"base_time": 17.0' '"overhead": 0.0' '"recomputed": 0,' '"bandwidth": 0.0'; do
  grep -qF "$k" "$T/out" && ok || bad "remat json: $k missing: $(head -c 600 "$T/out")"
done
grep -q '^ "events": \[' "$T/r.plan" && ok || bad "the event plan has no events"
expect 0 "remat: verify the event plan" $BIN verify "$L" "$T/r.plan"
expect 0 "remat: text" $BIN solve "$L" --remat keepall --budget 100 --align 1
grep -q '^status        optimal (order fixed: not searched; remat optimal; placement optimal)$' "$T/out" &&
  grep -q '^plan time     order .* ms + remat .* ms + place .* ms = ' "$T/out" && ok ||
  bad "remat text: $(cat "$T/out")"
expect 3 "remat: --budget-frac 0.55 of 100 is 55, over for keepall" $BIN solve "$L" --remat keepall --budget-frac 0.55 --format json
grep -qF '"budget": 55,' "$T/out" && grep -qF '"duration": null' "$T/out" &&
  grep -qF '"remat_status": "error"' "$T/out" && grep -qF '"live_peak": null' "$T/out" && ok ||
  bad "remat over budget: $(head -c 600 "$T/out")"
grep -q "keepall: no plan within budget 55" "$T/err" && ok || bad "remat failure names the solver: $(cat "$T/err")"
expect 3 "remat: below the floor" $BIN solve "$L" --remat keepall --budget 29 --format json
grep -qF '"status": "infeasible"' "$T/out" && grep -q "below 30, the floor" "$T/err" && ok ||
  bad "remat floor: $(cat "$T/err")"
expect 0 "remat: --bandwidth" $BIN solve "$L" --remat keepall --budget 100 --bandwidth 5 --format json
grep -qF '"bandwidth": 5.0' "$T/out" && ok || bad "remat bandwidth not reported"
expect 2 "remat: no budget" $BIN solve "$L" --remat keepall
expect 2 "remat: --budget without --remat" $BIN solve "$L" --budget 100
expect 2 "remat: both budgets" $BIN solve "$L" --remat keepall --budget 100 --budget-frac 1
expect 2 "remat: a bad fraction" $BIN solve "$L" --remat keepall --budget-frac 0.5x
expect 2 "remat: a negative bandwidth" $BIN solve "$L" --remat keepall --budget 100 --bandwidth -1
expect 2 "remat: keepall under --order" $BIN solve "$L" --order keepall
grep -q "use it with --remat" "$T/err" && ok || bad "keepall under --order: $(cat "$T/err")"
expect 2 "remat: keepall under --place" $BIN solve "$L" --place keepall
grep -q "use it with --remat" "$T/err" && ok || bad "keepall under --place: $(cat "$T/err")"
expect 2 "remat: a placer under --remat" $BIN solve "$L" --remat bysize --budget 100
grep -q "use it with --place" "$T/err" && ok || bad "bysize under --remat: $(cat "$T/err")"
# the verifier names the first violation: event index, buffer, rule
sed '0,/"free",/s//"out",/' "$T/r.plan" >"$T/r1.plan"
expect 1 "verify: an out without a host link" $BIN verify "$L" "$T/r1.plan"
grep -q 'event [0-9]* (out [0-9]*): .*\[rule: copies need a host link\]' "$T/err" && ok ||
  bad "corrupted events not named: $(cat "$T/err")"
sed -z 's/"run",\n   1\n/"run",\n   2\n/' "$T/r.plan" >"$T/r2.plan"
expect 1 "verify: a first run out of order" $BIN verify "$L" "$T/r2.plan"
grep -q 'event 0 (run 2): .*\[rule: first runs keep the order\]' "$T/err" && ok ||
  bad "out-of-order run not named: $(cat "$T/err")"
sed 's/"budget": 100/"budget": 99/' "$T/r.plan" >"$T/r3.plan"
expect 1 "verify: a plan over its budget" $BIN verify "$L" "$T/r3.plan"
grep -q "over its budget" "$T/err" && ok || bad "over-budget plan: $(cat "$T/err")"
expect 1 "verify: another graph" $BIN verify $S "$T/r.plan"
grep -q "the graph does not match" "$T/err" && ok || bad "graph mismatch: $(cat "$T/err")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
