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
badcase alias0out .json "node 2: alias 1 names a node with 0 outputs" "{\"nodes\":[$N0,{\"id\":1,\"outputs\":[],\"inputs\":[0]},{\"id\":2,\"size\":5,\"inputs\":[1],\"alias\":1}]}"
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
# an integer beyond 64 bits is out of range, not "not an integer"
badcase csvbig .csv ":2: field 'size' is 9223372036854775808, outside \[0, " 'id,lower,upper,size
a,0,3,9223372036854775808
'
badcase csvbigneg .csv ":2: field 'lower' is -99999999999999999999, outside \[0, " 'id,lower,upper,size
a,-99999999999999999999,3,4
'
badcase csvquote .csv ":2: 5 fields, the header has 4 (quoted fields are not read" 'id,lower,upper,size
"a,b",0,3,4
'
# more fields than the reader keeps (64): the count is named, no read past them
badcase csvwide .csv ":2: 100 fields, the header has 4$" 'id,lower,upper,size
a,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
'
badcase csvwidequote .csv ":2: 101 fields, the header has 4 (quoted fields are not read" 'id,lower,upper,size
"a,b",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
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

# ---- regressions found by the independent reference (tests/py/audit.py) ----
# a dead graph input (an output node exists, nothing reads it) is live at
# step 0 in every order: it counts in the per-node bound (DESIGN 1.3)
printf '{"nodes":[{"id":0,"op":"input","size":100,"inputs":[]},{"id":1,"op":"input","size":5000,"inputs":[]},{"id":2,"size":10,"inputs":[0]},{"id":3,"op":"output","size":0,"inputs":[2]}]}' >"$T/deadin.json"
expect 0 "dead input: info" $BIN info "$T/deadin.json" --format json
grep -q '"lower_bound": 5000' "$T/out" && ok || bad "dead input: per-node bound $(grep lower_bound "$T/out")"
# an input with a workspace: the event plan's lower_bound is the events
# floor, which verify must accept although the per-node bound is higher
printf '{"nodes":[{"id":0,"op":"input","size":64,"inputs":[],"workspace":65536},{"id":1,"size":581,"inputs":[0]},{"id":2,"op":"output","size":0,"inputs":[0,1]}]}' >"$T/inws.json"
expect 0 "input workspace: remat plan" $BIN solve "$T/inws.json" --remat keepall --budget-frac 1 --out "$T/inws.plan"
expect 0 "input workspace: verify the remat plan" $BIN verify "$T/inws.json" "$T/inws.plan"
# arena = max(offset + size) over every buffer, size 0 included; noreuse
# puts a size-0 buffer at 0, not above the others
printf 'id,lower,upper,size,alignment\na,0,3,4,1\nz,0,9,0,16\nb,1,5,4,1\n' >"$T/zero.csv"
expect 0 "size-0 csv: noreuse" $BIN solve "$T/zero.csv" --place noreuse --format json --out "$T/zero.plan.csv"
grep -q '"arena": 8,' "$T/out" && grep -q '^z,0,9,0,16,0' "$T/zero.plan.csv" && ok || bad "size-0 csv: $(grep arena "$T/out") $(cat "$T/zero.plan.csv")"
printf 'id,lower,upper,size,offset\na,0,3,4,0\nz,0,9,0,100\n' >"$T/zpin.csv"
expect 0 "pinned size-0 csv" $BIN solve "$T/zpin.csv" --format json
grep -q '"arena": 100,' "$T/out" && ok || bad "pinned size-0 row counts in the arena: $(grep arena "$T/out")"# profile_std of a flat profile far above zero: 1 TiB live throughout, 0 or
# 1 byte more at each step; the one-pass formula printed 0 (exact:
# 0.48749802152178456)
printf '%s' '{"nodes":[{"id":0,"op":"input","size":1099511627776,"inputs":[]},{"id":1,"size":1,"inputs":[]},{"id":2,"size":1,"inputs":[]},{"id":3,"size":0,"inputs":[]},{"id":4,"size":1,"inputs":[]},{"id":5,"size":1,"inputs":[]},{"id":6,"size":0,"inputs":[]},{"id":7,"size":1,"inputs":[]},{"id":8,"size":1,"inputs":[]},{"id":9,"size":0,"inputs":[]},{"id":10,"size":1,"inputs":[]},{"id":11,"size":1,"inputs":[]},{"id":12,"size":0,"inputs":[]},{"id":13,"size":1,"inputs":[]},{"id":14,"size":1,"inputs":[]},{"id":15,"size":0,"inputs":[]},{"id":16,"size":1,"inputs":[]},{"id":17,"op":"output","size":0,"inputs":[0]}]}' >"$T/flat.json"
expect 0 "flat profile: std-dev" $BIN solve "$T/flat.json" --format json
grep -q '"profile_std": 0.487498021522,' "$T/out" && ok || bad "flat profile: $(grep profile_std "$T/out")"
# integer figures are compared as integers: above 2^53 a double cannot
# tell a live peak off by one
printf '{"name":"big","nodes":[{"id":0,"op":"input","size":36028797018963969,"inputs":[]},{"id":1,"size":64,"inputs":[0]}]}' >"$T/big.json"
expect 0 "2^55 bytes: solve" $BIN solve "$T/big.json" --out "$T/big.plan"
sed 's/"live_peak": 36028797018964033/"live_peak": 36028797018964032/' "$T/big.plan" >"$T/big2.plan"
expect 1 "2^55 bytes: a live peak off by one" $BIN verify "$T/big.json" "$T/big2.plan"
# profile std-dev above 2^54 bytes: deviations in integers (a long double
# mean moved it to 0.942809266365)
printf '%s' '{"nodes":[{"id":0,"op":"input","size":18014398509481985,"inputs":[]},{"id":1,"size":1,"inputs":[0]},{"id":2,"size":1,"inputs":[1]},{"id":3,"size":2,"inputs":[2]},{"id":4,"size":0,"inputs":[]},{"id":5,"op":"output","size":0,"inputs":[0,3]}]}' >"$T/std55.json"
expect 0 "2^54 profile: std-dev" $BIN solve "$T/std55.json" --format json
grep -q '"profile_std": 0.942809041582,' "$T/out" && ok || bad "2^54 profile: $(grep profile_std "$T/out")"
# ilp's gap test at a 2^54-byte peak with unit 1: it proved an order one
# byte above dp's optimum (lower_bound above the optimum)
printf '%s' '{"name": "r103", "nodes": [{"id": 0, "name": "n0", "op": "op", "inputs": [], "size": 65536}, {"id": 1, "name": "n1", "op": "view", "inputs": [0, 0, 0], "size": 128, "alias": 0}, {"id": 2, "name": "n2", "op": "view", "inputs": [0, 1, 1, [1, 0]], "alias": 1, "outputs": [4096, 128]}, {"id": 3, "name": "n3", "op": "op", "inputs": [2, [1, 0], [2, 1]], "size": 1}, {"id": 4, "name": "n4", "op": "split", "inputs": [[2, 0]], "outputs": [18014398509482059, 7], "workspace": 553, "cost": 1.909}, {"id": 5, "name": "n5", "op": "op", "inputs": [[3, 0], 3], "size": 0}, {"id": 6, "name": "n6", "op": "view", "inputs": [[4, 0]], "size": 65536, "alias": [4, 0]}, {"id": 7, "name": "n7", "op": "op", "inputs": [3, 4], "size": 100}], "host_bandwidth": 1}' >"$T/gap.json"
expect 0 "2^54 peak: ilp" $BIN solve "$T/gap.json" --order ilp --place noreuse --format json
grep -q '"lower_bound": 18014398509548155,' "$T/out" && ok || bad "ilp: $(grep -E 'order_status|lower_bound' "$T/out" | tr -d '\n')"
expect 0 "2^54 peak: dp" $BIN solve "$T/gap.json" --order dp --place noreuse --format json
grep -q '"live_peak": 18014398509548155,' "$T/out" && ok || bad "dp: $(grep live_peak "$T/out")"
# a graph with no input node has no start sample (DESIGN 6.2: the keep-all
# plan has section 1's figures): profile_std of M = [10, 30] is 10, as the
# plain solve says, not that of [0, 10, 30]
printf '{"name":"n1","nodes":[{"id":0,"op":"zeros","size":10,"inputs":[]},{"id":1,"op":"f","size":20,"inputs":[0]}]}' >"$T/noin.json"
expect 0 "no input node: solve" $BIN solve "$T/noin.json" --format json
grep -q '"profile_std": 10.0,' "$T/out" && ok || bad "no input node: solve $(grep profile_std "$T/out")"
expect 0 "no input node: keepall" $BIN solve "$T/noin.json" --remat keepall --budget-frac 1 --format json --out "$T/noin.plan"
grep -q '"profile_std": 10.0,' "$T/out" && ok || bad "no input node: keepall $(grep profile_std "$T/out")"
expect 0 "no input node: verify the keepall plan" $BIN verify "$T/noin.json" "$T/noin.plan"
# an empty graph: every figure is 0 (DESIGN 1.1), overhead included
expect 0 "empty graph: keepall" $BIN solve "$T/empty.json" --remat keepall --budget 0 --format json --out "$T/empty.remat.plan"
grep -q '"overhead": 0.0,' "$T/out" && ok || bad "empty graph: keepall $(grep overhead "$T/out")"
expect 0 "empty graph: verify the keepall plan" $BIN verify "$T/empty.json" "$T/empty.remat.plan"
# ... but a non-empty graph whose base_time is 0 has no overhead
printf '{"name":"c0","nodes":[{"id":0,"op":"input","size":8,"inputs":[]},{"id":1,"size":8,"inputs":[0],"cost":0}]}' >"$T/cost0.json"
expect 0 "base_time 0: keepall" $BIN solve "$T/cost0.json" --remat keepall --budget-frac 1 --format json
grep -q '"overhead": null,' "$T/out" && ok || bad "base_time 0: $(grep overhead "$T/out")"
# a fixed order's lower bound is its live peak (DESIGN 1.3): 210 here, the
# per-node bound being 110; a searched order keeps the bound over all orders
printf '{"name":"t13","nodes":[{"id":0,"op":"input","size":100,"inputs":[]},{"id":1,"op":"input","size":100,"inputs":[]},{"id":2,"size":10,"inputs":[0]},{"id":3,"size":10,"inputs":[1]},{"id":4,"op":"output","inputs":[2,3]}]}' >"$T/fixlb.json"
expect 0 "fixed order: lower_bound" $BIN solve "$T/fixlb.json" --order given --format json --out "$T/fixlb.plan"
grep -q '"lower_bound": 210,' "$T/out" && grep -q '"live_peak": 210,' "$T/out" && ok || bad "fixed order: $(grep -E 'live_peak|lower_bound' "$T/out" | tr -d '\n')"
expect 0 "fixed order: lower_bound (text)" $BIN solve "$T/fixlb.json" --order given,given
grep -q '^lower bound   210 bytes' "$T/out" && ok || bad "fixed order, text: $(grep 'lower bound' "$T/out")"
expect 0 "searched order: lower_bound" $BIN solve "$T/fixlb.json" --order greedy --format json
grep -q '"lower_bound": 110,' "$T/out" && ok || bad "searched order: $(grep lower_bound "$T/out")"
expect 0 "fixed order: verify lower_bound 210" $BIN verify "$T/fixlb.json" "$T/fixlb.plan"
sed 's/"lower_bound": 210/"lower_bound": 211/' "$T/fixlb.plan" >"$T/fixlb2.plan"
expect 1 "fixed order: verify lower_bound 211" $BIN verify "$T/fixlb.json" "$T/fixlb2.plan"
grep -q "lower_bound 211 exceeds the live peak 210" "$T/err" && ok || bad "lower_bound 211: $(cat "$T/err")"
# an event plan's "order" may put the inputs anywhere (they never run,
# DESIGN 6.2); its other nodes are the first runs' order
printf '{"name":"s2","nodes":[{"id":0,"op":"zeros","size":50,"inputs":[]},{"id":1,"op":"input","size":100,"inputs":[]},{"id":2,"op":"mm","size":10,"inputs":[0,1]}]}' >"$T/inpos.json"
expect 0 "inputs in an event plan's order: solve" $BIN solve "$T/inpos.json" --remat keepall --budget-frac 1 --out "$T/inpos.plan"
tr '\n' ' ' <"$T/inpos.plan" | sed 's/"order": \[ *1, *0, *2 *\]/"order": [ORDER]/' >"$T/inpos1.plan"
grep -q '"order": \[ORDER\]' "$T/inpos1.plan" && ok || bad "inputs in order: memplan writes $(grep -A4 '"order"' "$T/inpos.plan" | tr -d '\n')"
for o in '0, 1, 2' '0, 2, 1'; do
  sed "s/\[ORDER\]/[$o]/" "$T/inpos1.plan" >"$T/inpos2.plan"
  expect 0 "inputs in an event plan's order: [$o]" $BIN verify "$T/inpos.json" "$T/inpos2.plan"
done
for o in '2, 1, 0' '1, 1, 2' '0, 1, 1'; do
  sed "s/\[ORDER\]/[$o]/" "$T/inpos1.plan" >"$T/inpos2.plan"
  expect 1 "an event plan's order [$o]" $BIN verify "$T/inpos.json" "$T/inpos2.plan"
done
# sizes spanning 2^54:7: GLPK's LP bound stated 10.5 where remat-exact
# finds a 9.5 plan of the same order; no LP proof beyond RM_BOUND_RANGE
printf '%s' '{"name": "r149", "nodes": [{"id": 5, "name": "n0", "op": "input", "size": 2667}, {"id": 6, "name": "n1", "op": "op", "inputs": [5], "size": 4096}, {"id": 0, "name": "n2", "op": "op", "inputs": [6], "size": 641}, {"id": 4, "name": "n3", "op": "split", "inputs": [], "outputs": [2888, 64], "workspace": 1684}, {"id": 7, "name": "n4", "op": "view", "inputs": [[6, 0], 0, 6, 6], "alias": 6, "outputs": [64, 0], "workspace": 2197, "cost": 2.5}, {"id": 3, "name": "n5", "op": "op", "inputs": [6], "size": 18014398509482427}, {"id": 2, "name": "n6", "op": "relu_", "inputs": [5], "alias": 5, "inplace": true, "outputs": [4096]}, {"id": 1, "name": "n7", "op": "op", "inputs": [[5, 0], [3, 0]], "size": 4096, "workspace": 7}]}' >"$T/span.json"
expect 0 "2^54:7 sizes: remat-lp" $BIN solve "$T/span.json" --remat remat-lp --budget 18014398509489197 --format json
grep -q '"remat_status": "feasible"' "$T/out" && ok || bad "remat-lp claims $(grep remat_status "$T/out")"
expect 0 "2^54:7 sizes: remat-exact" $BIN solve "$T/span.json" --remat remat-exact --budget 18014398509489197 --format json
grep -q '"duration": 9.5,' "$T/out" && ok || bad "remat-exact: $(grep '"duration"' "$T/out")"

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
# memplan --help's plot line names every picture of plot --help
for p in $($BIN plot --help | sed -n 's/^.*memplan plot \([a-z]*\) .*$/\1/p'); do
  case $p in pareto) w="Pareto front" ;; *) w=$p ;; esac
  $BIN --help | grep '^  plot ' | grep -q "$w" && ok || bad "memplan --help's plot line omits $p"
done
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
# a parameter (alias -1) is a storage for the in-place rule (DESIGN 1.2): A and
# B read P, S updates it in place between them: edge S -> B (A -> S is a data
# edge).  p18b.json is the same graph with B before S in the file: its given
# order, valid there, runs B before S and must be refused for p18.json.
cat >"$T/p18.json" <<'J'
{"name":"t18","nodes":[
{"id":0,"name":"X","op":"input","size":100,"inputs":[]},
{"id":1,"name":"P","op":"param","size":64,"inputs":[],"alias":-1},
{"id":2,"name":"A","op":"op","size":200,"inputs":[0,1]},
{"id":3,"name":"S","op":"sgd_","size":64,"inputs":[1,2],"alias":1,"inplace":true},
{"id":4,"name":"XV","op":"view","size":100,"inputs":[0],"alias":0},
{"id":5,"name":"B","op":"op","size":10,"inputs":[2,1]},
{"id":6,"name":"out","op":"output","size":0,"inputs":[4,5]}]}
J
sed '/"name":"S"/d; s/^\({"id":5,.*\)$/\1\
{"id":3,"name":"S","op":"sgd_","size":64,"inputs":[1,2],"alias":1,"inplace":true},/' "$T/p18.json" >"$T/p18b.json"
expect 0 "param in-place: info" $BIN info "$T/p18.json" --format json
grep -q '"inplace_edges": 1,' "$T/out" && ok || bad "param in-place: inplace_edges: $(grep inplace_edges "$T/out")"
expect 0 "param in-place: solve the reordered file" $BIN solve "$T/p18b.json" --format json --out "$T/p18b.plan"
tr -d ' \n' <"$T/p18b.plan" | grep -q '"order":\[0,1,2,4,5,3,6\]' && ok || bad "param in-place: p18b order"
expect 1 "param in-place: B before S refused" $BIN verify "$T/p18.json" "$T/p18b.plan"
grep -q "node 5 runs before node 3, which it must follow (in-place edge)" "$T/err" && ok ||
  bad "param in-place edge not named: $(cat "$T/err")"
for o in given greedy lpmf bfs dfs best dp ilp sa ga; do
  expect 0 "param in-place: solve --order $o" $BIN solve "$T/p18.json" --order $o --format json --out "$T/p18.plan"
  expect 0 "param in-place: verify --order $o" $BIN verify "$T/p18.json" "$T/p18.plan"
done
expect 1 "verify: plan is not JSON" $BIN verify "$T/v.json" "$T/v.json.missing"
# the plan's alignment must be one (DESIGN 1.3: offsets are multiples of A >= 1)
for a in 0 -64 '"64"' 1.5; do
  sed 's/^\( *\)"align": [0-9]*/\1"align": '"$a"'/' "$T/v.plan" >"$T/va.plan"
  grep -q "\"align\": $a," "$T/va.plan" && ok || bad "tamper: could not rewrite align to $a"
  expect 1 "tamper: align $a" $BIN verify "$T/v.json" "$T/va.plan"
  grep -q '"align"' "$T/err" && ok || bad "align $a not named: $(cat "$T/err")"
done
# the statuses a plan states are statuses (DESIGN 1.3), and "optimal" needs a
# bound the arena meets: greedy + bysize on the seed example peaks at 12 MiB,
# above every bound the plan states (8 MiB); given + bysize is optimal for
# the fixed order (arena = live peak) and dp + exact for every order
SE=graphs/examples/seed_example.json
expect 0 "status: solve greedy" $BIN solve $SE --order greedy --format json --out "$T/st.plan"
grep -q '"status": "feasible",' "$T/st.plan" && ok || bad "status: the greedy plan is not feasible"
for s in '"banana"' '"optimal"' 7 '"refused"' '"fixed"'; do
  sed 's/^\( *\)"status": "feasible",/\1"status": '"$s"',/' "$T/st.plan" >"$T/st1.plan"
  grep -q "\"status\": $s," "$T/st1.plan" && ok || bad "status: could not rewrite status to $s"
  expect 1 "status: $s on a greedy plan" $BIN verify $SE "$T/st1.plan"
  case $s in
  '"optimal"') w="$T/st1.plan: status: \"optimal\", yet the arena 12582912 is above every bound the plan states (8388608: lower_bound, the stages' bounds): nothing proves it" ;;
  7) w="$T/st1.plan: status: not a string is not a status (optimal, feasible, infeasible, timeout or error)" ;;
  *) w="$T/st1.plan: status: $s is not a status (optimal, feasible, infeasible, timeout or error)" ;;
  esac
  [ "$(cat "$T/err")" = "memplan verify: $w" ] && ok || bad "status $s: $(cat "$T/err")"
done
for s in infeasible timeout error; do
  sed 's/^\( *\)"status": "feasible",/\1"status": "'$s'",/' "$T/st.plan" >"$T/st1.plan"
  expect 0 "status: $s is a status" $BIN verify $SE "$T/st1.plan"
done
sed 's/^\( *\)"order_status": "feasible",/\1"order_status": "banana",/' "$T/st.plan" >"$T/st2.plan"
expect 1 "status: order_status banana" $BIN verify $SE "$T/st2.plan"
grep -q 'order_status: "banana" is not a status (optimal, feasible, infeasible, timeout, error, refused or fixed)' "$T/err" &&
  ok || bad "order_status banana: $(cat "$T/err")"
for c in "--order given --place bysize" "--order dp --place exact" "--order greedy --place joint-ilp"; do
  # shellcheck disable=SC2086
  expect 0 "status: solve $c" $BIN solve $SE $c --format json --out "$T/st3.plan"
  grep -q '"status": "optimal",' "$T/st3.plan" && ok || bad "status: $c is not optimal"
  expect 0 "status: $c optimal verifies" $BIN verify $SE "$T/st3.plan"
done

# ---- hostile input (issue 12): every case with its exit code and message ----
hostile() { # hostile CODE 'message (grep -E)' DESCRIPTION -- command...
  want=$1; needle=$2; what=$3; shift 4
  expect "$want" "$what" "$@"
  grep -qE -- "$needle" "$T/err" && ok || bad "$what: the message lacks '$needle': $(head -c 300 "$T/err")"
}
H="$T/h"; mkdir -p "$H"
# a NUL byte in a JSON graph: jansson took it for the end of the text ("end
# of file expected near end of file"); a node-link size beyond 2^53 written
# as a real said "not exact as a real" where it overflows
printf '{"nodes":[\n{"id":0,"size":4,\000"inputs":[]}]}' >"$T/nul.json"
hostile 1 "nul.json:2: a NUL byte \(not a text file\?\)" "a NUL byte in a JSON graph" -- $BIN info "$T/nul.json"
printf '{"directed":true,"nodes":[{"id":0,"size":1e30}],"links":[]}' >"$T/nl1e30.json"
hostile 1 "nl1e30.json: node 0: size 1e\+30 overflows \(at most 2\^56 bytes\)" "a node-link size 1e30" -- $BIN info "$T/nl1e30.json"
# arithmetic: sums, end points and alignments that cannot be represented
{ printf '{"nodes":['; i=0; while [ $i -lt 20 ]; do [ $i -gt 0 ] && printf ','
  printf '{"id":%d,"size":72057594037927936,"inputs":[]}' $i; i=$((i + 1)); done; printf ']}'; } >"$H/sum.json"
