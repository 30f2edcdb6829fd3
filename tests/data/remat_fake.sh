#!/bin/sh
# A stand-in for `memplan solve` in the bench tests (tests/test_bench.c): a
# program that is not the memplan under test (--memplan), whose calls are
# appended to FAKE_LOG when set.  It once printed figures that followed
# from its arguments alone; bench now verifies another program's plan
# (bench_rejudge.c), and invented figures have no plan to verify, so it
# runs the real memplan (MEMPLAN_REAL) for every cell: the tests compare
# the rows with that memplan's own answers.  A call is logged without the
# plan file bench asks for (--out PATH, a scratch file), so that the log
# names the cell alone.
[ -n "${FAKE_LOG:-}" ] && echo "$*" | sed 's/ --out [^ ]*//' >>"$FAKE_LOG"
exec "$MEMPLAN_REAL" "$@"
