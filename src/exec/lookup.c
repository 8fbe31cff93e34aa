/*
 * lookup.c — the objects whose value at one path equals one literal or
 * one of a short IN list (or whose id is one number), read straight from
 * that type's (keyid, value) index or the directory's primary key,
 * without SQL; for reads also a range (<, <=, >, >=, BETWEEN) and
 * lit op ANY path.
 *
 * An application's point read or write (WHERE key = $1, WHERE ID() = $1)
 * then costs one index descent instead of an SPI statement, and each
 * value row found says where its object's kept document lies (doctid),
 * so a read goes from the index to the document.  As objfetch.c
 * reads rows: the snapshot given, SQL's SELECT privilege check (42501);
 * a table that is not a plain heap, is under row-level security or lacks
 * the index declines (NULL), and the caller runs SQL instead.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/itup.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/visibilitymap.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "parser/parse_relation.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "common/common.h"
#include "common/keypath.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/keydict.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/lookup.h"

typedef struct IdList
{
	int64	   *ids;
	DocHint    *hints;			/* where each one's kept document may lie */
	int			n;
	int			max;
	int			cap;			/* more ids than this: give up (0: no cap) */
	bool		over;			/* gave up */
	bool		docs;			/* the caller reads the kept documents */
} IdList;

/*
 * What a value must be: equal to eq, or between the bounds given (NULL:
 * unbounded), all of one type.
 */
typedef struct ValueTest
{
	ArgoLitType type;
	ArgoLiteral *eq;
	ArgoLiteral *lo;
	ArgoLiteral *hi;
	bool		lo_incl;
	bool		hi_incl;
} ValueTest;

/*
 * An IN list up to this long is looked up value by value from C (one
 * descent each); a longer one goes to SQL, which joins it as a set.
 */
#define LOOKUP_IN_MAX 1000

/* No null in the list (analysis refuses one; whatever gets past, SQL answers). */
static bool
all_values(List *lits)
{
	ListCell   *lc;

	foreach(lc, lits)
		if (((ArgoLiteral *) lfirst(lc))->type == ALIT_NULL)
			return false;
	return true;
}

/*
 * WHERE when it is one equality or IN list this file answers, else NULL.
 * On a path with [*] too: an object is found once per value that
 * matches, and the ids are made distinct.
 */
ArgoPred *
lookup_pred(ArgoPred *where)
{
	/* a leaf through a filter is judged on the object (sql/filter.c) */
	if (where == NULL || (where->path != NULL && where->path->filtered))
		return NULL;
	if (where->kind == APRED_IN && where->path != NULL && where->list_param == NULL &&
		list_length(where->lits) <= LOOKUP_IN_MAX && all_values(where->lits))
		return where;
	if (where->op != ACMP_EQ || where->lit == NULL)
		return NULL;
	if (where->kind == APRED_ID && where->lits == NIL)
		return where;
	if (where->kind == APRED_CMP && where->lit->type != ALIT_NULL &&
		where->lit->type != ALIT_JSON)
		return where;
	return NULL;
}

/* A range of numbers or strings, which their (keyid, value) index orders. */
static bool
ranged(ArgoLiteral *lit)
{
	return lit != NULL && (lit->type == ALIT_NUMBER || lit->type == ALIT_STRING);
}

/*
 * What lookup_pred takes, and for a read also a range (path < lit, …,
 * path BETWEEN lit AND lit2) or lit op ANY path: they may find many
 * objects, which a read bounds (lookup_ids_docs's cap) and a write would
 * hold locked.
 */
ArgoPred *
lookup_read_pred(ArgoPred *where)
{
	if (lookup_pred(where) != NULL)
		return where;
	if (where == NULL || (where->path != NULL && where->path->filtered))
		return NULL;
	switch (where->kind)
	{
		case APRED_CMP:
			return where->op != ACMP_NE && ranged(where->lit) ? where : NULL;
		case APRED_BETWEEN:
			return ranged(where->lit) && where->lit2->type == where->lit->type ? where : NULL;
		case APRED_ANY:
			return !where->path->wild &&
				((where->op == ACMP_EQ && where->lit->type == ALIT_BOOL) ||
				 (where->op != ACMP_NE && ranged(where->lit))) ? where : NULL;
		default:
			return NULL;
	}
}