hostile 1 'sum.json: node 16: size .*beyond 2\^60' "sizes summing beyond 2^60" -- $BIN solve "$H/sum.json" --place noreuse
{ echo 'id,lower,upper,size'; i=0; while [ $i -lt 20 ]; do echo "b$i,0,9,72057594037927936"; i=$((i + 1)); done; } >"$H/sum.csv"
hostile 1 "sum.csv:18: field 'size'.*2\^60" "CSV sizes summing beyond 2^60" -- $BIN solve "$H/sum.csv" --place noreuse
printf 'id,lower,upper,size\na,0,9223372036854775807,4\n' >"$H/upper.csv"
hostile 1 "upper.csv:2: field 'upper'" "CSV upper at INT64_MAX" -- $BIN solve "$H/upper.csv"
printf 'id,lower,end,size\na,0,9223372036854775807,4\n' >"$H/end.csv"
hostile 1 "end.csv:2: field 'end'" "CSV end at INT64_MAX" -- $BIN solve "$H/end.csv" --place exact
printf 'id,lower,upper,size,alignment\na,0,3,4,4611686018427387904\n' >"$H/align.csv"
hostile 1 "align.csv:2: field 'alignment'" "CSV alignment 2^62" -- $BIN solve "$H/align.csv"
hostile 2 "--align: outside" "--align 2^62" -- $BIN solve "$T/g.json" --align 4611686018427387904
hostile 2 "--seed: out of range" "--seed beyond 64 bits" -- $BIN solve "$T/g.json" --seed 18446744073709551616
hostile 2 "--seed: out of range \\(a signed 64-bit integer" "--seed 2^63 names the signed range" -- $BIN solve "$T/g.json" --seed 9223372036854775808
hostile 2 "--seed: out" "--seed beyond int64" -- $BIN solve "$T/g.json" --seed 9223372036854775808
hostile 2 "--time-limit: not a finite number" "--time-limit nan" -- $BIN solve "$T/g.json" --time-limit nan
hostile 2 "--time-limit: not a finite number" "--time-limit inf" -- $BIN solve "$T/g.json" --time-limit inf
hostile 2 "--time-limit: out of range \(rounds to 0\)" "--time-limit 1e-400 (0 would be no limit)" -- $BIN solve "$T/g.json" --time-limit 1e-400
hostile 2 "--capacity" "--capacity beyond the limits" -- $BIN solve "$T/g.json" --capacity 9223372036854775807
hostile 2 "sa.reach: 'nan' is not a finite number" "--set sa.reach=nan" -- $BIN solve "$T/g.json" --order sa --set sa.reach=nan
# --set without '=' says so whatever the chain (it said "belongs to none of
# the chosen solvers" when the chain had no sa)
hostile 2 "option 'sa.iters': expected NAME=VALUE or SOLVER.NAME=VALUE" "--set sa.iters (no '=', sa not chosen)" -- $BIN solve "$T/g.json" --set sa.iters
hostile 2 "option 'sa.iters': expected NAME=VALUE or SOLVER.NAME=VALUE" "plot --set sa.iters (no '=')" -- $BIN plot profile "$T/g.json" --set sa.iters --out "$T/noeq.svg"
# integer options (counts, caps, 0/1 switches) refuse a fraction, which the
# solver would truncate: in solve, bench --set and an experiment's options
hostile 2 "option sa.reach: '3.5' is not an integer" "--set sa.reach=3.5" -- $BIN solve "$T/g.json" --order sa --set sa.reach=3.5
hostile 2 "option dp.split: '0.5' is not an integer" "--set dp.split=0.5" -- $BIN solve "$T/g.json" --order dp --set dp.split=0.5
hostile 2 "option sa.fill: '0.5' is not an integer" "--set fill=0.5 (no solver named)" -- $BIN solve "$T/g.json" --order sa --set fill=0.5
hostile 2 "option sa.fill: 2 is outside \[0, 1\]" "a 0/1 switch set to 2" -- $BIN solve "$T/g.json" --order sa --set sa.fill=2
expect 0 "an integer written with an exponent" $BIN solve "$T/g.json" --order sa --set sa.reach=3e0 --set sa.iters=2e2
expect 0 "a real option keeps its fraction" $BIN solve "$T/g.json" --order sa --set sa.t_end=0.25 --set sa.iters=200
hostile 2 "option ilp.backtrack: '2.5' is not an integer" "bench --set ilp.backtrack=2.5" -- $BIN bench --graphs "$T/g.json" --order ilp --set ilp.backtrack=2.5 --list
printf '{"graphs": ["g.json"], "order": ["sa"], "options": ["sa.restarts=1.5"]}' >"$T/int.exp.json"
hostile 2 "option sa.restarts: '1.5' is not an integer" "experiment option sa.restarts=1.5" -- $BIN bench "$T/int.exp.json" --list
hostile 2 "--mem-limit" "bench --mem-limit nan" -- $BIN bench --graphs "$T/g.json" --mem-limit nan --list
# bench takes --capacity and "align"/"capacity" only within solve's limits:
# beyond them every cell would fail, after the run had started
hostile 2 "bad value '2305843009213693952' for --capacity" "bench --capacity 2^61" -- $BIN bench --graphs "$T/g.json" --capacity 2305843009213693952 --list
printf '{"graphs": ["g.json"], "capacity": 2305843009213693952}' >"$T/cap.exp.json"
hostile 1 '"capacity" must be an integer in \[0, 1152921504606846976\]' "experiment capacity 2^61" -- $BIN bench "$T/cap.exp.json" --list
# bench checks each chain as solve does, the length too: a chain of five
# used to pass and every cell then failed.  On the command line a bad chain
# is bad usage (exit 2, as solve's); in an experiment file, bad input (exit 1)
hostile 2 "--order chain 'greedy,greedy,greedy,greedy,greedy': .*too long \(at most 4" "bench order chain of 5" -- $BIN bench --graphs "$T/g.json" --order greedy,greedy,greedy,greedy,greedy --list
hostile 2 "--remat chain 'dtr,dtr,dtr,dtr,dtr': .*too long" "bench remat chain of 5" -- $BIN bench --graphs "$T/g.json" --remat dtr,dtr,dtr,dtr,dtr --budgets 0.9x --list
hostile 2 "'bysize' decides offsets, not an order" "bench placer under --order" -- $BIN bench --graphs "$T/g.json" --order bysize --list
hostile 2 "--order chain 'nosuch': unknown solver 'nosuch'" "bench --order nosuch" -- $BIN bench --graphs "$T/g.json" --order nosuch --list
hostile 2 "--place chain 'firstfit,sa': 'sa' decides an order" "bench order solver under --place" -- $BIN bench --graphs "$T/g.json" --place firstfit,sa --list
printf '{"graphs": ["g.json"], "order": ["nosuch"]}' >"$T/ch.exp.json"
hostile 1 "\"order\" chain 'nosuch': unknown solver 'nosuch'" "experiment order nosuch" -- $BIN bench "$T/ch.exp.json" --list
printf '{"graphs": ["g.json"], "order": ["greedy,greedy,greedy,greedy,greedy"]}' >"$T/ch5.exp.json"
hostile 1 "\"order\" chain 'greedy,greedy,greedy,greedy,greedy': .*too long" "experiment order chain of 5" -- $BIN bench "$T/ch5.exp.json" --list
printf '{"graphs": ["g.json"], "align": 2147483648}' >"$T/al.exp.json"
hostile 1 '"align" must be an integer in \[0, 1073741824\]' "experiment align 2^31" -- $BIN bench "$T/al.exp.json" --list
# "pairs" of long chains: a 600-byte buffer lost the tab after a long order
# (a crash) and cut a long place to its head ("bysize" and blanks, its junk
# unread); now each chain is read whole and checked as "order"/"place" are
printf '{"graphs": ["g.json"], "pairs": [["given%700s", "bysize"]]}' '' >"$T/pl.exp.json"
expect 0 "experiment pair with a 705-byte order" $BIN bench "$T/pl.exp.json" --list
printf '{"graphs": ["g.json"], "pairs": [["given", "bysize%700sjunk"]]}' '' >"$T/pj.exp.json"
hostile 1 "\"place\" chain 'bysize {8}" "experiment pair with junk after 700 blanks" -- $BIN bench "$T/pj.exp.json" --list
# a chain written with blanks in a file is the chain without them: one cell,
# whose options apply (" sa" named no solver: sa.iters=5 was left out)
printf '{"graphs": ["g.json"], "order": ["greedy, sa", "greedy,sa"], "place": ["bysize"], "options": ["sa.iters=5"]}' >"$T/bl.exp.json"
expect 0 "experiment chain with a blank" $BIN bench "$T/bl.exp.json" --list
[ "$(wc -l <"$T/out")" -eq 1 ] && grep -q "	greedy,sa	bysize	.*	sa.iters=5$" "$T/out" && ok || bad "experiment chain with a blank: $(cat "$T/out")"
hostile 2 "-p: not a finite number" "gen -p nan" -- $BIN gen randwire -p nan
hostile 2 "--seed" "gen --seed beyond 64 bits" -- $BIN gen chain --seed 18446744073709551616
hostile 2 "unknown option '--ord'" "abbreviated option" -- $BIN solve "$T/g.json" --ord greedy
expect 0 "solvers" $BIN solvers
grep -qE '(default|range \[|, )[0-9.]+e\+' "$T/out" && bad "solvers prints an integer with an exponent: $(grep -E '[0-9.]+e\+' "$T/out" | head -2)" || ok
expect 0 "solvers json" $BIN solvers --format json
grep -q '"max": 1000000,' "$T/out" && ok || bad "solvers --format json: integers are not integers"
grep -A4 '"name": "reach",' "$T/out" | grep -q '"integer": true' &&
  grep -A4 '"name": "t_end",' "$T/out" | grep -q '"integer": false' && ok || bad "solvers --format json: no kind of option"
$BIN solvers | grep -qE '^ +reach +default 64 +range \[2, 1000000000\] integer ' && ok || bad "solvers: sa.reach not listed as an integer"
# readers: read exactly, or refuse
printf '{"directed": true, "graph": {}, "nodes": [{"id": 0, "size": 9007199254740993}, {"id": 1, "size": 1}], "links": [{"source": 0, "target": 1}]}' >"$H/nl.json"
expect 0 "node-link detected and read" $BIN info "$H/nl.json" --format json
grep -q '"sum_sizes": 9007199254740994' "$T/out" && ok || bad "node-link sizes beyond 2^53 not exact: $(cat "$T/out")"
sed 's/"target": 1}/"target": 1, "output": 4294967296}/' "$H/nl.json" >"$H/nlout.json"
hostile 1 "output index 4294967296" "node-link output index 2^32" -- $BIN info "$H/nlout.json"
printf '{"directed": true, "nodes": [{"id": 0, "size": 5}, {"id": 1, "size": 1, "inplace": true}], "links": [{"source": 0, "target": 1}]}' >"$H/nlip.json"
hostile 1 "node 1: inplace without alias" "node-link inplace without alias" -- $BIN info "$H/nlip.json"
hostile 1 "no node has the attribute 'nosuch' \(--size-attr\)" "node-link --size-attr nosuch" -- $BIN info "$H/nl.json" --size-attr nosuch
hostile 1 "no node has the attribute 'nosuch' \(--cost-attr\)" "node-link --cost-attr nosuch" -- $BIN info "$H/nl.json" --cost-attr nosuch
sed 's/"directed": true/"directed": false/' "$H/nl.json" >"$H/nlund.json"
hostile 1 "undirected" "node-link undirected" -- $BIN info "$H/nlund.json"
printf '{"directed": true, "nodes": [{"id": "a", "size": 5}, {"id": "a", "size": 1}], "links": []}' >"$H/nldup.json"
hostile 1 'duplicate id "a"' "node-link duplicate ids" -- $BIN info "$H/nldup.json"
printf '{"directed": true, "nodes": [{"id": 0, "size": 8, "op": "input"}, {"id": 1, "size": 8, "alias": -1.0}], "links": [{"source": 0, "target": 1}]}' >"$H/nlparam.json"
hostile 1 'node 1: alias names no node \(a parameter.s alias is the integer -1' "node-link alias -1.0" -- $BIN info "$H/nlparam.json"
hostile 1 "--input-format nodelink" "node-link read as graph JSON" -- $BIN info "$H/nl.json" --input-format json
# a node without the size attribute (or with null) is refused, not read as
# 0 bytes; a cost attribute that is not a number says so
printf '{"directed": true, "nodes": [{"id": "a", "name": "n0", "size": 5, "mysz": 5}, {"id": "b", "name": "n1", "size": 1}], "links": [{"source": "a", "target": "b"}]}' >"$H/nlmiss.json"
hostile 1 'nlmiss.json: node 1 \(id "b"\): no .mysz. \(output bytes\)' "node-link node without the --size-attr attribute" -- $BIN info "$H/nlmiss.json" --size-attr mysz --format json
sed 's/"size": 1}/"size": null}/' "$H/nlmiss.json" >"$H/nlnull.json"
hostile 1 'nlnull.json: node 1 \(id "b"\): no .size. \(output bytes\)' "node-link null size" -- $BIN info "$H/nlnull.json"
# node-link keys 1 and "1" are two nodes (as in networkx): a message names
# a node by its position and, unless it is that integer, its key as
# written, a string quoted (each said a bare "node 1": the position, read
# as the key 1)
printf '{"directed": true, "nodes": [{"id": 1, "size": 4}, {"id": "1", "size": -4}], "links": []}' >"$H/nlkey1.json"
hostile 1 'nlkey1.json: node 1 \(id "1"\): negative size -4' "node-link string key \"1\" beside the integer 1" -- $BIN info "$H/nlkey1.json"
printf '{"directed": true, "nodes": [{"id": "1", "size": 4}, {"id": 0, "size": -4}], "links": []}' >"$H/nlkey0.json"
hostile 1 'nlkey0.json: node 1 \(id 0\): negative size -4' "node-link integer key 0 at position 1" -- $BIN info "$H/nlkey0.json"
printf '{"directed": true, "nodes": [{"id": 1, "size": 4}, {"id": "1", "size": 4, "inplace": true}], "links": [{"source": 1, "target": "1"}]}' >"$H/nlkey2.json"
hostile 1 'nlkey2.json: node 1 \(id "1"\): inplace without alias' "node-link inplace without alias on the string key \"1\"" -- $BIN info "$H/nlkey2.json"
# graph JSON likewise: a null size or outputs is an error; a null alias or
# workspace is the key left out (README, lenient node fields)
printf '{"nodes": [{"id": 0, "size": 4, "inputs": []}, {"id": 1, "size": null, "inputs": [0]}]}' >"$H/gjnull.json"
hostile 1 'gjnull.json: node 1: size is not a number' "graph JSON null size" -- $BIN info "$H/gjnull.json"
printf '{"nodes": [{"id": 0, "size": 4, "inputs": []}, {"id": 1, "outputs": null, "inputs": [0]}]}' >"$H/gjnullo.json"
hostile 1 'gjnullo.json: node 1: outputs is not an array' "graph JSON null outputs" -- $BIN info "$H/gjnullo.json"
printf '{"nodes": [{"id": 0, "size": 4, "inputs": []}, {"id": 1, "size": 8, "alias": null, "workspace": null, "inplace": null, "inputs": [0]}]}' >"$H/gjnulla.json"
expect 0 "graph JSON null alias, workspace, inplace" $BIN info "$H/gjnulla.json"
hostile 1 'nlmiss.json: node 0 \(id "a"\): name is not a number' "node-link --cost-attr naming a string" -- $BIN info "$H/nlmiss.json" --cost-attr name
hostile 2 "--input-format: takes json" "--input-format yaml" -- $BIN info "$T/g.json" --input-format yaml
# graph JSON with an extra top-level "edges" or "links" key is graph JSON
# when its nodes carry "inputs" (node-link nodes have none; DESIGN 1.1
# ignores unknown keys): it used to read as node-link, every input dropped
for k in edges links; do
  printf '{"nodes":[{"id":0,"op":"input","size":8,"inputs":[]},{"id":1,"size":100,"inputs":[0]},{"id":2,"size":50,"inputs":[1]}],"%s":[]}' "$k" >"$H/extra_$k.json"
  for fmt in "" "--input-format json"; do
    # shellcheck disable=SC2086
    expect 0 "graph JSON with an extra \"$k\" key $fmt" $BIN info "$H/extra_$k.json" --format json $fmt
    grep -q '"data_edges": 2' "$T/out" && grep -q '"graph_outputs": 1' "$T/out" && grep -q '"live_peak": 150' "$T/out" &&
      ok || bad "graph JSON with \"$k\" $fmt: $(tr -d '\n' <"$T/out")"
  done
