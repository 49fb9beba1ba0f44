# shorn for SQLite.  `make` builds build/shorn.so; `make test` runs every test;
# `make demo` runs the SQL tutorial in the sqlite3 shell.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
BUILD   := build

CORE_SRC := $(filter-out ext/sqlite_%.c,$(wildcard ext/*.c))
CORE_OBJ := $(CORE_SRC:ext/%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/%)

.PHONY: all test unit clean
all: $(BUILD)/libshorn.a

$(BUILD)/obj/%.o: ext/%.c ext/shorn.h ext/internal.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -fPIC -c $< -o $@

$(BUILD)/libshorn.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/test_%: tests/unit/test_%.c tests/unit/check.h $(BUILD)/libshorn.a
	$(CC) $(CFLAGS) $(WARN) -Iext $< $(BUILD)/libshorn.a -lm -o $@

unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do echo "== $$t"; ./$$t || exit 1; done

test: unit

clean:
	rm -rf $(BUILD)
