/*
 * jsonbwrite.c — an object's sorted rows written straight into jsonb's
 * binary form.
 *
 * jsonb's own builder (pushJsonbValue) makes a tree of JsonbValues, sorts
 * every object's keys (a qsort even of presorted keys) and only then
 * converts the tree.  An object's rows arrive sorted in jsonb's own order
 * (keys by length, then bytes; elements by index: reconstruct.c), so each
 * container can be written in one pass, laid out exactly as jsonb's
 * convertToJsonb lays it out: a header, the members' JEntries (keys
 * first, for an object), then their data; every JB_OFFSET_STRIDE'th
 * JEntry holds an end offset instead of a length; numerics and
 * containers start on a 4-byte boundary, the padding counted in their
 * length.
 *
 * Rows that do not form an object (a key both a scalar and a container,
 * an element where a key should be) are corrupt data: an error, as the
 * step-by-step builder raised.  Two scalar rows for one key keep the
 * last, as jsonb keeps the last of duplicate keys.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/jsonb.h"

#include "common/keypath.h"
#include "doc/doc.h"

typedef struct Writer
{
	StringInfoData buf;
	RRow	   *rows;
	int64		objid;
} Writer;

static void
corrupt(Writer *w)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("rows of object " INT64_FORMAT " do not form a JSON object",
					w->objid)));
}

/* Room for len bytes at the end of the buffer; their offset. */
static int
reserve(StringInfo buf, int len)
{
	int			off = buf->len;

	enlargeStringInfo(buf, len);
	buf->len += len;
	return off;
}

/* Append len bytes (the buffer may move: its data is read after). */
static void
append(StringInfo buf, const void *src, int len)
{
	int			off = reserve(buf, len);

	memcpy(buf->data + off, src, len);
}

/* Zeros up to a 4-byte boundary; how many. */
static int
pad_to_int(StringInfo buf)
{
	static const char zeros[sizeof(int32)] = {0};
	int			pad = INTALIGN(buf->len) - buf->len;

	append(buf, zeros, pad);
	return pad;
}

static void
check_size(uint32 len)
{
	if (len > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("total size of jsonb object elements exceeds the maximum of %u bytes",
						JENTRY_OFFLENMASK)));
}

/* The rows from a on whose step at depth d is rows[a]'s: one member. */
static int
member_end(Writer *w, int a, int to, int d)
{
	int			e = a + 1;

	while (e < to && keyseg_cmp(&w->rows[e].segs[d], &w->rows[a].segs[d]) == 0)
		e++;
	return e;
}

static JEntry
write_scalar(Writer *w, JsonbValue *v)
{
	int			len;
	int			pad;

	switch (v->type)
	{
		case jbvNull:
			return JENTRY_ISNULL;
		case jbvString:
			append(&w->buf, v->val.string.val, v->val.string.len);
			return JENTRY_ISSTRING | v->val.string.len;
		case jbvNumeric:
			len = VARSIZE_ANY(v->val.numeric);
			pad = pad_to_int(&w->buf);
			append(&w->buf, v->val.numeric, len);
			return JENTRY_ISNUMERIC | (pad + len);
		case jbvBool:
			return v->val.boolean ? JENTRY_ISBOOL_TRUE : JENTRY_ISBOOL_FALSE;
		default:
			elog(ERROR, "unexpected value type %d in a row", (int) v->type);
	}
	return 0;					/* not reached */
}

static JEntry write_container(Writer *w, int from, int to, int d, bool is_array);

/* An empty object or array: its header alone. */
static JEntry
write_empty(Writer *w, bool is_array)
{
	int			start = w->buf.len;
	uint32		header = is_array ? JB_FARRAY : JB_FOBJECT;

	pad_to_int(&w->buf);
	append(&w->buf, &header, sizeof(uint32));
	return JENTRY_ISCONTAINER | (w->buf.len - start);
}