done
# "inputs" written with escapes counts (the scan for it looks at \u00XX)
printf '{"nodes":[{"id":0,"size":8,"\\u0069nputs":[]},{"id":1,"size":4,"inp\\u0075ts":[0]}],"edges":[]}' >"$H/escinputs.json"
expect 0 "graph JSON whose inputs key is escaped, beside \"edges\"" $BIN info "$H/escinputs.json" --format json
grep -q '"data_edges": 1' "$T/out" && ok || bad "escaped inputs beside edges: $(tr -d '\n' <"$T/out")"
printf '{"nodes":[{"id":0,"size":8},{"id":1,"size":4}],"edges":[{"source":0,"target":1}]}' >"$H/nledges.json"
hostile 1 'nledges.json: node-link data \(edges in "edges", and no node has "inputs"\).*--input-format nodelink' "node-link with \"edges\" read as graph JSON names the key" -- $BIN info "$H/nledges.json" --input-format json
expect 0 "node-link with \"edges\" found" $BIN info "$H/nledges.json" --format json
grep -q '"data_edges": 1' "$T/out" && ok || bad "node-link \"edges\": $(tr -d '\n' <"$T/out")"
# node-link: the list of links is an array, one of "links" and "edges";
# "directed" a boolean; alias -1 (a parameter) when a node has the key -1
# is ambiguous
printf '{"directed": true, "nodes": [{"id": 0, "size": 8}], "links": {}}' >"$H/nlobj.json"
hostile 1 'nlobj.json: "links" is not an array' "node-link links an object" -- $BIN info "$H/nlobj.json"
printf '{"directed": true, "nodes": [{"id": 0, "size": 8}, {"id": 1, "size": 4}], "links": [], "edges": [{"source": 0, "target": 1}]}' >"$H/nlboth.json"
hostile 1 'nlboth.json: both "links" and "edges"' "node-link with links and edges" -- $BIN info "$H/nlboth.json"
hostile 1 'nlboth.json: both "links" and "edges"' "node-link with links and edges (named)" -- $BIN info "$H/nlboth.json" --input-format nodelink
printf '{"directed": "yes", "nodes": [{"id": 0, "size": 8}], "links": []}' >"$H/nldirstr.json"
hostile 1 'nldirstr.json: "directed" is not true or false' "node-link directed a string" -- $BIN info "$H/nldirstr.json"
printf '{"directed": true, "nodes": [{"id": -1, "size": 8}, {"id": "b", "size": 8, "alias": -1}], "links": [{"source": -1, "target": "b"}]}' >"$H/nlm1.json"
hostile 1 'nlm1.json: node 1 \(id "b"\): alias -1 is ambiguous: node 0 has the key -1' "node-link alias -1 with a key -1" -- $BIN info "$H/nlm1.json"
printf '{"directed": true, "nodes": [{"id": "b", "size": 8, "alias": -1}, {"id": -1, "size": 8}], "links": [{"source": -1, "target": "b"}]}' >"$H/nlm1b.json"
hostile 1 'nlm1b.json: node 0 \(id "b"\): alias -1 is ambiguous: node 1 has the key -1' "node-link alias -1 before a key -1" -- $BIN info "$H/nlm1b.json" --toposort
# a UTF-8 byte order mark is skipped (as in CSV), for graph JSON, node-link,
# plans and experiments; columns count from after it
printf '\357\273\277%s' "$(cat "$T/g.json")" >"$H/bom.json"
expect 0 "graph JSON with a BOM" $BIN info "$H/bom.json" --format json
grep -q '"live_peak": 300' "$T/out" && ok || bad "graph JSON with a BOM: $(tr -d '\n' <"$T/out")"
printf '\357\273\277{"directed": true, "nodes": [{"id": "a", "size": 8}, {"id": "b", "size": 4}], "links": [{"source": "a", "target": "b"}]}' >"$H/nlbom.json"
expect 0 "node-link with a BOM" $BIN info "$H/nlbom.json" --format json
grep -q '"data_edges": 1' "$T/out" && ok || bad "node-link with a BOM: $(tr -d '\n' <"$T/out")"
printf '\357\273\277{"nodes":[{"id":0,"size":1x}]}' >"$H/bomerr.json"
hostile 1 "bomerr.json:1:27: not valid JSON: '}' expected near 'x'" "BOM: the column of a syntax error" -- $BIN info "$H/bomerr.json"
hostile 1 "stdin:1:27: not valid JSON: '}' expected near 'x'" "BOM: the column of a syntax error (a pipe)" -- sh -c "$BIN info /dev/stdin <'$H/bomerr.json'"
expect 0 "plan for the BOM test" $BIN solve "$T/g.json" --out "$H/bomplan.json"
printf '\357\273\277%s' "$(cat "$H/bomplan.json")" >"$H/bomplan2.json"
expect 0 "plan with a BOM verifies" $BIN verify "$T/g.json" "$H/bomplan2.json"
printf '\357\273\277{"graphs": ["%s"], "order": ["greedy"]}' "$T/g.json" >"$H/bom.exp.json"
expect 0 "experiment with a BOM" $BIN bench "$H/bom.exp.json" --list
GH='<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="s" for="node" attr.name="size" attr.type="double"/><key id="o" for="edge" attr.name="output" attr.type="double"/>'
printf '%s<graph edgedefault="undirected"><node id="a"><data key="s">5</data></node><node id="b"><data key="s">5</data></node><edge source="a" target="b"/></graph></graphml>' "$GH" >"$H/undir.graphml"
hostile 1 "undir.graphml:1: an undirected graph" "GraphML undirected" -- $BIN info "$H/undir.graphml"
printf '%s<graph edgedefault="directed"><node id="a"><data key="s">5</data></node><edge source="a" target="c"/></graph></graphml>' "$GH" >"$H/undecl.graphml"
hostile 1 'an edge to "c", which is not a declared node' "GraphML edge to an undeclared node" -- $BIN info "$H/undecl.graphml"
printf '%s<graph edgedefault="directed"><node id="a"><data key="s">NaN</data></node></graph></graphml>' "$GH" >"$H/nan.graphml"
hostile 1 "node 0: size 'NaN' is not a finite number" "GraphML NaN size" -- $BIN info "$H/nan.graphml"
printf '%s<graph edgedefault="directed"><node id="a"><data key="s">5</data></node><node id="b"><data key="s">5</data></node><edge source="a" target="b"><data key="o">0.7</data></edge></graph></graphml>' "$GH" >"$H/frac.graphml"
hostile 1 "edge output '0.7'" "GraphML fractional output index" -- $BIN info "$H/frac.graphml"
printf '%s<graph edgedefault="directed"><node id="a"><data key="s">5</data></node><node id="a"><data key="s">7</data></node></graph></graphml>' "$GH" >"$H/dup.graphml"
hostile 1 'node id "a" is declared twice' "GraphML duplicate node ids" -- $BIN info "$H/dup.graphml"
# edges before the nodes they join (resolved at the end), an edge's output
# given after its nesting, the first duplicate id among several
printf '%s<graph edgedefault="directed"><edge source="a" target="b"><data key="o">0</data></edge><node id="a"><data key="s">4</data></node><node id="b"><data key="s">8</data></node></graph></graphml>' "$GH" >"$H/fwd.graphml"
expect 0 "GraphML edge before its nodes" $BIN info "$H/fwd.graphml" --format json
grep -q '"data_edges": 1' "$T/out" && grep -q '"live_peak": 12' "$T/out" && ok || bad "GraphML forward edge: $(cat "$T/out")"
printf '%s<graph edgedefault="directed"><edge source="b" target="a"/><node id="a"><data key="s">4</data></node><node id="b"/><node id="b"/><node id="a"/></graph></graphml>' "$GH" >"$H/dup2.graphml"
hostile 1 'dup2.graphml:1: node id "b" is declared twice \(first as node 1\)' "GraphML first duplicate id" -- $BIN info "$H/dup2.graphml"
# a node with no size data is an error unless the key has a <default>;
# --cost-attr naming an attribute read for itself too (name) reads it
printf '%s<key id="n" for="node" attr.name="name" attr.type="string"/><graph edgedefault="directed"><node id="a"><data key="s">5</data><data key="n">leaf0</data></node><node id="b"><data key="n">bee</data></node><edge source="a" target="b"/></graph></graphml>' "$GH" >"$H/nosize.graphml"
hostile 1 'nosize.graphml:1: node 1 \(id "b"\): no .size. data' "GraphML node without size data" -- $BIN info "$H/nosize.graphml" --format json
sed 's|attr.type="double"/>|attr.type="double"><default>7</default></key>|' "$H/nosize.graphml" >"$H/defsize.graphml"
expect 0 "GraphML size from the key's <default>" $BIN info "$H/defsize.graphml" --format json
grep -q '"sum_sizes": 12' "$T/out" && ok || bad "GraphML <default> size: $(cat "$T/out")"
hostile 1 "defsize.graphml:1: node 0: name 'leaf0' is not a non-negative number" "GraphML --cost-attr naming a string" -- $BIN info "$H/defsize.graphml" --cost-attr name
# the line of the element an error is about, not the parser's read-ahead
# (the last line of a small file), below line 65535 and past it (where
# libxml2 keeps no line in an element)
printf '%s\n<graph edgedefault="directed">\n<node id="a"><data key="s">5</data></node>\n<node id="b">\n<data key="s">-5</data>\n</node>\n<edge source="a" target="b"/>\n</graph>\n</graphml>\n' "$GH" >"$H/lines.graphml"
hostile 1 'lines.graphml:4: node 1: negative size -5' "GraphML error on its node's line" -- $BIN info "$H/lines.graphml"
{ printf '%s\n<graph edgedefault="directed">\n' "$GH"
  awk 'BEGIN { for (i = 0; i < 25000; i++) printf "<node id=\"n%d\">\n<data key=\"s\">%d</data>\n</node>\n", i, i == 24000 ? -5 : 5 }'
  printf '</graph>\n</graphml>\n'; } >"$H/far.graphml"
hostile 1 'far.graphml:72003: node 24000: negative size -5' "GraphML error on its node's line past 65535" -- $BIN info "$H/far.graphml"
printf '%s\n<key id="s" for="node" attr.name="size" attr.type="double"/>\n<graph edgedefault="directed"/>\n</graphml>\n' "$GH" >"$H/dupkey.graphml"
hostile 1 'dupkey.graphml:2: <key id="s"> is declared twice \(first on line 1\)' "GraphML key declared twice, its line" -- $BIN info "$H/dupkey.graphml"
hostile 1 "defsize.graphml:1: node 0: name 'leaf0' is not a number" "GraphML --size-attr naming a string" -- $BIN info "$H/defsize.graphml" --size-attr name
# GraphML: elements of GraphML's namespace (or none) only, the rest skipped
# with what it holds; a value read is text only; edgedefault and directed
# as the schema spells them; one <key> per id; an empty file says so
GX='<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:y="urn:y"><key id="s" for="node" attr.name="size" attr.type="long"/><key id="g" for="node" attr.name="graphics"/>'
printf '%s<graph edgedefault="directed"><node id="a"><data key="s">8</data><data key="g"><y:Shape><y:Label>x</y:Label></y:Shape><node id="q"/></data></node><y:node id="zz"/><node id="b"><data key="s">4</data></node><edge source="a" target="b"/></graph></graphml>' "$GX" >"$H/foreign.graphml"
expect 0 "GraphML foreign elements skipped" $BIN info "$H/foreign.graphml" --format json
grep -q '"nodes": 2' "$T/out" && grep -q '"live_peak": 12' "$T/out" && ok || bad "GraphML foreign elements: $(tr -d '\n' <"$T/out")"
printf '%s<graph edgedefault="directed"><node id="a"><data key="s">8<y:y>9</y:y></data></node></graph></graphml>' "$GX" >"$H/nested.graphml"
hostile 1 "nested.graphml:1: the <data> of 'size' holds an element <y:y>" "GraphML element inside a size value" -- $BIN info "$H/nested.graphml"
# an entity of the DTD is not expanded: "1&e;" read as 1 before; character
# references and &amp; and the like are text
printf '<?xml version="1.0"?>\n<!DOCTYPE graphml [<!ENTITY e "00">]>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="s" for="node" attr.name="size"/><graph>\n<node id="a"><data key="s">1&e;</data></node></graph></graphml>' >"$H/entity.graphml"
hostile 1 "entity.graphml:4: the <data> of 'size' holds the entity reference &e;: memplan does not expand entities" "GraphML entity inside a size value" -- $BIN info "$H/entity.graphml"
sed 's/1&e;/1\&#48;0/' "$H/entity.graphml" >"$H/charref.graphml"
expect 0 "GraphML character reference in a size" $BIN info "$H/charref.graphml" --format json
grep -q '"sum_sizes": 100,' "$T/out" && ok || bad "GraphML &#48;: $(tr -d '\n' <"$T/out")"
# past line 65535 the line of an element inside a value is its own (libxml2
# stopped counting there without XML_PARSE_BIG_LINES)
{ printf '%s<graph>\n' "$GX"; yes '' | head -n 70000; printf '<node id="a"><data key="s">8<y:y/></data></node></graph></graphml>\n'; } >"$H/biglines.graphml"
hostile 1 "biglines.graphml:70002: the <data> of 'size' holds an element <y:y>" "GraphML line numbers past 65535" -- $BIN info "$H/biglines.graphml"
# bytes its declared encoding cannot convert: libxml2's own words, once, with
# a line (it printed them to stderr itself, then memplan said ":0: XML error")
printf '<?xml version="1.0" encoding="UTF-7"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n\376\377\047\377</graphml>\n' >"$H/utf7.graphml"
hostile 1 "^memplan: [^ ]*utf7.graphml:[1-9][0-9]*: not a readable GraphML file: input conversion failed" "GraphML bytes its encoding cannot convert" -- $BIN info "$H/utf7.graphml"
[ "$(wc -l <"$T/err")" -eq 1 ] && ok || bad "GraphML encoding error: libxml2 printed: $(cat "$T/err")"
# keys and their defaults are looked up by hash: 50000 keys and 50000 nodes
# took 20 s (a scan of the keys per <data>, per node and slot), now well
# under a second
awk 'BEGIN { print "<?xml version=\"1.0\"?><graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">";
  for (i = 0; i < 50000; i++) printf "<key id=\"k%d\" for=\"node\" attr.name=\"a%d\"/>\n", i, i;
  print "<key id=\"s\" for=\"node\" attr.name=\"size\"><default>2</default></key><graph>";
  for (i = 0; i < 50000; i++) printf "<node id=\"n%d\"><data key=\"k%d\">1</data></node>\n", i, i;
  print "</graph></graphml>" }' >"$H/keys.graphml"
expect 0 "GraphML of 50000 keys and nodes in 10 s" timeout 10 $BIN info "$H/keys.graphml" --format json
grep -q '"sum_sizes": 100000,' "$T/out" && ok || bad "GraphML of 50000 keys: $(tr -d '\n' <"$T/out")"
printf '%s<graph edgedefault="directed"><node id="a"><data key="s">8</data></node><node id="b"><data key="s">8</data></node><edge source="a" target="b" directed="0"/></graph></graphml>' "$GX" >"$H/dir0.graphml"
hostile 1 'dir0.graphml:1: an undirected edge \(directed="0"\)' "GraphML edge directed=0" -- $BIN info "$H/dir0.graphml"
sed 's/directed="0"/directed="yes"/' "$H/dir0.graphml" >"$H/diryes.graphml"
hostile 1 'diryes.graphml:1: an edge with directed="yes"' "GraphML edge directed=yes" -- $BIN info "$H/diryes.graphml"
sed 's/ directed="0"//; s/edgedefault="directed"/edgedefault="dag"/' "$H/dir0.graphml" >"$H/eddag.graphml"
hostile 1 'eddag.graphml:1: edgedefault="dag"' "GraphML edgedefault=dag" -- $BIN info "$H/eddag.graphml"
printf '%s<key id="s" for="node" attr.name="workspace" attr.type="long"/><graph edgedefault="directed"><node id="a"><data key="s">8</data></node></graph></graphml>' "$GX" >"$H/dupkey.graphml"
hostile 1 'dupkey.graphml:1: <key id="s"> is declared twice' "GraphML duplicate key ids" -- $BIN info "$H/dupkey.graphml"
: >"$H/empty.graphml"
hostile 1 'empty.graphml: empty file' "GraphML empty file" -- $BIN info "$H/empty.graphml"
printf '<?xml version="1.0"?><x:graphml xmlns:x="urn:other"><x:graph edgedefault="directed"/></x:graphml>' >"$H/otherns.graphml"
hostile 1 'otherns.graphml:1: not GraphML \(the root element is <x:graphml> of the namespace urn:other\)' "GraphML root of another namespace" -- $BIN info "$H/otherns.graphml"
printf 'id,lower,upper,size\na,0,3,4\na,1,4,4\n' >"$H/dup.csv"
hostile 1 "dup.csv:3: duplicate id 'a' \(first on line 2\)" "CSV duplicate ids" -- $BIN info "$H/dup.csv"
# ids that are their row's index need no table until the first other id:
# a repeat is still caught, before and after that id
printf 'id,lower,upper,size\n0,0,3,4\n1,1,4,4\n2,2,5,4\n1,3,6,4\n' >"$H/dupi1.csv"
hostile 1 "dupi1.csv:5: duplicate id '1' \(first on line 3\)" "CSV index ids repeated" -- $BIN info "$H/dupi1.csv"
printf 'id,lower,upper,size\n0,0,3,4\n1,1,4,4\nx,2,5,4\n1,3,6,4\n' >"$H/dupi2.csv"
hostile 1 "dupi2.csv:5: duplicate id '1' \(first on line 3\)" "CSV index id repeated after another" -- $BIN info "$H/dupi2.csv"
printf 'id,lower,upper,size\n0,0,3,4\n01,1,4,4\n1,2,5,4\n01,3,6,4\n' >"$H/dupi3.csv"
hostile 1 "dupi3.csv:5: duplicate id '01' \(first on line 3\)" "CSV 01 is not 1" -- $BIN info "$H/dupi3.csv"
printf '\357\273\277id , lower ,upper,  size\r\na , 0 , 3 , 4\r\nb,1 ,4, 8\r\n' >"$H/bom.csv"
expect 0 "CSV with a BOM and blanks around commas" $BIN info "$H/bom.csv" --format json
grep -q '"live_peak": 12' "$T/out" && ok || bad "BOM/blank CSV figures: $(cat "$T/out")"
# an endless input must fail fast; a regression must not eat the machine's
# memory (ulimit -v, except under ASan, which reserves terabytes of shadow)
VLIM=""; [ -z "${ASAN_OPTIONS:-}" ] && VLIM="ulimit -v 4000000;"
hostile 1 "/dev/zero:1: a NUL byte" "CSV from /dev/zero" -- sh -c "$VLIM exec timeout 20 $BIN info /dev/zero --input-format csv"
hostile 1 "/dev/zero:1: a NUL byte \\(not a text file\\?\\)" "JSON from /dev/zero" -- sh -c "$VLIM exec timeout 20 $BIN info /dev/zero"
# the JSON readers decode "nodes" and "links" one element at a time: the
# messages stay those of one parse of the whole file (file, line, column in
# characters, what), for errors inside and between elements, after a
# meaning error, in a later array, and with "links" before "nodes"
jmsg() { # jmsg NAME 'exact message' CONTENT (printf format, no arguments)
  printf "$3" >"$H/$1.json"
  expect 1 "JSON message: $1" $BIN info "$H/$1.json"
  [ "$(cat "$T/err")" = "memplan: $H/$1.json$2" ] && ok ||
    bad "JSON message $1: got '$(cat "$T/err")', wanted '$H/$1.json$2'"
}
J0='{"id":0,"name":"\303\251","size":1,"inputs":[]}'
jmsg inside ":3:30: not valid JSON: '}' expected near 'x'" \
  "{\"name\":\"g\",\"nodes\":[\n$J0,\n {\"id\":1,\"name\":\"\303\274\342\202\254\",\"size\":1x,\"inputs\":[0]}]}\n"
jmsg line1 ":1:71: not valid JSON: '}' expected near 'x'" \
  '{"nodes":[{"id":0,"name":"\303\251\303\251\303\251\342\202\254","size":1,"inputs":[]},{"id":1,"size":1x}]}'
jmsg between ":1:84: not valid JSON: ']' expected near '{'" \
  "{\"nodes\":[$J0, {\"id\":1,\"size\":1,\"inputs\":[0]} {\"id\":2,\"size\":1,\"inputs\":[1]}]}\n"
jmsg trailing ":3:1: not valid JSON: unexpected token near ']'" "{\"nodes\":[\n$J0,\n]}\n"
jmsg truncated ":3:22: not valid JSON: premature end of input near '\"inp'" \
  "{\"nodes\":[\n$J0,\n {\"id\":1,\"size\":1,\"inp"
jmsg dupkey ":2:8: not valid JSON: duplicate object key near '\"nodes\"'" "{\"nodes\":[$J0],\n \"nodes\":[$J0]}\n"
jmsg dupinner ":2:24: not valid JSON: duplicate object key near '\"size\"'" \
  "{\"nodes\":[$J0,\n {\"id\":1,\"size\":1,\"size\":2,\"inputs\":[0]}]}\n"
jmsg meaningfirst ":3:41: not valid JSON: invalid token near 'tru'" \
  '{"nodes":[{"id":0,"size":1,"inputs":[5]},\n {"id":1,"size":1,"inputs":[0]},\n {"id":2,"size":1,"inputs":[1],"cost":tru}]}\n'
jmsg laterarray ":3:8: not valid JSON: invalid token near 'tru'" "{\"nodes\":[$J0],\n \"meta\":[1,\n 2, [tru]]}\n"
jmsg toobig ":2: a number overflows (too big integer near '99999999999999999999')" \
  "{\"nodes\":[$J0,\n {\"id\":1,\"size\":99999999999999999999,\"inputs\":[0]}]}\n"
jmsg nlbetween ":3:23: not valid JSON: '}' expected near '\"target\"'" \
  '{"directed":true,"nodes":[{"id":"a","size":1},{"id":"b","size":2}],\n"links":[{"source":"a","target":"b"},\n {"source":"b" "target":"a"}]}\n'
jmsg nlinside ":4:10: not valid JSON: invalid token near 'nul'" \
  '{"directed":true,"nodes":[{"id":"a","size":1},{"id":"b","size":2}],\n"links":[{"source":"a","target":"b"},\n {"source":"a","target":"b",\n "key":nul}]}\n'
jmsg nlorder ":4:28: not valid JSON: invalid token near '-'" \
  '{"directed":true,"links":[{"source":"a","target":"b"},\n {"source":"a","target":"c"}],\n"nodes":[{"id":"a","size":1},\n {"id":"b","size":2,"cost":-}]}\n'
jmsg nlorder2 ":2:36: not valid JSON: ']' expected near '2'" \
  '{"directed":true,"links":[{"source":"a","target":"b"},\n {"source":"a","target":"b","k":[1 2]}],\n"nodes":[{"id":"a","size":1},\n {"id":"b","size":2,"cost":-}]}\n'
jmsg nlmeaning ": node 1 (id \"b\"): negative size -2" \
  '{"directed":true,"links":[{"source":"a","target":"b"}],\n"nodes":[{"id":"a","size":1},\n {"id":"b","size":-2}]}\n'
# an alias naming a later node: that node and the rest are read again once
# every key is known (the messages keep their node order)
NLF='{"directed":true,"links":[{"source":"a","target":"b"},{"source":"b","target":"v"}],"nodes":[{"id":"a","size":4,"op":"input"},'
printf '%s{"id":"v","size":4,"alias":"b"},{"id":"b","size":8}]}' "$NLF" >"$H/nlfwd.json"
expect 0 "node-link alias to a later node" $BIN info "$H/nlfwd.json" --toposort --format json
grep -q '"views": 1' "$T/out" && grep -q '"live_peak": 12' "$T/out" && ok || bad "node-link forward alias: $(cat "$T/out")"
jmsg nlfwdbad ": node 2 (id \"b\"): negative size -8" "$NLF{\"id\":\"v\",\"size\":4,\"alias\":\"b\"},{\"id\":\"b\",\"size\":-8}]}"
jmsg nlfwdnone ": node 1 (id \"v\"): alias names no node" "$NLF{\"id\":\"v\",\"size\":4,\"alias\":\"zz\"},{\"id\":\"b\",\"size\":-8}]}"
head -c 1100000 /dev/zero | tr '\0' a >"$H/long.csv"
hostile 1 "long.csv:1: a line longer than 1 MiB" "CSV line without end" -- $BIN info "$H/long.csv"
printf 'id,lower,upper,size,offset\na,0,3,62,8\nb,1,4,32,32\n' >"$H/pins.csv"
hostile 1 "pinned offsets admit no placement" "CSV pins that overlap (fuzz)" -- $BIN solve "$H/pins.csv"
printf 'id,lower,upper,size,offset\na,0,3,64,4\n' >"$H/pin4.csv"
hostile 2 "--align 8: buffer a is pinned at 4" "--align against a pin" -- $BIN solve "$H/pin4.csv" --align 8
hostile 1 "is a directory" "a directory as input" -- $BIN info "$H"
hostile 1 "is a directory" "a directory as CSV input" -- $BIN info "$H" --input-format csv
printf '{"nodes":[{"id":0,"size":4,"inputs":[4294967296]}]}' >"$H/bigid.json"
hostile 1 "input 4294967296 is out of range" "input id 2^32 reported as written" -- $BIN info "$H/bigid.json"
printf '{"nodes":[{"id":0,"size":4,"inputs":[]},{"id":1,"size":4,"inputs":[0],"alias":-4294967296}]}' >"$H/bigalias.json"
hostile 1 "alias -4294967296 is out of range" "alias id -2^32 reported as written" -- $BIN info "$H/bigalias.json"
# no recursion grows with the input: 60,000 views in a chain, 50,000 series
# nodes, on a 512 KiB stack
awk 'BEGIN { n = 60000; printf "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":64,\"inputs\":[]}";
  for (i = 1; i < n; i++) printf ",\n{\"id\":%d,\"size\":64,\"inputs\":[%d],\"alias\":%d}", i, i - 1, i - 1;
  printf ",\n{\"id\":%d,\"size\":64,\"inputs\":[%d]}]}\n", n, n - 1 }' >"$H/views.json"