/* The test a leaf (lookup_read_pred's, not an IN list) asks of a value. */
static ValueTest
lookup_value_test(ArgoPred *p)
{
	/* lit op ANY path: an element e passes when e op' lit does */
	static const ArgoCmpOp commuted[] = {ACMP_EQ, ACMP_NE, ACMP_GT, ACMP_GE,
	ACMP_LT, ACMP_LE};
	ValueTest	t = {p->lit->type, NULL, NULL, NULL, false, false};
	ArgoCmpOp	op = p->kind == APRED_ANY ? commuted[p->op] : p->op;

	if (p->kind == APRED_BETWEEN)
	{
		t.lo = p->lit;
		t.hi = p->lit2;
		t.lo_incl = t.hi_incl = true;
		return t;
	}
	switch (op)
	{
		case ACMP_EQ:
			t.eq = p->lit;
			break;
		case ACMP_LT:
		case ACMP_LE:
			t.hi = p->lit;
			t.hi_incl = op == ACMP_LE;
			break;
		default:
			t.lo = p->lit;
			t.lo_incl = op == ACMP_GE;
			break;
	}
	return t;
}

static void
add_id_at(IdList *l, int64 id, const DocHint *hint)
{
	if (l->cap > 0 && l->n >= l->cap)
	{
		l->over = true;
		return;
	}
	if (l->n == l->max)
	{
		l->max = l->max ? l->max * 2 : 16;
		l->ids = l->ids ? repalloc(l->ids, sizeof(int64) * l->max) :
			palloc(sizeof(int64) * l->max);
		l->hints = l->hints ? repalloc(l->hints, sizeof(DocHint) * l->max) :
			palloc(sizeof(DocHint) * l->max);
	}
	l->hints[l->n] = hint != NULL ? *hint : dochint_none();
	l->ids[l->n++] = id;
}

static void
lookup_add_id(IdList *l, int64 id)
{
	add_id_at(l, id, NULL);
}

/*
 * The literal as the index's second column holds it (a string's prefix),
 * with the comparison of that column for strategy (an equality, or a
 * bound: a string's prefix bounds it inclusively, whatever the bound).
 */
static Datum
index_value(ArgoLiteral *lit, StrategyNumber strategy, Oid *proc)
{
	static const Oid text_procs[] = {0, F_TEXT_LE, F_TEXT_LE, F_TEXTEQ, F_TEXT_GE, F_TEXT_GE};
	static const Oid float8_procs[] = {0, F_FLOAT8LT, F_FLOAT8LE, F_FLOAT8EQ, F_FLOAT8GE, F_FLOAT8GT};

	switch (lit->type)
	{
		case ALIT_STRING:
			*proc = text_procs[strategy];
			return DirectFunctionCall2(text_left, CStringGetTextDatum(lit->str),
									   Int32GetDatum(ARGO_STR_PREFIX_CHARS));
		case ALIT_NUMBER:
			*proc = float8_procs[strategy];
			return Float8GetDatum(lit->num);
		default:
			*proc = F_BOOLEQ;
			return BoolGetDatum(lit->b);
	}
}

/* A string's order against lit's, byte by byte (COLLATE "C"). */
static int
string_cmp(text *t, const char *lit)
{
	int			len = VARSIZE_ANY_EXHDR(t);
	int			litlen = strlen(lit);
	int			r = memcmp(VARDATA_ANY(t), lit, Min(len, litlen));

	return r != 0 ? r : len < litlen ? -1 : len > litlen ? 1 : 0;
}

/* Whether a row's whole string passes the test (the index saw its prefix). */
static bool
string_passes(TupleTableSlot *slot, AttrNumber valatt, const ValueTest *t)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, valatt, &isnull);
	text	   *v;
	int			r;

	if (isnull)
		return false;
	v = DatumGetTextPP(d);
	if (t->eq)
		return string_cmp(v, t->eq->str) == 0;
	if (t->lo && ((r = string_cmp(v, t->lo->str)) < 0 || (r == 0 && !t->lo_incl)))
		return false;
	return !(t->hi && ((r = string_cmp(v, t->hi->str)) > 0 || (r == 0 && !t->hi_incl)));
}

/* Column 2's key: the index's value for lit, compared by strategy s. */
static void
lookup_value_key(ScanKey key, Relation irel, ArgoLiteral *lit, StrategyNumber s)
{
	Oid			proc;
	Datum		v = index_value(lit, s, &proc);

	ScanKeyEntryInitialize(key, 0, 2, s, InvalidOid, irel->rd_indcollation[1], proc, v);
}

