/*
 * unique.c — unique keys: argo_unique(collection, path) makes the values
 * at one path unique in a collection, per type (the string "5" and the
 * number 5 differ), leaving JSON null and objects lacking the path
 * unconstrained (reference.md §5.9).
 *
 * PostgreSQL keeps them: a partial unique B-tree per value type, on the
 * type's table, WHERE keyid = the path's key id.  So every write path —
 * SQL's INSERT and Argo's own from C (which inserts index entries as the
 * executor does) — is checked, a second writer of a value waits for the
 * first and then fails, and a failed write changes nothing.  Strings are
 * indexed as (their first 200 characters, their MD5), so a value of any
 * length fits in a B-tree row; two strings are then one value only if
 * they share both (equal, short of an MD5 collision between two strings
 * with the same first 200 characters).
 *
 * An index's name ends in "_u<key id><s|n|b>": a unique violation from
 * one (23505, "duplicate key value violates unique constraint") is
 * reworded to name the collection, the path and the value.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_index.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "common/common.h"
#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/keydict.h"

/* A string's indexed prefix, in characters. */
#define UNIQUE_PREFIX_CHARS 200

/* One value type's unique index: its table, its column expression, its letter. */
typedef struct UniqueType
{
	const char *table3;			/* Argo/3's table suffix */
	const char *column;			/* the indexed value, and the test of its type */
	const char *present;		/* a row of this type */
	char		letter;
} UniqueType;

static const UniqueType types[] = {
	{"str", "pg_catalog.left(valstr, 200), pg_catalog.md5(valstr)", "valstr IS NOT NULL", 's'},
	{"num", "valnum", "valnum IS NOT NULL", 'n'},
	{"bool", "valbool", "valbool IS NOT NULL", 'b'},
};

static const char *
type_table(ArgoCollection *c, const UniqueType *t)
{
	return c->format == ARGO_FORMAT_ARGO1 ? c->data_table :
		quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_%s", c->name, t->table3));
}

/*
 * The index's name: "<collection>_u<key id><letter>", the collection's
 * part cut (and a hash of it added) if that would not fit in a name.
 */
static char *
index_name(ArgoCollection *c, int32 keyid, const UniqueType *t)
{
	char	   *suffix = psprintf("_u%d%c", keyid, t->letter);
	int			room = NAMEDATALEN - 1 - strlen(suffix);

	if (strlen(c->name) <= room)
		return psprintf("%s%s", c->name, suffix);
	return psprintf("%.*s%08x%s", room - 8, c->name,
					hash_bytes((const unsigned char *) c->name, strlen(c->name)), suffix);
}

/* Whether argo_data holds a relation of that name. */
static bool
index_exists(const char *name)
{
	return OidIsValid(get_relname_relid(name, get_namespace_oid(ARGO_SCHEMA, false)));
}

