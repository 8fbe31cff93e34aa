/*
 * dochint.c — a value row's doctid kept pointing at its object's kept
 * document.
 *
 * A value row says where its object's document lies (doctid: the root of
 * the document's chain in c_doc when the row was written), so a value
 * found leads to the document without a descent of c_doc's key.  An
 * update that cannot be HOT (the document's page is full) starts a new
 * chain, and the rows the update did not rewrite still name the old one:
 * YCSB's key rows after a benchmark's updates named another page for
 * half the objects, and the most updated objects, the most read, were
 * always among them.  doctid is only a hint — every use checks that the
 * place holds the object's document, visible, and falls back to the key
 * — so it is set again the way PostgreSQL sets hint bits: in place on
 * the shared page under a share lock, the buffer marked dirty as a hint
 * (MarkBufferDirtyHint, which logs a full page image where checksums
 * need one).  A torn or lost write leaves a wrong hint, which the check
 * catches; the row's other bytes and its visibility are untouched.  No
 * index may hold doctid (indexes.c): an index entry keeps the value its
 * row had when it was made, and one that differs from its heap tuple is
 * what amcheck reports as corruption; a table with such an index (a
 * user's, or 0.7's numeric one not yet rebuilt) gets no hint.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xlog.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "store/access.h"
#include "store/docs.h"

/* The hint of a value row of relid at row, which said doc. */
DocHint
dochint_make(Oid relid, const ItemPointerData *row, const ItemPointerData *doc)
{
	DocHint		h;

	h.relid = relid;
	h.row = *row;
	h.doc = *doc;
	return h;
}

/* No hint: the place of the document is not known. */
DocHint
dochint_none(void)
{
	DocHint		h;

	h.relid = InvalidOid;
	ItemPointerSetInvalid(&h.row);
	ItemPointerSetInvalid(&h.doc);
	return h;
}

/*
 * objid's document's chain now starts at root: if the row h came from
 * named another place, name root there instead.  The row's table is
 * locked already (the statement found the row through it).
 */
void
dochint_refresh(DocHint *h, int64 objid, const ItemPointerData *root)
{
	Relation	rel;
	TableLayout l;
	Buffer		buf;
	Page		page;
	OffsetNumber off;
	ItemId		item;
	HeapTupleData tup;
	bool		isnull;
	Datum		d;

	/* a standby's pages are the primary's: its reads leave them alone */
	if (!OidIsValid(h->relid) || !ItemPointerIsValid(root) ||
		ItemPointerEquals(&h->doc, (ItemPointer) root) || RecoveryInProgress())
		return;
	rel = table_open(h->relid, NoLock);
	l = argo_table_layout(rel);
	/* an index holding doctid would no longer match its heap (0.7's numeric index) */
	if (l.docatt <= 0 || l.objatt <= 0 || l.doc_indexed ||
		!argo_block_exists(rel, ItemPointerGetBlockNumber(&h->row)))
	{
		table_close(rel, NoLock);
		return;
	}
	buf = ReadBuffer(rel, ItemPointerGetBlockNumber(&h->row));
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	off = ItemPointerGetOffsetNumber(&h->row);
	item = off >= FirstOffsetNumber && off <= PageGetMaxOffsetNumber(page) ?
		PageGetItemId(page, off) : NULL;
	if (item != NULL && ItemIdIsNormal(item))
	{
		tup.t_data = (HeapTupleHeader) PageGetItem(page, item);
		tup.t_len = ItemIdGetLength(item);
		tup.t_tableOid = h->relid;
		tup.t_self = h->row;
		d = heap_getattr(&tup, l.objatt, RelationGetDescr(rel), &isnull);
		/* the place may hold another row now: only a row of objid's */
		if (!isnull && DatumGetInt64(d) == objid)
		{
			d = heap_getattr(&tup, l.docatt, RelationGetDescr(rel), &isnull);
			if (!isnull)
			{
				memcpy(DatumGetPointer(d), root, sizeof(ItemPointerData));
				MarkBufferDirtyHint(buf, true);
			}
		}
	}
	UnlockReleaseBuffer(buf);
	table_close(rel, NoLock);
	h->doc = *root;
}
