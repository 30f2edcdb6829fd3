#!/bin/sh
# timed.sh - scripts/timed.c, bench-scale's timer: figures at microsecond
# resolution, the command's exit status, a SIGTERM to the timer passed on to
# the command, "killed by signal N" when it dies.
set -eu
cd "$(dirname "$0")/.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
${CC:-cc} -O2 -o "$T/timed" scripts/timed.c
fail() { echo "timed.sh: FAIL: $*" >&2; exit 1; }
rc=0
"$T/timed" "$T/out" sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done; exit 3' || rc=$?
[ "$rc" = 3 ] || fail "exit status $rc, not 3"
grep -Eq '^[0-9]+\.[0-9]{3} [0-9]+ [0-9]+\.[0-9]{6} [0-9]+\.[0-9]{6}$' "$T/out" || fail "figures: $(cat "$T/out")"
awk '{ exit !($2 > 0 && $3 + $4 > 0 && $1 > 0) }' "$T/out" || fail "no time or memory counted: $(cat "$T/out")"
rm -f "$T/out"
rc=0
"$T/timed" "$T/out" sh -c 'kill -TERM $$' || rc=$?
[ "$rc" = 143 ] || fail "a child killed by SIGTERM: status $rc, not 143"
grep -qx 'killed by signal 15' "$T/out" || fail "killed child: $(cat "$T/out")"
rm -f "$T/out"
"$T/timed" "$T/out" sleep 7.25 &
pid=$!
sleep 0.3
kill -TERM "$pid" # timed alone, not its process group (as timeout(1) does)
rc=0
wait "$pid" || rc=$?
[ "$rc" = 143 ] || fail "SIGTERM to the timer: status $rc, not 143"
grep -qx 'killed by signal 15' "$T/out" || fail "SIGTERM to the timer: $(cat "$T/out" 2>/dev/null)"
! pgrep -f 'sleep 7.25' > /dev/null || fail "the timer's SIGTERM did not reach the command"
rc=0
"$T/timed" "$T/out" "$T/no such command" 2> /dev/null || rc=$?
[ "$rc" = 127 ] || fail "a missing command: status $rc, not 127"
echo "timed.sh: 4 checks passed"
