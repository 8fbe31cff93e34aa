# Argo — PGXS build.  Grammar and scanner are built from src/gram.y and
# src/scan.l by PGXS's own bison/flex rules; their outputs are not tracked.

MODULE_big = argo
OBJS = \
	src/allobjects.o \
	src/argo.o \
	src/bulkinsert.o \
	src/aggregate.o \
	src/aggscan.o \
	src/analyze.o \
	src/catalog.o \
	src/check.o \
	src/decompose.o \
	src/errors.o \
	src/execute.o \
	src/fetch.o \
	src/gram.o \
	src/indexes.o \
	src/join.o \
	src/jsonbwrite.o \
	src/joinset.o \
	src/keydict.o \
	src/keypath.o \
	src/load.o \
	src/lookup.o \
	src/numbers.o \
	src/objfn.o \
	src/objlock.o \
	src/plancache.o \
	src/predicate.o \
	src/projscan.o \
	src/reconstruct.o \
	src/schema.o \
	src/scan.o \
	src/setops.o \
	src/sqlbuf.o \
	src/sqlgen.o \
	src/sqlpretty.o \
	src/stream.o \
	src/topn.o \
	src/update.o

EXTENSION = argo
EXTVERSION = 0.5
DATA_built = argo--$(EXTVERSION).sql
DATA = src/argo--0.1--0.2.sql src/argo--0.2--0.3.sql src/argo--0.3--0.4.sql src/argo--0.4--0.5.sql

TESTS = $(sort $(wildcard sql/*.sql))
REGRESS = $(patsubst sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --load-extension=argo

ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --load-extension=argo --inputdir=test/isolation

EXTRA_CLEAN = src/gram.c src/gram.h src/scan.c argo--$(EXTVERSION).sql

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -Werror=implicit-function-declaration -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

argo--$(EXTVERSION).sql: src/argo.sql
	cp $< $@

# Every object depends on the shared header (PGXS tracks no headers here):
# a struct changed in argo.h must not leave objects built with the old one.
$(OBJS): src/argo.h
src/gram.o src/scan.o: src/parser.h

src/gram.c: BISONFLAGS += -d
src/gram.h: src/gram.c
	@touch $@
src/scan.o: src/gram.h
src/gram.o: src/gram.h
