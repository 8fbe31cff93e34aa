/*
 * catalog.c — collections and their tables.
 *
 * A collection is nothing but its tables and sequences in schema
 * argo_data: "c" in Argo/3 is c_str, c_num, c_bool, in Argo/1 c_data;
 * both have c_keys (the key dictionary, keydict.c) with its id sequence
 * c_kseq, c_obj (the object directory: one row per object) and c_seq
 * (object ids).  PostgreSQL's own catalog is the directory of
 * collections, so its privileges (and nothing of ours) decide who may
 * read, write, create or drop.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_relation.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "common/common.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/feed.h"
#include "store/shard/shard.h"

/* argo.keep_documents: whether collections made from now on keep them (docs.c) */
bool		argo_keep_documents_default = true;

/* Directory rows per page: a bigint, its 24-byte header and line pointer. */
#define DIRECTORY_ROWS_PER_PAGE (BLCKSZ / 36)

/* Longest name whose table names ("_bool", "_data") still fit NAMEDATALEN. */
#define MAX_COLLECTION_NAME (NAMEDATALEN - 1 - 5)

/* Whether name is spelled as a collection's may be (its length aside). */
static bool
name_spelled_right(const char *name)
{
	size_t		len = strlen(name);

	return len > 0 && (isalpha((unsigned char) name[0]) || name[0] == '_') &&
		strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == len;
}

/* Whether name can be a collection's, without an error when not. */
bool
collection_name_valid(const char *name)
{
	return name_spelled_right(name) && strlen(name) <= MAX_COLLECTION_NAME;
}

void
collection_check_name(const char *name)
{
	size_t		len = strlen(name);

	if (!name_spelled_right(name))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid collection name \"%s\"", name),
				 errdetail("A collection name is a letter or underscore followed by letters, digits and underscores.")));
	if (len > MAX_COLLECTION_NAME)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("collection name \"%s\" is too long", name),
				 errdetail("A collection name has at most %d characters.",
						   MAX_COLLECTION_NAME)));
}

ArgoFormat
format_from_name(const char *fmt)
{
	if (pg_strcasecmp(fmt, "argo3") == 0)
		return ARGO_FORMAT_ARGO3;
	if (pg_strcasecmp(fmt, "argo1") == 0)
		return ARGO_FORMAT_ARGO1;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown collection format \"%s\"", fmt),
			 errhint("The formats are argo3 and argo1.")));
	pg_unreachable();
}

static Oid
storage_namespace(void)
{
	Oid			nsp = get_namespace_oid(ARGO_SCHEMA, true);

	if (!OidIsValid(nsp))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_SCHEMA),
				 errmsg("schema \"%s\" does not exist", ARGO_SCHEMA),
				 errhint("Run CREATE EXTENSION argo.")));
	return nsp;
}

static char *
table_name(const char *coll, const char *suffix)
{
	return psprintf("%s_%s", coll, suffix);
}

static char *
qualified(const char *coll, const char *suffix)
{
	return quote_qualified_identifier(ARGO_SCHEMA, table_name(coll, suffix));
}

/*
 * The collection's sequence, whose existence makes the collection exist
 * and whose owner owns the collection; InvalidOid when there is none.
 */
static Oid
collection_sequence(Oid nsp, const char *coll, Oid *owner)
{
	Oid			seq = get_relname_relid(table_name(coll, "seq"), nsp);

	if (!OidIsValid(seq) || get_rel_relkind(seq) != RELKIND_SEQUENCE)
		return InvalidOid;
	*owner = argo_relation_owner(seq);
	return seq;
}

/*
 * The format is that of the tables the collection's owner owns: another
 * role with CREATE on the schema can make a "c_data" beside someone's
 * Argo/3 collection "c", and must not turn it into an Argo/1 one.
 */
static ArgoFormat
owned_format(Oid nsp, const char *coll, Oid owner)
{
	Oid			data = get_relname_relid(table_name(coll, "data"), nsp);

	return OidIsValid(data) && argo_relation_owner(data) == owner ?
		ARGO_FORMAT_ARGO1 : ARGO_FORMAT_ARGO3;
}

