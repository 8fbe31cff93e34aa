/*
 * reconstruct.c — vertical-table rows back to JSON objects (paper 3.1).
 *
 * Rows arrive ordered by object id.  An object's rows are gathered, sorted
 * by their parsed keys (so array elements come in index order, not in the
 * text order where "a[10]" sorts before "a[2]", and object keys in
 * jsonb's own order) and written into jsonb's binary form in one pass
 * (jsonbwrite.c).
 * Each object is built in a memory context reset before the next one.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "common/keypath.h"
#include "common/numbers.h"
#include "doc/doc.h"

struct Rebuilder
{
	struct KeyDict *dict;		/* resolves the rows' key ids */
	HTAB	   *places;			/* key id -> KeyPlaces; NULL: rows stay put */
	const char *id_name;		/* add the object's id under this key */
	rebuild_emit emit;
	void	   *arg;
	MemoryContext cxt;			/* the current object's rows */
	int64		objid;
	bool		have_object;
	RRow	   *rows;
	int			nrows;
	int			maxrows;
};

Rebuilder *
rebuilder_create(struct KeyDict *dict, rebuild_emit emit, void *arg)
{
	Rebuilder  *rb = palloc0(sizeof(Rebuilder));

	rb->dict = dict;
	rb->emit = emit;
	rb->arg = arg;
	rb->cxt = AllocSetContextCreate(CurrentMemoryContext, "argo object",
									ALLOCSET_DEFAULT_SIZES);
	return rb;
}

static int
rrow_cmp(const void *pa, const void *pb)
{
	const RRow *a = pa;
	const RRow *b = pb;
	int			n = Min(a->nsegs, b->nsegs);

	for (int i = 0; i < n; i++)
	{
		int			c = keyseg_cmp(&a->segs[i], &b->segs[i]);

		if (c != 0)
			return c;
	}
	return a->nsegs - b->nsegs;
}

/* End of the ascending run of rows starting at from. */
static int
run_end(RRow *rows, int from, int n)
{
	int			e = from + 1;

	while (e < n && rrow_cmp(&rows[e - 1], &rows[e]) <= 0)
		e++;
	return Min(e, n);
}

/* Merge rows[a..b) and rows[b..e) into out, stably. */
static void
merge_runs(RRow *rows, int a, int b, int e, RRow *out)
{
	int			x = a,
				y = b;

	while (x < b && y < e)
		*out++ = rrow_cmp(&rows[y], &rows[x]) < 0 ? rows[y++] : rows[x++];
	while (x < b)
		*out++ = rows[x++];
	while (y < e)
		*out++ = rows[y++];
}

/*
 * Sort an object's rows.  They arrive as a few sorted runs (one per table,
 * each in the order the rows were written), so a natural merge sort takes
 * one or two passes; any other order still costs O(n log n).
 */
static void
sort_rows(RRow *rows, int n)
{
	RRow	   *tmp;
	int			merges;

	if (n < 2 || run_end(rows, 0, n) == n)
		return;
	tmp = palloc(sizeof(RRow) * n);
	do
	{
		merges = 0;
		for (int a = 0; a < n;)
		{
			int			b = run_end(rows, a, n);
			int			e = b < n ? run_end(rows, b, n) : b;

			merge_runs(rows, a, b, e, tmp + a);
			merges++;
			a = e;
		}
		memcpy(rows, tmp, sizeof(RRow) * n);
	} while (merges > 1);
	pfree(tmp);
}

static RRow *next_row(Rebuilder *rb, int64 objid);

/*
 * SELECT ID(): the object's id under its name.  Under * the object may
 * hold a key of that name already: one value cannot hide the other, so
 * that is an error naming it (42712), and the user names the id anew.
 */
static void
rebuild_add_id(Rebuilder *rb)
{
	KeySeg	   *seg;
	RRow	   *r;

	for (int i = 0; i < rb->nrows; i++)
	{
		RRow	   *x = &rb->rows[i];

		if (x->nsegs > 0 && x->segs[0].kind == KSEG_KEY &&
			x->segs[0].keylen == strlen(rb->id_name) &&
			memcmp(x->segs[0].key, rb->id_name, x->segs[0].keylen) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_ALIAS),
					 errmsg("object " INT64_FORMAT " already has a key \"%s\"", rb->objid, rb->id_name),
					 errhint("Name the id otherwise: SELECT *, ID() AS id.")));
	}
	seg = palloc0(sizeof(KeySeg));
	seg->kind = KSEG_KEY;
	seg->key = rb->id_name;
	seg->keylen = strlen(rb->id_name);
	r = next_row(rb, rb->objid);
	r->segs = seg;
	r->nsegs = 1;
	r->val.type = jbvNumeric;
	r->val.val.numeric = int64_to_numeric(rb->objid);
}

/* Emit the gathered rows as one jsonb, written directly (jsonbwrite.c). */
static void
build_object(Rebuilder *rb)
{
	if (rb->id_name != NULL)
		rebuild_add_id(rb);
	sort_rows(rb->rows, rb->nrows);
	rb->emit(rb->arg, rb->objid, jsonb_write_object(rb->rows, rb->nrows, rb->objid));
}

static void
finish_object(Rebuilder *rb)
{
	MemoryContext old;

	if (!rb->have_object)
		return;
	old = MemoryContextSwitchTo(rb->cxt);
	build_object(rb);
	MemoryContextSwitchTo(old);
	MemoryContextReset(rb->cxt);
	rb->rows = NULL;
	rb->nrows = rb->maxrows = 0;
	rb->have_object = false;
}

