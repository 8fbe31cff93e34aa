/*
 * lookup.c — the objects whose value at one path equals one literal or
 * one of a short IN list (or whose id is one number), read straight from
 * that type's (keyid, value) index or the directory's primary key,
 * without SQL.
 *
 * An application's point read or write (WHERE key = $1, WHERE ID() = $1)
 * then costs one index descent instead of an SPI statement.  As fetch.c
 * reads rows: the snapshot given, SQL's SELECT privilege check (42501);
 * a table that is not a plain heap, is under row-level security or lacks
 * the index declines (NULL), and the caller runs SQL instead.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "parser/parse_relation.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "exec/exec.h"

typedef struct IdList
{
	int64	   *ids;
	ItemPointerData *tids;		/* each one's kept document's place (invalid: none) */
	int			n;
	int			max;
} IdList;

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
	if (where == NULL)
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

static void
add_id_at(IdList *l, int64 id, ItemPointer doc)
{
	if (l->n == l->max)
	{
		l->max = l->max ? l->max * 2 : 16;
		l->ids = l->ids ? repalloc(l->ids, sizeof(int64) * l->max) :
			palloc(sizeof(int64) * l->max);
		l->tids = l->tids ? repalloc(l->tids, sizeof(ItemPointerData) * l->max) :
			palloc(sizeof(ItemPointerData) * l->max);
	}
	if (doc != NULL)
		l->tids[l->n] = *doc;
	else
		ItemPointerSetInvalid(&l->tids[l->n]);
	l->ids[l->n++] = id;
}

static void
add_id(IdList *l, int64 id)
{
	add_id_at(l, id, NULL);
}

/* Whether an index expression is left(<valstr>, ARGO_STR_PREFIX_CHARS). */
static bool
is_prefix_expr(Node *e, AttrNumber valatt)
{
	FuncExpr   *f = (FuncExpr *) e;
	Var		   *v;
	Const	   *len;

	if (!IsA(e, FuncExpr) || f->funcid != F_LEFT || list_length(f->args) != 2)
		return false;
	v = linitial(f->args);
	len = lsecond(f->args);
	return IsA(v, Var) && v->varattno == valatt && IsA(len, Const) &&
		!len->constisnull && DatumGetInt32(len->constvalue) == ARGO_STR_PREFIX_CHARS;
}

/* A valid B-tree on (keyid, value) — (keyid, left(valstr, N)) for strings. */
static Relation
value_index(Relation rel, AttrNumber keyatt, AttrNumber valatt, bool prefix)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	irel = index_open(lfirst_oid(lc), AccessShareLock);
		int2vector *cols = &irel->rd_index->indkey;
		bool		fits = irel->rd_rel->relam == BTREE_AM_OID &&
			irel->rd_index->indisvalid &&
			irel->rd_index->indnkeyatts >= 2 &&
			RelationGetIndexPredicate(irel) == NIL &&
			cols->values[0] == keyatt &&
			(prefix ? cols->values[1] == 0 &&
			 is_prefix_expr(linitial(RelationGetIndexExpressions(irel)), valatt) :
			 cols->values[1] == valatt);

		if (fits)
			return irel;
		index_close(irel, AccessShareLock);
	}
	return NULL;
}

/* The literal as the index's second column holds it, with its equality. */
static Datum
index_value(ArgoLiteral *lit, Oid *proc)
{
	switch (lit->type)
	{
		case ALIT_STRING:
			*proc = F_TEXTEQ;
			return DirectFunctionCall2(text_left, CStringGetTextDatum(lit->str),
									   Int32GetDatum(ARGO_STR_PREFIX_CHARS));
		case ALIT_NUMBER:
			*proc = F_FLOAT8EQ;
			return Float8GetDatum(lit->num);
		default:
			*proc = F_BOOLEQ;
			return BoolGetDatum(lit->b);
	}
}

/* The whole string equals the literal (the index matched its prefix). */
static bool
same_string(TupleTableSlot *slot, AttrNumber valatt, const char *want)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, valatt, &isnull);
	text	   *t;

	if (isnull)
		return false;
	t = DatumGetTextPP(d);
	return VARSIZE_ANY_EXHDR(t) == strlen(want) &&
		memcmp(VARDATA_ANY(t), want, VARSIZE_ANY_EXHDR(t)) == 0;
}

/* Ids of the rows of keyid whose value equals lit, with their doctid. */
static void
scan_values(Relation rel, Relation irel, Snapshot snap, int32 keyid,
			ArgoLiteral *lit, AttrNumber objatt, AttrNumber valatt, AttrNumber docatt,
			IdList *out)
{
	ScanKeyData keys[2];
	Oid			proc;
	Datum		v = index_value(lit, &proc);
	IndexScanDesc scan;
	TupleTableSlot *slot = table_slot_create(rel, NULL);

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(keyid));
	ScanKeyEntryInitialize(&keys[1], 0, 2, BTEqualStrategyNumber, InvalidOid,
						   irel->rd_indcollation[1], proc, v);
	scan = index_beginscan(rel, irel, snap, 2, 0);
	index_rescan(scan, keys, 2, NULL, 0);
	while (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;
		int64		objid;
		Datum		doc;
		bool		nodoc = true;

		CHECK_FOR_INTERRUPTS();
		if (lit->type == ALIT_STRING && !same_string(slot, valatt, lit->str))
			continue;
		objid = DatumGetInt64(slot_getattr(slot, objatt, &isnull));
		doc = docatt > 0 ? slot_getattr(slot, docatt, &nodoc) : (Datum) 0;
		add_id_at(out, objid, nodoc ? NULL : (ItemPointer) DatumGetPointer(doc));
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
}