/* A collection's table names, quoted and qualified, made once a backend. */
typedef struct TableNames
{
	char		name[NAMEDATALEN];	/* hash key */
	char	   *str,
			   *num,
			   *boo,
			   *data,
			   *keys,
			   *obj,
			   *doc,
			   *seq;
} TableNames;

/*
 * The names are a function of the collection's name alone, so they are
 * kept for the backend's life (a few hundred bytes a collection): making
 * them, seven quotings, was a tenth of a point read's own work.
 */
static TableNames *
table_names(const char *name)
{
	static HTAB *names = NULL;
	TableNames *t;
	TableNames	made;
	bool		found;
	MemoryContext old;

	/* longer names are refused by collection_check_name before any use */
	if (strlen(name) >= NAMEDATALEN)
		elog(ERROR, "collection name \"%s\" is too long", name);
	if (names == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = NAMEDATALEN;
		ctl.entrysize = sizeof(TableNames);
		ctl.hcxt = CacheMemoryContext;
		names = hash_create("argo table names", 16, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	t = hash_search(names, name, HASH_FIND, NULL);
	if (t != NULL)
		return t;
	/* made before the entry exists: an error leaves no entry half made */
	old = MemoryContextSwitchTo(CacheMemoryContext);
	made.str = qualified(name, "str");
	made.num = qualified(name, "num");
	made.boo = qualified(name, "bool");
	made.data = qualified(name, "data");
	made.keys = qualified(name, "keys");
	made.obj = qualified(name, "obj");
	made.doc = qualified(name, "doc");
	made.seq = qualified(name, "seq");
	MemoryContextSwitchTo(old);
	t = hash_search(names, name, HASH_ENTER, &found);
	strlcpy(made.name, t->name, NAMEDATALEN);
	*t = made;
	return t;
}

static ArgoCollection *
make_collection(const char *name, ArgoFormat format)
{
	ArgoCollection *c = palloc0(sizeof(ArgoCollection));
	TableNames *t = table_names(name);

	c->name = pstrdup(name);
	c->format = format;
	c->str_table = t->str;
	c->num_table = t->num;
	c->bool_table = t->boo;
	c->data_table = t->data;
	c->keys_table = t->keys;
	c->obj_table = t->obj;
	c->doc_table = t->doc;
	c->seq = t->seq;
	return c;
}

/* A collection's tables, in the order collection_drop drops them. */
static const char *const argo3_tables[] = {"str", "num", "bool", "keys", "obj"};
static const char *const argo1_tables[] = {"data", "keys", "obj"};

/* The columns Argo reads and writes, by table. */
typedef struct ColumnSpec
{
	const char *name;
	Oid			type;
} ColumnSpec;

static const ColumnSpec *
table_columns(const char *suffix)
{
	static const ColumnSpec str[] = {{"objid", INT8OID}, {"keyid", INT4OID}, {"valstr", TEXTOID}, {NULL}};
	static const ColumnSpec num[] = {{"objid", INT8OID}, {"keyid", INT4OID}, {"valnum", FLOAT8OID},
	{"valexact", TEXTOID}, {NULL}};
	static const ColumnSpec boo[] = {{"objid", INT8OID}, {"keyid", INT4OID}, {"valbool", BOOLOID}, {NULL}};
	static const ColumnSpec data[] = {{"objid", INT8OID}, {"keyid", INT4OID}, {"valstr", TEXTOID},
	{"valnum", FLOAT8OID}, {"valbool", BOOLOID}, {"valexact", TEXTOID}, {NULL}};
	static const ColumnSpec keys[] = {{"keyid", INT4OID}, {"keystr", TEXTOID}, {NULL}};
	static const ColumnSpec obj[] = {{"objid", INT8OID}, {NULL}};
	static const ColumnSpec doc[] = {{"objid", INT8OID}, {"doc", JSONBOID}, {NULL}};

	return strcmp(suffix, "str") == 0 ? str : strcmp(suffix, "num") == 0 ? num :
		strcmp(suffix, "bool") == 0 ? boo : strcmp(suffix, "data") == 0 ? data :
		strcmp(suffix, "keys") == 0 ? keys : strcmp(suffix, "doc") == 0 ? doc : obj;
}

/*
 * Why a table of the collection is not one Argo made (NULL: it is):
 * owned by the collection's owner, a table, with Argo's columns.
 */
static const char *
table_problem(Oid relid, const char *suffix, Oid owner)
{
	Relation	rel = relation_open(relid, NoLock);
	char		kind = rel->rd_rel->relkind;
	const char *problem = NULL;

	if (rel->rd_rel->relowner != owner)
		problem = "it has another owner than the collection";
	else if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE &&
			 kind != RELKIND_FOREIGN_TABLE)
		problem = "it is not a table";
	for (const ColumnSpec *col = table_columns(suffix); problem == NULL && col->name; col++)
	{
		AttrNumber	att = attnameAttNum(rel, col->name, false);

		if (att <= 0 || TupleDescAttr(RelationGetDescr(rel), att - 1)->atttypid != col->type)
			problem = psprintf("it lacks Argo's column %s", col->name);
	}
	relation_close(rel, NoLock);
	return problem;
}

/* c's table of kept documents; InvalidOid where it keeps none. */
Oid
docs_relid(ArgoCollection *c)
{
	if (!c->docs_known)
		(void) docs_find(c, AccessShareLock, collection_owner(c));
	return argo_resolved_relid(c, "doc");
}

/*
 * Make c's table of kept documents (store/docs.c), empty, with its
 * guard; every backend that remembers c learns of it at its next lookup.
 * (Its row-level security, where c's tables have some: docs_sync_rls.)
 */
void
docs_create(ArgoCollection *c)
{
	run_ddl(psprintf("CREATE TABLE %s (objid bigint PRIMARY KEY, doc pg_catalog.jsonb NOT NULL) WITH (fillfactor = %d)",
					 c->doc_table, ARGO_DOCS_FILLFACTOR));
	run_ddl(psprintf("CREATE TRIGGER argo_docs_guard BEFORE INSERT OR UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION %s()",
					 c->doc_table, argo_function("argo_docs_guard")));
	c->docs_known = false;
	(void) docs_find(c, NoLock, GetUserId());
	CacheInvalidateRelcacheByRelid(argo_table_relid(c, "obj"));
}

/* Drop c's table of kept documents. */
void
docs_drop(ArgoCollection *c)
{
	if (!OidIsValid(docs_relid(c)))
		return;
	run_ddl(psprintf("DROP TABLE %s", c->doc_table));
	CacheInvalidateRelcacheByRelid(argo_table_relid(c, "obj"));
	argo_table_resolved(c, "doc", InvalidOid);
}

/*
 * A table of the collection must be one Argo made.  Anything else (a
 * table another role created under a dropped table's name, a view) is
 * refused before Argo reads or writes it.
 */
static void
check_table(ArgoCollection *c, Oid relid, const char *suffix, Oid owner)
{
	const char *problem = table_problem(relid, suffix, owner);

	if (problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s.%s\" is not part of collection \"%s\"",
						ARGO_SCHEMA, table_name(c->name, suffix), c->name),
				 errdetail("Argo does not use it: %s.", problem)));
}

