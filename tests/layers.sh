#!/bin/sh
# The layers of the README's Layout, checked on the code: dependencies run
# CLI -> harness -> registry -> solvers -> solver library -> model, and the
# judge depends on the model alone.  Run from the repo root by `make test`.
set -u
BIN=${BIN:-bin/memplan}
BUILD=${BUILD:-build}
fail=0
bad() { fail=$((fail + 1)); echo "FAIL layers: $*"; }
incl() { grep -n '^#include "' "$@" 2>/dev/null; }

# model, judge, formats and the leaf: no solver interface, registry or harness
MODEL="src/util.[ch] src/graph.[ch] src/graph_write.[ch] src/lifetime.[ch] src/plan.[ch]
 src/schedbound.[ch] src/gen.[ch] src/io.h src/io_*.c src/outfile.[ch] src/remat*.[ch]
 src/events*.[ch] src/verify.[ch] src/storage.[ch]"
# shellcheck disable=SC2086
hits=$(incl $MODEL | grep -E '"(solver|registry|run|bench|cli|memplan)\.h"')
[ -z "$hits" ] || bad "the model includes the solver interface or the harness: $hits"
# the public header stands alone: no project header behind it
hits=$(incl src/memplan.h)
[ -z "$hits" ] || bad "src/memplan.h includes a project header: $hits"
# util.h is a leaf
hits=$(incl src/util.h src/util.c | grep -v '"util.h"')
[ -z "$hits" ] || bad "util is not a leaf: $hits"
# src/ never reaches into the solvers
hits=$(incl src/*.[ch] | grep -E '"(lib/|solvers/)')
[ -z "$hits" ] || bad "src/ includes the solver library: $hits"
# solvers never include the registry, the harness or the CLI
hits=$(incl solvers/*.c solvers/*/*.[ch] | grep -E '"(registry|run|bench|cli|io)\.h"')
[ -z "$hits" ] || bad "a solver includes the harness: $hits"
# the solver library includes no solver file
hits=$(incl solvers/lib/*.[ch] | grep -vE '"(lib/[a-z_]+|solver|graph|lifetime|plan|util|schedbound|events|storage|outfile)\.h"')
[ -z "$hits" ] || bad "solvers/lib includes something outside the model: $hits"
# the CLI is a client of the public API: main.c, cmd_*.c and its option
# parsing (cli_args) include memplan.h, their own headers and system ones...
CLI="src/main.c src/cmd_*.c src/cli.h src/cli_args.[ch]"
# shellcheck disable=SC2086
hits=$(incl $CLI | grep -vE '"(memplan|cli|cli_args)\.h"')
[ -z "$hits" ] || bad "the CLI includes an internal header: $hits"
# ... and call no function of the library but the public memplan_* (on the
# objects the binary was linked from)
objs=""
for f in $CLI; do
  case $f in *.c) objs="$objs $BUILD/${f%.c}.o" ;; esac
done
# shellcheck disable=SC2086
if ls $objs >/dev/null 2>&1 && [ -f "$BUILD/libmemplan.a" ]; then
  nm --defined-only "$BUILD/libmemplan.a" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$BUILD/layers.lib"
  # shellcheck disable=SC2086
  hits=$(nm -u $objs | awk '{print $NF}' | sort -u | comm -12 - "$BUILD/layers.lib" | grep -v '^memplan_')
  rm -f "$BUILD/layers.lib"
  [ -z "$hits" ] || bad "the CLI calls the library beyond memplan.h:" $hits
else
  bad "the CLI's objects or $BUILD/libmemplan.a are not built (make bin/memplan lib)"
fi
# src/ names no particular solver (a string literal equal to a registry name);
# "best" is also the name of an aggregation (--agg best)
for n in $("$BIN" solvers | awk '/^[a-z]/ {print $1}'); do
  hits=$(grep -n "\"$n\"" src/*.[ch] | grep -v -e '--agg' -e '"median"' -e 'best ? "best"' -e 'best_of_seeds')
  [ -z "$hits" ] || bad "src/ names the solver '$n': $hits"
done
if [ "$fail" -eq 0 ]; then echo "layers: ok"; else exit 1; fi
