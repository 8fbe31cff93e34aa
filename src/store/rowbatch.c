/*
 * rowbatch.c — JSON objects to vertical-table rows (paper 3.2.1).
 *
 * Rows are gathered into column arrays and written per table and batch,
 * the way COPY writes (bulkinsert.c), or, where that path does not apply,
 * with one INSERT … SELECT FROM unnest(…): a few calls per thousands of
 * values instead of one per value.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_relation.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "common/common.h"
#include "common/keypath.h"
#include "common/numbers.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/feed.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "store/rowbatch.h"
#include "store/rowmap.h"
#include "store/shard/shard.h"

/* Flush once a batch holds this many rows. */
#define BATCH_ROWS 50000

enum
{
	COL_STR,
	COL_NUM,
	COL_BOOL,
	NCOLS
};

/* One table's pending rows; key[i] indexes the batch's distinct keys. */
typedef struct PendingRows
{
	int			n;
	int			max;
	Datum	   *objids;
	int		   *key;
	Datum	   *vals;
	bool	   *val_nulls;
	Datum	   *exact;			/* numbers: the exact text, where kept */
	bool	   *exact_nulls;
} PendingRows;

typedef struct BatchKey
{
	const char *str;			/* hash key */
	int			slot;
} BatchKey;

struct RowBatch
{
	ArgoCollection *coll;
	bool		directory;		/* new objects: add their directory rows */
	Jsonb	   *schema;			/* new objects must satisfy it (argo_validate), or NULL */
	bool		hold;			/* rows wait for rowbatch_drop_common */
	MemoryContext cxt;
	int			nobjects;
	PendingRows cols[NCOLS];
	/* the batch's distinct keys */
	HTAB	   *keyslots;
	char	  **keys;
	int			nkeys;
	int			maxkeys;
	/* ids of the objects added since the last flush */
	Datum	   *objids;
	int			nobjids;
	int			maxobjids;
	/* the change feed: the new objects, for their events after the flush */
	FeedMode	feed;
	Jsonb	  **feed_docs;		/* by position in objids */
	/* kept documents (docs.c): the new objects as Argo gives them back */
	bool		docs;
	Datum	   *docs_kept;		/* by position in objids */
	/* a distributed collection's new objects, sent whole to their shards */
	bool		shard_docs;
	Jsonb	  **sent_docs;		/* by position in objids */
	bool		fixed_keys;		/* a shard's: its keys all copied already */
	StringInfoData path;
	/* where the objects' kept documents lie, by object: their rows' doctid */
	int64	   *doc_ids;		/* sorted */
	ItemPointerData *doc_tids;
	int			ndocs;
};

static const char *const col_name[NCOLS] = {"valstr", "valnum", "valbool"};

static void
batch_reset(RowBatch *b)
{
	MemoryContextReset(b->cxt);
	memset(b->cols, 0, sizeof(b->cols));
	b->keyslots = keystr_hash_create("argo batch keys", sizeof(BatchKey), b->cxt);
	b->maxkeys = 256;
	b->keys = MemoryContextAlloc(b->cxt, sizeof(char *) * b->maxkeys);
	b->nkeys = 0;
	b->maxobjids = 1024;
	b->objids = MemoryContextAlloc(b->cxt, sizeof(Datum) * b->maxobjids);
	b->nobjids = 0;
	b->feed_docs = MemoryContextAlloc(b->cxt, sizeof(Jsonb *) * b->maxobjids);
	b->docs_kept = MemoryContextAlloc(b->cxt, sizeof(Datum) * b->maxobjids);
	b->sent_docs = MemoryContextAlloc(b->cxt, sizeof(Jsonb *) * b->maxobjids);
	b->doc_ids = NULL;
	b->doc_tids = NULL;
	b->ndocs = 0;
}

/*
 * directory: the objects are new, and get their row in the object
 * directory; an UPDATE rewrites the rows of objects that have one.
 */
RowBatch *
rowbatch_create(ArgoCollection *coll, bool directory)
{
	RowBatch   *b = palloc0(sizeof(RowBatch));

	argo_check_writable(directory ? ACL_INSERT : ACL_UPDATE);
	collection_check_writes(coll);
	b->coll = coll;
	b->directory = directory;
	b->feed = directory ? feed_mode(coll) : FEED_OFF;
	if (directory)
	{
		b->schema = collection_schema(coll);
		b->docs = docs_insertable(coll);
		/* its shards write their own rows (and maps), from the objects */
		b->shard_docs = b->feed == FEED_OFF && !b->docs && collection_is_distributed(coll);
	}
	b->cxt = AllocSetContextCreate(CurrentMemoryContext, "argo row batch",
								   ALLOCSET_DEFAULT_SIZES);
	batch_reset(b);
	initStringInfo(&b->path);
	return b;
}

/* The keys obj's rows get, as rowbatch_add_object makes them; nothing is written. */
char	  **
rowbatch_object_keys(ArgoCollection *c, Jsonb *obj, int *n)
{
	RowBatch   *b = rowbatch_create(c, false);
	char	  **keys;

	rowbatch_add_object(b, 0, obj);
	*n = b->nkeys;
	keys = palloc(sizeof(char *) * Max(b->nkeys, 1));
	for (int i = 0; i < b->nkeys; i++)
		keys[i] = pstrdup(b->keys[i]);
	MemoryContextDelete(b->cxt);
	return keys;
}