/*
 * Lock the collection's tables in drop order, looking each up again
 * after its lock is granted (RangeVarGetRelid), and check that each is
 * the collection's own; false when one is gone: dropped while this
 * statement waited for it.  The same order as a drop means a statement
 * and a drop never deadlock: one waits for the other.
 */
static int
lock_tables(ArgoCollection *c, LOCKMODE lockmode, Oid owner, Oid *order)
{
	bool		argo1 = c->format == ARGO_FORMAT_ARGO1;
	const char *const *suffixes = argo1 ? argo1_tables : argo3_tables;
	int			n = argo1 ? lengthof(argo1_tables) : lengthof(argo3_tables);

	for (int i = 0; i < n; i++)
	{
		RangeVar   *rv = makeRangeVar(ARGO_SCHEMA, table_name(c->name, suffixes[i]), -1);
		Oid			relid = RangeVarGetRelid(rv, lockmode, true);

		if (!OidIsValid(relid))
			return 0;
		check_table(c, relid, suffixes[i], owner);
		argo_table_resolved(c, suffixes[i], relid);
		order[i] = relid;
	}
	/* last, as a drop drops it: the documents, where it keeps them */
	if ((order[n] = docs_find(c, lockmode, owner)) != InvalidOid)
		n++;
	return n;
}