/* A value type's table and (keyid, value) index, opened on first use. */
typedef struct TypeLookup
{
	bool		opened;
	Relation	rel;
	Relation	irel;			/* NULL: SQL must answer */
	AttrNumber	objatt;
	AttrNumber	valatt;
	AttrNumber	docatt;			/* doctid, or 0 (a table made before 0.7) */
} TypeLookup;

static TypeLookup *
type_lookup(ArgoCollection *c, TypeLookup *types, int t)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	static const char *const cols[] = {"valstr", "valnum", "valbool"};
	TypeLookup *tl = &types[t];
	AttrNumber	keyatt;

	if (tl->opened)
		return tl;
	tl->opened = true;
	tl->rel = argo_open_table(c, c->format == ARGO_FORMAT_ARGO1 ? "data" : argo3[t]);
	tl->objatt = attnameAttNum(tl->rel, "objid", false);
	keyatt = attnameAttNum(tl->rel, "keyid", false);
	tl->valatt = attnameAttNum(tl->rel, cols[t], false);
	tl->docatt = attnameAttNum(tl->rel, "doctid", false);
	if (tl->docatt > 0 && TupleDescAttr(RelationGetDescr(tl->rel), tl->docatt - 1)->atttypid != TIDOID)
		tl->docatt = 0;
	tl->irel = NULL;
	argo_check_privilege(tl->rel, ACL_SELECT);
	if (argo_readable_directly(tl->rel) && tl->objatt > 0 && keyatt > 0 && tl->valatt > 0)
		tl->irel = value_index(tl->rel, keyatt, tl->valatt, t == 0);
	return tl;
}

/*
 * path = lit, or path IN (lits) as path = each; false when SQL must
 * answer instead.
 */
static bool
lookup_values(ArgoCollection *c, ArgoPred *p, Snapshot snap, IdList *out)
{
	TypeLookup	types[3];
	List	   *lits = p->kind == APRED_IN ? p->lits : list_make1(p->lit);
	List	   *keys = sql_path_keys(c, p->path, false);
	bool		ok = true;
	ListCell   *lc;

	memset(types, 0, sizeof(types));
	foreach(lc, lits)
	{
		ArgoLiteral *lit = lfirst(lc);
		int			t = lit->type == ALIT_STRING ? 0 : lit->type == ALIT_NUMBER ? 1 : 2;
		TypeLookup *tl = type_lookup(c, types, t);
		ListCell   *k;

		CHECK_FOR_INTERRUPTS();
		ok = tl->irel != NULL;
		if (!ok)
			break;
		/* a path with [*]: every key it reaches, one descent each */
		foreach(k, keys)
			scan_values(tl->rel, tl->irel, snap, ((ArgoKey *) lfirst(k))->id, lit,
						tl->objatt, tl->valatt, tl->docatt, out);
	}
	for (int t = 0; t < 3; t++)
	{
		if (types[t].irel != NULL)
			index_close(types[t].irel, NoLock);
		if (types[t].opened)
			table_close(types[t].rel, NoLock);
	}
	return ok;
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
		add_id(out, id);
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
	ItemPointerData tid;
} IdPair;

/*
 * Ids, in order, of the objects where p (from lookup_pred) is TRUE under
 * snap; NULL when SQL must find them.  With doc_tids, where each one's
 * kept document may lie (a value row's doctid; invalid: not known).
 */
int64 *
lookup_ids_docs(ArgoCollection *c, ArgoPred *p, Snapshot snap, int *n,
				ItemPointerData **doc_tids)
{
	IdList		l = {NULL, NULL, 0, 0};
	IdPair	   *pairs;
	int			kept = 0;

	if (!(p->kind == APRED_ID ? lookup_id(c, p, snap, &l) : lookup_values(c, p, snap, &l)))
		return NULL;
	add_id(&l, 0);				/* never NULL, even when empty */
	l.n--;
	pairs = palloc(sizeof(IdPair) * (l.n + 1));
	for (int i = 0; i < l.n; i++)
	{
		pairs[i].id = l.ids[i];
		pairs[i].tid = l.tids[i];
	}
	qsort(pairs, l.n, sizeof(IdPair), pair_cmp);
	/* an IN list may name a value twice */
	for (int i = 0; i < l.n; i++)
		if (kept == 0 || pairs[i].id != l.ids[kept - 1])
		{
			l.ids[kept] = pairs[i].id;
			l.tids[kept++] = pairs[i].tid;
		}
	*n = kept;
	if (doc_tids != NULL)
		*doc_tids = l.tids;
	return l.ids;
}

int64 *
lookup_ids(ArgoCollection *c, ArgoPred *p, Snapshot snap, int *n)
{
	return lookup_ids_docs(c, p, snap, n, NULL);
}
