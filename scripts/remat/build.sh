#!/bin/sh
# Build scripts/remat/drive against the objects of `make` (BUILD=build).
set -eu
cd "$(dirname "$0")/../.."
make -s bin/memplan >/dev/null
B=${BUILD:-build}
OBJS=$(find "$B/src" "$B/solvers" -name '*.o' ! -name main.o | sort)
# shellcheck disable=SC2086
cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -Isolvers $(pkg-config --cflags igraph jansson cairo) \
  -o "$B/remat_drive" scripts/remat/drive.c $OBJS "$B/registry.o" \
  $(pkg-config --libs igraph jansson cairo) -lglpk -lsqlite3 -lm
echo "$B/remat_drive"