/* A shard's batch: every key it meets was copied from the coordinator already. */
void
rowbatch_fix_keys(RowBatch *b)
{
	b->fixed_keys = true;
}

int
rowbatch_objects(RowBatch *batch)
{
	return batch->nobjects;
}

static void
column_grow(PendingRows *c)
{
	c->max = c->max ? c->max * 2 : 64;
	if (c->objids == NULL)
	{
		c->objids = palloc(sizeof(Datum) * c->max);
		c->key = palloc(sizeof(int) * c->max);
		c->vals = palloc(sizeof(Datum) * c->max);
		c->val_nulls = palloc(sizeof(bool) * c->max);
		c->exact = palloc(sizeof(Datum) * c->max);
		c->exact_nulls = palloc(sizeof(bool) * c->max);
		return;
	}
	c->objids = repalloc(c->objids, sizeof(Datum) * c->max);
	c->key = repalloc(c->key, sizeof(int) * c->max);
	c->vals = repalloc(c->vals, sizeof(Datum) * c->max);
	c->val_nulls = repalloc(c->val_nulls, sizeof(bool) * c->max);
	c->exact = repalloc(c->exact, sizeof(Datum) * c->max);
	c->exact_nulls = repalloc(c->exact_nulls, sizeof(bool) * c->max);
}

/* The batch's slot for a key (NUL-terminated at keylen), made on first use. */
static int
key_slot(RowBatch *b, const char *key, int keylen)
{
	char	   *k;
	BatchKey   *e;
	bool		found;

	/* most keys were seen before: look up without copying */
	e = hash_search(b->keyslots, &key, HASH_FIND, NULL);
	if (e != NULL)
		return e->slot;
	k = pnstrdup(key, keylen);
	e = hash_search(b->keyslots, &k, HASH_ENTER, &found);
	if (b->nkeys == b->maxkeys)
	{
		b->maxkeys *= 2;
		b->keys = repalloc(b->keys, sizeof(char *) * b->maxkeys);
	}
	e->str = k;
	e->slot = b->nkeys;
	b->keys[b->nkeys++] = k;
	return e->slot;
}

static void
batch_add_row(RowBatch *b, int col, int64 objid, const char *key, int keylen,
		Datum val, bool val_null)
{
	PendingRows *c = &b->cols[col];
	MemoryContext old = MemoryContextSwitchTo(b->cxt);

	if (c->n == c->max)
		column_grow(c);
	c->objids[c->n] = Int64GetDatum(objid);
	c->key[c->n] = key_slot(b, key, keylen);
	c->vals[c->n] = val;
	c->val_nulls[c->n] = val_null;
	c->exact[c->n] = (Datum) 0;
	c->exact_nulls[c->n] = true;
	c->n++;
	MemoryContextSwitchTo(old);
}

/* A new object's id (and, for the feed, a copy of it). */
static void
add_objid(RowBatch *b, int64 objid, Jsonb *obj)
{
	if (!b->directory)
		return;
	if (b->nobjids == b->maxobjids)
	{
		b->maxobjids *= 2;
		b->objids = repalloc(b->objids, sizeof(Datum) * b->maxobjids);
		b->feed_docs = repalloc(b->feed_docs, sizeof(Jsonb *) * b->maxobjids);
		b->docs_kept = repalloc(b->docs_kept, sizeof(Datum) * b->maxobjids);
		b->sent_docs = repalloc(b->sent_docs, sizeof(Jsonb *) * b->maxobjids);
	}
	if (b->shard_docs)
	{
		b->sent_docs[b->nobjids] = MemoryContextAlloc(b->cxt, VARSIZE(obj));
		memcpy(b->sent_docs[b->nobjids], obj, VARSIZE(obj));
	}
	if (b->feed != FEED_OFF)
	{
		b->feed_docs[b->nobjids] = MemoryContextAlloc(b->cxt, VARSIZE(obj));
		memcpy(b->feed_docs[b->nobjids], obj, VARSIZE(obj));
	}
	if (b->docs)
	{
		MemoryContext old = MemoryContextSwitchTo(b->cxt);
		/* kept as given: its rows give every number back as jsonb keeps it */
		Jsonb	   *doc = b->feed != FEED_OFF ? b->feed_docs[b->nobjids] :
			memcpy(palloc(VARSIZE(obj)), obj, VARSIZE(obj));

		b->docs_kept[b->nobjids] = JsonbPGetDatum(doc);
		MemoryContextSwitchTo(old);
	}
	b->objids[b->nobjids++] = Int64GetDatum(objid);
}

/* A number's row, with its exact text where its double would not give it back. */
static void
add_number(RowBatch *b, int64 objid, const char *key, int keylen, Numeric num)
{
	char	   *exact;
	double		d = argo_number_from_numeric(num, &exact);
	PendingRows *c = &b->cols[COL_NUM];

	batch_add_row(b, COL_NUM, objid, key, keylen, Float8GetDatum(d), false);
	if (exact != NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(b->cxt);

		c->exact[c->n - 1] = PointerGetDatum(cstring_to_text(exact));
		c->exact_nulls[c->n - 1] = false;
		MemoryContextSwitchTo(old);
	}
}