/* The value of the member made of rows[a..e), whose step is at depth d. */
static JEntry
write_member(Writer *w, int a, int e, int d)
{
	RRow	   *first = &w->rows[a];
	KeySegKind	kind;

	/* shorter rows sort first: if the last row ends here, all do */
	if (w->rows[e - 1].nsegs == d + 1)
		return write_scalar(w, &w->rows[e - 1].val);
	if (first->nsegs == d + 1)
		corrupt(w);				/* both a scalar and a container */
	kind = first->segs[d + 1].kind;
	if (kind == KSEG_EMPTY_OBJECT || kind == KSEG_EMPTY_ARRAY)
	{
		if (e - a != 1 || first->nsegs != d + 2)
			corrupt(w);
		return write_empty(w, kind == KSEG_EMPTY_ARRAY);
	}
	for (int i = a + 1; i < e; i++)
	{
		if (w->rows[i].segs[d + 1].kind != kind)
			corrupt(w);
	}
	return write_container(w, a, e, d + 1, kind == KSEG_INDEX);
}

/* Store JEntry number i of the container whose JEntries start at off. */
static void
set_entry(Writer *w, int off, int i, JEntry meta, uint32 *total)
{
	*total += JBE_OFFLENFLD(meta);
	check_size(*total);
	if (i % JB_OFFSET_STRIDE == 0)
		meta = (meta & JENTRY_TYPEMASK) | *total | JENTRY_HAS_OFF;
	memcpy(w->buf.data + off + i * sizeof(JEntry), &meta, sizeof(JEntry));
}

/*
 * The object or array whose members are rows[from..to), each member's
 * step at depth d.
 */
static JEntry
write_container(Writer *w, int from, int to, int d, bool is_array)
{
	KeySegKind	step = is_array ? KSEG_INDEX : KSEG_KEY;
	int			start = w->buf.len;
	int			n = 0;
	int			entries;
	uint32		header;
	uint32		total = 0;
	int			i;

	/* as deep as the object nests, as jsonb's own conversion recurses */
	check_stack_depth();
	for (int a = from; a < to; a = member_end(w, a, to, d))
	{
		if (w->rows[a].segs[d].kind != step)
			corrupt(w);
		n++;
	}
	if (n > JB_CMASK)
		corrupt(w);
	pad_to_int(&w->buf);
	header = n | (is_array ? JB_FARRAY : JB_FOBJECT);
	append(&w->buf, &header, sizeof(uint32));
	entries = reserve(&w->buf, sizeof(JEntry) * (is_array ? n : 2 * n));
	i = 0;
	if (!is_array)
	{
		for (int a = from; a < to; a = member_end(w, a, to, d))
		{
			KeySeg	   *k = &w->rows[a].segs[d];

			append(&w->buf, k->key, k->keylen);
			set_entry(w, entries, i++, JENTRY_ISSTRING | k->keylen, &total);
		}
	}
	for (int a = from, e; a < to; a = e)
	{
		e = member_end(w, a, to, d);
		set_entry(w, entries, i++, write_member(w, a, e, d), &total);
	}
	check_size(w->buf.len - start);
	return JENTRY_ISCONTAINER | (w->buf.len - start);
}

/*
 * The jsonb of object objid from its rows, sorted as reconstruct.c sorts
 * them; rows with no step (the object's own marker) add nothing.
 */
Jsonb *
jsonb_write_object(RRow *rows, int nrows, int64 objid)
{
	Writer		w;
	int			from = 0;

	w.rows = rows;
	w.objid = objid;
	initStringInfo(&w.buf);
	reserve(&w.buf, VARHDRSZ);
	/* they sort first */
	while (from < nrows && rows[from].nsegs == 0)
		from++;
	write_container(&w, from, nrows, 0, false);
	SET_VARSIZE(w.buf.data, w.buf.len);
	return (Jsonb *) w.buf.data;
}