/*
 * The scan keys on (keyid, value) for keyid and t; how many.  A string's
 * indexed prefix bounds it inclusively, whatever the bound.
 */
static int
value_keys(ScanKey keys, Relation irel, int32 keyid, const ValueTest *t)
{
	bool		prefix = t->type == ALIT_STRING;
	int			n = 1;

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(keyid));
	if (t->eq)
	{
		lookup_value_key(&keys[n++], irel, t->eq, BTEqualStrategyNumber);
		return n;
	}
	if (t->lo)
		lookup_value_key(&keys[n++], irel, t->lo, prefix || t->lo_incl ?
				  BTGreaterEqualStrategyNumber : BTGreaterStrategyNumber);
	if (t->hi)
		lookup_value_key(&keys[n++], irel, t->hi, prefix || t->hi_incl ?
				  BTLessEqualStrategyNumber : BTLessStrategyNumber);
	return n;
}

/* Where a lookup reads a value type's rows. */
typedef struct TypeLookup
{
	bool		opened;
	Relation	rel;
	Relation	irel;			/* NULL: SQL must answer */
	bool		cover;			/* irel has INCLUDE (objid …) */
	AttrNumber	objatt;
	AttrNumber	valatt;
	AttrNumber	docatt;			/* doctid, or 0 (a table made before 0.7) */
} TypeLookup;

/* The id and doctid of the row the slot holds, added to out. */
static void
lookup_add_row(IdList *out, Relation rel, TupleTableSlot *slot, const TypeLookup *tl)
{
	bool		isnull;
	bool		nodoc = true;
	int64		objid = DatumGetInt64(slot_getattr(slot, tl->objatt, &isnull));
	Datum		doc = tl->docatt > 0 ? slot_getattr(slot, tl->docatt, &nodoc) : (Datum) 0;
	DocHint		h;

	if (nodoc)
	{
		lookup_add_id(out, objid);
		return;
	}
	h = dochint_make(RelationGetRelid(rel), &slot->tts_tid, (ItemPointer) DatumGetPointer(doc));
	add_id_at(out, objid, &h);
}

/*
 * The id the covering index entry holds, added to out; its document is
 * found by c_doc's key (no index holds doctid: indexes.c).
 */
static void
add_entry(IdList *out, IndexScanDesc scan)
{
	bool		isnull;
	int64		objid = DatumGetInt64(index_getattr(scan->xs_itup,
													 scan->indexRelation->rd_index->indnkeyatts + 1,
													 scan->xs_itupdesc, &isnull));

	if (!isnull)
		lookup_add_id(out, objid);
}

/*
 * Rows a lookup reads one by one, as an index scan does, before it reads
 * them in batches whose pages are asked of the kernel first: a point
 * lookup never gets there, and keeps what reading each row right after
 * its entry gives (an entry of a dead row marked so in the index).
 */
#define SINGLE_ROWS 4
#define ROW_BATCH 32

/* The value row at tid, if visible and passing t, added to out. */
static void
fetched_row(TypeLookup *tl, TupleTableSlot *slot, bool found, const ValueTest *t, IdList *out)
{
	if (!found || (t->type == ALIT_STRING && !string_passes(slot, tl->valatt, t)))
		return;
	lookup_add_row(out, tl->rel, slot, tl);
}

/*
 * The rows of a batch of index entries: each page asked for first (unless
 * argo.prefetch_pages is 0), so that on first touch the reads overlap
 * instead of waiting in turn (a bitmap heap scan prefetches likewise),
 * then each row read.
 */
static void
fetch_batch(TypeLookup *tl, IndexScanDesc scan, Snapshot snap, TupleTableSlot *slot,
			const ItemPointerData *tids, int n, const ValueTest *t, IdList *out)
{
	BlockNumber last = InvalidBlockNumber;

	for (int i = 0; i < n && argo_prefetch_pages > 0; i++)
		if (ItemPointerGetBlockNumber(&tids[i]) != last)
		{
			last = ItemPointerGetBlockNumber(&tids[i]);
			(void) PrefetchBuffer(tl->rel, MAIN_FORKNUM, last);
		}
	for (int i = 0; i < n && !out->over; i++)
	{
		ItemPointerData tid = tids[i];
		bool		call_again = false,
					all_dead = false;

		CHECK_FOR_INTERRUPTS();
		fetched_row(tl, slot,
					table_index_fetch_tuple(scan->xs_heapfetch, &tid, snap, slot,
											&call_again, &all_dead),
					t, out);
	}
}