static void
add_scalar(RowBatch *b, int64 objid, JsonbValue *v)
{
	MemoryContext old;
	const char *key = b->path.data;
	int			keylen = b->path.len;

	keypath_check_length(keylen);
	switch (v->type)
	{
		case jbvString:
			old = MemoryContextSwitchTo(b->cxt);
			batch_add_row(b, COL_STR, objid, key, keylen,
					PointerGetDatum(cstring_to_text_with_len(v->val.string.val,
															 v->val.string.len)),
					false);
			MemoryContextSwitchTo(old);
			break;
		case jbvNumeric:
			add_number(b, objid, key, keylen, v->val.numeric);
			break;
		case jbvBool:
			batch_add_row(b, COL_BOOL, objid, key, keylen, BoolGetDatum(v->val.boolean),
					false);
			break;
		case jbvNull:
			batch_add_row(b, COL_BOOL, objid, key, keylen, (Datum) 0, true);
			break;
		default:
			elog(ERROR, "unexpected jsonb value type %d", v->type);
	}
}

void
argo_check_object(Jsonb *obj)
{
	if (!JB_ROOT_IS_OBJECT(obj))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a collection holds JSON objects, not %s",
						JB_ROOT_IS_SCALAR(obj) ? "scalars" : "arrays")));
}

/* One open container while walking an object. */
typedef struct WalkFrame
{
	int			pathlen;		/* length of the container's own key */
	bool		is_array;
	int64		nchildren;
} WalkFrame;

/* Set the path to the next child's key in the innermost container. */
static void
path_to_child(RowBatch *b, WalkFrame *f, bool root, JsonbValue *key)
{
	b->path.len = f->pathlen;
	b->path.data[b->path.len] = '\0';
	if (f->is_array)
		keypath_append_index(&b->path, f->nchildren);
	else
		keypath_append_key(&b->path, key->val.string.val, key->val.string.len,
						   root);
	f->nchildren++;
}

/* An empty container has no leaf; a marker row keeps it. */
static void
add_empty_marker(RowBatch *b, int64 objid, WalkFrame *f, bool root)
{
	if (root)
		return;					/* its directory row is all {} needs */
	b->path.len = f->pathlen;
	b->path.data[b->path.len] = '\0';
	appendStringInfoString(&b->path, f->is_array ? ARGO_MARK_EMPTY_ARRAY :
						   ARGO_MARK_EMPTY_OBJECT);
	keypath_check_length(b->path.len);
	batch_add_row(b, COL_BOOL, objid, b->path.data, b->path.len, (Datum) 0, true);
}

/*
 * Walk the object with jsonb's iterator, keeping the current key in
 * b->path: no recursion, so nesting depth costs no stack.
 */
void
rowbatch_add_object(RowBatch *b, int64 objid, Jsonb *obj)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	WalkFrame  *stack = NULL;
	int			depth = 0;
	int			maxdepth = 0;

	argo_check_object(obj);
	if (b->schema != NULL)
		collection_check_object(b->coll, b->schema, obj);
	if (b->directory)
		keyflags_check_object(b->coll, obj);
	add_objid(b, objid, obj);
	it = JsonbIteratorInit(&obj->root);
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		WalkFrame  *top = depth > 0 ? &stack[depth - 1] : NULL;

		CHECK_FOR_INTERRUPTS();
		switch (tok)
		{
			case WJB_BEGIN_ARRAY:
			case WJB_BEGIN_OBJECT:
				if (top && top->is_array)
					path_to_child(b, top, false, NULL);
				if (depth == maxdepth)
				{
					maxdepth = maxdepth ? maxdepth * 2 : 8;
					stack = stack ? repalloc(stack, sizeof(WalkFrame) * maxdepth) :
						palloc(sizeof(WalkFrame) * maxdepth);
				}
				stack[depth].pathlen = top ? b->path.len : 0;
				stack[depth].is_array = (tok == WJB_BEGIN_ARRAY);
				stack[depth].nchildren = 0;
				depth++;
				break;
			case WJB_KEY:
				path_to_child(b, top, depth == 1, &v);
				break;
			case WJB_ELEM:
				path_to_child(b, top, false, NULL);
				add_scalar(b, objid, &v);
				break;
			case WJB_VALUE:
				add_scalar(b, objid, &v);
				break;
			case WJB_END_ARRAY:
			case WJB_END_OBJECT:
				if (top->nchildren == 0)
					add_empty_marker(b, objid, top, depth == 1);
				depth--;
				break;
			default:
				elog(ERROR, "unexpected jsonb token %d", tok);
		}
	}
	b->nobjects++;
	if (!b->hold &&
		b->cols[COL_STR].n + b->cols[COL_NUM].n + b->cols[COL_BOOL].n >= BATCH_ROWS)
		rowbatch_flush(b);
}

static Datum
build_array(Datum *elems, bool *nulls, int n, Oid type)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;
	int			dims[1] = {n};
	int			lbs[1] = {1};

	get_typlenbyvalalign(type, &typlen, &typbyval, &typalign);
	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs, type,
											  typlen, typbyval, typalign));
}