/* A new row of objid's, in the object's context. */
static RRow *
next_row(Rebuilder *rb, int64 objid)
{
	CHECK_FOR_INTERRUPTS();
	if (rb->have_object && objid != rb->objid)
		finish_object(rb);
	rb->objid = objid;
	rb->have_object = true;
	if (rb->nrows == rb->maxrows)
	{
		rb->maxrows = rb->maxrows ? rb->maxrows * 2 : 32;
		rb->rows = rb->rows ?
			repalloc(rb->rows, sizeof(RRow) * rb->maxrows) :
			MemoryContextAlloc(rb->cxt, sizeof(RRow) * rb->maxrows);
	}
	return &rb->rows[rb->nrows++];
}

/*
 * The object objid exists, even with no row at all ({}): SELECT * says
 * so before its rows; a projection does not, and leaves out objects with
 * none of its paths.
 */
void
rebuilder_add_object(Rebuilder *rb, int64 objid)
{
	RRow	   *r = next_row(rb, objid);

	r->nsegs = 0;
	r->val.type = jbvNull;
}

/*
 * Drop the rows of objid given so far, if it is the object being
 * gathered: its rows will come again, from elsewhere.
 */
void
rebuilder_forget(Rebuilder *rb, int64 objid)
{
	if (!rb->have_object || rb->objid != objid)
		return;
	MemoryContextReset(rb->cxt);
	rb->rows = NULL;
	rb->nrows = rb->maxrows = 0;
	rb->have_object = false;
}

/*
 * Set a row's value: one of valstr, valnum, valbool for a scalar, or
 * valnum with valstr for a number that keeps its exact text (numbers.c).
 */
static void
set_value(Rebuilder *rb, RRow *r, text *valstr, bool num_null, double valnum,
		  bool bool_null, bool valbool)
{
	MemoryContext old = MemoryContextSwitchTo(rb->cxt);

	if (!num_null)
	{
		r->val.type = jbvNumeric;
		r->val.val.numeric = valstr != NULL ?
			argo_number_from_exact(valstr, valnum) :
			argo_number_to_numeric(valnum);
	}
	else if (valstr != NULL)
	{
		text	   *s = pg_detoast_datum_copy((struct varlena *) valstr);

		r->val.type = jbvString;
		r->val.val.string.val = VARDATA_ANY(s);
		r->val.val.string.len = VARSIZE_ANY_EXHDR(s);
	}
	else if (!bool_null)
	{
		r->val.type = jbvBool;
		r->val.val.boolean = valbool;
	}
	else
		r->val.type = jbvNull;
	MemoryContextSwitchTo(old);
}

/*
 * Take one row; none of valstr, valnum, valbool for null, {}, [].  key
 * must outlive the object (the dictionary's keys do).
 */
void
rebuilder_add_row(Rebuilder *rb, int64 objid, const ArgoKey *key, text *valstr,
				  bool num_null, double valnum, bool bool_null, bool valbool)
{
	RRow	   *r;
	KeyPlaces  *kp = rb->places ? hash_search(rb->places, &key->id, HASH_FIND, NULL) : NULL;

	if (kp == NULL)
	{
		r = next_row(rb, objid);
		r->segs = key->segs;
		r->nsegs = key->nsegs;
		set_value(rb, r, valstr, num_null, valnum, bool_null, valbool);
		return;
	}
	/* renamed: the row once at each of its places */
	for (int i = 0; i < kp->n; i++)
	{
		r = next_row(rb, objid);
		r->segs = kp->segs[i];
		r->nsegs = kp->nsegs[i];
		set_value(rb, r, valstr, num_null, valnum, bool_null, valbool);
	}
}

/* Rows go where places says (a statement's renames); the table must outlive rb. */
void
rebuilder_set_places(Rebuilder *rb, HTAB *places)
{
	rb->places = places;
}

/* Each object gets its id under name (SELECT ID()). */
void
rebuilder_set_id(Rebuilder *rb, const char *name)
{
	rb->id_name = name;
}

/*
 * The same for a key given as text (a join's parts, an aggregate's
 * names): parsed into the object's own memory, which lives as long as
 * the row is needed and no longer.
 */
void
rebuilder_add_keystr_row(Rebuilder *rb, int64 objid, const char *keystr,
						 text *valstr, bool num_null, double valnum,
						 bool bool_null, bool valbool)
{
	RRow	   *r = next_row(rb, objid);
	MemoryContext old = MemoryContextSwitchTo(rb->cxt);

	r->nsegs = keypath_parse(keystr, strlen(keystr), &r->segs);
	MemoryContextSwitchTo(old);
	set_value(rb, r, valstr, num_null, valnum, bool_null, valbool);
}

struct KeyDict *
rebuilder_dict(Rebuilder *rb)
{
	return rb->dict;
}

/*
 * Whether an object kept whole (store/docs.c) may stand for its rows:
 * not where the statement renames keys or adds the id.
 */
bool
rebuilder_takes_docs(Rebuilder *rb)
{
	return rb->places == NULL && rb->id_name == NULL;
}

/* objid's object, kept whole: emitted as it is, after the one gathered before it. */
void
rebuilder_add_doc(Rebuilder *rb, int64 objid, Jsonb *doc)
{
	CHECK_FOR_INTERRUPTS();
	finish_object(rb);
	rb->emit(rb->arg, objid, doc);
}

void
rebuilder_finish(Rebuilder *rb)
{
	finish_object(rb);
}