expect 0 "a chain of 60,000 views on a small stack" sh -c "ulimit -s 512; exec $BIN info '$H/views.json'"
grep -q "live_peak *128" "$T/out" && ok || bad "views chain figures: $(cat "$T/out")"
expect 0 "gen sp on a small stack" sh -c "ulimit -s 512; exec $BIN gen sp -n 50000 --par-prob 0 --out '$H/sp.json'"
# gen --backward: a training step whose source line makes it again, on which
# the recomputation heuristics plan within 0.6 of the live peak and the
# plans verify
expect 0 "gen --backward" $BIN gen sp -n 300 --par-prob 0.2 --backward --out "$H/spt.json"
src=$(sed -n 's/.*"source": "memplan \([^"]*\)".*/\1/p' "$H/spt.json")
expect 0 "gen --backward from its source line" $BIN $src --out "$H/spt2.json"
cmp -s "$H/spt.json" "$H/spt2.json" && ok || bad "gen --backward: the source line makes another graph"
grep -q '"phase": "bwd"' "$H/spt.json" && ok || bad "gen --backward: no backward phase"
for R in dtr chen-sqrt chen-greedy rotor swap-greedy; do
  expect 0 "gen --backward: $R within 0.6" $BIN solve "$H/spt.json" --remat $R --budget-frac 0.6 --no-baseline --out "$H/spt.plan"
  expect 0 "gen --backward: $R plan verifies" $BIN verify "$H/spt.json" "$H/spt.plan"
done
# chen-greedy sweeps for the shortest plan within the budget: chen-sqrt's
# sqrt(n) checkpoints are one of its candidates (its segment budgets alone
# gave 30.98% where chen-sqrt's 27.19% fits at 0.6x, and no plan at 0.55x)
$BIN gen chain -n 30 --backward --seed 1 --out "$H/c30.json" >/dev/null 2>&1
for f in 0.6 0.55; do
  expect 0 "chen-sqrt on chain-30 at $f" $BIN solve "$H/c30.json" --remat chen-sqrt --budget-frac $f --no-baseline --format json
  sq=$(sed -n 's/^ *"duration": \([0-9.e+]*\),*$/\1/p' "$T/out")
  expect 0 "chen-greedy on chain-30 at $f" $BIN solve "$H/c30.json" --remat chen-greedy --budget-frac $f --no-baseline --format json
  gr=$(sed -n 's/^ *"duration": \([0-9.e+]*\),*$/\1/p' "$T/out")
  [ -n "$sq" ] && [ -n "$gr" ] && awk -v a="$gr" -v b="$sq" 'BEGIN { exit !(a <= b) }' &&
    ok || bad "chen-greedy on chain-30 at $f: duration ${gr:-none}, chen-sqrt ${sq:-none}"
done
# the exact searches go one level down per node or buffer placed, on heap
# stacks: dp down a 6,000-node layered graph, exact down 4,000 overlapping
# buffers (depth 3,999), both proved optimal on a 256 KiB stack
$BIN gen layered -n 6000 --layers 3000 --out "$H/l6000.json" >/dev/null 2>&1
expect 0 "dp on a small stack" sh -c "ulimit -s 256; exec $BIN solve '$H/l6000.json' --order dp --set dp.split=0 --no-baseline"
grep -q "^status .*(order optimal" "$T/out" && ok || bad "dp on a small stack: $(grep status "$T/out")"
awk 'BEGIN { print "id,lower,upper,size"; split("1 2 3 5 8", s, " "); x = 3
  for (i = 0; i < 4000; i++) { x = (x * 1103515245 + 12345) % 2147483648
    printf "b%d,%d,%d,%d\n", i, i, i + 3, 64 * s[1 + int(x / 65536) % 5] } }' >"$H/stair.csv"
expect 0 "exact on a small stack" sh -c "ulimit -s 256; exec $BIN solve '$H/stair.csv' --place exact"
grep -q "^status *optimal" "$T/out" && ok || bad "exact on a small stack: $(grep status "$T/out")"
expect 3 "dp above its size cap" $BIN solve "$H/l6000.json" --order dp --set dp.max_nodes=5999
grep -q "refused.*6000 nodes exceed the size cap max_nodes=5999" "$T/out" && ok || bad "dp cap: $(grep status "$T/out")"
# exact estimates its memory before the set-up and refuses above max_mb
# (the stair: 12,000 section entries, three searches with their memo
# tables, about 64 MiB); a cap it fits under changes no figure
expect 3 "exact above its memory cap" $BIN solve "$H/stair.csv" --place exact --set exact.max_mb=1 --format json
grep -q '"place_status": "refused"' "$T/out" &&
  grep -q '"message": "exact: its parts and searches would take about [0-9]* MiB (12000 section entries), above max_mb=1: raise exact.max_mb' "$T/out" &&
  ok || bad "exact memory cap: $(grep -e status -e message "$T/out")"
grep -q 'above max_mb=1' "$T/err" && ok || bad "exact memory cap: stderr $(cat "$T/err")"
expect 0 "exact under its memory cap" $BIN solve "$H/stair.csv" --place exact --set exact.max_mb=100 --out "$H/stair100.plan"
# times aside: their digits, and the padding that aligns them
sed 's/[0-9.]* ms//g; s/  */ /g' "$T/out" >"$H/stair100.txt"
expect 0 "exact with the default cap" $BIN solve "$H/stair.csv" --place exact --out "$H/stair.plan"
sed 's/[0-9.]* ms//g; s/  */ /g' "$T/out" | cmp -s - "$H/stair100.txt" && cmp -s "$H/stair.plan" "$H/stair100.plan" &&
  ok || bad "exact: the memory cap changed a figure or the plan"
# coloring counts its interference edges before it builds the graph: the
# staircase has 3,999 + 3,998 pairs live together; a cap one below refuses
expect 3 "coloring above its edge cap" $BIN solve "$H/stair.csv" --place coloring --set coloring.max_edges=7996 --format json
grep -q '"status": "refused"' "$T/out" && grep -q "7997 edges, over the size cap max_edges=7996" "$T/out" &&
  grep -q "raise coloring.max_edges or use an offset placer" "$T/err" && ok || bad "coloring cap: $(cat "$T/err")"
expect 0 "coloring at its edge cap" $BIN solve "$H/stair.csv" --place coloring --set coloring.max_edges=7997
# a slot whose members' alignments have an lcm past 2^30 (distinct primes):
# each member at its own multiple, not an offset from a wrapped lcm
printf 'id,lower,upper,size,alignment\n0,0,1,8,1073741789\n1,1,2,8,1073741783\n2,2,3,8,1073741741\n3,3,4,8,1073741723\n9,0,4,100,1\n' >"$T/lcm.csv"
expect 0 "coloring: a slot of prime alignments" $BIN solve "$T/lcm.csv" --place coloring --out "$T/lcm.plan.csv"
expect 0 "coloring: its plan verifies" $BIN verify "$T/lcm.csv" "$T/lcm.plan.csv"
# bybreadth counts the steps of its slot search and refuses past its cap,
# with status refused and exit 3; under it, a verified plan
expect 3 "bybreadth above its step cap" $BIN solve "$H/stair.csv" --place bybreadth --set bybreadth.max_steps=100 --format json
grep -q '"status": "refused"' "$T/out" && grep -q "over the size cap max_steps=100" "$T/out" &&
  grep -q "raise bybreadth.max_steps or use bysize" "$T/err" && ok || bad "bybreadth cap: $(cat "$T/err")"
expect 0 "bybreadth under its step cap" $BIN solve "$H/stair.csv" --place bybreadth --out "$H/stair.breadth.csv"
expect 0 "bybreadth's plan verifies" $BIN verify "$H/stair.csv" "$H/stair.breadth.csv"
# a search the time limit stops before any plan: status timeout, no figures,
# exit 3 (not an error: the limit, not the solver, ended it)
expect 3 "swap-greedy with its limit spent" $BIN solve graphs/real/resnet18_train_sgd_b32.json --order given \
  --remat swap-greedy --place firstfit --budget-frac 0.6 --time-limit 0.000001 --no-baseline --format json
grep -q '"status": "timeout"' "$T/out" && grep -q '"has_figures": false' "$T/out" &&
  grep -q "no plan within budget 441420233: time limit" "$T/err" && ok || bad "no plan before the limit: $(cat "$T/err")"
# the version (memplan --version, memplan_commit(), results rows): the commit
# the binary was built from, recorded at build time (scripts/gen_commit.sh),
# whatever folder or repository the binary runs from; the rule of the
# recording: "-dirty" only when a file outside results/ differs (a
# benchmark's own tables do not count), "unknown" outside a git work tree's top
if ! command -v git >/dev/null 2>&1; then
  bad "version: no git to build the scratch repository with"
else
  V="$T/vrepo"
  mkdir -p "$V/bin" "$V/src" "$V/results"
  cp "$BIN" "$V/bin/memplan"
  echo a >"$V/src/a.c"
  echo r >"$V/results/r.md"
  git -C "$V" init -q && git -C "$V" add -A &&
    git -C "$V" -c user.email=t@t -c user.name=t commit -qm v >/dev/null
  c=$(git -C "$V" rev-parse --short HEAD)
  own=$(sh scripts/gen_commit.sh .)
  v0=$(env -u MEMPLAN_VERSION "$BIN" --version)
  v1=$(env -u MEMPLAN_VERSION "$V/bin/memplan" --version)
  case "$v1" in
  "$v0") case "$v0|$own" in
    *"(unknown)|unknown") ok ;;
    *"(${own%-dirty}"*) ok ;;
    *) bad "version: '$v0', the tree's commit is $own" ;;
    esac ;;
  *) bad "version: a copy in another repository (commit $c) says '$v1', the binary '$v0'" ;;
  esac
  g1=$(sh scripts/gen_commit.sh "$V")
  echo more >>"$V/results/r.md"; echo new >"$V/results/new.md"
  g2=$(sh scripts/gen_commit.sh "$V")
  echo b >>"$V/src/a.c"
  g3=$(sh scripts/gen_commit.sh "$V")
  g4=$(sh scripts/gen_commit.sh "$V/src")
  g5=$(PATH=/nonexistent /bin/sh scripts/gen_commit.sh "$V")
  [ "$g1|$g2|$g3|$g4|$g5" = "$c|$c|$c-dirty|unknown|unknown" ] && ok ||
    bad "gen_commit: clean '$g1', results changed '$g2', source changed '$g3', a subfolder '$g4', no git '$g5' (commit $c)"
fi
# the registry's generator takes a descriptor spelled as solver.h says
# (`const struct mp_solver solver_X`, a folder's in any of its files) or
# `const mp_solver solver_X`, and says which spelling it wants
R="$T/reg/solvers"
mkdir -p "$R/two_files"
printf 'const struct mp_solver solver_foo_x = {\n    .name = "foo-x",\n};\n' >"$R/foo_x.c"
printf 'const mp_solver solver_bar = {\n    .name = "bar",\n};\n' >"$R/bar.c"
printf 'static int z;\n' >"$R/two_files/a.c"
printf 'const struct mp_solver solver_two_files = {.name = "two-files"};\n' >"$R/two_files/b.c"
printf 'struct mp_solver solver_baz = {\n    .name = "baz",\n};\n' >"$R/baz.c"
sh scripts/gen_registry.sh "$R/foo_x.c" "$R/bar.c" "$R/two_files" >"$T/reg.c" 2>"$T/err" &&
  grep -c '^  &solver_' "$T/reg.c" | grep -qx 3 && ok || bad "gen_registry: $(cat "$T/err")"
sh scripts/gen_registry.sh "$R/baz.c" >/dev/null 2>"$T/err" && bad "gen_registry took solver_baz without const" ||
  { grep -qF "defines no 'const mp_solver solver_baz = { .name = \"baz\", ... };' at the start of a line" "$T/err" && ok ||
    bad "gen_registry message: $(cat "$T/err")"; }
# a recomputation stage that finds no plan proves nothing, so it does not
# end the chain: the next one starts from the last verified plan (or from
# none), the chain's plan is the last verified one, and only a chain that
# ends with none fails (keepall below 1x never has one; dtr does here)
SQ=graphs/real/squeezenet1_0_train_b32.json
expect 0 "remat dtr alone" $BIN solve $SQ --remat dtr --budget-frac 0.8 --no-baseline --format json --out "$T/dtr.plan"
grep '"duration"' "$T/out" | head -1 >"$T/dtr.dur"
for c in keepall,dtr dtr,keepall; do
  expect 0 "remat $c: keepall finds none" $BIN solve $SQ --remat $c --budget-frac 0.8 --no-baseline --format json \
    --out "$T/chain.plan"
  grep -q "keeping every tensor peaks at 1187818500" "$T/out" && grep -q '"remat_status": "feasible"' "$T/out" &&
    [ "$(grep '"duration"' "$T/out" | head -1)" = "$(cat "$T/dtr.dur")" ] &&
    $BIN verify $SQ "$T/chain.plan" >/dev/null 2>&1 && ok || bad "remat $c: $(head -c 300 "$T/err")"
done
expect 3 "remat keepall,keepall: no plan at all" $BIN solve $SQ --remat keepall,keepall --budget-frac 0.8 --no-baseline
grep -q "keepall: no plan within budget 950254800" "$T/err" && ok || bad "keepall,keepall: $(cat "$T/err")"
# the same for order and placement chains: a stage under its size cap
# hands on the chain's order or placement; alone it is still refused
RN=graphs/real/resnet18_train_b32.json
MA=graphs/minimalloc/challenging/A.1048576.csv
expect 0 "greedy alone" $BIN solve $RN --order greedy --no-baseline --format json
grep '"arena"' "$T/out" >"$T/greedy.arena"
for c in ilp,greedy greedy,ilp; do
  expect 0 "order $c: ilp refuses" $BIN solve $RN --order $c --no-baseline --format json
  grep -q "exceed the size cap max_nodes=60" "$T/out" && [ "$(grep '"arena"' "$T/out")" = "$(cat "$T/greedy.arena")" ] &&
    ok || bad "order $c: $(head -c 300 "$T/err")"
done
# the refused stage searched nothing: the file order after it is still "fixed"
expect 0 "order ilp,given" $BIN solve $RN --order ilp,given --no-baseline --format json
grep -q '"order_status": "fixed"' "$T/out" && ok || bad "ilp,given: $(grep '"order_status"' "$T/out")"
expect 3 "order ilp alone: refused" $BIN solve $RN --order ilp --no-baseline --format json
grep -q '"status": "refused"' "$T/out" && ok || bad "ilp alone: $(grep '"status"' "$T/out" | head -1)"
expect 0 "bysize alone" $BIN solve $MA --place bysize --no-baseline --format json
grep '"arena"' "$T/out" >"$T/bysize.arena"
for c in ilp-place,bysize bysize,ilp-place; do
  expect 0 "place $c: ilp-place refuses" $BIN solve $MA --place $c --no-baseline --format json
  grep -q "exceed the size cap max_items=60" "$T/out" && [ "$(grep '"arena"' "$T/out")" = "$(cat "$T/bysize.arena")" ] &&
    ok || bad "place $c: $(head -c 300 "$T/err")"
done
expect 3 "place ilp-place alone: refused" $BIN solve $MA --place ilp-place --no-baseline --format json
grep -q '"status": "refused"' "$T/out" && ok || bad "ilp-place alone: $(grep '"status"' "$T/out" | head -1)"
# remat-lp whose first LP has no solution says so for that LP's budget (an
# error, no claim: the stage shape is narrower than DESIGN 6's plans)
expect 3 "remat-lp, LP infeasible" $BIN solve $SQ --remat remat-lp --budget-frac 0.4 --no-baseline --format json
grep -q '"remat_status": "error"' "$T/out" &&
  grep -q "no rounding of 0 LPs fits budget 475127400, and the stage LP under budget 475127400 has no solution" "$T/err" &&
  ok || bad "remat-lp LP infeasible: $(cat "$T/err")"
# the searches the limit ends before any plan: timeouts that say so (they
# read status error; remat-lp's message was "no rounding of 0 LPs fits");
# squeezenet's 296 stages make remat-ilp/lp solve a contraction, named first
for s in remat-lp remat-ilp remat-sa remat-ga; do
  expect 3 "$s with its limit spent" $BIN solve graphs/real/squeezenet1_0_train_b32.json --order given \
    --remat $s --place firstfit --budget-frac 0.8 --time-limit 0.000001 --no-baseline --format json
  grep -q '"status": "timeout"' "$T/out" && grep -q '"has_figures": false' "$T/out" &&
    grep -q "$s: .*budget 950254800.*before.*time limit\|$s: \(no plan from a [0-9]*-segment contraction of the order: \)\?the time limit ended the LPs before a rounding fit budget 950254800" "$T/err" &&
    ok || bad "$s before the limit: $(cat "$T/err")"
done
# remat-lp and remat-ilp on a 961-node training chain with a 1 s limit:
# building the stage model, GLPK's scaling and its simplex set-up (outside
# tm_lim) took them 10-11 s; now the build stops at the deadline and no
# GLPK run starts without a build time left.  A generous bound (5 s) on the
# stage's own CPU time (its wall time measures the machine's load: 7.5 s once
# under a load of 6), and `timeout` for a binary that never ends.
$BIN gen chain -n 480 --backward --seed 1 --out "$H/c480.json" >/dev/null 2>&1
for s in remat-lp remat-ilp; do
  expect 3 "$s on a 961-node chain, 1 s" timeout 120 $BIN solve "$H/c480.json" --remat $s \
    --set $s.max_nodes=1000 --budget-frac 0.5 --time-limit 1 --no-baseline --format json
  ms=$(sed -n 's/^ *"remat_cpu_ms": \([0-9.]*\),*$/\1/p' "$T/out")
  [ -n "$ms" ] && awk -v ms="$ms" 'BEGIN { exit !(ms < 5000) }' && grep -q '"remat_status": "timeout"' "$T/out" &&
    ok || bad "$s on a 961-node chain: remat_cpu_ms ${ms:-none} with --time-limit 1; $(head -c 300 "$T/err")"
done
# an in-place chain of 2x10^5 nodes: every node reads the root storage that
# every node writes; the rerun limits were a scan of the root's readers per
# writer (quadratic: 46-48 s past a 1 s limit).  A generous bound on the
# stage's own CPU time, and `timeout` for a binary that never ends.
awk 'BEGIN { n = 200000; printf "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":64,\"inputs\":[]}";
  for (i = 1; i < n; i++) printf ",\n{\"id\":%d,\"size\":64,\"inputs\":[%d],\"alias\":%d,\"inplace\":true}", i, i - 1, i - 1;
  printf "]}\n" }' >"$T/ipchain.json"
for s in remat-sa remat-ga; do
  expect 0 "$s on a 2x10^5 in-place chain" timeout 60 $BIN solve "$T/ipchain.json" --remat $s \
    --budget-frac 1 --time-limit 1 --no-baseline --format json
  ms=$(sed -n 's/^ *"remat_cpu_ms": \([0-9.]*\),*$/\1/p' "$T/out")
  [ -n "$ms" ] && awk -v ms="$ms" 'BEGIN { exit !(ms < 20000) }' && grep -q '"remat_status": "\(optimal\|feasible\)"' "$T/out" &&
    ok || bad "$s on an in-place chain: remat_cpu_ms ${ms:-none} with --time-limit 1; $(head -c 300 "$T/err")"
done
# outputs: special files are written, never replaced; stdout errors count.
# The devices are our own nodes in $T (a regression must not replace the
# system's /dev/null): mknod needs root, a FIFO does not.
if mknod "$H/full" c 1 7 2>/dev/null && mknod "$H/null" c 1 3 2>/dev/null; then
  hostile 1 "full: cannot write: No space left" "--out a full device" -- $BIN solve "$T/g.json" --out "$H/full"
  [ -c "$H/full" ] && ok || bad "--out replaced the device node (full)"
  expect 0 "--out a null device" $BIN solve "$T/g.json" --out "$H/null"
  [ -c "$H/null" ] && ok || bad "--out replaced the device node (null)"
  for c in "solve $T/g.json" "info $T/g.json" "convert $T/g.json --to json" "solvers" "gen chain" \
      "gen layered -n 3000 --seed 1" "table tests/data/bench_results.csv" "export tests/data/bench_results.csv"; do
    # shellcheck disable=SC2086
    # with its reason (solve said it without one: the flush inside its print consumed errno)
    hostile 1 "standard output: write error: No space left on device" "$c > a full device" -- sh -c "exec $BIN $c >'$H/full'"
    # said once (table, export, gen and convert said it twice, the second time without its reason)
    [ "$(grep -c 'write error' "$T/err")" -eq 1 ] && ok || bad "$c > a full device: not said once: $(cat "$T/err")"
  done
else
  echo "cli: mknod refused (not root): skipped the device-node checks"
fi
mkfifo "$H/fifo"
timeout 20 cat "$H/fifo" >"$H/fifo.out" &
expect 0 "--out a FIFO" $BIN solve "$T/g.json" --out "$H/fifo"
wait
[ -p "$H/fifo" ] && [ -s "$H/fifo.out" ] && ok || bad "--out a FIFO: replaced, or nothing written"
# /dev/stdout into a pipe: its link ends at "pipe:[N]", no path
sh -c "$BIN solve '$T/g.json' --out /dev/stdout | cat >'$H/pipe.out'" 2>"$T/err" &&
  grep -q '"offsets"' "$H/pipe.out" && ok || bad "--out /dev/stdout into a pipe: $(head -c 300 "$T/err")"