/* Whether a distributed collection's table takes its rows to its shards straight. */
static bool
to_shards(ArgoCollection *c, const char *suffix, int natts)
{
	Relation	rel;
	bool		ok;

	if (!collection_is_distributed(c))
		return false;
	shardsession_note_write();
	rel = argo_open_table(c, suffix);
	ok = argo_insertable_to_shards(rel, natts);
	table_close(rel, NoLock);
	return ok;
}

/*
 * Write rows to the collection's table (by suffix; table, its quoted
 * name), directly if allowed, else with INSERT … unnest.  True when
 * written directly: then rows->tids, if given, says where each row went.
 */
static bool
write_rows(ArgoCollection *c, const char *suffix, const char *table, int natts,
		   ArgoRows *rows, const Oid *types)
{
	SqlBuf	   *buf;
	StringInfoData cols;
	int			rc;

	if (rows->n == 0)
		return true;
	if (argo_bulk_insert(argo_table_relid(c, suffix), natts, rows))
		return true;
	/* each shard's rows straight to it, not routed row by row */
	if (to_shards(c, suffix, natts))
	{
		shardconn_write_rows(c, table, rows, types);
		return false;
	}
	buf = sqlbuf_create();
	initStringInfo(&cols);
	for (int i = 0; i < rows->ncols; i++)
	{
		/* rows written through SQL have their documents forgotten: no place to say */
		if (strcmp(rows->names[i], "doctid") == 0)
			continue;
		appendStringInfo(&cols, "%s%s", cols.len ? ", " : "", rows->names[i]);
		sqlbuf_param(buf, get_array_type(types[i]),
					 build_array(rows->cols[i], rows->nulls[i], rows->n, types[i]));
	}
	appendStringInfo(&buf->sql, "INSERT INTO %s (%s) SELECT * FROM ROWS FROM (", table, cols.data);
	for (int i = 0; i < buf->nparams; i++)
		appendStringInfo(&buf->sql, "%spg_catalog.unnest($%d)", i ? ", " : "", i + 1);
	appendStringInfoChar(&buf->sql, ')');
	rc = argo_run(buf, false);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "insert into %s failed: %s", table,
			 SPI_result_code_string(rc));
	return false;
}

/*
 * Where one table's new rows went, for the objects' maps: each row's
 * object and tid (tids NULL: written through SQL, not known).
 */
typedef struct Written
{
	int			n;
	Datum	   *objids;
	ItemPointerData *tids;
} Written;

/*
 * Where the objects' kept documents now lie (sorted by object id), for
 * their rows written next: each row gets its object's in its doctid.
 */
void
rowbatch_set_doc_tids(RowBatch *b, const int64 *ids, const ItemPointerData *tids, int n)
{
	MemoryContext old = MemoryContextSwitchTo(b->cxt);

	b->doc_ids = palloc(sizeof(int64) * Max(n, 1));
	b->doc_tids = palloc(sizeof(ItemPointerData) * Max(n, 1));
	memcpy(b->doc_ids, ids, sizeof(int64) * n);
	memcpy(b->doc_tids, tids, sizeof(ItemPointerData) * n);
	b->ndocs = n;
	MemoryContextSwitchTo(old);
}

