#!/bin/sh
# Mutation testing of the solvers' sources (not part of `make test`): makes
# small changes one at a time in a scratch copy of the tree, rebuilds and runs
# a test command, and says per mutant killed / survived / timeout /
# build-failed (a mutant that does not compile is not counted).  The build
# makes build/test_memplan and bin/memplan (the suites that run the CLI).
#   nice -n 19 sh scripts/mutate.sh [-n CAP] [-s SEED] [--ops LIST] \
#     -t 'TEST COMMAND' FILE...
#   sh scripts/mutate.sh --list -n CAP FILE...      the mutants, nothing run
#   sh scripts/mutate.sh --only pack.c#3 -t ... solvers/lib/pack.c
# The test command runs by sh at the top of the copy, e.g.
#   -t 'cd tests && CK_RUN_SUITE=pack MP_QUICK=1 ../build/test_memplan'
# Exit 0 when no mutant survived, 1 when one did, 2 when the unmutated tree
# fails to build or to pass the tests.  `scripts/mutate.py -h` lists options.
exec /usr/bin/python3 "$(dirname "$0")/mutate.py" "$@"