hostile 2 "--out $H is a directory" "--out a directory (before solving)" -- $BIN solve "$T/g.json" --out "$H"
ln -s "$H/target.plan" "$H/link.plan"
expect 0 "--out through a symbolic link" $BIN solve "$T/g.json" --out "$H/link.plan"
[ -L "$H/link.plan" ] && [ -s "$H/target.plan" ] && ok || bad "--out replaced the symbolic link"
ln -s "$H/loop2.plan" "$H/loop1.plan" && ln -s "$H/loop1.plan" "$H/loop2.plan"
hostile 1 "loop1.plan: cannot write: Too many levels of symbolic links" "--out a loop of links" -- $BIN solve "$T/g.json" --out "$H/loop1.plan"
[ -L "$H/loop1.plan" ] && [ -L "$H/loop2.plan" ] && ok || bad "--out replaced a link of a loop"
chmod 640 "$H/target.plan"
expect 0 "--out over a file of mode 640" $BIN solve "$T/g.json" --out "$H/link.plan"
[ "$(stat -c %a "$H/target.plan")" = 640 ] && ok || bad "--out changed the mode of the file it replaced: $(stat -c %a "$H/target.plan")"
# --write-lp that cannot be written fails the solve, for every ILP solver
# (ilp-place and joint-ilp wrote nothing and said nothing)
$BIN gen layered -n 8 --seed 1 --out "$H/l8.json"
for sv in "--order ilp" "--place ilp-place" "--order joint-ilp"; do
  # shellcheck disable=SC2086
  hostile 3 "cannot write the LP model to $H/none/m.lp" "--write-lp into a missing folder ($sv)" -- $BIN solve "$H/l8.json" $sv --time-limit 5 --write-lp "$H/none/m.lp"
done
# joint-ilp given with another placer, or before --remat: a usage error saying how to give it
hostile 2 "give it once \(--order joint-ilp or --place joint-ilp\), with no other placer" "joint-ilp as order and place" -- $BIN solve "$H/l8.json" --order joint-ilp --place joint-ilp
hostile 2 "give it once .*with no other placer" "joint-ilp with bysize" -- $BIN solve "$H/l8.json" --order joint-ilp --place bysize
hostile 2 "--remat needs the order before its stage" "joint-ilp before --remat" -- $BIN solve "$H/l8.json" --order joint-ilp --remat keepall --budget-frac 1
# a model written through a temporary file: whole, nothing left beside it
mkdir -p "$H/lp" && : >"$H/lp/m.lp" && chmod 640 "$H/lp/m.lp"
expect 0 "--write-lp over a file of mode 640" $BIN solve "$H/l8.json" --order ilp --time-limit 5 --write-lp "$H/lp/m.lp"
grep -q "^End" "$H/lp/m.lp" && [ "$(stat -c %a "$H/lp/m.lp")" = 640 ] && [ "$(ls "$H/lp")" = m.lp ] && ok ||
  bad "--write-lp: $(ls "$H/lp") $(stat -c %a "$H/lp/m.lp") $(tail -c 100 "$H/lp/m.lp")"