/*
 * Ids of the rows of keyid whose value passes t, with their doctid;
 * stops when out is over its cap.  A covering index answers alone for
 * rows on pages the visibility map says all visible, as PostgreSQL's
 * index-only scans do (a predicate lock on the page stands for the
 * tuple's), where only ids are wanted; strings are compared whole, so
 * their rows are always read.
 */
static void
scan_values(TypeLookup *tl, Snapshot snap, int32 keyid, const ValueTest *t, IdList *out)
{
	ScanKeyData keys[3];
	int			nkeys = value_keys(keys, tl->irel, keyid, t);
	/*
	 * The entry gives the id alone: where documents are read, the row's
	 * doctid saves more (a descent of c_doc's key, 1.9 us an object
	 * against 0.7 for the row: a range of 5,000, 16 against 10 ms).
	 */
	bool		index_only = tl->cover && t->type != ALIT_STRING &&
		!(out->docs && tl->docatt > 0);
	IndexScanDesc scan;
	TupleTableSlot *slot = table_slot_create(tl->rel, NULL);
	Buffer		vmbuf = InvalidBuffer;
	ItemPointer tid;
	ItemPointerData batch[ROW_BATCH];
	int			nbatch = 0,
				rows = 0;

	scan = index_beginscan(tl->rel, tl->irel, snap, nkeys, 0);
	scan->xs_want_itup = index_only;
	index_rescan(scan, keys, nkeys, NULL, 0);
	while (!out->over && (tid = index_getnext_tid(scan, ForwardScanDirection)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		if (index_only && VM_ALL_VISIBLE(tl->rel, ItemPointerGetBlockNumber(tid), &vmbuf))
		{
			PredicateLockPage(tl->rel, ItemPointerGetBlockNumber(tid), snap);
			add_entry(out, scan);
			continue;
		}
		/* a snapshot that is not MVCC may see more than one row of a chain: no batch */
		if (++rows <= SINGLE_ROWS || !IsMVCCSnapshot(snap))
		{
			fetched_row(tl, slot, index_fetch_heap(scan, slot), t, out);
			continue;
		}
		batch[nbatch++] = *tid;
		if (nbatch == ROW_BATCH)
		{
			fetch_batch(tl, scan, snap, slot, batch, nbatch, t, out);
			nbatch = 0;
		}
	}
	fetch_batch(tl, scan, snap, slot, batch, nbatch, t, out);
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
}

/* A value type's table and (keyid, value) index, opened on first use. */
static TypeLookup *
type_lookup(ArgoCollection *c, TypeLookup *types, int t)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	TypeLookup *tl = &types[t];
	TableLayout l;

	if (tl->opened)
		return tl;
	tl->opened = true;
	tl->rel = argo_open_table(c, c->format == ARGO_FORMAT_ARGO1 ? "data" : argo3[t]);
	l = argo_table_layout(tl->rel);
	tl->objatt = l.objatt;
	tl->valatt = l.valatt[t];
	tl->docatt = l.docatt;
	tl->irel = NULL;
	tl->cover = l.valcover[t];
	argo_check_privilege(tl->rel, ACL_SELECT);
	if (argo_readable_directly(tl->rel) && tl->objatt > 0 && OidIsValid(l.valindex[t]))
		tl->irel = index_open(l.valindex[t], AccessShareLock);
	return tl;
}

/*
 * The keys p reaches: its path's (every one for [*]), or the elements of
 * the array at lit op ANY path.
 */
static List *
pred_keys(ArgoCollection *c, ArgoPred *p)
{
	if (p->kind == APRED_ANY)
		return keydict_elements(keydict_of(c), p->path->keystr);
	return sql_path_keys(c, p->path, false);
}

static void
close_types(TypeLookup *types)
{
	for (int t = 0; t < 3; t++)
	{
		if (types[t].irel != NULL)
			index_close(types[t].irel, NoLock);
		if (types[t].opened)
			table_close(types[t].rel, NoLock);
	}
}

/*
 * The objects with a value passing p's test at a key p reaches (path IN
 * (lits) as path = each); false when SQL must answer instead, or out
 * went over its cap.
 */