/*
 * The table of c's kept documents, locked in lockmode (InvalidOid: it
 * keeps none).  A table of that name that is not Argo's (another role's,
 * say) is no collection's documents, and is not used.
 */
Oid
docs_find(ArgoCollection *c, LOCKMODE lockmode, Oid owner)
{
	RangeVar   *rv = makeRangeVar(ARGO_SCHEMA, table_name(c->name, "doc"), -1);
	Oid			relid = RangeVarGetRelid(rv, lockmode, true);

	if (OidIsValid(relid) && table_problem(relid, "doc", owner) != NULL)
		relid = InvalidOid;
	argo_table_resolved(c, "doc", relid);
	c->docs_known = true;
	return relid;
}

/*
 * The collection called name, its tables locked in lockmode until the
 * transaction ends (NoLock: the caller locks them), as PostgreSQL does
 * for the tables a statement names: a concurrent drop then waits for
 * this statement, or this statement for the drop and then finds the
 * collection gone (or re-created, perhaps in the other format).
 */
ArgoCollection *
collection_lookup(const char *name, bool missing_ok, LOCKMODE lockmode)
{
	Oid			nsp,
				relids[ARGO_NTABLES];
	ArgoFormat	format;

	collection_check_name(name);
	if (lockmode != NoLock && collcache_get(name, lockmode, &format, relids))
	{
		ArgoCollection *c = make_collection(name, format);

		memcpy(c->relids, relids, sizeof(relids));
		c->docs_known = true;
		shards_note_collection(c);
		return c;
	}
	nsp = storage_namespace();
	for (int attempt = 0; attempt < 3; attempt++)
	{
		ArgoCollection *c;
		Oid			owner,
					seq,
					order[ARGO_NTABLES];
		int			n;

		seq = collection_sequence(nsp, name, &owner);
		if (!OidIsValid(seq))
			break;
		c = make_collection(name, owned_format(nsp, name, owner));
		if (lockmode == NoLock)
			return c;
		n = lock_tables(c, lockmode, owner, order);
		if (n > 0)
		{
			collcache_put(name, c->format, seq, order, n, c->relids);
			shards_note_collection(c);
			return c;
		}
	}
	if (!missing_ok)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("collection \"%s\" does not exist", name)));
	return NULL;
}