/* The document's place of object objid, or NULL where the batch knows none. */
static ItemPointer
doc_tid_of(RowBatch *b, int64 objid)
{
	int			lo = 0,
				hi = b->ndocs;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (b->doc_ids[mid] < objid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->ndocs && b->doc_ids[lo] == objid ? &b->doc_tids[lo] : NULL;
}

/*
 * The rows' doctid column, where the table has one (a collection made
 * before 0.7 need not): each row's object's document, or NULL.
 */
static void
add_doctids(RowBatch *b, const char *suffix, ArgoRows *rows)
{
	Relation	rel = argo_open_table(b->coll, suffix);
	bool		has = attnameAttNum(rel, "doctid", false) > 0;

	table_close(rel, NoLock);
	if (!has)
		return;
	rows->names[rows->ncols] = "doctid";
	rows->cols[rows->ncols] = palloc(sizeof(Datum) * Max(rows->n, 1));
	rows->nulls[rows->ncols] = palloc(sizeof(bool) * Max(rows->n, 1));
	for (int i = 0; i < rows->n; i++)
	{
		ItemPointer tid = b->ndocs > 0 ? doc_tid_of(b, DatumGetInt64(rows->cols[0][i])) : NULL;

		rows->cols[rows->ncols][i] = PointerGetDatum(tid);
		rows->nulls[rows->ncols][i] = tid == NULL;
	}
	rows->ncols++;
}

static void
flush_column(RowBatch *b, int col, const int32 *keyids, Written *w, Datum **wkeys)
{
	static const Oid types[NCOLS][5] = {
		{INT8OID, INT4OID, TEXTOID, TIDOID},
		{INT8OID, INT4OID, FLOAT8OID, TEXTOID, TIDOID},
		{INT8OID, INT4OID, BOOLOID, TIDOID}
	};
	PendingRows *c = &b->cols[col];
	ArgoCollection *coll = b->coll;
	const char *suffix = col == COL_STR ? "str" : col == COL_NUM ? "num" : "bool";
	int			ncols = col == COL_NUM ? 4 : 3;
	ArgoRows	rows = {c->n, ncols, {"objid", "keyid", col_name[col], "valexact"}};
	Datum	   *ids = palloc(sizeof(Datum) * Max(c->n, 1));

	for (int i = 0; i < c->n; i++)
		ids[i] = Int32GetDatum(keyids[c->key[i]]);
	rows.cols[0] = c->objids;
	rows.cols[1] = ids;
	rows.cols[2] = c->vals;
	rows.nulls[2] = c->val_nulls;
	rows.cols[3] = c->exact;
	rows.nulls[3] = c->exact_nulls;
	add_doctids(b, suffix, &rows);
	rows.append = b->directory;
	rows.tids = palloc(sizeof(ItemPointerData) * Max(c->n, 1));
	w->n = c->n;
	w->objids = c->objids;
	*wkeys = ids;
	w->tids = write_rows(coll, suffix,
						 col == COL_STR ? coll->str_table :
						 col == COL_NUM ? coll->num_table : coll->bool_table,
						 rows.ncols, &rows, types[col]) ? rows.tids : NULL;
}

/* The pending column whose next row has the least object id, or -1. */
static int
next_column(RowBatch *b, const int *at)
{
	int			best = -1;

	for (int col = 0; col < NCOLS; col++)
	{
		PendingRows *c = &b->cols[col];

		if (at[col] < c->n &&
			(best < 0 || DatumGetInt64(c->objids[at[col]]) <
			 DatumGetInt64(b->cols[best].objids[at[best]])))
			best = col;
	}
	return best;
}

/*
 * Argo/1's one table gets each object's rows together, whatever their
 * types: the columns' rows are merged by object id (each column is in
 * object order), so that reading an object back touches one or two heap
 * pages rather than one per type.
 */
static void
flush_argo1(RowBatch *b, const int32 *keyids, Written *w, Datum **wkeys)
{
	static const Oid types[7] = {INT8OID, INT4OID, TEXTOID, FLOAT8OID, BOOLOID, TEXTOID, TIDOID};
	int			n = b->cols[COL_STR].n + b->cols[COL_NUM].n + b->cols[COL_BOOL].n;
	ArgoRows	rows = {n, 6, {"objid", "keyid", "valstr", "valnum", "valbool", "valexact"}};
	int			at[NCOLS] = {0};
	int			col;

	rows.append = b->directory;
	for (int i = 0; i < 6; i++)
	{
		rows.cols[i] = palloc(sizeof(Datum) * Max(n, 1));
		rows.nulls[i] = i >= 2 ? palloc(sizeof(bool) * Max(n, 1)) : NULL;
	}
	for (int r = 0; (col = next_column(b, at)) >= 0; r++)
	{
		PendingRows *c = &b->cols[col];
		int			i = at[col]++;

		rows.cols[0][r] = c->objids[i];
		rows.cols[1][r] = Int32GetDatum(keyids[c->key[i]]);
		for (int v = 0; v < NCOLS; v++)
		{
			rows.cols[2 + v][r] = v == col ? c->vals[i] : (Datum) 0;
			rows.nulls[2 + v][r] = v == col ? c->val_nulls[i] : true;
		}
		rows.cols[5][r] = c->exact[i];
		rows.nulls[5][r] = c->exact_nulls[i];
	}
	add_doctids(b, "data", &rows);
	rows.tids = palloc(sizeof(ItemPointerData) * Max(n, 1));
	w->n = n;
	w->objids = rows.cols[0];
	*wkeys = rows.cols[1];
	w->tids = write_rows(b->coll, "data", b->coll->data_table, rows.ncols, &rows, types) ?
		rows.tids : NULL;
}

/*
 * The new objects' maps, from where their rows went (each table's rows
 * in the objects' order); NULL when some table was written through SQL.
 */
static Datum *
new_maps(RowBatch *b, Written *w, int ntables)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	Relation	rels[ROWMAP_MAX_TABLES];
	Datum	   *maps = palloc(sizeof(Datum) * Max(b->nobjids, 1));
	int			at[ROWMAP_MAX_TABLES] = {0};
	uint32		epoch;

	for (int t = 0; t < ntables; t++)
		if (w[t].tids == NULL && w[t].n > 0)
			return NULL;
	for (int t = 0; t < ntables; t++)
		rels[t] = argo_open_table(b->coll, ntables == 1 ? "data" : argo3[t]);
	epoch = rowmap_epoch(rels, ntables);
	for (int t = 0; t < ntables; t++)
		table_close(rels[t], NoLock);
	for (int k = 0; k < b->nobjids; k++)
	{
		ItemPointerData *tids[ROWMAP_MAX_TABLES];
		int			n[ROWMAP_MAX_TABLES];

		for (int t = 0; t < ntables; t++)
		{
			int			from = at[t];

			while (at[t] < w[t].n && w[t].objids[at[t]] == b->objids[k])
				at[t]++;
			tids[t] = w[t].tids + from;
			n[t] = at[t] - from;
		}
		maps[k] = PointerGetDatum(rowmap_encode(epoch, ntables, tids, n));
	}
	return maps;
}