# a stage whose answer needs no model still writes the one it would have
# solved, and answers as without --write-lp (the JSON but its timings);
# a stage the size cap would have refused writes none
lpearly() { # lpearly NAME yes|no FILE SOLVE-ARGS...: the model written or not
  name=$1; want=$2; shift 2
  rm -f "$H/early.lp"
  $BIN solve "$@" --format json 2>"$H/early0.err" | grep -v '_ms"' >"$H/early0.json"
  $BIN solve "$@" --format json --write-lp "$H/early.lp" 2>"$H/early1.err" | grep -v '_ms"' >"$H/early1.json"
  cmp -s "$H/early0.json" "$H/early1.json" && cmp -s "$H/early0.err" "$H/early1.err" && ok ||
    bad "--write-lp changed the answer ($name): $(diff "$H/early0.json" "$H/early1.json" | head -5)"
  if [ "$want" = yes ]; then
    head -1 "$H/early.lp" 2>/dev/null | grep -q '^\\\* Problem: ' && grep -q '^End' "$H/early.lp" && ok ||
      bad "--write-lp wrote no model ($name)"
  else
    [ ! -e "$H/early.lp" ] && ok || bad "--write-lp wrote a model the size cap refuses ($name)"
  fi
}
printf '{"nodes":[]}' >"$H/empty.json"
printf 'id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n' >"$H/five.csv"
lpearly "ilp, empty graph" yes "$H/empty.json" --order ilp
lpearly "ilp-place, capacity met" yes "$H/five.csv" --place ilp-place --capacity 100
lpearly "ilp-place, bound above the capacity" yes "$H/five.csv" --place ilp-place --capacity 5
grep -q '^ 12 <= A <= 5$' "$H/early.lp" && ok || bad "ilp-place: the arena's range is not the empty [12, 5]"
lpearly "ilp-place, bound above the capacity, capped" no "$H/five.csv" --place ilp-place --capacity 5 --set ilp-place.max_items=2
lpearly "joint-ilp, capacity met" yes "$T/g.json" --order joint-ilp --capacity 100000
lpearly "joint-ilp, bound above the capacity" yes "$T/g.json" --order joint-ilp --capacity 5
lpearly "joint-ilp, empty graph" yes "$H/empty.json" --order joint-ilp
lpearly "remat-ilp, keep-all fits" yes "$T/g.json" --remat remat-ilp --budget-frac 1
lpearly "remat-ilp, keep-all fits, capped" no "$T/g.json" --remat remat-ilp --budget-frac 1 --set remat-ilp.max_nodes=1
$BIN gen layered -n 40 --seed 1 --out "$H/l40.json"
lpearly "remat-ilp, keep-all fits, over max_cols" no "$H/l40.json" --remat remat-ilp --budget-frac 1 --set remat-ilp.max_cols=1000
lpearly "remat-ilp, refused over max_cols" no "$H/l40.json" --remat remat-ilp --budget-frac 0.95 --set remat-ilp.max_cols=1000
# CLI
expect 0 "--version" $BIN --version
grep -q "^memplan [0-9]" "$T/out" && ok || bad "--version prints no version"
expect 0 "gen -m (one style)" $BIN gen randwire --model ba -n 8 -m 2 --out "$H/ba.json"
hostile 2 "unknown option '--m'" "gen --m (the old style)" -- $BIN gen randwire --model ba -n 8 --m 2
# gen refuses an option its family (or randwire's model) does not read: it
# used to write the same graph as without it.  Exit 2, the family's options
# named, no file written, an existing one left as it was.
for spec in "nas|-n 500|-n" "nas|--nodes 9|-n" "chain|--cells 3|--cells" "chain|-k 4|-k" \
    "chain|--model er|--model" "layered|--input-prob 0.3|--input-prob" "tree|--span 2|--span" \
    "sp|--blocks 3|--blocks" "randwire|--min-size 64|--min-size" "tree|--inplace-relu|--inplace-relu" \
    "randwire|-m 3|-m" "randwire|--model ba -k 6|-k" "randwire|-p 0.3 --model ba|-p"; do
  fam=${spec%%|*}; rest=${spec#*|}; args=${rest%|*}; flag=${rest#*|}
  rm -f "$H/foreign.json"
  # shellcheck disable=SC2086
  hostile 2 "memplan gen: $fam( --model [a-z]+)? does not take $flag \(it takes: .*--seed" "gen $fam $args" -- $BIN gen $fam $args --out "$H/foreign.json"
  [ -e "$H/foreign.json" ] && bad "gen $fam $args: a file was written" || ok
done
echo keep >"$H/foreign.json"
expect 2 "gen nas -n over an existing file" $BIN gen nas -n 500 --out "$H/foreign.json"
[ "$(cat "$H/foreign.json")" = keep ] && ok || bad "gen nas -n: the existing output file was changed"
# ... and each family's own options are taken and change the graph
$BIN gen randwire --out "$H/d_randwire.json"
for fam in nas layered tree sp chain; do $BIN gen $fam --out "$H/d_$fam.json"; done
for spec in "randwire|--model ba -m 3" "randwire|--model er -p 0.5" "randwire|-k 6 -p 0.5" \
    "randwire|--channels 8 --inplace-relu" "nas|--cells 2" "nas|--blocks 3 --resolution 8" \
    "layered|--layers 4 --span 2" "layered|--fan-in 5" "tree|--fan-in 2 --input-prob 0.5" \
    "sp|--par-prob 0.9" "chain|-n 20" "chain|--min-size 64 --max-size 128" "chain|--ws-prob 0.5 --backward"; do
  fam=${spec%%|*}; args=${spec#*|}
  # shellcheck disable=SC2086
  expect 0 "gen $fam $args" $BIN gen $fam $args --out "$H/own.json"
  cmp -s "$H/own.json" "$H/d_$fam.json" && bad "gen $fam $args: the same graph as without" || ok
done
# gen randwire refuses, as a usage error, a graph over its edge cap (igraph
# used to abort the process: SIGABRT, exit 134) or a WS lattice too dense
# for igraph's rewiring (it used to run for minutes), without writing a file
for spec in "--model er -n 100000 -p 1|expected edges \\(p n \\(n - 1\\) / 2\\) is over the cap" \
    "-n 100000 -k 99998|expected edges \\(n k / 2\\) is over the cap" \
    "--model ba -n 100000 -m 50000|expected edges \\(m \\(n - m\\)\\) is over the cap" \
    "-n 2000 -k 1998 -p 1|too dense to rewire"; do
  args=${spec%%|*}; needle=${spec#*|}
  rm -f "$H/big.json"
  # shellcheck disable=SC2086
  hostile 2 "$needle" "gen randwire $args" -- timeout 20 $BIN gen randwire $args --out "$H/big.json"
  [ -e "$H/big.json" ] && bad "gen randwire $args: a file was written" || ok
done
# an igraph failure within the caps (out of memory under ulimit -v) is an
# error message and exit 2, not igraph's abort
if [ -z "${ASAN_OPTIONS:-}" ]; then
  hostile 2 "igraph's ER generator failed: .*(out of memory|Out of memory)" "gen randwire: igraph out of memory" -- \
    sh -c "ulimit -v 150000; exec $BIN gen randwire --model er -n 2828 -p 1 --out '$H/big.json'"
fi
# sizes are multiples of 4 in [--min-size, --max-size]: a range without one
# is refused (every size used to be 4, below --min-size)
hostile 2 "holds no multiple of 4" "gen chain --min-size 5 --max-size 7" -- $BIN gen chain --min-size 5 --max-size 7
expect 0 "gen chain --min-size 5 --max-size 8" $BIN gen chain -n 5 --min-size 5 --max-size 8
[ "$(grep -o '"size": [0-9]*' "$T/out" | sort -u)" = '"size": 8' ] && ok || bad "gen chain [5, 8]: sizes $(grep -o '"size": [0-9]*' "$T/out" | sort -u | tr '\n' ' ')"
# no in-place ReLU writes into a graph input (nas's first cell read input 0 in place)
expect 0 "gen nas --inplace-relu" $BIN gen nas --inplace-relu --cells 2
grep '"c0.pre0.relu"' "$T/out" | grep -q alias && bad "gen nas --inplace-relu: c0.pre0.relu writes into input 0" || ok
expect 0 "gen randwire -n 4 -k 2 --inplace-relu" $BIN gen randwire -n 4 -k 2 --inplace-relu --seed 1
grep -q '"alias": 0[],}]' "$T/out" && bad "gen randwire --inplace-relu: a ReLU writes into the input" || ok
# the help states the defaults the code uses
expect 0 "gen --help" $BIN gen --help
grep -q -- "--layers (round(sqrt(n-2)))" "$T/out" && ok || bad "gen --help: the --layers default is not round(sqrt(n-2))"
# --name is quoted in the source line so that the line makes the same file
for name in "my graph" "it's \$HOME" "" "$(printf '%0600d' 7)"; do
  expect 0 "gen --name '$name'" $BIN gen chain -n 5 --name "$name" --out "$H/named.json"
  src=$(sed -n 's/^{"name": .*, "source": "memplan \(.*\)", "nodes": \[$/\1/p' "$H/named.json" | sed 's/\\"/"/g; s/\\\\/\\/g')
  if (eval "set -- $src") 2>/dev/null; then
    eval "set -- $src"
    expect 0 "gen --name '$name' from its source line" $BIN "$@" --out "$H/named2.json"
    cmp -s "$H/named.json" "$H/named2.json" && ok || bad "gen --name '$name': the source line makes another file: $src"
  else
    bad "gen --name '$name': the source line is no shell command: $src"
  fi
done
$BIN solve "$T/g.json" --out "$H/g.plan" >/dev/null 2>&1
hostile 1 "the graph does not match: the plan is for 'g'" "verify a plan for another graph" -- $BIN verify "$T/v.json" "$H/g.plan"

# ---- networkx importer on Moccasin's and Checkmate's files (read from
# ../shared/anchors, never copied): P(pi) of DESIGN 6.4 ----
A=../shared/anchors/checkmate
if [ -d "$A" ]; then
  expect 0 "RL100 reads" $BIN info "$A/random_layered_n100.json" --format json
  grep -q '"live_peak": 46319' "$T/out" && ok || bad "RL100 live peak is not 46,319: $(grep live_peak "$T/out")"
  expect 0 "RL250 reads" $BIN info "$A/random_layered_n250.json" --format json
  grep -q '"live_peak": 146840' "$T/out" && ok || bad "RL250 live peak is not 146,840: $(grep live_peak "$T/out")"
  expect 0 "RL100 costs (duration)" $BIN solve "$A/random_layered_n100.json" --remat keepall --budget-frac 1 --format json
  grep -q '"base_time": 47769' "$T/out" && ok || bad "RL100 base_time is not 47,769: $(grep base_time "$T/out")"
  expect 0 "Checkmate VGG16 reads (cost_ram bytes)" $BIN info "$A/vgg16_b256_train.json" --format json
  grep -q '"nodes": 45' "$T/out" && ok || bad "vgg16: $(head -5 "$T/out")"
else
  echo "cli: $A is absent: skipped the Moccasin/Checkmate checks (P(pi) = 46,319 and 146,840)"
fi

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
# ---- bench, table, plot: recomputation (issue 13) ----
expect 2 "bench: a budget must say 0.8x or bytes" $BIN bench --graphs tiny --remat dtr --budgets 0.5 --list
grep -q 'write a fraction of the order.s live peak as "0.8x"' "$T/err" && ok || bad "budget message: $(cat "$T/err")"
expect 0 "bench: remat cells listed" $BIN bench scripts/experiments/remat_tiny.json --list
[ "$(awk -F'\t' 'NF == 9' "$T/out" | wc -l)" -eq 54 ] && ok || bad "remat_tiny.json: $(wc -l <"$T/out") cells"
# without an experiment file every setting is the command line's: what is
# missing or does not fit is a usage error (exit 2) naming the options
hostile 2 "no experiment file and no --graphs" "bench without arguments" -- $BIN bench
hostile 2 "no experiment file and no --graphs" "bench --list without graphs" -- $BIN bench --order greedy --list
hostile 2 "--remat dtr needs --budgets" "bench --remat without --budgets" -- $BIN bench --graphs tiny --remat dtr --list
hostile 2 "--budgets and --bandwidth need --remat" "bench --budgets without --remat" -- $BIN bench --graphs tiny --budgets 0.5x --list
hostile 2 "--budgets and --bandwidth need --remat" "bench --bandwidth with --remat none" -- $BIN bench --graphs tiny --remat none --bandwidth 0 --list
expect 0 "bench --remat none alone" $BIN bench --graphs tiny --remat none --list
expect 2 "table: unknown view" $BIN table tests/data/bench_results.csv --view remats
expect 2 "plot overhead: no results file" $BIN plot overhead --out "$T/o.svg"
expect 1 "plot overhead: no remat rows" $BIN plot overhead tests/data/bench_results.csv --out "$T/o.svg"
grep -q "no planned recomputation runs" "$T/err" && ok || bad "plot overhead: $(cat "$T/err")"
expect 0 "a plan without events" $BIN solve graphs/examples/seed_example.json --out "$T/ne.plan"
# an option the picture does not read is a usage error, not dropped unseen
hostile 2 "plot profile: --place does not apply to this picture" "plot profile --place" -- $BIN plot profile $SE --place bysize --out "$T/p.svg"
hostile 2 "plot pareto: --max-overhead does not apply" "plot pareto --max-overhead" -- $BIN plot pareto results/default.csv --graph x --max-overhead 5 --out "$T/p.svg"
hostile 2 "plot placement: --agg does not apply" "plot placement --agg" -- $BIN plot placement $SE --agg best --out "$T/p.svg"
[ ! -e "$T/p.svg" ] && ok || bad "plot drew a picture after a usage error"
expect 0 "plot placement --align" $BIN plot placement $SE --order greedy --place firstfit --align 256 --out "$T/p_al.svg"
expect 1 "plot profile: --plan needs events" $BIN plot profile graphs/examples/seed_example.json --plan "$T/ne.plan" --out "$T/p.svg"
grep -q "ne.plan" "$T/err" && ok || bad "plot profile --plan: $(cat "$T/err")"
[ ! -e "$T/p.svg" ] && ok || bad "plot profile left a picture behind"
# the real pipeline: remat_tiny.json through bench, its tables and pictures,
# a plan of solve --remat drawn
R="$T/remat.sqlite"
# (no address-space cap: a sanitizer build of memplan reserves terabytes of it)
expect 0 "bench remat_tiny.json" $BIN bench scripts/experiments/remat_tiny.json --results "$R" --jobs 2 --quiet --mem-limit 0
n=$(sqlite3 "$R" "SELECT count(*) FROM results WHERE remat_solver != '' AND (status IN ('infeasible', 'error') OR (duration IS NOT NULL AND live_peak <= budget AND budget IS NOT NULL))")
[ "$n" -eq 54 ] && ok || bad "remat_tiny.json: $n of 54 rows whole"
n=$(sqlite3 "$R" "SELECT count(*) FROM results WHERE budget_arg = '1x' AND remat_solver = 'keepall' AND overhead = 0 AND recomputed = 0")
[ "$n" -eq 3 ] && ok || bad "keepall at 1x: $n of 3 rows without overhead"
expect 0 "table --view remat" $BIN table "$R" --view remat
grep -q '^| given+keepall+bysize bw=0 | \*\*0.0%\*\* |' "$T/out" && ok || bad "remat summary: $(head -12 "$T/out")"
expect 0 "plot overhead" $BIN plot overhead "$R" --out "$T/o.png"
# results files that are read only: an empty file is no results file; a WAL
# file in a read-only folder (a read-only mount, when we may make one) reads
: >"$T/empty.sqlite"
for c in "table $T/empty.sqlite --format csv" "export $T/empty.sqlite --format csv" "merge $T/m.sqlite $T/empty.sqlite"; do
  # shellcheck disable=SC2086
  hostile 1 "empty.sqlite: not a memplan results file \(no results table\)" "$c" -- $BIN $c
done
mkdir -p "$T/ro" && cp "$R" "$T/ro/r.sqlite"
if mount --bind "$T/ro" "$T/ro" 2>/dev/null && mount -o remount,ro,bind "$T/ro" 2>/dev/null; then
  $BIN export "$R" --format csv >"$T/rw.csv" 2>&1
  expect 0 "export from a read-only folder" $BIN export "$T/ro/r.sqlite" --format csv
  cmp -s "$T/out" "$T/rw.csv" && ok || bad "export from a read-only folder differs: $(head -c 300 "$T/err")"
  expect 0 "table from a read-only folder" $BIN table "$T/ro/r.sqlite" --view remat
  expect 0 "merge from a read-only folder" $BIN merge "$T/m.sqlite" "$T/ro/r.sqlite"
  umount "$T/ro"
else
  umount "$T/ro" 2>/dev/null
  [ "$(id -u)" -eq 0 ] && bad "no read-only bind mount as root" ||
    echo "cli: no read-only bind mount (not root): skipped reading results from a read-only folder"
fi
# reading a results file changes nothing and leaves no -wal/-shm beside it
mkdir -p "$T/rd" && cp "$R" "$T/rd/r.sqlite" && s0=$(md5sum <"$T/rd/r.sqlite")
$BIN table "$T/rd/r.sqlite" --format csv >/dev/null 2>&1 && $BIN export "$T/rd/r.sqlite" >/dev/null 2>&1 &&
  [ "$(ls "$T/rd")" = r.sqlite ] && [ "$(md5sum <"$T/rd/r.sqlite")" = "$s0" ] && ok ||
  bad "table/export left files or changed the results file: $(ls "$T/rd")"
# an output that is one of the inputs is refused before anything is written
n0=$(sqlite3 "$R" "SELECT count(*) FROM results")
hostile 2 "--out $R is the input $R" "table --out onto its results file" -- $BIN table "$R" --out "$R"
hostile 2 "--out $R is the input $R" "export --out onto its results file" -- $BIN export "$R" --out "$R"
[ "$(sqlite3 "$R" "SELECT count(*) FROM results")" = "$n0" ] && ok || bad "table/export --out replaced the results file"
# a graph written to a full device says why it failed
hostile 1 "/dev/full: write error: No space left on device" "gen onto a full device" -- $BIN gen layered -n 3000 --seed 1 --out /dev/full
hostile 1 "/dev/full: (write error|cannot write): No space left on device" "convert onto a full device" -- $BIN convert graphs/examples/seed_example.json --to nodelink --out /dev/full
# nor the journal files SQLite keeps beside it while a bench writes (they need not exist yet)
hostile 2 "--out $R-wal is the -wal file SQLite keeps beside the input $R" "table --out onto its write-ahead log" -- $BIN table "$R" --out "$R-wal"
hostile 2 "is the -journal file SQLite keeps beside the input" "export --out onto its rollback journal" -- $BIN export "$R" --out "$R-journal"
[ ! -e "$R-wal" ] && [ ! -e "$R-journal" ] && ok || bad "table/export wrote a journal file of their input"
cp graphs/examples/seed_example.json "$T/self.json" && ln -sf self.json "$T/self_link.json"
hostile 2 "--out $T/self.json is the input $T/self.json" "solve --out onto its graph" -- $BIN solve "$T/self.json" --out "$T/self.json"
hostile 2 "--out $T/self_link.json is the input $T/self.json" "solve --out onto a link to its graph" -- $BIN solve "$T/self.json" --out "$T/self_link.json"
cmp -s "$T/self.json" graphs/examples/seed_example.json && ok || bad "solve --out replaced its graph"
# --write-lp with no stage that writes a model is refused, no file made
hostile 2 "no solver of the chain writes an LP model \(those that do: ilp, ilp-place, joint-ilp, remat-ilp\)" "--write-lp without an ILP stage" -- $BIN solve graphs/examples/seed_example.json --order greedy --write-lp "$T/none.lp"
[ ! -e "$T/none.lp" ] && ok || bad "--write-lp without an ILP stage made a file"
# values read exactly and refused with the right reason
hostile 2 "'0x10' for --time-limit: not a number" "a hexadecimal real" -- $BIN solve graphs/examples/seed_example.json --time-limit 0x10
hostile 2 "budget fraction '-0.5' is outside \(0, 1000\]" "a negative budget fraction" -- $BIN solve graphs/examples/seed_example.json --remat dtr --budget-frac -0.5
printf 'id,lower,upper,size\ra,0,5,10\rb,1,3,4\r' >"$T/cr.csv"
hostile 1 "cr.csv:1: a carriage return inside the header: lines must end in LF or CRLF" "a CSV with CR line ends" -- $BIN solve "$T/cr.csv"
expect 0 "solve --remat --out" $BIN solve graphs/synthetic/tiny_tree_n20_s3.json --remat dtr --budget-frac 0.8 --out "$T/dtr.plan"
expect 0 "plot placement of a plan with events" $BIN plot placement graphs/synthetic/tiny_tree_n20_s3.json --plan "$T/dtr.plan" --out "$T/pl.png"
expect 0 "plot profile of a plan with events" $BIN plot profile graphs/synthetic/tiny_tree_n20_s3.json --order given --plan "$T/dtr.plan" --out "$T/pr.png"
# large pictures stay small: the profile reduced per pixel column, the
# placement's 30,000 rectangles one embedded bitmap (as vectors: about 12 MB)
expect 0 "gen layered 30000" $BIN gen layered -n 30000 --seed 1 --out "$T/big.json"
expect 0 "plot profile, 30000 steps" $BIN plot profile "$T/big.json" --order given --order greedy --out "$T/big_pr.svg"
sz=$(wc -c < "$T/big_pr.svg")
[ "$sz" -lt 800000 ] && ok || bad "profile of 30000 steps: $sz bytes"
expect 0 "plot placement, 30000 buffers" $BIN plot placement "$T/big.json" --order greedy --place firstfit --out "$T/big_pl.svg"
sz=$(wc -c < "$T/big_pl.svg")
[ "$sz" -lt 4000000 ] && [ "$(grep -c '<image' "$T/big_pl.svg")" -eq 1 ] && ok ||
  bad "placement of 30000 buffers: $sz bytes, $(grep -c '<image' "$T/big_pl.svg") images"
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
# a run that is the baseline's own (file order + the baseline placer) takes
# its arena as the baseline instead of placing twice: the same given_arena as
# a run that computes it apart (within a time limit that does not cut it)
for f in $S graphs/synthetic/layered_n100_s1.json graphs/minimalloc/challenging/K.1048576.csv; do
  ga=$($BIN solve "$f" --format json | sed -n 's/.*"given_arena": \([0-9]*\).*/\1/p')
  ar=$($BIN solve "$f" --format json | sed -n 's/.*"arena": \([0-9]*\).*/\1/p')
  gb=$($BIN solve "$f" --place bysize-ff --time-limit 60 --format json | sed -n 's/.*"given_arena": \([0-9]*\).*/\1/p')
  [ -n "$ga" ] && [ "$ga" = "$ar" ] && [ "$ga" = "$gb" ] && ok || bad "self baseline of $f: $ga $ar $gb"
done
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
sed 's/^\( *\)"remat_status": "optimal",/\1"remat_status": "soon",/' "$T/r.plan" >"$T/rs.plan"
expect 1 "remat: remat_status soon" $BIN verify "$L" "$T/rs.plan"
grep -q 'remat_status: "soon" is not a status' "$T/err" && ok || bad "remat_status soon: $(cat "$T/err")"
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
# verify reads the big members ("events", "order", "offsets") one element at
# a time, with the messages and the duplicate keys of a whole-file parse:
# the last of two equal keys counts, and a syntax error anywhere wins
verr() { # verr 'the whole message' DESCRIPTION PLAN: exit 1, stderr exactly that
  expect 1 "$2" $BIN verify "$L" "$3"
  [ "$(cat "$T/err")" = "memplan verify: $1" ] && ok || bad "$2: $(head -c 300 "$T/err")"
}
# lines counted from the "offsets" (O) and "events" (E) members
O=$(grep -n '^ "offsets": {' "$T/r.plan" | cut -d: -f1)
E=$(grep -n '^ "events": \[' "$T/r.plan" | cut -d: -f1)
{ head -n $((E + 46)) "$T/r.plan"; printf '   "fr'; } >"$T/s1.plan"
verr "$T/s1.plan:$((E + 47)): not valid JSON: premature end of input near '\"fr'" "stream: a truncated plan" "$T/s1.plan"
sed "$((E + 7))s/\"0\"/\"0\" \"1\"/" "$T/r.plan" >"$T/s2.plan"
verr "$T/s2.plan:$((E + 7)): not valid JSON: ']' expected near '\"1\"'" "stream: a syntax error in an event" "$T/s2.plan"
sed -e "$((E + 2))s/\"run\"/\"walk\"/" -e "$((E + 134))s/\"free\",/\"free\" /" "$T/r.plan" >"$T/s3.plan"
verr "$T/s3.plan:$((E + 135)): not valid JSON: ']' expected near '\"16\"'" "stream: a later syntax error wins" "$T/s3.plan"
sed "$((E + 2))s/\"run\"/\"walk\"/" "$T/r.plan" >"$T/s4.plan"
verr "$T/s4.plan: events[0]: unknown event \"walk\" (run, free, out, in)" "stream: a bad event" "$T/s4.plan"
sed "$((O + 2))s/64/\"64\"/" "$T/r.plan" >"$T/s5.plan"
verr "$T/s5.plan: residency 1 has no integer offset" "stream: a bad offset member" "$T/s5.plan"
sed "$((O + 2))s/\$/\\n  \"1\": \"x\",/" "$T/r.plan" >"$T/s6.plan"
verr "$T/s6.plan: residency 1 has no integer offset" "stream: a bad offset given last" "$T/s6.plan"
sed "$((O + 2))s/^/  \"1\": \"x\",\\n/" "$T/r.plan" >"$T/s7.plan"
expect 0 "stream: a bad offset given first" $BIN verify "$L" "$T/s7.plan"
sed 's/^ "budget": 100,/&\n "budget": 99,/' "$T/r.plan" >"$T/s8.plan"
verr "$T/s8.plan: the plan is over its budget: live peak 100 > budget 99" "stream: a top-level key twice" "$T/s8.plan"
sed 's/^ "budget": 100,/ "budget": 99,\n&/' "$T/r.plan" >"$T/s9.plan"
expect 0 "stream: a top-level key twice, the right one last" $BIN verify "$L" "$T/s9.plan"
# a plan of an order: "J:0" names J's only output, "J" beside it and "01"
# (a key that names nothing) are refused, naming the key
sed 's/^  "1": /  "1:0": /' "$T/plan.json" >"$T/s10.plan"
expect 0 "stream: an offset under J:0" $BIN verify "$T/g.json" "$T/s10.plan"
sed 's/^  "1": \(.*\)/  "1:0": \1\n  "1": "x",/' "$T/plan.json" >"$T/s11.plan"
expect 1 "stream: J beside J:0" $BIN verify "$T/g.json" "$T/s11.plan"
[ "$(cat "$T/err")" = "memplan verify: $T/s11.plan: offsets: keys \"1\" and \"1:0\" both name buffer 1" ] && ok ||
  bad "J beside J:0: $(cat "$T/err")"
sed 's/^  "1": \(.*\)/  "1": \1\n  "01": "x",\n  "1:00": "x",/' "$T/plan.json" >"$T/s12.plan"
expect 1 "stream: keys that name no buffer" $BIN verify "$T/g.json" "$T/s12.plan"
grep -q 'offsets: key "01" names no buffer' "$T/err" && ok || bad "key 01: $(cat "$T/err")"
# an event plan likewise: "J:0" and "J:0@k" name the residencies of J's only
# output; "J" beside "J:0" is refused, and so are "0:00@4" and "01@4"
$BIN solve graphs/examples/seed_example.json --remat dtr --budget-frac 0.6 --place firstfit --out "$T/e0.plan" >/dev/null 2>&1
grep -q '^  "0@4": ' "$T/e0.plan" && ok || bad "seed_example dtr plan lacks residency 0@4"
sed -e 's/^  "0@4": /  "0:0@4": /' -e 's/^  "1": /  "1:0": /' "$T/e0.plan" >"$T/e1.plan"
expect 0 "events: offsets under J:0 and J:0@k" $BIN verify graphs/examples/seed_example.json "$T/e1.plan"
sed 's/^  "0@4": \(.*\)/  "0:0@4": \1\n  "0@4": "x",/' "$T/e0.plan" >"$T/e2.plan"
expect 1 "events: J@k beside J:0@k" $BIN verify graphs/examples/seed_example.json "$T/e2.plan"
grep -q 'offsets: key "0@4" names a residency that another key' "$T/err" && ok || bad "J@k beside J:0@k: $(cat "$T/err")"
sed 's/^  "0@4": \(.*\)/  "0@4": \1\n  "0:00@4": "x",\n  "01@4": "x",\n  "2:0": "x",/' "$T/e0.plan" >"$T/e3.plan"
expect 1 "events: keys that name nothing" $BIN verify graphs/examples/seed_example.json "$T/e3.plan"
grep -q 'offsets: key "0:00@4" names no residency' "$T/err" && ok || bad "key 0:00@4: $(cat "$T/err")"
# dtr's index finds the very victim a scan of every resident buffer finds:
# the same plan with --set dtr.scan=1, on training steps that evict and
# recompute again and again (the second and third split a class of evicted
# neighbours before dtr's union-find kept classes whole)
for spec in "randwire 300 3 0.3" "tree 300 1 0.3" "randwire 300 1 0.2"; do
  read -r fam n seed frac <<SPEC
$spec
SPEC
  $BIN gen "$fam" -n "$n" --backward --seed "$seed" --out "$T/dx.json"
  for scan in 0 1; do
    $BIN solve "$T/dx.json" --order given --remat dtr --place firstfit --budget-frac "$frac" \
      --set dtr.scan=$scan --no-baseline --format json --out "$T/dx$scan.plan" >/dev/null 2>&1
    grep -vE '_ms"|"(time|wall|seconds|version)' "$T/dx$scan.plan" >"$T/dx$scan.txt" 2>/dev/null
  done
  [ -s "$T/dx0.txt" ] && cmp -s "$T/dx0.txt" "$T/dx1.txt" && ok || bad "dtr: the index's plan is not the scan's ($spec)"
done
# --verbose: the solvers' progress goes to stderr, the figures stay on
# stdout; the packer's counts on five buffers worked out by hand (d and e
# each find one gap, [8,14) then [11,14); x, born last but placed second,
# keeps the sequence off the birth-order sweep)
printf 'id,lower,upper,size\na,0,10,8\nx,12,14,7\nb,0,4,6\nc,0,10,4\nd,5,10,3\ne,5,10,1\n' >"$T/v.csv"
expect 0 "--verbose bysize" $BIN solve "$T/v.csv" --place bysize --no-baseline --verbose --format json --out "$T/v.plan"
grep -q "bysize: 6 items placed through the lifetime index; it listed 8 placed items live with them (1.3 per item), whose spans leave 2 gaps below their top (0.3 per item), 2 of them at least the item's size (0.3 per item)" "$T/err" &&
  grep -q '"arena": 18' "$T/out" && grep -q '^d,5,10,3,8$' "$T/v.plan" && grep -q '^e,5,10,1,11$' "$T/v.plan" && ok ||
  bad "--verbose bysize counts: $(cat "$T/err") $(cat "$T/v.plan")"
expect 0 "--verbose firstfit" $BIN solve "$T/v.csv" --place firstfit --no-baseline --verbose
[ ! -s "$T/err" ] && ok || bad "--verbose firstfit printed: $(cat "$T/err")"
expect 0 "--verbose ilp" $BIN solve graphs/examples/seed_example.json --order ilp --verbose --no-baseline --format json
grep -q "mip = " "$T/err" && /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" && ok ||
  bad "--verbose ilp: GLPK's log not on stderr or stdout not JSON: $(head -c 300 "$T/out")"

# ---- the command-line layer: outputs guarded before any work, empty list
# items refused, messages that say what is wrong; files written before a
# failed run keep their bytes ----
C10=graphs/synthetic/tiny_chain_n10_s1.json
L20=graphs/synthetic/tiny_layered_n20_inplace_s1.json
A="$T/args"; mkdir -p "$A/lpdir" "$A/dir.svg"
same() { # same FILE SUM DESCRIPTION: FILE still has the md5 SUM
  [ "$(md5sum <"$1")" = "$2" ] && ok || bad "$3: $1 was changed: $(head -c 100 "$1")"
}
cp "$C10" "$A/c10.json"; s_in=$(md5sum <"$A/c10.json")
hostile 2 "--write-lp $A/c10.json is the input $A/c10.json" "--write-lp onto the input" -- $BIN solve "$A/c10.json" --order ilp --write-lp "$A/c10.json"
same "$A/c10.json" "$s_in" "--write-lp onto the input"
ln -s c10.json "$A/c10_link.json"
hostile 2 "--write-lp $A/c10_link.json is the input" "--write-lp onto a link to the input" -- $BIN solve "$A/c10.json" --order ilp --write-lp "$A/c10_link.json"
same "$A/c10.json" "$s_in" "--write-lp onto a link to the input"
hostile 2 "--write-lp $A/lpdir is a directory" "--write-lp a directory (before solving)" -- $BIN solve "$C10" --order ilp --write-lp "$A/lpdir"
[ -z "$(ls "$A/lpdir")" ] && [ ! -s "$T/out" ] && ok || bad "--write-lp a directory: something solved or written"
hostile 2 "--out $A/one.out and --write-lp $A/./one.out name the same file" "--write-lp and --out one new file" -- $BIN solve "$C10" --order ilp --out "$A/one.out" --write-lp "$A/./one.out"
[ ! -e "$A/one.out" ] && ok || bad "--write-lp and --out one new file: it was made"
echo old >"$A/one.out"; s_one=$(md5sum <"$A/one.out")
hostile 2 "name the same file" "--write-lp and --out one existing file" -- $BIN solve "$C10" --order ilp --out "$A/one.out" --write-lp "$A/one.out"
same "$A/one.out" "$s_one" "--write-lp and --out one existing file"
echo old >"$A/two.lp"; s_two=$(md5sum <"$A/two.lp")
hostile 2 "--write-lp $A/two.lp: 2 stages of the chain write an LP model \(ilp, ilp-place\)" "--write-lp with two model-writing stages" -- $BIN solve "$C10" --order ilp --place ilp-place --write-lp "$A/two.lp"
same "$A/two.lp" "$s_two" "--write-lp with two model-writing stages"
# plot: every --out checked before drawing, all written or none changed
echo old >"$A/keep.svg"; s_keep=$(md5sum <"$A/keep.svg")
hostile 2 "x.txt: the extension must be .svg, .png or .pdf" "plot: a bad extension after a good --out" -- $BIN plot profile "$C10" --out "$A/keep.svg" --out "$A/x.txt"
same "$A/keep.svg" "$s_keep" "plot: a bad extension after a good --out"
hostile 2 "$A/missing/x.svg: its folder .* is missing" "plot: --out into a missing folder after a good one (refused before the solvers run)" -- $BIN plot profile "$C10" --out "$A/keep.svg" --out "$A/missing/x.svg"
same "$A/keep.svg" "$s_keep" "plot: --out into a missing folder after a good one"
hostile 2 "$A/dir.svg is a directory" "plot: --out a directory after a good one" -- $BIN plot pareto tests/data/bench_results.csv --graph g2 --out "$A/keep.svg" --out "$A/dir.svg"
same "$A/keep.svg" "$s_keep" "plot: --out a directory after a good one"
expect 0 "plot: three outputs" $BIN plot profile "$C10" --out "$A/keep.svg" --out "$A/k.png" --out "$A/k.pdf"
grep -q '<svg' "$A/keep.svg" && head -c 4 "$A/k.png" | grep -q PNG && head -c 5 "$A/k.pdf" | grep -q '%PDF' &&
  [ "$(ls "$A" | grep -c tmp)" = 0 ] && ok || bad "plot: three outputs not all written (or a temporary left): $(ls "$A")"
s_keep=$(md5sum <"$A/keep.svg")
# an empty item of a comma list is a usage error naming the option, never dropped
for o in "greedy,,dp:2" "greedy,:2" ",greedy:1" ",:1" "greedy, ,dp:2"; do
  hostile 2 "--order '${o%:*}': item ${o##*:} is empty" "solve --order '${o%:*}'" -- $BIN solve "$L20" --order "${o%:*}"
done
hostile 2 "--place 'bysize,': item 2 is empty" "solve --place 'bysize,'" -- $BIN solve "$L20" --place "bysize,"
hostile 2 "--remat 'keepall,': item 2 is empty" "solve --remat 'keepall,'" -- $BIN solve "$L20" --remat "keepall," --budget-frac 1
hostile 2 "--order 'greedy,': item 2 is empty" "plot --order 'greedy,'" -- $BIN plot profile "$L20" --order "greedy," --out "$A/keep.svg"
same "$A/keep.svg" "$s_keep" "plot --order 'greedy,'"
hostile 2 "unknown solver 'nosuch'" "plot --place nosuch (before running)" -- $BIN plot placement "$L20" --order greedy --place nosuch --out "$A/keep.svg"
# placement draws one plan, or one order chain placed by one placer: a second
# --order or --place, or a plan with them, would be dropped unseen
hostile 2 "placement draws one plan or one --order chain" "plot placement --order twice" -- $BIN plot placement "$L20" --order greedy --order bfs --place firstfit --out "$A/keep.svg"
hostile 2 "--place given twice" "plot placement --place twice" -- $BIN plot placement "$L20" --order greedy --place firstfit --place bysize --out "$A/keep.svg"
$BIN solve "$L20" --out "$A/l20.plan" >/dev/null 2>&1
hostile 2 "placement draws one plan or one --order chain" "plot placement --plan with --order" -- $BIN plot placement "$L20" --plan "$A/l20.plan" --order greedy --out "$A/keep.svg"
hostile 2 "placement draws one plan or one --order chain" "plot placement --plan with --place" -- $BIN plot placement "$L20" --plan "$A/l20.plan" --place firstfit --out "$A/keep.svg"
same "$A/keep.svg" "$s_keep" "plot placement refused"
expect 0 "plot placement --plan" $BIN plot placement "$L20" --plan "$A/l20.plan" --out "$A/pp.svg"
hostile 2 "'bysize' decides offsets, not an order" "plot --order bysize (resolved as solve resolves it, before running)" -- $BIN plot profile "$L20" --order bysize --out "$A/keep.svg"
hostile 2 "--order 'greedy,': item 2 is empty" "bench --order 'greedy,'" -- $BIN bench --graphs "$C10" --order "greedy," --list
hostile 2 "--place ',bysize': item 1 is empty" "bench --place ',bysize'" -- $BIN bench --graphs "$C10" --place ",bysize" --list
hostile 2 "--budgets '0.8x,,0.9x': item 2 is empty" "bench --budgets 0.8x,,0.9x" -- $BIN bench --graphs "$C10" --remat keepall --budgets 0.8x,,0.9x --list
hostile 2 "--seeds '1,,2': item 2 is empty" "bench --seeds 1,,2" -- $BIN bench --graphs "$C10" --seeds 1,,2 --list
hostile 2 "--time-limit '0,,1': item 2 is empty" "bench --time-limit 0,,1" -- $BIN bench --graphs "$C10" --time-limit 0,,1 --list
hostile 2 "--graphs '$C10,': item 2 is empty" "bench --graphs 'G,'" -- $BIN bench --graphs "$C10," --list
hostile 2 "--bandwidth '0,': item 2 is empty" "bench --bandwidth '0,'" -- $BIN bench --graphs "$C10" --remat keepall --budgets 0.8x --bandwidth "0," --list
hostile 2 "--budgets '': an empty list" "bench --budgets ''" -- $BIN bench --graphs "$C10" --remat keepall --budgets "" --list
printf '{"graphs":["%s"],"order":["greedy,"]}' "$PWD/$C10" >"$A/e.exp.json"
hostile 1 "\"order\" chain 'greedy,': item 2 is empty" "experiment order 'greedy,'" -- $BIN bench "$A/e.exp.json" --list
expect 0 "bench --order greedy,dp (a chain still one cell)" $BIN bench --graphs "$C10" --order greedy,dp --seeds 1,2 --list
[ "$(cut -f2 "$T/out" | sort -u)" = "greedy,dp" ] && [ "$(wc -l <"$T/out")" = 2 ] && ok || bad "bench --order greedy,dp --seeds 1,2: $(cat "$T/out")"
# --budget-frac: the real rule (at most 30 decimal places), not 'outside (0, 1000]'
hostile 2 "budget fraction '1e-300' has more than 30 decimal places" "--budget-frac 1e-300" -- $BIN solve "$C10" --remat keepall --budget-frac 1e-300
grep -q "outside" "$T/err" && bad "--budget-frac 1e-300 still says outside: $(cat "$T/err")" || ok
hostile 2 "budget fraction '1001' is outside \(0, 1000\]" "--budget-frac 1001" -- $BIN solve "$C10" --remat keepall --budget-frac 1001
# table --graph that matches nothing: exit 2 as --solver, the --out file kept
echo old >"$A/t.md"; s_t=$(md5sum <"$A/t.md")
hostile 2 "--graph 'nosuch': no such graph in the results" "table --graph nosuch" -- $BIN table tests/data/bench_results.csv --graph nosuch --out "$A/t.md"
same "$A/t.md" "$s_t" "table --graph nosuch"
expect 0 "table --graph g2" $BIN table tests/data/bench_results.csv --graph g2 --brief
# --within 0 and --max-overhead 0 are refused (0 was taken as the default, 1% and 20%)
hostile 2 "bad value '0' for --within \(a percentage above 0" "table --within 0" -- $BIN table tests/data/bench_results.csv --view pivot --within 0
hostile 2 "bad value '0' for --max-overhead" "plot overhead --max-overhead 0" -- $BIN plot overhead tests/data/bench_results.csv --max-overhead 0 --out "$A/o.svg"
expect 0 "table --within 0.001" $BIN table tests/data/bench_results.csv --view pivot --within 0.001
$BIN table --help | grep -q "PCT % of the bound" && ok || bad "table --help: PCT % of the bound (it printed %%)"

# ---- readers: a results CSV with a column missing, a bad value or cut
# short; costs summing to infinity; plan offsets that name no buffer; a
# plan or results file that is missing or a directory ----
RC="$T/rcsv"; mkdir -p "$RC"
src=tests/data/bench_results.csv
dropcol() { # dropcol NAME OUT: the fixture without column NAME (it has no quotes)
  awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i }
    { s = ""; sep = ""; for (i = 1; i <= NF; i++) if (i != k) { s = s sep $i; sep = "," }; print s }' "$src" >"$2"
}
for c in arena live_peak graph order_solver; do
  dropcol "$c" "$RC/no_$c.csv"
  head -1 "$RC/no_$c.csv" | tr , '\n' | grep -qx "$c" && bad "dropcol $c" || ok
  hostile 1 "no_$c.csv:1: no column $c" "results CSV without $c: table" -- $BIN table "$RC/no_$c.csv"
  hostile 1 "no_$c.csv:1: no column $c" "results CSV without $c: export" -- $BIN export "$RC/no_$c.csv" --out "$RC/x.csv"
  [ ! -e "$RC/x.csv" ] && ok || bad "export of a CSV without $c wrote a file"
done
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "live_peak") k = i } NR == 3 { $k = "abc" } { print }' "$src" >"$RC/abc.csv"
hostile 1 "abc.csv:3: column live_peak: 'abc' is not an integer" "a live peak 'abc'" -- $BIN table "$RC/abc.csv"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") k = i } NR == 3 { $k = "bogus" } { print }' "$src" >"$RC/bogus.csv"
hostile 1 "bogus.csv:3: column status: 'bogus' is not a status \(optimal, feasible, infeasible, timeout, error, refused\)" "a status 'bogus'" -- $BIN table "$RC/bogus.csv"
head -c 500 "$src" >"$RC/cut.csv"
hostile 1 "cut.csv:1: the header is cut short" "a CSV cut in its header" -- $BIN table "$RC/cut.csv"
head -c "$(($(head -3 "$src" | wc -c) - 5))" "$src" >"$RC/cutrow.csv"
hostile 1 "cutrow.csv:3: " "a CSV cut in a row" -- $BIN table "$RC/cutrow.csv"
# a row repeated by hand (or a row of the same cell with other figures) would
# count twice in every median and win count: refused, naming both lines
{ cat "$src"; sed -n 2p "$src"; } >"$RC/duprow.csv"
n=$(wc -l <"$src")
hostile 1 "duprow.csv:$((n + 1)): the same cell as line 2" "a results CSV with a row repeated" -- $BIN table "$RC/duprow.csv"
hostile 1 "duprow.csv:$((n + 1)): the same cell as line 2" "export of a results CSV with a row repeated" -- $BIN export "$RC/duprow.csv" --out "$RC/x.csv"
[ ! -e "$RC/x.csv" ] && ok || bad "export of a CSV with a repeated row wrote a file"
expect 0 "the same CSV twice is two sources, not a repeat" $BIN table "$src" "$src"
mkdir -p "$RC/dir.csv"
hostile 1 "dir.csv: is a directory" "a results CSV that is a directory" -- $BIN table "$RC/dir.csv"
# the committed results and a CSV with only the columns of the first writer read
expect 0 "table results/default.csv" $BIN table results/default.csv
cut -d, -f1-32 "$src" >"$RC/first.csv"
expect 0 "a results CSV of the first writer's columns" $BIN table "$RC/first.csv"
printf '{"nodes":[{"id":0,"op":"input","size":100,"inputs":[]},{"id":1,"size":200,"cost":1e308,"inputs":[0]},{"id":2,"size":50,"cost":1e308,"inputs":[1]},{"id":3,"size":50,"cost":1e308,"inputs":[2]}]}' >"$RC/costbig.json"
hostile 1 "costbig.json: node 1: cost .*beyond 2\^60" "costs summing to infinity" -- $BIN solve "$RC/costbig.json" --remat keepall --budget-frac 1
L20=graphs/synthetic/tiny_layered_n20_inplace_s1.json
expect 0 "solve l20 --out" $BIN solve $L20 --out "$RC/l20.plan.json"
for k in 999 ws:3 5:0 ' 5' 05; do
  /usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["offsets"][sys.argv[2]]=0; json.dump(p,open(sys.argv[3],"w"))' \
    "$RC/l20.plan.json" "$k" "$RC/k.plan.json"
  hostile 1 "offsets: key.* \"$k\"" "an offset under '$k'" -- $BIN verify $L20 "$RC/k.plan.json"