/* True when the collection holds no object. */
bool
collection_is_empty(ArgoCollection *c)
{
	char	   *sql = psprintf("SELECT NOT EXISTS (SELECT FROM %s)", c->obj_table);
	bool		isnull;

	if (SPI_execute(sql, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not inspect collection \"%s\"", c->name);
	return DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * A value table's rows written through SQL make their objects' maps
 * forgotten (fn/rowmaps.c); Argo's own writes from C fire no trigger.
 */
static void
create_map_triggers(ArgoCollection *c, const char *table)
{
	static const char *const events[][2] = {
		{"insert", "INSERT ON %s REFERENCING NEW TABLE AS argo_new"},
		{"update", "UPDATE ON %s REFERENCING OLD TABLE AS argo_old NEW TABLE AS argo_new"},
		{"delete", "DELETE ON %s REFERENCING OLD TABLE AS argo_old"},
		{"truncate", "TRUNCATE ON %s"}
	};
	char	   *fn = argo_function("argo_forget_rowmaps");

	for (int i = 0; i < lengthof(events); i++)
		run_ddl(psprintf("CREATE TRIGGER argo_rowmaps_%s AFTER %s FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)",
						 events[i][0], psprintf(events[i][1], table), fn,
						 quote_literal_cstr(c->name)));
}

/*
 * The directory's objects changed through SQL (a role writing it, or
 * Argo's own statements where the tables need SQL) lose their kept
 * documents (fn/rowmaps.c): a copy stands only beside the directory row
 * and rows Argo wrote with it.
 */
static void
create_directory_trigger(ArgoCollection *c)
{
	static const char *const events[][2] = {
		{"update", "UPDATE ON %s REFERENCING OLD TABLE AS argo_old NEW TABLE AS argo_new"},
		{"delete", "DELETE ON %s REFERENCING OLD TABLE AS argo_old"},
		{"truncate", "TRUNCATE ON %s"}
	};
	char	   *fn = argo_function("argo_forget_rowmaps");

	for (int i = 0; i < lengthof(events); i++)
		run_ddl(psprintf("CREATE TRIGGER argo_rowmaps_%s AFTER %s FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)",
						 events[i][0], psprintf(events[i][1], c->obj_table), fn,
						 quote_literal_cstr(c->name)));
}

/*
 * The dictionary, the object directory (an empty object {} has its
 * directory row and no other) and the value tables of the format, with
 * their triggers and indexes; and the table of kept documents, as
 * argo.keep_documents says.
 */
static void
create_tables(ArgoCollection *c)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	bool		is1 = c->format == ARGO_FORMAT_ARGO1;

	collection_create_dictionary(c);
	run_ddl(psprintf("CREATE TABLE %s (%s)", c->obj_table, collection_table_columns("obj", false)));
	create_directory_trigger(c);
	for (int i = 0; i < (is1 ? 1 : 3); i++)
	{
		const char *suffix = is1 ? "data" : argo3[i];
		char	   *table = qualified(c->name, suffix);

		run_ddl(psprintf("CREATE TABLE %s (%s)", table, collection_table_columns(suffix, false)));
		create_map_triggers(c, table);
	}
	collection_create_indexes(c);
	if (argo_keep_documents_default)
		docs_create(c);
}

/* Creating a collection needs CREATE on the schema, checked before its name is locked. */
void
collection_check_may_create(void)
{
	Oid			nsp = storage_namespace();
	AclResult	acl = pg_namespace_aclcheck(nsp, GetUserId(), ACL_CREATE);

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_SCHEMA, ARGO_SCHEMA);
}

/*
 * Creating or dropping a collection takes a transaction-long lock on its
 * name, so two sessions creating the same one at once serialize; the
 * second then sees the first's tables and either uses them or reports
 * that they exist.  The name is hashed to 64 bits (an advisory lock's two
 * keys, in a space of Argo's own), so another name waits for it only by
 * a collision no one will meet.
 */
static void
lock_collection_name(const char *name)
{
	uint64		h = hash_bytes_extended((const unsigned char *) name, strlen(name), 0);
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (h >> 32), (uint32) h,
						 ARGO_NAME_LOCK_SPACE);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	/* what the holder made or dropped is then in the caches (as lmgr.c does) */
	AcceptInvalidationMessages();
}

/*
 * servers NIL: a collection of this server's tables; else distributed
 * over those postgres_fdw servers (shards.c).
 */
static ArgoCollection *
create_collection(const char *name, ArgoFormat format, bool if_not_exists,
				  List *servers)
{
	ArgoCollection *c;

	collection_check_name(name);
	collection_check_may_create();
	lock_collection_name(name);
	c = collection_lookup(name, true, RowExclusiveLock);
	if (c != NULL)
	{
		if (if_not_exists)
			return c;
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("collection \"%s\" already exists", name)));
	}
	c = make_collection(name, format);
	if (servers == NIL)
		create_tables(c);
	else
		collection_create_shards(c, servers);
	/* last: the sequence's existence is what makes the collection exist */
	run_ddl(psprintf("CREATE SEQUENCE %s", c->seq));
	CommandCounterIncrement();
	return c;
}