/*
 * The new objects' directory rows, with their maps where the directory
 * has the column (a collection of 0.5 not yet updated has not), then
 * their documents where the collection keeps them.
 */
static void
write_directory(RowBatch *b, Datum *maps)
{
	static const Oid types[2] = {INT8OID, BYTEAOID};
	Relation	dir = argo_open_table(b->coll, "obj");
	bool		has_maps = rowmap_column(dir) > 0;
	ArgoRows	rows = {b->nobjids, has_maps ? 2 : 1, {"objid", "rowmap"}, {b->objids, maps}};
	bool	   *nulls = NULL;

	table_close(dir, NoLock);
	/*
	 * Rows that went through SQL are not known to be the ones given (a
	 * trigger may have changed them): neither map nor document is kept.
	 */
	if (maps == NULL && has_maps)
	{
		nulls = palloc(sizeof(bool) * Max(b->nobjids, 1));
		memset(nulls, true, sizeof(bool) * Max(b->nobjids, 1));
		rows.cols[1] = palloc0(sizeof(Datum) * Max(b->nobjids, 1));
		rows.nulls[1] = nulls;
	}
	rows.append = true;
	write_rows(b->coll, "obj", b->coll->obj_table, rows.ncols, &rows, types);
}

/*
 * New objects' kept documents, first, so that their rows say where they
 * lie (rows that then go through SQL have them forgotten: fn/rowmaps.c).
 */
static void
write_documents(RowBatch *b)
{
	ItemPointerData *tids;
	int64	   *ids;

	if (!b->docs || b->nobjids == 0)
		return;
	tids = docs_insert_new(b->coll, b->nobjids, b->objids, b->docs_kept);
	ids = palloc(sizeof(int64) * b->nobjids);
	for (int i = 0; i < b->nobjids; i++)
		ids[i] = DatumGetInt64(b->objids[i]);
	/* new objects' ids only grow: already sorted */
	rowbatch_set_doc_tids(b, ids, tids, b->nobjids);
}

/* Log the rows of one table written directly: object, key, tid. */
static void
log_written(RowLog *log, Written *w, const Datum *keyids, int table)
{
	for (int i = 0; i < w->n; i++)
	{
		LoggedRow  *r;

		if (log->n == log->max)
		{
			log->max = log->max ? log->max * 2 : 64;
			log->rows = log->rows ? repalloc_huge(log->rows, sizeof(LoggedRow) * log->max) :
				palloc(sizeof(LoggedRow) * log->max);
		}
		r = &log->rows[log->n++];
		r->objid = DatumGetInt64(w->objids[i]);
		r->keyid = DatumGetInt32(keyids[i]);
		r->table = (int16) table;
		r->gone = false;
		r->tid = w->tids[i];
	}
}

/*
 * Write the batch's rows (and, for new objects, their directory rows
 * with their maps).  With a log (in whose memory context the caller
 * is), the rows written are logged with their tids; false when some
 * table was written through SQL (its rows are not logged).
 */
static bool
flush(RowBatch *b, RowLog *log)
{
	MemoryContext old = MemoryContextSwitchTo(b->cxt);
	int32	   *keyids = palloc(sizeof(int32) * Max(b->nkeys, 1));
	Written		w[NCOLS];
	Datum	   *wkeys[NCOLS];
	int			ntables = b->coll->format == ARGO_FORMAT_ARGO1 ? 1 : NCOLS;
	bool		direct = true;

	if (b->fixed_keys || b->coll->keys_copied)
		keydict_assign_existing(b->coll, b->keys, b->nkeys, keyids);
	else
		keydict_assign(b->coll, b->keys, b->nkeys, keyids);
	/* the keys copied to the shards (keydict_assign): now the objects */
	if (b->shard_docs &&
		shardconn_insert_objects(b->coll, b->objids, b->sent_docs, b->nobjids))
	{
		MemoryContextSwitchTo(old);
		batch_reset(b);
		return false;
	}
	if (b->directory)
		write_documents(b);
	if (b->coll->format == ARGO_FORMAT_ARGO1)
		flush_argo1(b, keyids, w, wkeys);
	else
		for (int col = 0; col < NCOLS; col++)
			flush_column(b, col, keyids, &w[col], &wkeys[col]);
	/* the directory rows last: they say where the rows went */
	if (b->directory)
		write_directory(b, new_maps(b, w, ntables));
	/* each event after the directory row that vouches for it (feed.c) */
	for (int i = 0; b->directory && b->feed != FEED_OFF && i < b->nobjids; i++)
		feed_log_insert(b->coll, DatumGetInt64(b->objids[i]), b->feed_docs[i]);
	for (int t = 0; t < ntables; t++)
		direct = direct && (w[t].tids != NULL || w[t].n == 0);
	MemoryContextSwitchTo(old);
	for (int t = 0; log != NULL && t < ntables; t++)
		if (w[t].tids != NULL)
			log_written(log, &w[t], wkeys[t], t);
	batch_reset(b);
	return direct;
}

void
rowbatch_flush(RowBatch *b)
{
	flush(b, NULL);
}

bool
rowbatch_flush_logged(RowBatch *b, RowLog *log)
{
	return flush(b, log);
}

/*
 * The (object, key id) pairs of the rows of table t (Argo/1: 0) in the
 * batch, for deleting them; the count.
 */