done
TT=graphs/synthetic/tiny_tree_n20_s3.json
expect 0 "solve --remat dtr --out" $BIN solve $TT --remat dtr --budget-frac 0.8 --out "$RC/ev.plan.json"
for k in 999 3@999 ws:1@4 05; do
  /usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["offsets"][sys.argv[2]]=0; json.dump(p,open(sys.argv[3],"w"))' \
    "$RC/ev.plan.json" "$k" "$RC/k.plan.json"
  hostile 1 "offsets: key \"$k\" names no residency" "an event plan's offset under '$k'" -- $BIN verify $TT "$RC/k.plan.json"
done
hostile 1 "none.json: cannot open: No such file" "verify a missing plan" -- $BIN verify $L20 "$RC/none.json"
grep -q -- ":-1:" "$T/err" && bad "a missing plan: line -1" || ok
mkdir -p "$RC/pdir"
hostile 1 "pdir: is a directory" "verify a plan that is a directory" -- $BIN verify $L20 "$RC/pdir"
# ---- bench cell keys: -0 is 0 (one cell, its row found again); an
# experiment file naming a key twice is refused, as a graph file is ----
BK="$T/bkeys"; mkdir -p "$BK"
printf '{"name":"e10","graphs":["%s"],"time_limits":[-0.0, 0]}' "$PWD/$C10" >"$BK/e10.json"
expect 0 "bench time_limits [-0.0, 0] --list" $BIN bench "$BK/e10.json" --list
[ "$(cut -f5 "$T/out")" = 0 ] && ok || bad "time_limits [-0.0, 0]: not one cell of limit 0: $(cat "$T/out")"
for tl in -0 0,-0 -0.0,0; do
  expect 0 "bench --time-limit $tl --list" $BIN bench --graphs "$C10" --time-limit "$tl" --list
  [ "$(cut -f5 "$T/out")" = 0 ] && ok || bad "--time-limit $tl: not one cell of limit 0: $(cat "$T/out")"
done
expect 0 "bench --bandwidth 0,-0 --list" $BIN bench --graphs "$C10" --remat keepall --budgets 0.8x --bandwidth 0,-0 --list
[ "$(cut -f9 "$T/out")" = 0 ] && ok || bad "--bandwidth 0,-0: not one cell of bandwidth 0: $(cat "$T/out")"
expect 0 "bench e10.json (first run)" $BIN bench "$BK/e10.json" --results "$BK/r.sqlite" --quiet --mem-limit 0
expect 0 "bench e10.json (second run)" $BIN bench "$BK/e10.json" --results "$BK/r.sqlite" --quiet --mem-limit 0
grep -q "1 cells.*1 already done, 0 run" "$T/out" && ok || bad "e10.json again: not all done before: $(cat "$T/out")"
grep -q "another" "$T/out" && bad "e10.json again: credits another process: $(cat "$T/out")" || ok
printf '{"name":"first","name":"second","graphs":["%s"],"order":["greedy"],"order":["dfs"]}' "$PWD/$C10" >"$BK/dup.json"
hostile 1 "dup.json:1: duplicate object key near '\"name\"'" "experiment file with a key twice" -- $BIN bench "$BK/dup.json" --list
[ -s "$T/out" ] && bad "experiment file with a key twice: cells listed: $(cat "$T/out")" || ok
printf '{"graphs":["%s"],"remat":[{"chain":"keepall","budgets":["0.8x"],"budgets":["0.9x"]}]}' "$PWD/$C10" >"$BK/dup2.json"
hostile 1 "dup2.json:1: duplicate object key near '\"budgets\"'" "experiment remat entry with a key twice" -- $BIN bench "$BK/dup2.json" --list
# ---- hostile command lines (a black-box review of every option) ----
HC="$T/hostile"; mkdir -p "$HC"
# a WS rewiring probability below 1e-9: igraph's geometric skip overflowed
# (SIGSEGV at 1e-20) or never returned (1e-300)
for p in 1e-20 1e-300; do
  hostile 2 "-p $p is below 1e-9" "gen randwire -p $p" -- timeout 20 $BIN gen randwire -p $p --out "$HC/ws.json"
  [ -e "$HC/ws.json" ] && bad "gen randwire -p $p: a file was written" || ok
