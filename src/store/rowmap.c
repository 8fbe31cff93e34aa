/*
 * rowmap.c — where an object's rows lie, kept in its directory row.
 *
 * Every write of an object gives its directory row a new version already
 * (objlock.c), so that row can also say where the object's rows are: per
 * value table, runs of consecutive line pointers on a heap page.  Reading
 * an object is then one descent of the directory's primary key and the
 * heap pages its rows are on, instead of a descent of each value table's
 * objid index.  Rows and directory row change in one transaction, so the
 * map a snapshot sees is the one for the rows that snapshot sees.
 *
 * A map holds physical addresses, which a rewrite of a table (VACUUM
 * FULL, CLUSTER, pg_repack, a dump restored) changes: each map carries an
 * epoch, a hash of the cluster's system identifier and the value tables'
 * file nodes when it was written, and a map of another epoch is not used
 * (the objid indexes are read instead, until argo_repair writes the maps
 * again).  A map is also input like any other row: malformed, it is not
 * used, and each row it names must be visible and belong to the object
 * (objfetch.c), else the object is read through its objid indexes.
 *
 * Encoding: a version byte, the epoch (4 bytes), the number of tables,
 * then per table the number of runs and each run as (block delta,
 * first offset, length - 1), all as unsigned LEB128 varints; the block
 * delta is zigzag-coded against the previous run's block.  A NoBench
 * object's map is about 20 bytes.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "parser/parse_relation.h"
#include "storage/itemptr.h"
#include "utils/rel.h"

#include "store/rowmap.h"

#define ROWMAP_VERSION 1

/* The epoch of maps written now for these value tables. */
uint32
rowmap_epoch(Relation *tables, int ntables)
{
	uint64		sysid = GetSystemIdentifier();
	uint32		h = hash_bytes((const unsigned char *) &sysid, sizeof(sysid));

	for (int i = 0; i < ntables; i++)
	{
		Oid			node = tables[i]->rd_node.relNode;

		h = hash_combine(h, hash_bytes((const unsigned char *) &node, sizeof(node)));
	}
	return h;
}

static void
put_varint(StringInfo buf, uint64 v)
{
	do
	{
		unsigned char b = v & 0x7F;

		v >>= 7;
		appendStringInfoChar(buf, (char) (v ? b | 0x80 : b));
	} while (v);
}

/* false when the varint runs past the end or past 64 bits */
static bool
get_varint(const unsigned char **p, const unsigned char *end, uint64 *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7)
	{
		unsigned char b;

		if (*p >= end)
			return false;
		b = *(*p)++;
		*v |= (uint64) (b & 0x7F) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static int
tid_cmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) a, (ItemPointer) b);
}

/* One table's rows as runs, its tids sorted in place. */
static void
put_table(StringInfo buf, ItemPointerData *tids, int n)
{
	int			nruns = 0;
	int64		prev = 0;
	int			i;

	qsort(tids, n, sizeof(ItemPointerData), tid_cmp);
	for (i = 0; i < n; i++)
		nruns += i == 0 ||
			ItemPointerGetBlockNumberNoCheck(&tids[i]) != ItemPointerGetBlockNumberNoCheck(&tids[i - 1]) ||
			ItemPointerGetOffsetNumberNoCheck(&tids[i]) != ItemPointerGetOffsetNumberNoCheck(&tids[i - 1]) + 1;
	put_varint(buf, nruns);
	for (i = 0; i < n;)
	{
		BlockNumber block = ItemPointerGetBlockNumberNoCheck(&tids[i]);
		OffsetNumber first = ItemPointerGetOffsetNumberNoCheck(&tids[i]);
		int64		delta = (int64) block - prev;
		int			len = 1;

		while (i + len < n &&
			   ItemPointerGetBlockNumberNoCheck(&tids[i + len]) == block &&
			   ItemPointerGetOffsetNumberNoCheck(&tids[i + len]) == first + len)
			len++;
		put_varint(buf, delta >= 0 ? (uint64) delta << 1 : ((uint64) (-delta) << 1) - 1);
		put_varint(buf, first);
		put_varint(buf, len - 1);
		prev = block;
		i += len;
	}
}

/*
 * The map of an object whose rows in table i are tids[i][0..n[i]); the
 * tids are sorted in place.
 */
bytea *
rowmap_encode(uint32 epoch, int ntables, ItemPointerData **tids, const int *n)
{
	StringInfoData buf;
	bytea	   *map;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, ROWMAP_VERSION);
	appendBinaryStringInfo(&buf, (char *) &epoch, sizeof(epoch));
	appendStringInfoChar(&buf, (char) ntables);
	for (int t = 0; t < ntables; t++)
		put_table(&buf, tids[t], n[t]);
	map = palloc(VARHDRSZ + buf.len);
	SET_VARSIZE(map, VARHDRSZ + buf.len);
	memcpy(VARDATA(map), buf.data, buf.len);
	pfree(buf.data);
	return map;
}

/* The epoch a map was written in; false if it is not a map at all. */
bool
rowmap_epoch_of(bytea *map, uint32 *epoch)
{
	if (VARSIZE_ANY_EXHDR(map) < 1 + sizeof(uint32) + 1 ||
		((unsigned char *) VARDATA_ANY(map))[0] != ROWMAP_VERSION)
		return false;
	memcpy(epoch, VARDATA_ANY(map) + 1, sizeof(uint32));
	return true;
}

/*
 * Read a map of ntables tables into m (runs allocated in the current
 * memory context); false, m undefined, when it is not a well-formed map
 * of that many tables.
 */
bool
rowmap_decode(bytea *map, int ntables, RowMap *m)
{
	const unsigned char *p = (const unsigned char *) VARDATA_ANY(map);
	const unsigned char *end = p + VARSIZE_ANY_EXHDR(map);
	int64		block = 0;

	if (ntables > ROWMAP_MAX_TABLES || !rowmap_epoch_of(map, &m->epoch))
		return false;
	p += 1 + sizeof(uint32);
	if (*p++ != ntables)
		return false;
	m->ntables = ntables;
	for (int t = 0; t < ntables; t++)
	{
		uint64		nruns;

		/* a run takes three bytes at least: a count past that is a lie */
		if (!get_varint(&p, end, &nruns) || nruns > (uint64) (end - p) / 3)
			return false;
		m->nruns[t] = (int) nruns;
		m->runs[t] = palloc(sizeof(RowRun) * Max(nruns, 1));
		block = 0;
		for (int r = 0; r < (int) nruns; r++)
		{
			uint64		zz,
						first,
						len;

			if (!get_varint(&p, end, &zz) || !get_varint(&p, end, &first) ||
				!get_varint(&p, end, &len))
				return false;
			block += (zz & 1) ? -(int64) ((zz + 1) >> 1) : (int64) (zz >> 1);
			if (block < 0 || block >= MaxBlockNumber || first < FirstOffsetNumber ||
				first > MaxHeapTuplesPerPage || len >= MaxHeapTuplesPerPage ||
				first + len > MaxHeapTuplesPerPage)
				return false;
			m->runs[t][r].block = (BlockNumber) block;
			m->runs[t][r].first = (OffsetNumber) first;
			m->runs[t][r].count = (uint16) (len + 1);
		}
	}
	return p == end;
}

/* The directory's map column, or 0 where it has none (before 0.6's update). */
AttrNumber
rowmap_column(Relation dir)
{
	AttrNumber	att = attnameAttNum(dir, "rowmap", false);

	return att > 0 && TupleDescAttr(RelationGetDescr(dir), att - 1)->atttypid == BYTEAOID ?
		att : 0;
}
