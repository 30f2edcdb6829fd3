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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