done
expect 0 "gen randwire -p 1e-9" $BIN gen randwire -n 8 -p 1e-9
# bench reads its numbers as solve does: no hexadecimal, no blanks around a
# single number, seeds within solve's 64-bit range (every cell used to fail)
for a in "--repeat|0x10" "--repeat| 5" "--mem-limit|0x10" "--grace|0x10" "--time-limit|0x10" \
    "--seeds|9223372036854775808"; do
  f=${a%%|*}; v=${a#*|}
  hostile 2 "bad value '$v' for $f" "bench $f '$v'" -- $BIN bench --graphs "$T/g.json" "$f" "$v" --list
done
hostile 2 "bandwidth '0x10'" "bench --bandwidth 0x10" -- $BIN bench --graphs "$T/g.json" --remat keepall --budgets 1x --bandwidth 0x10 --list
# bench: an unknown option last on the line said "--nosuch needs a value"
hostile 2 "unknown option '--nosuch'" "bench --nosuch (last)" -- $BIN bench --graphs "$T/g.json" --list --nosuch
# bench --memplan that cannot run: refused before the results file is made
# (it was left behind, empty); a directory passed access(X_OK)
for prog in "$HC/none" "$HC"; do
  hostile 1 "$prog: not an executable file" "bench --memplan $prog" -- $BIN bench --graphs "$T/g.json" --results "$HC/m.sqlite" --memplan "$prog" --quiet
  [ -e "$HC/m.sqlite" ] && bad "bench --memplan $prog: a results file was made" || ok
done
# table --metric is checked whatever the view, before a line is printed (a
# typo was ignored outside pivot, and pivot printed its notes first)
for view in both pivot; do
  hostile 2 "unknown --metric 'xx'" "table --view $view --metric xx" -- $BIN table tests/data/bench_results.csv --view $view --metric xx
  [ -s "$T/out" ] && bad "table --view $view --metric xx: printed before the error" || ok
done
# solve --out that can never be written is refused before solving (it used
# to solve, print the figures, then fail), as --write-lp is
for o in "" "$HC/missing/x.plan" "$T/g.json/x.plan" "$HC/"; do
  hostile 2 "--out $o" "solve --out '$o' (before solving)" -- $BIN solve "$T/g.json" --out "$o"
  [ -s "$T/out" ] && bad "solve --out '$o': solved before refusing" || ok
done
# convert --out the input is refused as solve's is (it replaced the input)
cp "$T/g.json" "$HC/c.json"
hostile 2 "--out $HC/c.json is the input" "convert --out the input" -- $BIN convert "$HC/c.json" --to nodelink --out "$HC/c.json"
cmp -s "$T/g.json" "$HC/c.json" && ok || bad "convert --out the input: the input was replaced"
hostile 2 "its folder $HC/missing is missing" "convert --out in a missing folder" -- $BIN convert "$HC/c.json" --to nodelink --out "$HC/missing/c.json"
# bench of a missing experiment file or a directory: no "line -1"
hostile 1 "$HC/none.json: cannot open: No such file" "bench a missing experiment" -- $BIN bench "$HC/none.json" --list
grep -q -- ":-1:" "$T/err" && bad "bench a missing experiment: line -1" || ok
hostile 1 "$HC: is a directory" "bench a directory as experiment" -- $BIN bench "$HC" --list
# gen: sizes whose product is too large name the figures and the cap
hostile 2 "--channels x --resolution\\^2 x --batch x --dtype-bytes x [0-9]+ = .* over 2\\^50" "gen randwire huge tensors" -- \
  $BIN gen randwire -n 8 --channels 1048576 --resolution 65536 --batch 65536 --dtype-bytes 64
# gen, export, table and merge refuse an output that cannot be written
# before the work, as solve does; merge takes no options ("merge --out F IN"
# made a results file named --out)
hostile 2 "gen: --out $HC/missing/g.json: its folder" "gen --out in a missing folder" -- $BIN gen chain --out "$HC/missing/g.json"
[ -s "$T/out" ] && bad "gen --out in a missing folder: wrote the graph to stdout" || ok
hostile 2 "export: --out $HC is a directory" "export --out a directory" -- $BIN export tests/data/bench_results.csv --out "$HC"
hostile 2 "table: --out '': an empty file name" "table --out ''" -- $BIN table tests/data/bench_results.csv --out ""
BR="$HC/r.sqlite"
expect 0 "bench for merge" $BIN bench --graphs "$T/g.json" --results "$BR" --quiet
case $BIN in /*) AB=$BIN ;; *) AB=$PWD/$BIN ;; esac
(cd "$HC" && "$AB" merge --out "$BR" >/dev/null 2>"$T/err"; echo $? >"$T/rc")
[ "$(cat "$T/rc")" = 2 ] && grep -q "unknown option '--out'" "$T/err" && ok || bad "merge --out: exit $(cat "$T/rc"): $(cat "$T/err")"
[ -e "$HC/--out" ] && bad "merge --out: made a file named --out" || ok
hostile 2 "merge: OUT $HC/missing/m.sqlite: its folder" "merge into a missing folder" -- $BIN merge "$HC/missing/m.sqlite" "$BR"
# bench --shard: each side read exactly (strtol took blanks: " 0/2", "0/ 2")
for sh in " 0/2" "0/ 2" "0/0" "3/2" "-1/2" "1/0"; do
  hostile 2 "--shard takes i/N" "bench --shard '$sh'" -- $BIN bench --graphs "$T/g.json" --shard "$sh" --list
done
# solve --order/--place/--remat given twice is refused: the second replaced
# the first (meant as a chain, greedy was silently not run)
for f in --order --place; do
  v1=greedy; v2=dfs; [ $f = --place ] && v1=firstfit && v2=bysize
  hostile 2 "$f given twice \\('$v1', '$v2'\\)" "solve $f twice" -- $BIN solve "$T/g.json" $f $v1 $f $v2
done
hostile 2 "--version takes no argument \\(got 'x'\\)" "--version x" -- $BIN --version x
# every other option with one value, given twice, is refused too: the second
# replaced the first without a word (a budget, a seed, the plan's file, the
# results file of a bench); the repeatable ones (--set, bench's chains,
# table's --solver, plot's --out) still repeat
cp "$T/g.json" "$HC/twice.json"
rm -f "$HC/twice_a.plan" "$HC/twice_b.plan"
hostile 2 "--out given twice \\('$HC/twice_a.plan', '$HC/twice_b.plan'\\)" "solve --out twice" -- \
  $BIN solve "$HC/twice.json" --out "$HC/twice_a.plan" --out="$HC/twice_b.plan"
[ -e "$HC/twice_a.plan" ] || [ -e "$HC/twice_b.plan" ] && bad "solve --out twice wrote a plan" || ok
hostile 2 "--budget given twice \\('400', '500'\\)" "solve --budget twice" -- \
  $BIN solve "$HC/twice.json" --remat keepall --budget 400 --budget 500
hostile 2 "--seed given twice" "solve --seed twice" -- $BIN solve "$HC/twice.json" --seed 1 --seed 1
hostile 2 "--time-limit given twice" "solve --time-limit twice" -- $BIN solve "$HC/twice.json" --time-limit 1 --time-limit=2
expect 0 "solve --set twice (two options)" $BIN solve "$HC/twice.json" --order sa --set sa.iters=10 --set sa.restarts=1
# one solver option set twice, by name or by its solver's name: the same
hostile 2 "option sa.iters given twice \\('iters=10', 'sa.iters=20'\\)" "solve --set one option twice" -- \
  $BIN solve "$HC/twice.json" --order sa --set iters=10 --set sa.iters=20
hostile 2 "option sa.iters given twice" "bench --set one option twice" -- \
  $BIN bench --graphs "$HC/twice.json" --order sa --set iters=10 --set sa.iters=20 --list
hostile 2 "--to given twice" "convert --to twice" -- $BIN convert "$HC/twice.json" --to json --to nodelink
hostile 2 "--seed given twice" "gen --seed twice" -- $BIN gen chain -n 5 --seed 1 --seed 2
hostile 2 "--align given twice" "verify --align twice" -- $BIN verify "$HC/twice.json" "$HC/twice.json" --align 64 --align 128
hostile 2 "--format given twice" "info --format twice" -- $BIN info "$HC/twice.json" --format json --format text
hostile 2 "--results given twice" "bench --results twice" -- \
  $BIN bench --graphs "$HC/twice.json" --results "$HC/ta.sqlite" --results "$HC/tb.sqlite" --list
expect 0 "bench --order twice (two chains)" $BIN bench --graphs "$HC/twice.json" --order given --order greedy --list
hostile 2 "--out given twice" "table --out twice" -- $BIN table tests/data/bench_results.csv --out "$HC/ta.md" --out "$HC/tb.md"
hostile 2 "--out given twice" "export --out twice" -- $BIN export tests/data/bench_results.csv --out "$HC/ta.csv" --out "$HC/tb.csv"
# an output name of 246-255 bytes is a legal name, but `NAME.tmp.PID` is
# not: its temporary name is cut to fit (numbered: plot's two long names
# that differ only at the end stay apart), and nothing else is left
LN=$(printf '%0250d' 0)
expect 0 "solve --out with a 255-byte name" $BIN solve "$HC/twice.json" --out "$HC/$LN.json"
[ -s "$HC/$LN.json" ] && ok || bad "solve --out with a 255-byte name: no file"
expect 0 "plot --out with two 255-byte names" $BIN plot profile "$HC/twice.json" --order greedy --out "$HC/$LN.svg" --out "$HC/$LN.png"
[ -s "$HC/$LN.svg" ] && [ -s "$HC/$LN.png" ] && ok || bad "plot --out with two 255-byte names: a file is missing"
[ "$(ls "$HC" | grep -c "^$LN")" -eq 3 ] && ok || bad "long output names: a temporary file was left: $(ls "$HC" | grep "^$LN" | cut -c245-)"
rm -f "$HC/$LN".*
# merge builds a new OUT as OUT.tmp.HOST.PID, cut as those names are: a
# 240-byte OUT said "cannot be written" naming that temporary file
L240=$(printf '%0233d' 0)
expect 0 "merge into a 240-byte OUT" $BIN merge "$HC/$L240.sqlite" "$BR"
[ "$(sqlite3 "$HC/$L240.sqlite" "SELECT count(*) FROM results")" -ge 1 ] && ok || bad "merge into a 240-byte OUT: no rows"
[ "$(ls "$HC" | grep -c "^$L240")" -eq 1 ] && ok || bad "merge into a 240-byte OUT left files: $(ls "$HC" | grep "^$L240" | cut -c230-)"
rm -f "$HC/$L240".*
# a results file's name needs room for the "-journal" SQLite keeps beside it
# (SQLite said "unable to open database file", and bench left an empty file)
L252=$(printf '%0245d' 0)
hostile 1 "a file name of 252 bytes is too long for a results file: .*at most 247" "bench --results with a 252-byte name" -- \
  $BIN bench --graphs "$T/g.json" --results "$HC/$L252.sqlite" --quiet
hostile 1 "a file name of 252 bytes is too long for a results file" "merge into a 252-byte OUT" -- $BIN merge "$HC/$L252.sqlite" "$BR"
[ "$(ls "$HC" | grep -c "^$L252")" -eq 0 ] && ok || bad "a 252-byte results file name: files were left"
hostile 2 "--seed given twice" "plot --seed twice" -- $BIN plot profile "$HC/twice.json" --order greedy --seed 1 --seed 2 --out "$HC/t.svg"
# --time-limit is kept by remat-ilp's greedy incumbent: one of its rounds
# (2 x buffers trial drops) ran for seconds unchecked (4 s for a 0.6 s limit).
# Judged on the stage's CPU time as the harness measured it, not on the
# process's wall time: a loaded machine or the sanitizers stretch the wall
# clock (2.7 s was seen under load) but not the CPU a kept deadline allows.
$BIN gen layered -n 3000 --seed 3 --backward --out "$HC/l3k.json"
$BIN solve "$HC/l3k.json" --remat remat-ilp --budget-frac 0.7 --time-limit 0.6 --no-baseline --format json \
  --out "$HC/l3k_plan.json" >"$HC/l3k_res.json" 2>/dev/null
RCPU=$(sed -n 's/.*"remat_cpu_ms": *\([0-9.]*\).*/\1/p' "$HC/l3k_res.json" | head -1)
[ -n "$RCPU" ] && awk -v c="$RCPU" 'BEGIN { exit !(c < 1800) }' && ok ||
  bad "remat-ilp --time-limit 0.6 used ${RCPU:-no} ms of CPU in its stage"
# a path beyond PATH_MAX: the message keeps its reason (a 512-byte message
# held only the path), and a folder is not said to be missing
LP=$(i=0; while [ $i -lt 2100 ]; do printf 'a/'; i=$((i + 1)); done)g.json
hostile 1 "g.json: cannot open: File name too long" "solve a path beyond PATH_MAX" -- $BIN solve "$LP"
hostile 1 "g.json: cannot read: File name too long" "table a path beyond PATH_MAX" -- $BIN table "$LP"
hostile 1 "g.json: cannot read: File name too long" "merge from a path beyond PATH_MAX" -- $BIN merge "$HC/lp.sqlite" "$LP"
hostile 1 "g.json: File name too long" "bench --graphs a path beyond PATH_MAX" -- $BIN bench --graphs "$LP" --list
hostile 1 "a path of 4206 bytes is too long for a results file" "bench --results a path beyond PATH_MAX" -- \
  $BIN bench --graphs "$T/g.json" --results "$LP" --quiet
hostile 2 "a path of 4206 bytes, longer than the system allows \(PATH_MAX 4096\)" "solve --out a path beyond PATH_MAX" -- \
  $BIN solve "$T/g.json" --out "$LP"
# bench on a full disk, failing before its first row: it left an empty
# results file (with its -wal and -shm); what it made goes, a results file
# that was there stays as it was
mkdir -p "$HC/fullfs"
if mount -t tmpfs -o size=64k tmpfs "$HC/fullfs" 2>/dev/null; then
  # (with --shared-fs only a file no process made a table in: its rollback
  # journal cannot tell that no other process has the file open)
  for case in 16 12 4 "16 --shared-fs" "12 --shared-fs"; do
    rm -f "$HC/fullfs"/*
    dd if=/dev/zero of="$HC/fullfs/fill" bs=4k count="${case%% *}" 2>/dev/null
    mode=; [ "$case" = "${case% --shared-fs}" ] || mode=--shared-fs
    # shellcheck disable=SC2086
    hostile 1 "fullfs/r.sqlite: cannot be written" "bench on a full disk ($case)" -- \
      $BIN bench --graphs "$T/g.json" --results "$HC/fullfs/r.sqlite" --quiet $mode
    [ "$(ls "$HC/fullfs")" = fill ] && ok || bad "bench on a full disk ($case) left: $(ls "$HC/fullfs" | tr '\n' ' ')"
  done
  # --shared-fs, the disk full after the tables were made (the first claim
  # or the graph's row did not fit): the new file stayed with its empty
  # tables; it goes when no other process committed to it since.  With a
  # graph's row in it, it stays (rows are kept, as with a WAL)
  for n in 6 4 3 2; do
    rm -f "$HC/fullfs"/*
    dd if=/dev/zero of="$HC/fullfs/fill" bs=4k count=$n 2>/dev/null
    hostile 1 "fullfs/r.sqlite: (claim: |sqlite: )database or disk is full" "bench --shared-fs on a disk full after its tables ($n)" -- \
      $BIN bench --graphs "$T/g.json" --results "$HC/fullfs/r.sqlite" --quiet --shared-fs
    if [ $n = 2 ]; then
      rm -f "$HC/fullfs/fill"
      [ "$(sqlite3 "$HC/fullfs/r.sqlite" "SELECT count(*) FROM graphs")" = 1 ] && ok || bad "bench --shared-fs on a full disk: its graph's row went"
    else
      [ "$(ls "$HC/fullfs")" = fill ] && ok || bad "bench --shared-fs on a disk full after its tables ($n) left: $(ls "$HC/fullfs" | tr '\n' ' ')"
    fi
  done
  for mode in "" --shared-fs; do
    rm -f "$HC/fullfs"/*
    cp "$BR" "$HC/fullfs/r.sqlite" && n0=$(sqlite3 "$BR" "SELECT count(*) FROM results")
    dd if=/dev/zero of="$HC/fullfs/fill" bs=4k 2>/dev/null
    # shellcheck disable=SC2086
    expect 1 "bench on a full disk into an existing results file $mode" $BIN bench --graphs "$T/g.json" --order sa --results "$HC/fullfs/r.sqlite" --quiet $mode
    rm -f "$HC/fullfs/fill" # (SQLite cannot read a WAL file without room for its -shm)
    [ "$(sqlite3 "$HC/fullfs/r.sqlite" "SELECT count(*) FROM results")" = "$n0" ] && ok || bad "bench on a full disk $mode: the existing results file changed"
  done
  umount "$HC/fullfs"
else
  [ "$(id -u)" -eq 0 ] && bad "no tmpfs mount as root" || echo "cli: no tmpfs mount (not root): skipped bench on a full disk"
fi
# bench with a TMPDIR it cannot use: refused before the results file is made
hostile 1 "cannot make a scratch folder in $HC/none" "bench with a missing TMPDIR" -- env TMPDIR="$HC/none" $BIN bench --graphs "$T/g.json" --results "$HC/t.sqlite" --quiet
[ -e "$HC/t.sqlite" ] && bad "bench with a missing TMPDIR: a results file was made" || ok
# ---- --name=value is --name value on every subcommand (the parsers of
# verify, info, solvers, bench, export, table and plot refused it; bench
# said "write the value after a blank"): the same exit, output and message;
# everything after the first '=' is the value, which may be empty or start
# with '-'.  A flag given a value is a usage error naming it, on solve, gen
# and convert too (they said "unknown or incomplete option '--toposort=x'") ----
glued() { # glued CODE DESCRIPTION OPTION VALUE -- command... (the option goes last)
  want=$1; what=$2; opt=$3; val=$4; shift 5
  "$@" "$opt" "$val" >"$T/out1" 2>"$T/err1"; r1=$?
  "$@" "$opt=$val" >"$T/out2" 2>"$T/err2"; r2=$?
  [ "$r1" = "$want" ] && [ "$r2" = "$want" ] && cmp -s "$T/out1" "$T/out2" && cmp -s "$T/err1" "$T/err2" &&
    ok || bad "$what: '$opt=$val' exit $r2, '$opt $val' exit $r1 (wanted $want): $(head -c 300 "$T/err2")"
}
RC=tests/data/bench_results.csv
glued 0 "verify --align=8" --align 8 -- $BIN verify "$T/g.json" "$T/plan.json"
glued 0 "info --format=json" --format json -- $BIN info "$T/g.json"
glued 0 "info --input-format=json" --input-format json -- $BIN info "$T/g.json"
glued 2 "info --format= (empty)" --format "" -- $BIN info "$T/g.json"
glued 0 "solvers --format=json" --format json -- $BIN solvers
glued 0 "bench --set=sa.reach=3" --set sa.reach=3 -- $BIN bench --graphs "$T/g.json" --order greedy,sa --list
grep -q "sa.reach=3" "$T/out2" && ok || bad "bench --set=sa.reach=3: the cells lack it: $(cat "$T/out2")"
glued 0 "bench --jobs=2" --jobs 2 -- $BIN bench --graphs "$T/g.json" --list
glued 2 "bench --time-limit=-1 (a value starting with -)" --time-limit -1 -- $BIN bench --graphs "$T/g.json" --list
glued 2 "bench --graphs= (empty)" --graphs "" -- $BIN bench --list
glued 0 "export --format=csv" --format csv -- $BIN export "$RC"
glued 2 "export --out= (empty)" --out "" -- $BIN export "$RC"
glued 0 "table --view=pivot" --view pivot -- $BIN table "$RC" --brief
glued 0 "table --solver=LABEL" --solver greedy+bysize -- $BIN table "$RC" --view pivot --brief
glued 2 "table --out= (empty)" --out "" -- $BIN table "$RC"
glued 2 "plot --out= (empty)" --out "" -- $BIN plot profile "$T/g.json"
$BIN plot profile "$T/g.json" --order sa --set sa.reach=3 --out "$T/p1.svg" 2>"$T/err"
expect 0 "plot --order=sa --set=sa.reach=3 --out=F" $BIN plot profile "$T/g.json" --order=sa --set=sa.reach=3 --out="$T/p2.svg"
cmp -s "$T/p1.svg" "$T/p2.svg" && ok || bad "plot with --name=value: another picture"
for c in "--toposort|info $T/g.json" "--toposort|verify $T/g.json $T/plan.json" \
    "--list|bench --graphs $T/g.json" "--quiet|bench --graphs $T/g.json --list" \
    "--brief|table $RC" "--common|table $RC" "--toposort|solve $T/g.json" "--backward|gen chain" \
    "--toposort|convert $T/g.json --to nodelink"; do
  f=${c%%|*}; args=${c#*|}
  hostile 2 "option '$f' doesn't allow an argument" "$args $f=x" -- $BIN $args "$f=x"
done
# ilp-place: GLPK's integrality tolerance (1e-5) times the big-M (7.2e6)
# let its "optimal" offsets overlap by up to 72 bytes; the own check threw
# them away and the stage said feasible.  With the tolerance under 0.25/M
# the optimum is a real placement: 9 buffers at align 64, proven optimal.
$BIN gen layered -n 9 --seed 1 --out "$T/l9.json" 2>/dev/null
$BIN solve "$T/l9.json" --order given --place ilp-place --align 64 --time-limit 20 --no-baseline \
  --format json >"$T/ilpp.json" 2>/dev/null
grep -q '"place_status": "optimal"' "$T/ilpp.json" && grep -q '"arena": 7225160,' "$T/ilpp.json" \
  && ok || bad "ilp-place on gen layered -n 9 at align 64: not proven at 7225160 ($(grep -E '"(arena|place_status)"' "$T/ilpp.json" | tr -d '\n'))"
# ilp-place at M above 2^23: GLPK's relative tolerances (1e-7) exceed a
# byte there, and it called 71,266,083 optimal where exact places 71,266,080;
# such an answer is kept without the claim (solvers/lib/glpk_util.h)
cat >"$T/ilpp_scale.csv" <<'J'
id,lower,upper,size,alignment
0,2,6,39790688,64
1,3,7,355,64
2,2,6,31474978,64
3,1,3,21,64
4,6,10,251851,64
J
$BIN solve "$T/ilpp_scale.csv" --place exact --time-limit 10 --format json >"$T/ex.json" 2>/dev/null
$BIN solve "$T/ilpp_scale.csv" --place ilp-place --time-limit 10 --format json >"$T/ilpp2.json" 2>/dev/null
grep -q '"status": "optimal"' "$T/ex.json" && grep -q '"arena": 71266080,' "$T/ex.json" && ok \
  || bad "exact on ilpp_scale.csv: not optimal at 71266080"
if grep -q '"status": "optimal"' "$T/ilpp2.json" && ! grep -q '"arena": 71266080,' "$T/ilpp2.json"; then
  bad "ilp-place claims optimal above exact's 71266080: $(grep '"arena"' "$T/ilpp2.json" | head -1)"
else ok; fi
# ---- findings of fuzz/fuzz_solve.c ----
# ga: mutation=1 (in range) drew further moves until a draw reached 1, which
# never happens: the solve hung, deaf to --time-limit
$BIN gen layered -n 12 --seed 1 --out "$T/l12.json" 2>/dev/null
expect 0 "ga mutation=1 ends" timeout 60 $BIN solve "$T/l12.json" --order ga --set ga.mutation=1 \
  --set ga.fill=0 --set ga.stop=0 --set ga.generations=2 --set ga.population=4 --time-limit 5
# rotor: a program budget 2^56 times its table's peak overflowed the cast to
# int64 (UBSan, float-cast-overflow: this fails under make test-asan)
cat >"$T/rotor56.json" <<'J'
{"host_bandwidth": 1e9, "nodes": [{"id": 0, "op": "input", "size": 0, "inputs": []},
 {"id": 1, "op": "input", "size": 3, "inputs": [0, 0], "workspace": 72057594037927936},
 {"id": 2, "size": 1, "inputs": [0, 0], "workspace": 1, "cost": 3},
 {"id": 3, "size": 65536, "inputs": [1, 1, 1], "alias": 1, "inplace": true, "cost": 1e-06},
 {"id": 4, "size": 65536, "inputs": [0], "alias": 0, "cost": 1e-06},
 {"id": 5, "size": 65536, "inputs": [2], "alias": 2, "workspace": 1048576, "cost": 1},
 {"id": 6, "size": 1048576, "inputs": [4], "alias": 4, "cost": 1e-06}]}
J
expect 0 "rotor: budget 2^56 x a table's peak" $BIN solve "$T/rotor56.json" --remat rotor --budget-frac 0.1 --bandwidth 1e6
# remat-ga: a start plan's first-run order puts the inputs first; with an
# input that reads a tensor the graph makes (node 2 reads 1) it is not
# topological, and a mutation's move_node then had no step to put a node
# at: a memmove of garbage length (segfault on seed 2)
cat >"$T/input_reads.json" <<'J'
{"name": "input_reads", "nodes": [
 {"id": 0, "op": "input", "size": 4, "inputs": []},
 {"id": 1, "size": 8, "inputs": [0], "cost": 1},
 {"id": 2, "op": "input", "size": 16, "inputs": [1]},
 {"id": 3, "size": 8, "inputs": [2], "cost": 1},
 {"id": 4, "size": 8, "inputs": [3, 1], "cost": 1}]}
J
for s in 0 1 2 3 4 5 6 7; do
  expect 0 "remat-ga on an input that reads a node (seed $s)" $BIN solve "$T/input_reads.json" \
    --remat remat-sa,remat-ga --budget-frac 0.9 --seed $s --set remat-sa.fill=0 \
    --set remat-ga.fill=0 --set remat-ga.mutation=1
done
# an input's workspace: section 1 counts it at the input's step, an event
# plan never runs the input (README "A graph input's workspace")
cat >"$T/inws.json" <<'J'
{"name": "inws", "nodes": [
 {"id": 0, "op": "input", "size": 1, "inputs": [], "workspace": 1000},
 {"id": 1, "size": 2, "inputs": [0], "cost": 1},
 {"id": 2, "op": "output", "size": 0, "inputs": [1]}]}
J
$BIN info "$T/inws.json" --format json >"$T/out" 2>&1
grep -q '"live_peak": 1001,' "$T/out" && ok || bad "input workspace, section 1: $(grep live_peak "$T/out")"
$BIN solve "$T/inws.json" --remat keepall --budget 10 --format json --no-baseline >"$T/out" 2>&1
grep -q '"live_peak": 3,' "$T/out" && grep -q '"lower_bound": 3,' "$T/out" && ok ||
  bad "input workspace, keep-all plan: $(grep -E 'live_peak|lower_bound' "$T/out" | tr -d '\n')"
hostile 3 "the budget 2 is below 3, the floor" "input workspace: budget under the floor" -- \
  $BIN solve "$T/inws.json" --remat keepall --budget 2 --no-baseline
# ---- the baseline beside the stages (--threads, $MEMPLAN_THREADS): the
# same output on one thread or two; bad values refused; a thread that cannot
# start (its stack, the stack limit, above the memory limit) is no error ----
$BIN gen layered -n 3000 --seed 4 --out "$T/thr.json"
for c in greedy:bysize given:firstfit dfs:noreuse given:bysize greedy:bysize,firstfit; do
  o=${c%%:*}; p=${c#*:}
  $BIN solve "$T/thr.json" --order $o --place $p --format json 2>&1 | grep -v '_ms"' >"$T/thr2"
  $BIN solve "$T/thr.json" --order $o --place $p --format json --threads 1 2>&1 | grep -v '_ms"' >"$T/thr1"
  MEMPLAN_THREADS=1 $BIN solve "$T/thr.json" --order $o --place $p --format json 2>&1 | grep -v '_ms"' >"$T/thre"
  cmp -s "$T/thr1" "$T/thr2" && cmp -s "$T/thr1" "$T/thre" && grep -q '"given_arena": [1-9]' "$T/thr1" && ok ||
    bad "$o + $p: one thread and two differ: $(diff "$T/thr1" "$T/thr2" | head -c 300) $(diff "$T/thr1" "$T/thre" | head -c 300)"
done
# greedy by size's packer on the stage's threads (solvers/lib/pack_batch.c,
# from 4096 buffers): the same plan and verbose counts on one thread
$BIN gen layered -n 9000 --seed 5 --out "$T/thr9.json"
$BIN gen tree -n 8000 --seed 3 --out "$T/thrt.json"
for g in thr9 thrt; do
  for c in greedy:bysize greedy:bysize-ff dfs:bysize given:bysize-ff; do
    o=${c%%:*}; p=${c#*:}
    $BIN solve "$T/$g.json" --order $o --place $p --format json --verbose 2>&1 | grep -v '_ms"' >"$T/thr2"
    $BIN solve "$T/$g.json" --order $o --place $p --format json --verbose --threads 1 2>&1 | grep -v '_ms"' >"$T/thr1"
    cmp -s "$T/thr1" "$T/thr2" && grep -q '"arena": [1-9]' "$T/thr1" && grep -q "$p: .* items placed through the lifetime index" "$T/thr1" && ok ||
      bad "$g, $o + $p: one thread and two differ: $(diff "$T/thr1" "$T/thr2" | head -c 300)"
  done
done
expect 2 "--threads 0" $BIN solve "$T/thr.json" --threads 0
grep -q -- "--threads" "$T/err" && ok || bad "--threads 0: $(cat "$T/err")"
expect 2 "MEMPLAN_THREADS=x" env MEMPLAN_THREADS=x $BIN solve "$T/thr.json"
grep -q "MEMPLAN_THREADS" "$T/err" && ok || bad "MEMPLAN_THREADS=x: $(cat "$T/err")"
if [ -z "${ASAN_OPTIONS:-}" ]; then
  $BIN solve "$T/thr.json" --order greedy --format json 2>&1 | grep -v '_ms"' >"$T/thr2"
  sh -c "ulimit -s 16000000; ulimit -v 8000000; exec $BIN solve '$T/thr.json' --order greedy --format json" \
    2>&1 | grep -v '_ms"' >"$T/thr0"
  cmp -s "$T/thr0" "$T/thr2" && grep -q '"given_arena": [1-9]' "$T/thr0" && ok ||
    bad "no thread for the baseline: $(diff "$T/thr0" "$T/thr2" | head -c 400)"
fi
# ---- the whole heap on huge pages, opt-in: MEMPLAN_HUGE_PAGES=1 on an input of 4 MiB or more
# starts memplan again once (glibc's hugetlb tunable added; the loader's
# LD_DEBUG=files says "initialize program" at each start); unset, empty or
# another value, once; the same output either way ----
$BIN gen layered -n 50000 --seed 2 --out "$T/huge.json" 2>"$T/err"
starts() { env MEMPLAN_HUGE_PAGES="$1" LD_DEBUG=files $BIN info "$T/huge.json" 2>&1 >/dev/null | grep -c "initialize program"; }
[ "$(wc -c < "$T/huge.json")" -ge 4194304 ] && [ "$(starts 1)" = 2 ] && [ "$(starts '')" = 1 ] &&
  [ "$(starts yes)" = 1 ] && [ "$(env -u MEMPLAN_HUGE_PAGES LD_DEBUG=files $BIN info "$T/huge.json" 2>&1 >/dev/null |
    grep -c "initialize program")" = 1 ] && ok || bad "MEMPLAN_HUGE_PAGES: starts $(starts 1) (1), $(starts '') (empty)"
env MEMPLAN_HUGE_PAGES=1 $BIN solve "$T/huge.json" --order greedy --place firstfit --format json 2>&1 | grep -v '_ms"' >"$T/huge1"
env -u MEMPLAN_HUGE_PAGES $BIN solve "$T/huge.json" --order greedy --place firstfit --format json 2>&1 | grep -v '_ms"' >"$T/huge0"
cmp -s "$T/huge0" "$T/huge1" && grep -q '"arena": [1-9]' "$T/huge0" && ok ||
  bad "MEMPLAN_HUGE_PAGES=1 changed the output: $(diff "$T/huge0" "$T/huge1" | head -c 400)"
# ---- memory backed at once (blocks of 1 MiB or more prefaulted unless
# MEMPLAN_PREFAULT=0; test_bump's prefault case checks the pages): the same
# output either way ----
env MEMPLAN_PREFAULT=0 $BIN solve "$T/huge.json" --order greedy --place firstfit --format json 2>&1 | grep -v '_ms"' >"$T/pf0"
cmp -s "$T/huge0" "$T/pf0" && ok || bad "MEMPLAN_PREFAULT=0 changed the output: $(diff "$T/huge0" "$T/pf0" | head -c 400)"
# and on huge pages unless MEMPLAN_HUGE_PAGES=0 (test_bump's huge case checks
# the advice): the same output either way
env MEMPLAN_HUGE_PAGES=0 $BIN solve "$T/huge.json" --order greedy --place firstfit --format json 2>&1 | grep -v '_ms"' >"$T/hp0"
cmp -s "$T/huge0" "$T/hp0" && ok || bad "MEMPLAN_HUGE_PAGES=0 changed the output: $(diff "$T/huge0" "$T/hp0" | head -c 400)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