static bool
lookup_values(ArgoCollection *c, ArgoPred *p, Snapshot snap, IdList *out)
{
	TypeLookup	types[3];
	List	   *tests = NIL;
	List	   *keys = pred_keys(c, p);
	bool		ok = true;
	ListCell   *lc;

	if (p->kind == APRED_IN)
		foreach(lc, p->lits)
		{
			ValueTest  *t = palloc0(sizeof(ValueTest));

			t->eq = lfirst(lc);
			t->type = t->eq->type;
			tests = lappend(tests, t);
		}
	else
	{
		ValueTest  *t = palloc(sizeof(ValueTest));

		*t = lookup_value_test(p);
		tests = list_make1(t);
	}
	memset(types, 0, sizeof(types));
	foreach(lc, tests)
	{
		ValueTest  *t = lfirst(lc);
		int			ti = t->type == ALIT_STRING ? 0 : t->type == ALIT_NUMBER ? 1 : 2;
		TypeLookup *tl = type_lookup(c, types, ti);
		ListCell   *k;

		CHECK_FOR_INTERRUPTS();
		ok = tl->irel != NULL;
		if (!ok)
			break;
		/* a path with [*]: every key it reaches, one descent each */
		foreach(k, keys)
			scan_values(tl, snap, ((ArgoKey *) lfirst(k))->id, t, out);
	}
	close_types(types);
	return ok && !out->over;
}

/*
 * Whether keystr of c may have values of type t (0 strings, 1 numbers,
 * 2 booleans) under snap: false only where its Argo/3 value table, read
 * directly, holds none — one descent of the (keyid, value) index to its
 * first visible row.  A join compares values of each type in its own
 * branch, and NoBench's Q11 planned three where one can match (a third
 * of its time was planning).
 */
bool
lookup_key_may_have(ArgoCollection *c, const char *keystr, int t, Snapshot snap)
{
	static const ArgoLitType lit_types[] = {ALIT_STRING, ALIT_NUMBER, ALIT_BOOL};
	int32		keyid = keydict_find(keydict_of(c), keystr);
	ValueTest	any = {lit_types[t], NULL, NULL, NULL, false, false};
	IdList		found = {NULL, NULL, 0, 0, 1, false, false};
	TypeLookup	types[3];
	TypeLookup *tl;

	if (c->format != ARGO_FORMAT_ARGO3 || keyid <= 0)
		return true;
	memset(types, 0, sizeof(types));
	tl = type_lookup(c, types, t);
	if (tl->irel != NULL)
		scan_values(tl, snap, keyid, &any, &found);
	close_types(types);
	return tl->irel == NULL || found.n > 0;
}

