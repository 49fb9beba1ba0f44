# shorn for SQLite.
#   make        build/shorn.so, the loadable extension
#   make demo   the SQL tutorial in the sqlite3 shell, extension loaded
#   make test   every test: unit, vectors, SQL, Python; sanitizers; valgrind

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
BUILD   ?= build
PYTHON  := /usr/bin/python3
SQLITE  := sqlite3

# What a fresh Debian machine lacks for `make test` and `make demo`.
PACKAGES := gcc make libc6-dev libsqlite3-dev sqlite3 python3 valgrind

CORE_SRC := $(filter-out ext/sqlite_%.c,$(wildcard ext/*.c))
GLUE_SRC := $(wildcard ext/sqlite_*.c)
CORE_OBJ := $(CORE_SRC:ext/%.c=$(BUILD)/obj/%.o)
PIC_OBJ  := $(CORE_SRC:ext/%.c=$(BUILD)/pic/%.o) $(GLUE_SRC:ext/%.c=$(BUILD)/pic/%.o)
CORE_GLUE_OBJ := $(GLUE_SRC:ext/%.c=$(BUILD)/core/%.o)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/%,$(wildcard tests/unit/test_*.c))

.PHONY: all deps check check-loadable test demo clean
all: $(BUILD)/shorn.so

deps:
	@scripts/install-deps.sh $(PACKAGES)

# The core, for unit tests and programs linking it statically.
$(BUILD)/obj/%.o: ext/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@

$(BUILD)/libshorn.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The loadable extension: everything position-independent, only the entry
# point exported.
$(BUILD)/pic/%.o: ext/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -MMD -MP -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/shorn.so: $(PIC_OBJ)
	$(CC) $(CFLAGS) -shared $^ -lm -o $@

# The glue linked into a program (SQLITE_CORE), for the C test drivers.
$(BUILD)/core/%.o: ext/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -MMD -MP -DSQLITE_CORE -c $< -o $@

$(BUILD)/test_%: tests/unit/test_%.c tests/unit/check.h $(BUILD)/libshorn.a
	$(CC) $(CFLAGS) $(WARN) -Iext $< $(BUILD)/libshorn.a -lm -o $@

$(BUILD)/vectors: tests/vectors.c $(CORE_GLUE_OBJ) $(BUILD)/libshorn.a
	$(CC) $(CFLAGS) $(WARN) -DSQLITE_CORE -Iext $< $(CORE_GLUE_OBJ) $(BUILD)/libshorn.a -lsqlite3 -lm -o $@

# One configuration's tests: unit, then every golden vector through SQL.
check: $(UNIT_BIN) $(BUILD)/vectors
	@for t in $(UNIT_BIN); do ./$$t || exit 1; done
	./$(BUILD)/vectors tests/vectors

# The shell and Python tests load the extension itself.
check-loadable: all
	scripts/run-sql-tests.sh $(SQLITE) $(abspath $(BUILD)/shorn)
	SHORN_EXTENSION=$(abspath $(BUILD)/shorn) $(PYTHON) -m unittest discover -s tests/python -t tests/python

SANITIZE := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

test: deps
	$(MAKE) check check-loadable
	$(MAKE) check BUILD=build/sanitize CFLAGS="$(SANITIZE)" LDFLAGS="$(SANITIZE)"
	valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	  ./build/vectors tests/vectors

demo: deps all
	$(SQLITE) -bail -cmd ".load $(BUILD)/shorn" :memory: < sql/tutorial.sql

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
