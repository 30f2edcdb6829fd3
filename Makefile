# memplan - static memory planning workbench.
#   make          build bin/memplan
#   make deps     install the Debian packages the project needs (idempotent)
#   make test     deps + build + the whole test suite
#   make bench    deps + build + the default experiment (tables/plots in results/)
#   make bench-scale  the 10^5 / 10^6-node scale benchmark (results/scale.md)
#   make bench-limits every solver at 10^5 nodes with a time limit (results/limits.md)
#   make test-asan  the test suite under AddressSanitizer + UBSan (part of make test)
#   make tsan     the threaded code under ThreadSanitizer, tests/tsan.sh (~5 CPU-minutes;
#                 make test-tsan its quick form, ~2 CPU-minutes with the build)
#   make fuzz     libFuzzer on the readers, the plan verifier, the experiment
#                 parser and the solvers, FUZZ_TIME seconds each (30)
#   make lib      build/libmemplan.a and build/libmemplan.so (the public API: src/memplan.h)
#   make install PREFIX=/usr/local [DESTDIR=]  the binary, the libraries, memplan.h, memplan.pc
#   V=1           show every compiler command
# Solvers are found by globbing solvers/*.c and solvers/*/ (a folder is one
# solver); the registry is generated from those names.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
PREFIX  ?= /usr/local
VERSION := $(shell sed -n 's/^#define MEMPLAN_VERSION "\(.*\)"/\1/p' src/memplan.h)
SOVERSION := 0
PKGS    := igraph jansson check cairo libxml-2.0
# asked once (:=), not at each of the 400 compiles of make test
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs igraph jansson cairo libxml-2.0 2>/dev/null)
# -fPIC: the same objects make the binary, libmemplan.a and libmemplan.so
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -fPIC -Wall -Wextra -Isrc -Isolvers -Itests -MMD -MP \
           $(PKG_CFLAGS)
