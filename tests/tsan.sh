#!/bin/sh
# The threaded code under ThreadSanitizer: the packer on several threads
# (solvers/lib/pack_batch.c), the baseline beside the stages
# (src/run_baseline.c) and best's lpmf order beside its other candidates
# (solvers/lib/listsched.c).  Their unit tests, then CLI solves on two threads
# that start them: gen layered (N nodes) ordered by greedy, dfs and best, placed
# by bysize and bysize-ff, with and without the baseline; every MiniMalloc
# CSV of graphs/minimalloc (too few buffers for the packer's threads); suite
# graphs, one with enough buffers for the packer's threads.
# Any TSan report fails: halt_on_error makes the process exit 66 at once,
# and its stderr is searched too.  From the repo root, after the TSan build
# (`make tsan` does both).  QUICK=1, the form `make test-tsan` runs (about a
# tenth of the CPU): 2x10^4 nodes and five of the twelve solves of them, the
# packer's unit tests alone, one suite graph (the one the packer shares).
set -u
BUILD=${BUILD:-build-tsan}
BIN=$BUILD/memplan
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
  N=20000 SUITES=packbatch GRAPHS=graphs/real/gpt2_48l_train_adam_b1.json
else
  N=100000 SUITES="packbatch basethread"
  GRAPHS="graphs/real/gpt2_48l_train_adam_b1.json graphs/real/convnext_tiny_train_b32.json
          graphs/real/swin_t_train_adam_b32.json"
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TSAN_OPTIONS="halt_on_error=1:exitcode=66${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export TSAN_OPTIONS
fail=0
runs=0

# run WHAT CMD...: CMD must exit 0 and print no TSan report
run() {
  what=$1
  shift
  runs=$((runs + 1))
  if ! "$@" >"$TMP/out" 2>"$TMP/err" || grep -q ThreadSanitizer "$TMP/err"; then
    fail=$((fail + 1))
    echo "FAIL tsan: $what"
    head -60 "$TMP/err" "$TMP/out"
  fi
}

# the unit tests of both, in this process (no fork: TSan's exit code is the run's)
for s in $SUITES; do
  run "unit suite $s" sh -c "cd tests && CK_FORK=no CK_RUN_SUITE=$s CK_VERBOSITY=silent ../$BUILD/test_memplan"
done

run "gen layered -n $N" "$BIN" gen layered -n "$N" --seed 1 --out "$TMP/layered.json"
# every order x placer x baseline; QUICK: four of them, each value twice
if [ "$QUICK" = 1 ]; then
  SOLVES="greedy,bysize,- greedy,bysize-ff,--no-baseline dfs,bysize,--no-baseline dfs,bysize-ff,-
          best,bysize,-"
else
  SOLVES=$(for o in greedy dfs best; do for p in bysize bysize-ff; do
    for b in - --no-baseline; do echo "$o,$p,$b"; done; done; done)
fi
for s in $SOLVES; do
  order=${s%%,*} rest=${s#*,}
  place=${rest%%,*} base=${rest#*,}
  [ "$base" = - ] && base=
  run "solve layered $N --order $order --place $place $base" \
    "$BIN" solve "$TMP/layered.json" --order "$order" --place "$place" --threads 2 $base
done

# bysize is the baseline's placer: a CSV placed by it is its own baseline,
# placed once; by bysize-ff, the baseline's thread starts beside
for f in graphs/minimalloc/*/*.csv; do
  for place in bysize bysize-ff; do
    run "solve $f --place $place" "$BIN" solve "$f" --place "$place" --threads 2
  done
done

# gpt2_48l: 5807 buffers, over MP_PACK_THREADED_MIN (the packer shares)
for f in $GRAPHS; do
  run "solve $f --order greedy --place bysize" "$BIN" solve "$f" --order greedy --place bysize --threads 2
  run "solve $f --place bysize-ff" "$BIN" solve "$f" --place bysize-ff --threads 2
done

echo "tsan: $runs runs (N=$N), $fail failures"
[ "$fail" -eq 0 ]