/* A value stored twice at the key, as text; NULL when each is there once. */
static char *
duplicate(ArgoCollection *c, int32 keyid, const UniqueType *t)
{
	const char *col = t->letter == 's' ? "valstr" : t->letter == 'n' ? "valnum" : "valbool";
	char	   *sql = psprintf("SELECT %s::pg_catalog.text FROM %s WHERE keyid OPERATOR(pg_catalog.=) %d AND %s"
							   " GROUP BY %s HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 LIMIT 1",
							   col, type_table(c, t), keyid, t->present, col);

	if (SPI_execute(sql, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not look for duplicate values");
	return SPI_processed == 0 ? NULL :
		SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
}

/*
 * The value as the message shows it: JSON's true and false, a string
 * quoted and cut to its first SHOWN_CHARS characters.
 */
#define SHOWN_CHARS 60
static char *
shown_value(char *value, char letter)
{
	int			cut;

	if (value == NULL)
		return NULL;
	if (letter == 'b')
		return pstrdup(strcmp(value, "t") == 0 ? "true" : "false");
	if (letter != 's')
		return value;
	cut = pg_mbcharcliplen(value, strlen(value), SHOWN_CHARS);
	if (value[cut] == '\0')
		return quote_literal_cstr(value);
	return psprintf("%s…", quote_literal_cstr(pnstrdup(value, cut)));
}

/*
 * Make the values at keystr (key id keyid) unique in c, or (on false)
 * no longer.  The values stored already must be unique: 23505 naming a
 * duplicate otherwise, and nothing is made.
 */
void
collection_set_unique(ArgoCollection *c, const char *keystr, int32 keyid, bool on)
{
	for (int i = 0; i < lengthof(types); i++)
	{
		const UniqueType *t = &types[i];
		char	   *name = index_name(c, keyid, t);
		char	   *dup;

		if (!on)
		{
			if (index_exists(name))
				run_ddl(psprintf("DROP INDEX %s", quote_qualified_identifier(ARGO_SCHEMA, name)));
			continue;
		}
		if (index_exists(name))
			continue;
		if ((dup = duplicate(c, keyid, t)) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("the values at \"%s\" in collection \"%s\" are not unique", keystr, c->name),
					 errdetail("More than one object holds %s %s.",
							   t->letter == 's' ? "the string" : t->letter == 'n' ? "the number" : "the boolean",
							   shown_value(dup, t->letter))));
		run_ddl(psprintf("CREATE UNIQUE INDEX %s ON %s (%s) WHERE keyid OPERATOR(pg_catalog.=) %d%s%s",
						 quote_identifier(name), type_table(c, t), t->column, keyid,
						 c->format == ARGO_FORMAT_ARGO1 ? " AND " : "",
						 c->format == ARGO_FORMAT_ARGO1 ? t->present : ""));
	}
}

/* The key id a unique index of ours names ("…_u<id><letter>"), or 0. */
static int32
unique_keyid(const char *index, char *letter)
{
	const char *u = strrchr(index, 'u');
	int			len = strlen(index);
	int32		id = 0;

	if (u == NULL || u == index || u[-1] != '_' || len < 4)
		return 0;
	*letter = index[len - 1];
	if (*letter != 's' && *letter != 'n' && *letter != 'b')
		return 0;
	for (const char *p = u + 1; p < index + len - 1; p++)
	{
		if (!isdigit((unsigned char) *p) || id > PG_INT32_MAX / 10)
			return 0;
		id = id * 10 + (*p - '0');
	}
	return id;
}

/* The keys of c that are unique: the key ids its unique indexes name. */
List *
collection_unique_keys(ArgoCollection *c)
{
	List	   *ids = NIL;

	for (int t = 0; t < (c->format == ARGO_FORMAT_ARGO1 ? 1 : 3); t++)
	{
		static const char *const argo3[] = {"str", "num", "bool"};
		Relation	rel = argo_open_table(c, c->format == ARGO_FORMAT_ARGO1 ? "data" : argo3[t]);
		ListCell   *lc;

		foreach(lc, RelationGetIndexList(rel))
		{
			char	   *name = get_rel_name(lfirst_oid(lc));
			char		letter;
			int32		id = name ? unique_keyid(name, &letter) : 0;

			if (id > 0 && !list_member_int(ids, id))
				ids = lappend_int(ids, id);
		}
		table_close(rel, NoLock);
	}
	return ids;
}

/*
 * The value a unique violation's detail quotes: "Key (cols)=(value[, md5])
 * already exists."; NULL when it quotes none (a role that may not read
 * every column of the table gets no detail).
 */
static char *
violating_value(const char *detail, char letter)
{
	const char *tail = ") already exists.";
	const char *start = detail ? strstr(detail, ")=(") : NULL;
	const char *end = detail && strlen(detail) >= strlen(tail) ?
		detail + strlen(detail) - strlen(tail) : NULL;

	if (start == NULL || end == NULL || strcmp(end, tail) != 0 || end < start + 3)
		return NULL;
	start += 3;
	/* strings: the prefix, then ", " and 32 hexadecimal digits of MD5 */
	if (letter == 's')
	{
		if (end - start < 34)
			return NULL;
		end -= 34;
	}
	return pnstrdup(start, end - start);
}

/*
 * A unique violation from one of Argo's unique indexes, reworded: which
 * collection, which path, which value (23505 stays).  Anything else, or
 * anything not known here, is left as it was.
 */
void
unique_explain_violation(ErrorData *e)
{
	char		letter;
	int32		keyid;
	int			tlen;
	char	   *coll;
	const char *keystr;
	char	   *value;

	if (e->sqlerrcode != ERRCODE_UNIQUE_VIOLATION || e->constraint_name == NULL ||
		e->table_name == NULL || e->schema_name == NULL ||
		strcmp(e->schema_name, ARGO_SCHEMA) != 0 ||
		(keyid = unique_keyid(e->constraint_name, &letter)) == 0)
		return;
	tlen = strlen(e->table_name);
	if (tlen < 5 || strrchr(e->table_name, '_') == NULL)
		return;
	coll = pnstrdup(e->table_name, strrchr(e->table_name, '_') - e->table_name);
	keystr = keydict_cached_keystr(coll, keyid);
	value = shown_value(violating_value(e->detail, letter), letter);
	e->message = psprintf("duplicate value%s%s at unique key \"%s\" of collection \"%s\"",
						  value ? " " : "",
						  value ? value : "",
						  keystr ? keystr : "?", coll);
	e->detail = pstrdup("Another object holds that value already (argo_unique).");
}