LDLIBS  += $(PKG_LIBS) -lglpk -lsqlite3 -lm
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# the CLI (main.c, cmd_*.c and its option parsing cli_args.c) is a client of the
# library (everything else) through memplan.h alone
CLI_SRC     := $(sort $(wildcard src/cmd_*.c)) src/cli_args.c
SRC         := $(filter-out src/main.c $(CLI_SRC),$(wildcard src/*.c))
LIB_SOLVERS := $(sort $(wildcard solvers/lib/*.c))
SOLVER_DIRS := $(sort $(filter-out solvers/lib/,$(wildcard solvers/*/)))
SOLVERS     := $(sort $(wildcard solvers/*.c)) $(foreach d,$(SOLVER_DIRS),$(sort $(wildcard $(d)*.c)))
# the registry's entries: one per solver file, one per solver folder
SOLVER_UNITS := $(sort $(wildcard solvers/*.c)) $(patsubst %/,%,$(SOLVER_DIRS))
TESTS    := $(sort $(wildcard tests/*.c))
OBJ      := $(SRC:%.c=$(BUILD)/%.o) $(LIB_SOLVERS:%.c=$(BUILD)/%.o) $(SOLVERS:%.c=$(BUILD)/%.o) \
            $(BUILD)/registry.o $(BUILD)/fingerprints.o $(BUILD)/commit.o
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TESTS:%.c=$(BUILD)/%.o) $(BUILD)/test_suites.o

.PHONY: all deps check-libs lib install uninstall test test-build test-unit test-cli test-install \
        test-asan test-asan-build test-asan-run test-asan-unit test-asan-cli test-asan-graphs \
        tsan test-tsan test-tsan-build fuzz test-audit test-design audit bench bench-full bench-remat bench-remat-strict \
        bench-scale bench-limits graphs clean test-slurm validate test-exporter FORCE

all: bin/memplan

# A plain `make` on a machine without the libraries says what to do.
check-libs:
	@pkg-config --exists $(PKGS) 2>/dev/null && [ -f /usr/include/glpk.h ] && \
	  [ -f /usr/include/sqlite3.h ] || { \
	  echo "memplan: the build needs Debian's libigraph-dev libglpk-dev libjansson-dev check"; \
	  echo "  libcairo2-dev libsqlite3-dev libxml2-dev pkg-config: run 'make deps' (as root) first."; exit 1; }

# the compiler and its flags, rewritten only when they change: objects built
# with other flags (without -fPIC, say) are rebuilt
$(BUILD)/cflags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(CFLAGS)' > $@.new; if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

$(BUILD)/%.o: %.c $(BUILD)/cflags | check-libs
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The commit the build is made from (memplan_commit(), memplan --version, the
# version of results rows), rewritten only when it or the tree's dirty state
# changes, so that a commit relinks and nothing asks git at run time.
$(BUILD)/commit.c: FORCE
	@mkdir -p $(BUILD)
	@sh scripts/gen_commit.sh . --c > $@.new; if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

$(BUILD)/commit.o: $(BUILD)/commit.c $(BUILD)/cflags
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The list of solver units, rewritten only when it changes, so that adding or
# deleting a solver regenerates the registry and relinks.
$(BUILD)/solvers.list: FORCE
	@mkdir -p $(BUILD)
	@echo "$(SOLVER_UNITS)" | tr ' ' '\n' > $@.new; \
	  if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

$(BUILD)/registry.c: $(BUILD)/solvers.list scripts/gen_registry.sh $(SOLVERS)
	$(Q)sh scripts/gen_registry.sh $(SOLVER_UNITS) > $@.tmp && mv $@.tmp $@

# Each solver's source hash (results rows record it: a rebuilt solver's rows
# are stale); made after the solver objects, from their .d files.
$(BUILD)/fingerprints.c: $(BUILD)/solvers.list scripts/gen_fingerprints.sh \
    $(SOLVERS:%.c=$(BUILD)/%.o) $(LIB_SOLVERS:%.c=$(BUILD)/%.o)
	$(Q)sh scripts/gen_fingerprints.sh $(BUILD) $(SOLVER_UNITS) > $@.tmp && mv $@.tmp $@

$(BUILD)/fingerprints.o: $(BUILD)/fingerprints.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/test_suites.c: $(wildcard tests/test_*.c) scripts/gen_suites.sh
	@mkdir -p $(BUILD)
	$(Q)sh scripts/gen_suites.sh $(sort $(wildcard tests/test_*.c)) > $@.tmp && mv $@.tmp $@

$(BUILD)/test_suites.o: $(BUILD)/test_suites.c $(BUILD)/cflags
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/registry.o: $(BUILD)/registry.c $(BUILD)/cflags
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

lib: $(BUILD)/libmemplan.a $(BUILD)/libmemplan.so

$(BUILD)/libmemplan.a: $(OBJ)
	@$(if $(Q),echo "  AR $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# the shared library exports the public API alone (src/memplan.map)
$(BUILD)/libmemplan.so: $(OBJ) src/memplan.map
	@$(if $(Q),echo "  LD $@")
	$(Q)$(CC) -shared -Wl,-soname,libmemplan.so.$(SOVERSION) -Wl,--version-script=src/memplan.map \
	  -o $@ $(OBJ) $(LDFLAGS) $(LDLIBS)

# the CLI links the library like any other client
bin/memplan: $(CLI_OBJ) $(BUILD)/src/main.o $(BUILD)/libmemplan.a
	@mkdir -p bin
	@$(if $(Q),echo "  LD $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/src/main.o $(BUILD)/libmemplan.a $(LDFLAGS) $(LDLIBS)

# the CLI built into $(BUILD) (test-asan runs tests/cli.sh with it)
$(BUILD)/memplan: $(CLI_OBJ) $(BUILD)/src/main.o $(BUILD)/libmemplan.a
	$(Q)$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/src/main.o $(BUILD)/libmemplan.a $(LDFLAGS) $(LDLIBS)

install: bin/memplan lib
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 755 bin/memplan $(DESTDIR)$(PREFIX)/bin/memplan
	install -m 644 $(BUILD)/libmemplan.a $(DESTDIR)$(PREFIX)/lib/libmemplan.a
	install -m 755 $(BUILD)/libmemplan.so $(DESTDIR)$(PREFIX)/lib/libmemplan.so.$(SOVERSION)
	ln -sf libmemplan.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libmemplan.so
	install -m 644 src/memplan.h $(DESTDIR)$(PREFIX)/include/memplan.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' scripts/memplan.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/memplan.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/memplan $(DESTDIR)$(PREFIX)/lib/libmemplan.a \
	  $(DESTDIR)$(PREFIX)/lib/libmemplan.so $(DESTDIR)$(PREFIX)/lib/libmemplan.so.$(SOVERSION) \
	  $(DESTDIR)$(PREFIX)/include/memplan.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/memplan.pc

$(BUILD)/test_memplan: $(OBJ) $(CLI_OBJ) $(TEST_OBJ)
	@$(if $(Q),echo "  LD $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(CHECK_LIBS)

deps:
	@sh scripts/deps.sh

# make test: the unit tests, the CLI tests, the install test, the audit
# sample (test-audit) and the sanitizer pass (test-asan-run, three parts).  Quiet unless
# V=1.  SOLVER=name: the property tests of that solver alone.  The last line
# is the property tests' summary: each solver tested and its trial counts.
# Two steps, each on TEST_JOBS jobs (2; `make -jN test` gives its own): first
# everything is built (the plain and the sanitizer builds side by side), then
# the parts run side by side, each part's output kept together (-Otarget).
CKV := $(if $(filter 1,$(V)),normal,minimal)
TEST_JOBS ?= 2
TEST_J = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(TEST_JOBS))
# The parts in the order they start, the longest first, so that the two jobs
# end close together (CPU seconds on 2 cores: the sanitizer's unit tests and
# its tests/cli.sh about 150 each, test-unit 125, the rest under 55 each).
# ThreadSanitizer's pass (test-tsan) is not a part: its build and run, about
# 110 CPU-seconds from a fresh checkout, would take the suite to 10 minutes.
TEST_PARTS = $(if $(SOLVER),test-unit,test-asan-unit test-asan-cli test-unit test-asan-graphs \
             test-cli test-audit test-design test-install)
test: deps
	@rm -f $(BUILD)/props_summary.txt
	@$(MAKE) --no-print-directory $(TEST_J) test-build $(if $(SOLVER),,test-asan-build)
	@$(MAKE) --no-print-directory $(TEST_J) -Otarget TEST_BUILT=1 $(TEST_PARTS)
	@cat $(BUILD)/props_summary.txt

# what the parts of make test run (test-asan-build: the sanitizer build).
# TEST_BUILT=1 (make test's second step, after its build): a part does not
# check its build again; that check takes a job, and make would meanwhile
# start the next part, out of the order of TEST_PARTS
unless_built = $(if $(TEST_BUILT),,$(1))
test-build: bin/memplan $(BUILD)/test_memplan lib $(BUILD)/mp_batch

test-unit: $(call unless_built,bin/memplan $(BUILD)/test_memplan)
	$(Q)cd tests && CK_DEFAULT_TIMEOUT=600 CK_VERBOSITY=$(CKV) MP_TEST_VERBOSE=$(V) \
	  MP_PROPS_SUMMARY=$(abspath $(BUILD))/props_summary.txt \
	  $(if $(SOLVER),MP_TEST_SOLVER=$(SOLVER) CK_RUN_SUITE=props) ../$(BUILD)/test_memplan

test-cli: $(call unless_built,bin/memplan)
	$(Q)sh tests/layers.sh
	$(Q)sh tests/cli.sh
	$(Q)sh tests/swap_link_golden.sh check tests/data/swap_link_golden.tsv quick
	$(Q)sh tests/timed.sh
	$(Q)/usr/bin/python3 tests/py/corners.py --bin bin/memplan

# the independent Python reference of DESIGN.md against memplan's commands
# (tests/py/audit.py): a fixed-seed sample here, a long run in `make audit`
$(BUILD)/mp_batch: tests/py/mp_batch.c $(CLI_OBJ) $(BUILD)/libmemplan.a
	@$(if $(Q),echo "  LD $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(CLI_OBJ) $(BUILD)/libmemplan.a $(LDFLAGS) $(LDLIBS)

test-audit: $(call unless_built,bin/memplan $(BUILD)/mp_batch)
	$(Q)/usr/bin/python3 tests/py/audit.py --batch $(BUILD)/mp_batch --seed 1 --graphs 200 --plans 50 \
	  --csvs 40 --invalid 60 --mutations 1 --claims 10 --order-claims 10 $(if $(filter 1,$(V)),,--quiet)

# the judge written from DESIGN.md alone (tests/py/design_judge.py) against memplan, a
# fixed-seed sample (~20 s): a disagreement that tests/data/djudge/known.tsv does not list fails
test-design: $(call unless_built,bin/memplan)
	$(Q)/usr/bin/python3 tests/py/design_compare.py --quick --seed 1 --memplan bin/memplan \
	  $(if $(filter 1,$(V)),,--quiet)

AUDIT_SEEDS ?= 1 2 3 4 5 6 7 8
audit: bin/memplan $(BUILD)/mp_batch
	@for s in $(AUDIT_SEEDS); do \
	  nice /usr/bin/python3 tests/py/audit.py --batch $(BUILD)/mp_batch --seed $$s --graphs 1000 \
	    --plans 600 --csvs 400 --invalid 600 --n-max 18 --mutations 3 --claims 200 --claims-n 12 --order-claims 100 \
	    --keep build/audit-$$s || exit 1; done
	nice /usr/bin/python3 tests/py/audit.py --seed 99 --graphs 100 --plans 100 --csvs 50 \
	  --invalid 100 --suite --keep build/audit-cli

# install into a temporary PREFIX and build a program against it (pkg-config)
test-install: $(call unless_built,bin/memplan lib)
	@MAKE="$(MAKE)" sh tests/install.sh

# ---- sanitizers: ASan + UBSan (float casts included): the unit tests with
# quick options, tests/cli.sh, every suite file, the fuzz corpus.  A UBSan
# report stops the program (as halt_on_error=1 does at run time): GCC then
# sees no path on past a failed null check, where -Wformat-truncation warned
# of a "null format string" in test_plainread's snprintf calls ----
SAN      := -fsanitize=address,undefined,float-cast-overflow \
            -fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer
SAN_ENV  := ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=print_suppressions=0 \
            UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
FUZZ_TARGETS := graph_json nodelink graphml csv plan experiment solve
FUZZ_OBJ  = $(BUILD)/fuzz/fuzz_common.o

test-asan: deps
	@$(MAKE) --no-print-directory $(TEST_J) -Otarget test-asan-run

# linked without PIE: the sanitizers' data (a source place per check) then
# needs no relocation at each start, a fifth of the time of a short run
test-asan-build:
	@$(MAKE) -s --no-print-directory BUILD=build-asan OPT="-O1 -g $(SAN)" LDFLAGS="$(SAN) -no-pie" \
	  build-asan/test_memplan build-asan/memplan $(FUZZ_TARGETS:%=build-asan/regress_%)

# in three parts that make test runs beside the others
test-asan-run: test-asan-unit test-asan-cli test-asan-graphs

test-asan-unit: $(call unless_built,test-asan-build)
	$(Q)cd tests && $(SAN_ENV) CK_FORK=no MP_QUICK=1 CK_VERBOSITY=$(CKV) MP_TEST_VERBOSE=$(V) \
	  MP_PROPS_SUMMARY=$(abspath build-asan)/props_summary.txt ../build-asan/test_memplan

test-asan-cli: $(call unless_built,test-asan-build)
	$(Q)$(SAN_ENV) BIN=build-asan/memplan sh tests/cli.sh

test-asan-graphs: $(call unless_built,test-asan-build)
	$(Q)$(SAN_ENV) BIN=build-asan/memplan sh tests/asan_graphs.sh
	$(Q)for t in $(FUZZ_TARGETS); do $(SAN_ENV) build-asan/regress_$$t fuzz/corpus/$$t || exit 1; done
	@echo "asan: fuzz corpus replayed ($(FUZZ_TARGETS))"

# ---- ThreadSanitizer: the packer's threads (solvers/lib/pack_batch.c) and
# the baseline's beside the stages (src/run_baseline.c), by tests/tsan.sh:
# any report fails.  `make tsan` at 10^5 nodes (~5 CPU-minutes), `make
# test-tsan` its quick form (~35 CPU-seconds; the build ~75 more when fresh) ----
TSAN := -fsanitize=thread

test-tsan-build:
	@$(MAKE) -s --no-print-directory BUILD=build-tsan OPT="-O1 -g $(TSAN)" LDFLAGS="$(TSAN)" \
	  build-tsan/test_memplan build-tsan/memplan

tsan: deps
	@$(MAKE) --no-print-directory test-tsan-build
	$(Q)BUILD=build-tsan sh tests/tsan.sh

test-tsan: deps
	@$(MAKE) --no-print-directory test-tsan-build
	$(Q)BUILD=build-tsan QUICK=1 sh tests/tsan.sh

# the fuzz objects are no intermediate files: keep them between runs
.SECONDARY: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%.o) $(BUILD)/fuzz/regress.o $(FUZZ_OBJ)

# a fuzz input replayed without libFuzzer (fuzz/regress.c)
$(BUILD)/regress_%: $(OBJ) $(FUZZ_OBJ) $(BUILD)/fuzz/fuzz_%.o $(BUILD)/fuzz/regress.o
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# ---- fuzzing: clang's libFuzzer, each target for FUZZ_TIME seconds ----
# New inputs go to build-fuzz/corpus/T (the committed seeds in fuzz/corpus/T
# are read, not changed; fuzz/T.dict, when there, is its dictionary); a
# crash is written to fuzz/crashes/ and stops the run.  Once fixed, copy it
# into fuzz/corpus/T: `make test` replays it.
FUZZ_TIME ?= 30
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
fuzz:
	@PKGS="clang libclang-rt-14-dev" DEPS_NAME=fuzz-deps sh scripts/deps.sh
	@$(MAKE) --no-print-directory CC=clang BUILD=build-fuzz \
	  OPT="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" LDFLAGS="-fsanitize=fuzzer $(FUZZ_SAN)" \
	  $(FUZZ_TARGETS:%=build-fuzz/fuzz_%)
	@mkdir -p fuzz/crashes
	@for t in $(FUZZ_TARGETS); do mkdir -p build-fuzz/corpus/$$t; \
	  echo "fuzz $$t: $(FUZZ_TIME) s"; \
	  dict=; [ -f fuzz/$$t.dict ] && dict=-dict=fuzz/$$t.dict; \
	  build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix=fuzz/crashes/$$t- -print_final_stats=1 $$dict \
	    build-fuzz/corpus/$$t fuzz/corpus/$$t >build-fuzz/fuzz_$$t.log 2>&1 \
	    || { tail -60 build-fuzz/fuzz_$$t.log; exit 1; }; \
	  grep -E "stat::number_of_executed_units|stat::new_units_added" build-fuzz/fuzz_$$t.log \
	    | tr '\n' ' '; echo; done

$(BUILD)/fuzz_%: $(OBJ) $(FUZZ_OBJ) $(BUILD)/fuzz/fuzz_%.o
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

bench: deps
	@$(MAKE) --no-print-directory bin/memplan
	sh scripts/bench.sh

test-slurm: bin/memplan
	sh scripts/slurm/test_slurm.sh

# bench plus the long benchmarks of scripts/bench.d (scheduling, placement):
# tens of minutes on 2 cores (see README, Results)
bench-full: deps
	@$(MAKE) --no-print-directory bin/memplan
	BENCH_FULL=1 sh scripts/bench.sh

# the scale benchmark of issue 14 (10^5 and 10^6 nodes; results/scale.md):
# about an hour on 2 shared cores, in neither test nor bench
bench-scale: deps
	@$(MAKE) --no-print-directory bin/memplan
	sh scripts/bench_scale.sh

# every solver of the registry at 10^5 nodes with --time-limit 5: does it stop
# within the limit or refuse under its cap (DESIGN 4)?  results/limits.md,
# about 3 minutes; N=1000000 LIMIT=10 writes results/limits_1000000.md (10 min)
bench-limits: deps
	@$(MAKE) --no-print-directory bin/memplan
	@DEPS_NAME=bench-limits PKGS="time python3" sh scripts/deps.sh
	/usr/bin/python3 scripts/bench_limits.py

# recomputation and offload (scripts/bench.d/remat.sh, also part of
# bench-full): every events solver on the 30 training graphs, Moccasin's
# RL100/RL250 when ../shared/anchors is there -> results/remat.md
bench-remat: deps
	@$(MAKE) --no-print-directory bin/memplan
	sh scripts/bench.d/remat.sh

# remat-ilp and remat-lp with strict=1 on the same graphs -> results/remat_strict.md
bench-remat-strict: deps
	@$(MAKE) --no-print-directory bin/memplan
	REMAT_EXPERIMENT=scripts/experiments/remat_strict.json REMAT_OUT=remat_strict ANCHORS=none \
	  sh scripts/bench.d/remat.sh

graphs: bin/memplan
	sh scripts/deps-graphs.sh
	sh scripts/make_graphs.sh

# memplan's live peak of exported graphs against eager PyTorch's measured
# allocator peak -> results/validation.md (needs python3-torch; about an hour)
validate: bin/memplan
	sh scripts/deps-graphs.sh
	nice /usr/bin/python3 scripts/validate_torch.py
	nice /usr/bin/python3 scripts/validate_torch.py --ops --append results/validation.md
	nice /usr/bin/python3 scripts/validate_torch.py --savings

# the exporter's unit tests (need python3-torch; not part of make test)
test-exporter: bin/memplan
	sh scripts/deps-graphs.sh
	cd scripts && /usr/bin/python3 -m unittest discover -s tests -t . -v

clean:
	rm -rf build build-asan build-tsan build-fuzz bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
