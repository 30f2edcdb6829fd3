#!/bin/sh
# `make install` into a temporary PREFIX, then build tests/install/embed.c against
# what was installed, through pkg-config alone (the shared library, then the
# static one), and run it: how a compiler or a runtime embeds the planner.
# Run from the repo root by `make test-install`.
set -u
MAKE=${MAKE:-make}
P=$(mktemp -d)
trap 'rm -rf "$P"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL install: $*"; }
G=graphs/examples/seed_example.json

$MAKE --no-print-directory -s install PREFIX="$P" >"$P/make.log" 2>&1 || { cat "$P/make.log"; bad "make install"; }
for f in bin/memplan lib/libmemplan.a lib/libmemplan.so lib/libmemplan.so.0 include/memplan.h \
  lib/pkgconfig/memplan.pc; do
  [ -e "$P/$f" ] && ok || bad "$f not installed"
done
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
pkg-config --exists memplan && ok || bad "pkg-config does not find memplan"
CC=${CC:-cc}

# shared: pkg-config --cflags --libs, the library found at run time
# shellcheck disable=SC2046
if $CC -Wall -Wextra -Werror $(pkg-config --cflags memplan) tests/install/embed.c -o "$P/embed" \
  $(pkg-config --libs memplan) 2>"$P/cc.log"; then ok; else bad "shared build: $(cat "$P/cc.log")"; fi
LD_LIBRARY_PATH="$P/lib" "$P/embed" $G greedy bysize "$P/plan.json" >"$P/out" 2>"$P/err" &&
  ok || bad "embed (shared) failed: $(cat "$P/err")"
grep -q '^live_peak 12582912 arena 12582912 ' "$P/out" && ok || bad "embed figures: $(cat "$P/out")"
grep -q '^verified$' "$P/out" && ok || bad "embed did not verify its plan"
grep -q '^arrays arena 150 ' "$P/out" && ok || bad "embed arrays: $(cat "$P/out")"
grep -q '^gen nodes 30 ' "$P/out" && ok || bad "embed gen: $(cat "$P/out")"
grep -q '^remat optimal budget 12582912 live_peak 12582912 duration 4 recomputed 0 events 6$' "$P/out" &&
  grep -q '^remat verified$' "$P/out" && ok || bad "embed remat: $(cat "$P/out")"
"$P/bin/memplan" verify $G "$P/plan.json.remat.json" >/dev/null 2>&1 && ok ||
  bad "installed memplan rejects the event plan"
LD_LIBRARY_PATH="$P/lib" ldd "$P/embed" | grep -q "$P/lib/libmemplan.so" && ok ||
  bad "embed does not use the installed shared library"
# the installed binary and a program linking the library name the commit the
# build was made from (recorded at build time), not the folder they run from
own=$(sh scripts/gen_commit.sh .)
vi=$("$P/bin/memplan" --version)
vb=$(bin/memplan --version)
[ "$vi" = "$vb" ] && case "$vi" in *"(unknown)") [ "$own" = unknown ] ;; *"(${own%-dirty}"*) true ;; *) false ;; esac &&
  ok || bad "installed memplan --version says '$vi', bin/memplan '$vb', the tree's commit $own"
c=$(echo "$vb" | sed -n 's/.*(\(.*\))$/\1/p')
grep -qx "commit $c" "$P/out" && ok || bad "embed's memplan_commit(): $(grep '^commit' "$P/out"), bin/memplan: '$vb'"
# the installed binary agrees with the library on the plan it wrote
"$P/bin/memplan" verify $G "$P/plan.json" >/dev/null 2>&1 && ok || bad "installed memplan rejects the plan"

# static: the archive, with the shared libraries of the packages memplan
# requires (pkg-config --static would ask for static builds of their own
# dependencies, which Debian does not all ship) and its Libs.private
# shellcheck disable=SC2046
if $CC $(pkg-config --cflags memplan) tests/install/embed.c -o "$P/embed_static" "$P/lib/libmemplan.a" \
  $(pkg-config --libs $(pkg-config --print-requires-private memplan)) \
  $(sed -n 's/^Libs.private: //p' "$P/lib/pkgconfig/memplan.pc") 2>"$P/cc.log"; then ok; else
  bad "static build: $(cat "$P/cc.log")"; fi
"$P/embed_static" $G dp exact "$P/plan2.json" >"$P/out2" 2>"$P/err" && ok || bad "embed (static) failed: $(cat "$P/err")"
grep -q '^live_peak 8388608 arena 8388608 ' "$P/out2" && ok || bad "embed static figures: $(cat "$P/out2")"
ldd "$P/embed_static" | grep -q libmemplan && bad "the static build links libmemplan.so" || ok
# the shared library exports the public API and nothing else
nm -D --defined-only "$P/lib/libmemplan.so" | awk '{print $3}' | grep -v '^memplan_' | grep -q . &&
  bad "libmemplan.so exports more than memplan_*" || ok

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
