# Argo — PGXS build.  Grammar and scanner are built from src/parse/gram.y and
# src/parse/scan.l by PGXS's own bison/flex rules; their outputs are not tracked.

MODULE_big = argo
# every C file under src/<layer>/ (and src/<layer>/<concern>/), and the
# parser bison and flex make
ARGO_SOURCES = $(wildcard src/*/*.c src/*/*/*.c)
OBJS = $(patsubst %.c,%.o,$(sort $(filter-out src/parse/gram.c src/parse/scan.c,$(ARGO_SOURCES)))) \
	src/parse/gram.o src/parse/scan.o

EXTENSION = argo
EXTVERSION = 0.11
DATA_built = argo--$(EXTVERSION).sql
DATA = src/argo--0.1--0.2.sql src/argo--0.2--0.3.sql src/argo--0.3--0.4.sql src/argo--0.4--0.5.sql src/argo--0.5--0.6.sql src/argo--0.6--0.7.sql src/argo--0.7--0.8.sql src/argo--0.8--0.9.sql src/argo--0.9--0.10.sql src/argo--0.10--0.11.sql

TESTS = $(sort $(wildcard sql/*.sql))
REGRESS = $(patsubst sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --load-extension=argo

ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --load-extension=argo --inputdir=test/isolation

EXTRA_CLEAN = src/parse/gram.c src/parse/gram.h src/parse/scan.c argo--$(EXTVERSION).sql argo.map

PG_CPPFLAGS = -I$(srcdir)/src -I$(libpq_srcdir)
# libpq, as postgres_fdw links it: to ask whether a shard's server answers
# (store/shards.c)
SHLIB_LINK_INTERNAL = $(libpq)
# argo.so exports only what PostgreSQL looks up by name (argo.map, made
# below): a global symbol of ours named like another library's, loaded
# into the same backend, would otherwise collide with it
SHLIB_LINK = -Wl,--version-script=argo.map

# The compiler records which headers each object includes (.deps/), so a
# changed header rebuilds exactly the objects that use it.
override autodepend = yes
PG_CFLAGS = -Werror=implicit-function-declaration -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

argo--$(EXTVERSION).sql: src/argo.sql
	cp $< $@


src/parse/gram.c: BISONFLAGS += -d
# fast tables, as PostgreSQL builds its own SQL scanner: the default,
# compressed ones took 36 ns a byte of a statement's inline JSON
src/parse/scan.c: FLEXFLAGS = -CF -p -p
src/parse/gram.h: src/parse/gram.c
	@touch $@
src/parse/scan.o: src/parse/gram.h
src/parse/unsupported.o: src/parse/gram.h
src/parse/gram.o: src/parse/gram.h

# What PostgreSQL looks up in argo.so by name: the SQL-callable functions
# (each PG_FUNCTION_INFO_V1, with its info function), the module's magic
# block and _PG_init, the output plugin's entry point, and the background
# workers' entry points (bgw_function_name, fn/expireworker.c).
ARGO_ENTRY_POINTS = Pg_magic_func _PG_init _PG_output_plugin_init argo_expire_launcher argo_expire_database
argo.map: $(sort $(ARGO_SOURCES)) Makefile
	{ echo '{ global:'; \
	  for s in $(ARGO_ENTRY_POINTS); do echo "  $$s;"; done; \
	  sed -n 's/^PG_FUNCTION_INFO_V1(\([A-Za-z0-9_]*\));.*/  \1; pg_finfo_\1;/p' $(sort $(ARGO_SOURCES)); \
	  echo 'local: *; };'; } > $@
$(shlib): argo.map