ArgoCollection *
collection_create(const char *name, ArgoFormat format, bool if_not_exists)
{
	return create_collection(name, format, if_not_exists, NIL);
}

ArgoCollection *
collection_create_distributed(const char *name, ArgoFormat format, List *servers)
{
	collection_check_shards(name, servers);
	return create_collection(name, format, false, servers);
}

/* INSERT's lazy creation, in the default format. */
ArgoCollection *
collection_open_for_insert(const char *name)
{
	ArgoCollection *c = collection_lookup(name, true, RowExclusiveLock);

	if (c == NULL)
		c = collection_create(name, ARGO_FORMAT_ARGO3, true);
	return c;
}

/*
 * Whether the current role may act as the owner of the collection whose
 * sequence's owner is owner; 42501 otherwise.
 */
static void
check_owner(const char *name, Oid owner)
{
	if (!has_privs_of_role(GetUserId(), owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of collection \"%s\"", name)));
}

void
collection_drop(const char *name, bool missing_ok)
{
	ArgoCollection *c;
	Oid			owner;
	List	   *servers = NIL;

	/*
	 * Whether there is anything to drop, and whether this role may, are
	 * said before the name is locked: a role that may not drop must not
	 * make the owner's create, insert or load wait, nor one that drops
	 * nothing.  Asked again under the lock: the collection may have been
	 * dropped, or made again by someone else, meanwhile.
	 */
	collection_check_name(name);
	if (!OidIsValid(collection_sequence(storage_namespace(), name, &owner)))
	{
		if (missing_ok)
			return;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("collection \"%s\" does not exist", name)));
	}
	check_owner(name, owner);
	lock_collection_name(name);
	/* DROP TABLE takes its own locks, in the same order */
	c = collection_lookup(name, missing_ok, NoLock);
	if (c == NULL)
		return;
	collection_check_owner(c);
	if (collection_is_distributed(c))
	{
		PreventInTransactionBlock(true, "argo_drop_collection() of a distributed collection");
		servers = collection_shard_servers(c);
		/* every shard must answer before anything is dropped */
		collection_check_shards_answer(name, servers);
	}
	if (feed_mode(c) != FEED_OFF)
		drop_feed(c, true);
	if (c->format == ARGO_FORMAT_ARGO3)
		run_ddl(psprintf("DROP TABLE %s, %s, %s, %s, %s%s%s", c->str_table,
						 c->num_table, c->bool_table, c->keys_table,
						 c->obj_table, docs_relid(c) ? ", " : "", docs_relid(c) ? c->doc_table : ""));
	else
		run_ddl(psprintf("DROP TABLE %s, %s, %s%s%s", c->data_table,
						 c->keys_table, c->obj_table,
						 docs_relid(c) ? ", " : "", docs_relid(c) ? c->doc_table : ""));
	run_ddl(psprintf("DROP SEQUENCE %s", c->seq));
	/*
	 * The shards' parts last, each committing on its server at once: a
	 * shard that fails now leaves its part there (said in a warning),
	 * never a listed collection whose data is partly gone.
	 */
	if (servers != NIL)
		collection_drop_shards(name, servers);
}

/*
 * Before c's tables are locked in a mode that makes its writers wait
 * (argo_repair), what LOCK TABLE would ask of such a lock: UPDATE,
 * DELETE or TRUNCATE on each table, and the privileges in also, checked
 * on the tables' OIDs found without a lock, so a role that will be
 * refused never queues behind a writer and makes the writers after it
 * wait too.
 */