int
rowbatch_pairs(RowBatch *b, int t, int64 **objids, int32 **keyids)
{
	KeyDict    *d = keydict_of(b->coll);
	int			from = b->coll->format == ARGO_FORMAT_ARGO1 ? 0 : t;
	int			to = b->coll->format == ARGO_FORMAT_ARGO1 ? NCOLS : t + 1;
	int			n = 0,
				i = 0;

	for (int col = from; col < to; col++)
		n += b->cols[col].n;
	*objids = palloc(sizeof(int64) * Max(n, 1));
	*keyids = palloc(sizeof(int32) * Max(n, 1));
	for (int col = from; col < to; col++)
	{
		PendingRows *c = &b->cols[col];

		for (int r = 0; r < c->n; r++, i++)
		{
			int32		k = keydict_find(d, b->keys[c->key[r]]);

			if (k < 0)
				elog(ERROR, "a stored key is missing from the dictionary");
			(*objids)[i] = DatumGetInt64(c->objids[r]);
			(*keyids)[i] = k;
		}
	}
	return n;
}

/* The batch's rows are gone (deleted by the caller): forget them. */
void
rowbatch_clear(RowBatch *b)
{
	batch_reset(b);
}

/*
 * n fresh object ids from the collection's sequence, drawn from C as
 * nextval() draws them (its privilege check included); for a
 * distributed collection, only by its coordinator (home.c).
 */
int64 *
argo_next_objids(ArgoCollection *coll, int n)
{
	int64	   *ids = palloc(sizeof(int64) * Max(n, 1));
	RangeVar   *rv = makeRangeVar(ARGO_SCHEMA, psprintf("%s_seq", coll->name), -1);
	Oid			seq = RangeVarGetRelid(rv, NoLock, false);

	if (collection_is_distributed(coll))
		collection_check_home(coll);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		ids[i] = nextval_internal(seq, true);
	}
	return ids;
}

/*
 * ---------- the rows an update changes ----------
 *
 * An UPDATE decomposes each object before and after its change into two
 * held batches; the rows both hold are dropped from both, and what is left
 * is exactly what to delete and what to insert: SET of one scalar touches
 * one row, not the object's twenty.
 */
void
rowbatch_hold(RowBatch *b)
{
	b->hold = true;
}

typedef struct RowOrder
{
	PendingRows *c;
	char	  **keys;
} RowOrder;

/* Rows by (object id, key). */
static int
row_order_cmp(const void *x, const void *y, void *arg)
{
	RowOrder   *o = arg;
	int			i = *(const int *) x;
	int			j = *(const int *) y;
	int64		a = DatumGetInt64(o->c->objids[i]);
	int64		b = DatumGetInt64(o->c->objids[j]);

	if (a != b)
		return a < b ? -1 : 1;
	return strcmp(o->keys[o->c->key[i]], o->keys[o->c->key[j]]);
}

static int *
sorted_rows(RowBatch *b, int col)
{
	PendingRows *c = &b->cols[col];
	int		   *order = palloc(sizeof(int) * Max(c->n, 1));
	RowOrder	o = {c, b->keys};

	for (int i = 0; i < c->n; i++)
		order[i] = i;
	qsort_arg(order, c->n, sizeof(int), row_order_cmp, &o);
	return order;
}

static bool
same_text(Datum a, Datum b)
{
	text	   *x = DatumGetTextPP(a);
	text	   *y = DatumGetTextPP(b);

	return VARSIZE_ANY_EXHDR(x) == VARSIZE_ANY_EXHDR(y) &&
		memcmp(VARDATA_ANY(x), VARDATA_ANY(y), VARSIZE_ANY_EXHDR(x)) == 0;
}

/* Equal values, bit for bit (so -0 replacing 0 is a change). */
static bool
batch_same_value(int col, PendingRows *a, int i, PendingRows *b, int j)
{
	if (a->val_nulls[i] || b->val_nulls[j])
		return a->val_nulls[i] == b->val_nulls[j];
	if (col == COL_STR)
		return same_text(a->vals[i], b->vals[j]);
	if (col == COL_NUM)
	{
		double		x = DatumGetFloat8(a->vals[i]);
		double		y = DatumGetFloat8(b->vals[j]);

		/* two texts of one double are two values */
		return memcmp(&x, &y, sizeof(double)) == 0 &&
			a->exact_nulls[i] == b->exact_nulls[j] &&
			(a->exact_nulls[i] || same_text(a->exact[i], b->exact[j]));
	}
	return DatumGetBool(a->vals[i]) == DatumGetBool(b->vals[j]);
}

/* Drop the rows marked dead, keeping the others in order. */
static void
compact_column(PendingRows *c, const bool *dead)
{
	int			n = 0;

	for (int i = 0; i < c->n; i++)
	{
		if (dead[i])
			continue;
		c->objids[n] = c->objids[i];
		c->key[n] = c->key[i];
		c->vals[n] = c->vals[i];
		c->val_nulls[n] = c->val_nulls[i];
		c->exact[n] = c->exact[i];
		c->exact_nulls[n] = c->exact_nulls[i];
		n++;
	}
	c->n = n;
}

