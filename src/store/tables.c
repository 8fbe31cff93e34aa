/*
 * tables.c — what a collection's tables are made of: each table's
 * columns and the key dictionary, for a collection of this server
 * (catalog.c) and for one spread over several (shards.c) alike.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "common/common.h"
#include "common/plancache.h"
#include "store/collection.h"
#include "store/keydict.h"

/*
 * The columns of a collection's table, by suffix, as CREATE TABLE takes
 * them.  A distributed collection's tables have no primary key on the
 * coordinator (its partitions are foreign tables); its shards' have.
 */
const char *
collection_table_columns(const char *suffix, bool distributed)
{
	/*
	 * doctid: where the value's object's kept document lies in c_doc (the
	 * root of its chain), so that a value found leads to its document
	 * without a second descent (docs/design.md, "The road to an object");
	 * checked by objid, as row maps are.  Not on a coordinator: its
	 * shards keep their own.
	 */
	const char *doctid = distributed ? "" : ", doctid pg_catalog.tid";

	if (strcmp(suffix, "str") == 0)
		return psprintf("objid bigint NOT NULL, keyid integer NOT NULL, valstr pg_catalog.text COLLATE pg_catalog.\"C\" NOT NULL%s", doctid);
	/* valexact: a number's text where its double would not give it back */
	if (strcmp(suffix, "num") == 0)
		return psprintf("objid bigint NOT NULL, keyid integer NOT NULL, valnum double precision NOT NULL, valexact pg_catalog.text%s", doctid);
	/* also holds null, {} and [] (valbool NULL) */
	if (strcmp(suffix, "bool") == 0)
		return psprintf("objid bigint NOT NULL, keyid integer NOT NULL, valbool boolean%s", doctid);
	if (strcmp(suffix, "data") == 0)
		return psprintf("objid bigint NOT NULL, keyid integer NOT NULL, valstr pg_catalog.text COLLATE pg_catalog.\"C\", valnum double precision, valbool boolean, valexact pg_catalog.text%s, "
						"CHECK (pg_catalog.num_nonnulls(valstr, valnum, valbool) OPERATOR(pg_catalog.<=) 1)", doctid);
	/* rowmap: where the object's rows lie (rowmap.c) */
	return distributed ? "objid bigint NOT NULL, rowmap pg_catalog.bytea" :
		"objid bigint PRIMARY KEY, rowmap pg_catalog.bytea";
}

/*
 * The key dictionary, its statistics columns filled by argo_analyze
 * (schema.c), its complete column (keyflags.c), and its id sequence.
 */
void
collection_create_dictionary(ArgoCollection *c)
{
	char	   *kseq = quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_kseq", c->name));

	run_ddl(psprintf("CREATE SEQUENCE %s AS integer", kseq));
	run_ddl(psprintf("CREATE TABLE %s (keyid integer PRIMARY KEY DEFAULT pg_catalog.nextval('%s'::pg_catalog.regclass), keystr pg_catalog.text COLLATE pg_catalog.\"C\" NOT NULL UNIQUE, "
					 ARGO_KEY_STATS_COLUMNS ")",
					 c->keys_table, kseq));
	run_ddl(psprintf("ALTER SEQUENCE %s OWNED BY %s.keyid", kseq, c->keys_table));
	/* the few keys every object holds, read by each writing transaction */
	run_ddl(psprintf("CREATE INDEX ON %s (keyid) WHERE complete", c->keys_table));
}