void
collection_check_lock_privileges(const char *name, AclMode also)
{
	Oid			nsp = storage_namespace();
	Oid			owner;
	bool		argo1;
	const char *const *suffixes;
	int			n;

	collection_check_name(name);
	if (!OidIsValid(collection_sequence(nsp, name, &owner)))
		return;					/* the lookup under the lock says so */
	argo1 = owned_format(nsp, name, owner) == ARGO_FORMAT_ARGO1;
	suffixes = argo1 ? argo1_tables : argo3_tables;
	n = argo1 ? lengthof(argo1_tables) : lengthof(argo3_tables);
	for (int i = 0; i < n; i++)
	{
		char	   *table = table_name(name, suffixes[i]);
		Oid			relid = get_relname_relid(table, nsp);
		AclResult	acl;

		if (!OidIsValid(relid))
			continue;
		acl = pg_class_aclcheck(relid, GetUserId(), ACL_UPDATE | ACL_DELETE | ACL_TRUNCATE);
		if (acl == ACLCHECK_OK && also != 0 &&
			pg_class_aclmask(relid, GetUserId(), also, ACLMASK_ALL) != also)
			acl = ACLCHECK_NO_PRIV;
		if (acl != ACLCHECK_OK)
			aclcheck_error(acl, OBJECT_TABLE, table);
	}
}

/* Only c's owner may change what c is (its feed): 42501 for another role. */
void
collection_check_owner(ArgoCollection *c)
{
	Oid			owner;

	if (OidIsValid(collection_sequence(storage_namespace(), c->name, &owner)))
		check_owner(c->name, owner);
}

/*
 * Collection name opened to change what it is: its owner only (42501,
 * said before taking the lock others would queue behind), then locked in
 * lockmode and checked again; on a distributed collection 0A000, why
 * in its detail (and hint, if any).
 */
ArgoCollection *
collection_open_as_owner(const char *name, LOCKMODE lockmode, const char *why, const char *hint)
{
	ArgoCollection *c;

	collection_check_owner(collection_lookup(name, false, NoLock));
	c = collection_lookup(name, false, lockmode);
	collection_check_owner(c);
	if (collection_is_distributed(c))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("collection \"%s\" is distributed", name),
				 errdetail("%s", why),
				 hint ? errhint("%s", hint) : 0));
	return c;
}

/* The role that owns collection c (its sequence's owner); InvalidOid if none. */
Oid
collection_owner(ArgoCollection *c)
{
	Oid			owner;

	return OidIsValid(collection_sequence(storage_namespace(), c->name, &owner)) ?
		owner : InvalidOid;
}

/*
 * Switch c's change feed off: drop its c_feed table.  For a drop of the
 * collection, first the feed's last event, vouched for by a row only
 * the owner could insert into c_feed (feed.c).
 */
void
drop_feed(ArgoCollection *c, bool collection_dropped)
{
	char	   *feed = qualified(c->name, "feed");

	if (collection_dropped)
	{
		if (SPI_execute(psprintf("INSERT INTO %s DEFAULT VALUES", feed), false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not record the drop of collection \"%s\"", c->name);
		feed_log_drop(c);
	}
	run_ddl(psprintf("DROP TABLE %s", feed));
}

/*
 * Objects in c, as its directory's size says: its pages now, at the
 * density ANALYZE last found (rows with maps and kept documents are much
 * wider than a bare id), or, never analyzed, at most as many as fit.
 */
double
directory_objects(ArgoCollection *c)
{
	Relation	rel = argo_open_table(c, "obj");
	double		density = rel->rd_rel->relpages > 0 && rel->rd_rel->reltuples > 0 ?
		rel->rd_rel->reltuples / rel->rd_rel->relpages : DIRECTORY_ROWS_PER_PAGE;
	double		n = (double) RelationGetNumberOfBlocks(rel) * density;

	table_close(rel, NoLock);
	return n;
}

/*
 * The kinds of table that hold c's objects, as argo_open_table names
 * them: the value tables, then the directory (last).
 */
const char *const *
collection_object_tables(ArgoCollection *c, int *n)
{
	static const char *const argo3[] = {"str", "num", "bool", "obj"};
	static const char *const argo1[] = {"data", "obj"};

	if (c->format == ARGO_FORMAT_ARGO1)
	{
		*n = lengthof(argo1);
		return argo1;
	}
	*n = lengthof(argo3);
	return argo3;
}