static void
drop_common_column(RowBatch *a, RowBatch *b, int col)
{
	PendingRows *ca = &a->cols[col];
	PendingRows *cb = &b->cols[col];
	int		   *oa = sorted_rows(a, col);
	int		   *ob = sorted_rows(b, col);
	bool	   *deada = palloc0(sizeof(bool) * Max(ca->n, 1));
	bool	   *deadb = palloc0(sizeof(bool) * Max(cb->n, 1));
	int			i = 0,
				j = 0;

	while (i < ca->n && j < cb->n)
	{
		int			x = oa[i],
					y = ob[j];
		int64		ida = DatumGetInt64(ca->objids[x]);
		int64		idb = DatumGetInt64(cb->objids[y]);
		int			cmp = ida != idb ? (ida < idb ? -1 : 1) :
			strcmp(a->keys[ca->key[x]], b->keys[cb->key[y]]);

		if (cmp == 0 && batch_same_value(col, ca, x, cb, y))
			deada[x] = deadb[y] = true;
		if (cmp <= 0)
			i++;
		if (cmp >= 0)
			j++;
	}
	compact_column(ca, deada);
	compact_column(cb, deadb);
}

/* Remove from both batches the rows they have in common. */
void
rowbatch_drop_common(RowBatch *a, RowBatch *b)
{
	MemoryContext old = MemoryContextSwitchTo(a->cxt);

	for (int col = 0; col < NCOLS; col++)
		drop_common_column(a, b, col);
	MemoryContextSwitchTo(old);
}

/*
 * The rows of table t (Argo/1: 0) as parameters: (objid, keyid) arrays;
 * for a distributed collection, the objects' ids and each pair as the
 * one number objid * 2^32 + keyid (key ids are positive int4s).  The
 * number of the last parameter, or 0 when there is no row.
 */
static int
row_pairs(RowBatch *b, int t, SqlBuf *buf, bool packed)
{
	int64	   *objids;
	int32	   *keyids;
	int			n = rowbatch_pairs(b, t, &objids, &keyids);
	Datum	   *o,
			   *k;
	Datum		shift = NumericGetDatum(int64_to_numeric(INT64CONST(4294967296)));

	if (n == 0)
		return 0;
	o = palloc(sizeof(Datum) * n);
	k = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
	{
		o[i] = Int64GetDatum(objids[i]);
		k[i] = packed ?
			DirectFunctionCall2(numeric_add,
								DirectFunctionCall2(numeric_mul,
													NumericGetDatum(int64_to_numeric(objids[i])), shift),
								NumericGetDatum(int64_to_numeric(keyids[i]))) :
			Int32GetDatum(keyids[i]);
	}
	sqlbuf_param(buf, INT8ARRAYOID, build_array(o, NULL, n, INT8OID));
	return packed ? sqlbuf_param(buf, NUMERICARRAYOID, build_array(k, NULL, n, NUMERICOID)) :
		sqlbuf_param(buf, INT4ARRAYOID, build_array(k, NULL, n, INT4OID));
}

/*
 * Delete the pairs' rows of one table.  A distributed collection's
 * table takes them as one condition that postgres_fdw sends whole to
 * each shard, where a join with the pairs would fetch the rows and
 * delete them one round trip each.
 */
static void
delete_pairs(RowBatch *b, SqlBuf *buf, const char *table, int t, bool distributed)
{
	int			k = row_pairs(b, t, buf, distributed);

	if (k == 0)
		return;
	if (distributed)
		appendStringInfo(&buf->sql,
						 ", d%d AS (DELETE FROM %s x WHERE x.objid OPERATOR(pg_catalog.=) ANY($%d)"
						 " AND (x.objid::pg_catalog.numeric OPERATOR(pg_catalog.*) 4294967296 OPERATOR(pg_catalog.+) x.keyid) OPERATOR(pg_catalog.=) ANY($%d))",
						 k, table, k - 1, k);
	else
		appendStringInfo(&buf->sql,
						 ", d%d AS (DELETE FROM %s x USING ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS d(o, k) WHERE x.objid OPERATOR(pg_catalog.=) d.o AND x.keyid OPERATOR(pg_catalog.=) d.k)",
						 k, table, k - 1, k);
}

/* Delete the batch's rows from the tables. */
void
rowbatch_delete(RowBatch *b)
{
	ArgoCollection *c = b->coll;
	SqlBuf	   *buf = sqlbuf_create();
	bool		distributed = collection_is_distributed(c);
	int			rc;

	buf->generic_plan = true;
	appendStringInfoString(&buf->sql, "WITH t AS (SELECT)");
	if (c->format == ARGO_FORMAT_ARGO1)
		delete_pairs(b, buf, c->data_table, 0, distributed);
	else
	{
		delete_pairs(b, buf, c->str_table, COL_STR, distributed);
		delete_pairs(b, buf, c->num_table, COL_NUM, distributed);
		delete_pairs(b, buf, c->bool_table, COL_BOOL, distributed);
	}
	if (buf->nparams > 0)
	{
		appendStringInfoString(&buf->sql, " SELECT");
		rc = argo_run(buf, false);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "could not delete changed rows: %s",
				 SPI_result_code_string(rc));
	}
	batch_reset(b);
}
