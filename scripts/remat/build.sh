#!/bin/sh
# Build scripts/remat/drive against the objects of `make` (BUILD=build).
set -eu
cd "$(dirname "$0")/../.."
make -s bin/memplan >/dev/null
B=${BUILD:-build}
# the objects of today's sources (as the Makefile lists them: a stale object
# of a deleted file is left out), and the generated units (registry,
# fingerprints, ...), not the CLI's main nor the test runner's suites
OBJS=$(find src solvers -name '*.c' ! -path src/main.c | sort | sed "s|^\(.*\)\.c$|$B/\1.o|")
GEN=$(find "$B" -maxdepth 1 -name '*.o' ! -name 'test_*' | sort)
# shellcheck disable=SC2086
cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -Isolvers $(pkg-config --cflags igraph jansson cairo libxml-2.0) \
  -o "$B/remat_drive" scripts/remat/drive.c $OBJS $GEN \
  $(pkg-config --libs igraph jansson cairo libxml-2.0) -lglpk -lsqlite3 -lm
echo "$B/remat_drive"
