# memplan - static memory planning workbench.
#   make          build bin/memplan
#   make deps     install the Debian packages the project needs (idempotent)
#   make test     deps + build + the whole test suite
#   make bench    deps + build + the default experiment (tables/plots in results/)
#   make test-asan  the test suite under AddressSanitizer + UBSan
# Solvers are found by globbing solvers/*.c; the registry is generated.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -Wall -Wextra -Isrc -Itests \
           $(shell pkg-config --cflags igraph jansson check cairo 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs igraph jansson cairo 2>/dev/null) -lglpk -lsqlite3 -lm
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)

SRC      := $(filter-out src/main.c,$(wildcard src/*.c))
SOLVERS  := $(sort $(wildcard solvers/*.c))
TESTS    := $(sort $(wildcard tests/test_*.c)) tests/runner.c tests/testlib.c tests/oracle.c
OBJ      := $(SRC:%.c=$(BUILD)/%.o) $(SOLVERS:%.c=$(BUILD)/%.o) $(BUILD)/registry.o
TEST_OBJ := $(TESTS:%.c=$(BUILD)/%.o) $(BUILD)/test_suites.o
HDR      := $(wildcard src/*.h)

.PHONY: all deps test test-unit test-cli test-asan bench bench-full graphs clean test-slurm

all: bin/memplan

$(BUILD)/%.o: %.c $(HDR) $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# One line per solver file: the registry is derived from the file names.
$(BUILD)/registry.c: $(SOLVERS) scripts/gen_registry.sh
	@mkdir -p $(BUILD)
	sh scripts/gen_registry.sh $(SOLVERS) > $@.tmp && mv $@.tmp $@

$(BUILD)/test_suites.c: $(wildcard tests/test_*.c) scripts/gen_suites.sh
	@mkdir -p $(BUILD)
	sh scripts/gen_suites.sh $(sort $(wildcard tests/test_*.c)) > $@.tmp && mv $@.tmp $@

$(BUILD)/test_suites.o: $(BUILD)/test_suites.c
	$(CC) $(CFLAGS) $(shell pkg-config --cflags check 2>/dev/null) -c $< -o $@

$(BUILD)/registry.o: $(BUILD)/registry.c $(HDR)
	$(CC) $(CFLAGS) -c $< -o $@

bin/memplan: $(OBJ) $(BUILD)/src/main.o
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# the CLI built into $(BUILD) (test-asan runs tests/cli.sh with it)
$(BUILD)/memplan: $(OBJ) $(BUILD)/src/main.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/test_memplan: $(OBJ) $(TEST_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(CHECK_LIBS)

deps:
	@sh scripts/deps.sh

test: deps
	@$(MAKE) --no-print-directory test-unit test-cli

test-unit: bin/memplan $(BUILD)/test_memplan
	cd tests && CK_DEFAULT_TIMEOUT=600 ../$(BUILD)/test_memplan

test-cli: bin/memplan
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

clean:
	rm -rf build build-asan bin
