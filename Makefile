# memplan - static memory planning workbench.
#   make          build bin/memplan
#   make deps     install the Debian packages the project needs (idempotent)
#   make test     deps + build + the whole test suite
#   make bench    deps + build + the default experiment (tables/plots in results/)
#   make test-asan  the test suite under AddressSanitizer + UBSan
#   V=1           show every compiler command
# Solvers are found by globbing solvers/*.c and solvers/*/ (a folder is one
# solver); the registry is generated from those names.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
PKGS    := igraph jansson check cairo
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -Wall -Wextra -Isrc -Isolvers -Itests -MMD -MP \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs igraph jansson cairo 2>/dev/null) -lglpk -lsqlite3 -lm
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRC         := $(filter-out src/main.c,$(wildcard src/*.c))
LIB_SOLVERS := $(sort $(wildcard solvers/lib/*.c))
SOLVER_DIRS := $(sort $(filter-out solvers/lib/,$(wildcard solvers/*/)))
SOLVERS     := $(sort $(wildcard solvers/*.c)) $(foreach d,$(SOLVER_DIRS),$(sort $(wildcard $(d)*.c)))
# the registry's entries: one per solver file, one per solver folder
SOLVER_UNITS := $(sort $(wildcard solvers/*.c)) $(patsubst %/,%,$(SOLVER_DIRS))
TESTS    := $(sort $(wildcard tests/test_*.c)) tests/runner.c tests/testlib.c tests/oracle.c
OBJ      := $(SRC:%.c=$(BUILD)/%.o) $(LIB_SOLVERS:%.c=$(BUILD)/%.o) $(SOLVERS:%.c=$(BUILD)/%.o) \
            $(BUILD)/registry.o
TEST_OBJ := $(TESTS:%.c=$(BUILD)/%.o) $(BUILD)/test_suites.o

.PHONY: all deps check-libs test test-unit test-cli test-asan bench bench-full graphs clean \
        test-slurm validate test-exporter FORCE

all: bin/memplan

# A plain `make` on a machine without the libraries says what to do.
check-libs:
	@pkg-config --exists $(PKGS) 2>/dev/null && [ -f /usr/include/glpk.h ] && \
	  [ -f /usr/include/sqlite3.h ] || { \
	  echo "memplan: the build needs Debian's libigraph-dev libglpk-dev libjansson-dev check"; \
	  echo "  libcairo2-dev libsqlite3-dev pkg-config: run 'make deps' (as root) first."; exit 1; }

$(BUILD)/%.o: %.c | check-libs
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The list of solver units, rewritten only when it changes, so that adding or
# deleting a solver regenerates the registry and relinks.
$(BUILD)/solvers.list: FORCE
	@mkdir -p $(BUILD)
	@echo "$(SOLVER_UNITS)" | tr ' ' '\n' > $@.new; \
	  if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

$(BUILD)/registry.c: $(BUILD)/solvers.list scripts/gen_registry.sh $(SOLVERS)
	$(Q)sh scripts/gen_registry.sh $(SOLVER_UNITS) > $@.tmp && mv $@.tmp $@

$(BUILD)/test_suites.c: $(wildcard tests/test_*.c) scripts/gen_suites.sh
	@mkdir -p $(BUILD)
	$(Q)sh scripts/gen_suites.sh $(sort $(wildcard tests/test_*.c)) > $@.tmp && mv $@.tmp $@

$(BUILD)/test_suites.o: $(BUILD)/test_suites.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/registry.o: $(BUILD)/registry.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

bin/memplan: $(OBJ) $(BUILD)/src/main.o
	@mkdir -p bin
	@$(if $(Q),echo "  LD $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# the CLI built into $(BUILD) (test-asan runs tests/cli.sh with it)
$(BUILD)/memplan: $(OBJ) $(BUILD)/src/main.o
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/test_memplan: $(OBJ) $(TEST_OBJ)
	@$(if $(Q),echo "  LD $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(CHECK_LIBS)

deps:
	@sh scripts/deps.sh

test: deps
	@$(MAKE) --no-print-directory test-unit test-cli

test-unit: bin/memplan $(BUILD)/test_memplan
	cd tests && CK_DEFAULT_TIMEOUT=600 ../$(BUILD)/test_memplan

test-cli: bin/memplan
	@sh tests/layers.sh
	sh tests/cli.sh

test-asan:
	@sh scripts/deps.sh
	$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
	  LDFLAGS="-fsanitize=address,undefined" build-asan/test_memplan build-asan/memplan
	cd tests && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  CK_FORK=no MP_QUICK=1 ../build-asan/test_memplan
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  BIN=build-asan/memplan sh tests/cli.sh

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

graphs: bin/memplan
	sh scripts/deps-graphs.sh
	sh scripts/make_graphs.sh

# memplan's live peak of exported graphs against eager PyTorch's measured
# allocator peak -> results/validation.md (needs python3-torch; about an hour)
validate: bin/memplan
	sh scripts/deps-graphs.sh
	nice /usr/bin/python3 scripts/validate_torch.py
	nice /usr/bin/python3 scripts/validate_torch.py --ops --append results/validation.md

# the exporter's unit tests (need python3-torch; not part of make test)
test-exporter: bin/memplan
	sh scripts/deps-graphs.sh
	cd scripts && /usr/bin/python3 -m unittest discover -s tests -t . -v

clean:
	rm -rf build build-asan bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