/* n plus the entries of tl's index matching keys, counted up to limit. */
static int64
count_index_entries(TypeLookup *tl, Snapshot snap, ScanKey keys, int nkeys,
					int64 n, int64 limit)
{
	IndexScanDesc scan = index_beginscan(tl->rel, tl->irel, snap, nkeys, 0);

	index_rescan(scan, keys, nkeys, NULL, 0);
	while (n < limit && index_getnext_tid(scan, ForwardScanDirection) != NULL)
		if ((++n & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	index_endscan(scan);
	return n;
}

/*
 * How many entries keyid has in c's (keyid, value) indexes, counted up to
 * limit from the index alone (dead ones too: an estimate); -1 where an
 * index cannot be read directly.  Argo/1's numeric index holds every row
 * of its one table.
 */
int64
lookup_key_entries(ArgoCollection *c, int32 keyid, int64 limit, Snapshot snap)
{
	bool		argo1 = c->format == ARGO_FORMAT_ARGO1;
	TypeLookup	types[3];
	int64		n = 0;

	memset(types, 0, sizeof(types));
	for (int t = argo1 ? 1 : 0; t < (argo1 ? 2 : 3) && n >= 0 && n < limit; t++)
	{
		TypeLookup *tl = type_lookup(c, types, t);
		ScanKeyData key;

		if (tl->irel == NULL)
		{
			n = -1;
			break;
		}
		ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(keyid));
		n = count_index_entries(tl, snap, &key, 1, n, limit);
	}
	close_types(types);
	return n;
}

/*
 * How many index entries pass p's test (lookup_read_pred's leaves but
 * ID()), counted up to limit from the indexes alone: dead entries too,
 * and a string's prefix for its value — an estimate, for choosing which
 * term of an AND finds the objects.  -1 where an index cannot be read.
 */
int64
lookup_count_entries(ArgoCollection *c, ArgoPred *p, int64 limit, Snapshot snap)
{
	ValueTest	t = lookup_value_test(p);
	int			ti = t.type == ALIT_STRING ? 0 : t.type == ALIT_NUMBER ? 1 : 2;
	TypeLookup	types[3];
	TypeLookup *tl;
	List	   *keys = pred_keys(c, p);
	int64		n = 0;
	ListCell   *lc;

	memset(types, 0, sizeof(types));
	tl = type_lookup(c, types, ti);
	if (tl->irel == NULL)
		n = -1;
	foreach(lc, keys)
	{
		ScanKeyData skeys[3];
		int			nkeys;

		if (n < 0 || n >= limit)
			break;
		nkeys = value_keys(skeys, tl->irel, ((ArgoKey *) lfirst(lc))->id, &t);
		n = count_index_entries(tl, snap, skeys, nkeys, n, limit);
	}
	close_types(types);
	return n;
}

/*
 * Whether the directory holds id under snap, in *found; false when SQL
 * must say (the directory cannot be read directly).
 */
bool
lookup_directory(ArgoCollection *c, int64 id, Snapshot snap, bool *found)
{
	Relation	rel = argo_open_table(c, "obj");
	Oid			pk;
	bool		ok;

	argo_check_privilege(rel, ACL_SELECT);
	pk = RelationGetPrimaryKeyIndex(rel);
	ok = argo_readable_directly(rel) && OidIsValid(pk);
	if (ok)
	{
		Relation	irel = index_open(pk, AccessShareLock);
		ScanKeyData key;
		IndexScanDesc scan = index_beginscan(rel, irel, snap, 1, 0);
		TupleTableSlot *slot = table_slot_create(rel, NULL);

		ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(id));
		index_rescan(scan, &key, 1, NULL, 0);
		*found = index_getnext_slot(scan, ForwardScanDirection, slot);
		index_endscan(scan);
		ExecDropSingleTupleTableSlot(slot);
		index_close(irel, NoLock);
	}
	table_close(rel, NoLock);
	return ok;
}

/* ID() = n: whether the directory holds n. */
static bool
lookup_id(ArgoCollection *c, ArgoPred *p, Snapshot snap, IdList *out)
{
	int64		id = (int64) p->lit->num;
	bool		found;

	if (!lookup_directory(c, id, snap, &found))
		return false;
	if (found)
		lookup_add_id(out, id);
	return true;
}

/* (id, document place) pairs by id. */
static int
pair_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

typedef struct IdPair
{
	int64		id;
	DocHint		hint;
} IdPair;

/*
 * Ids, in order, of the objects where p (from lookup_read_pred) is TRUE
 * under snap; NULL when SQL must find them, or (cap > 0) it finds more
 * than cap values.  With hints, where each one's kept document may lie
 * (the value row that found it, and its doctid).
 */
int64 *
lookup_ids_docs(ArgoCollection *c, ArgoPred *p, Snapshot snap, int cap, int *n,
				DocHint **hints)
{
	IdList		l = {NULL, NULL, 0, 0, cap, false, hints != NULL};
	IdPair	   *pairs;
	int			kept = 0;

	if (!(p->kind == APRED_ID ? lookup_id(c, p, snap, &l) : lookup_values(c, p, snap, &l)))
		return NULL;
	l.cap = 0;
	lookup_add_id(&l, 0);				/* never NULL, even when empty */
	l.n--;
	pairs = palloc(sizeof(IdPair) * (l.n + 1));
	for (int i = 0; i < l.n; i++)
	{
		pairs[i].id = l.ids[i];
		pairs[i].hint = l.hints[i];
	}
	qsort(pairs, l.n, sizeof(IdPair), pair_cmp);
	/* an IN list may name a value twice, a range or [*] find an object twice */
	for (int i = 0; i < l.n; i++)
		if (kept == 0 || pairs[i].id != l.ids[kept - 1])
		{
			l.ids[kept] = pairs[i].id;
			l.hints[kept++] = pairs[i].hint;
		}
	*n = kept;
	if (hints != NULL)
		*hints = l.hints;
	return l.ids;
}

int64 *
lookup_ids(ArgoCollection *c, ArgoPred *p, Snapshot snap, int *n)
{
	return lookup_ids_docs(c, p, snap, 0, n, NULL);
}
