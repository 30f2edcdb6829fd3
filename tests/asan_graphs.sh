#!/bin/sh
# The sanitizer build on every file of the suite: `memplan info` and a quick
# solve (the file order placed by bysize) must exit 0 with no sanitizer
# report (ASan/UBSan abort the process, which exits non-zero).  Run by
# `make test-asan` with BIN=build-asan/memplan, from the repo root.
set -u
BIN=${BIN:-build-asan/memplan}
fail=0
n=0
for f in $(find graphs -name '*.json' -o -name '*.csv' | sort); do
  n=$((n + 1))
  for cmd in "info" "solve"; do
    if ! out=$("$BIN" $cmd "$f" 2>&1 >/dev/null); then
      fail=$((fail + 1))
      echo "FAIL asan: memplan $cmd $f: $(echo "$out" | head -5)"
    fi
  done
done
echo "asan graphs: $n files, $fail failures"
[ "$fail" -eq 0 ]
