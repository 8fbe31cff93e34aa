/*
 * jsonbcheck.c — a jsonb value taken in its binary form from another
 * server (a shard's results, exec/shard/shardread.c), checked before anything
 * reads it.
 *
 * Sending jsonb as text makes the receiver parse every document again
 * (half of a coordinator's time on a distributed SELECT *).  But
 * PostgreSQL's jsonb code trusts the structure it reads: entry offsets
 * index straight into the value and object keys are found by binary
 * search.  Bytes from the network are input, so each container, entry,
 * string and number is checked to lie inside the value and to be what
 * PostgreSQL itself writes (keys sorted and unique, strings valid in the
 * database's encoding, numbers finite, with digits in range); anything else is
 * an error, as rows Argo did not write are.
 *
 * The numeric layout below is PostgreSQL's on-disk format (numeric.c
 * keeps its macros private; pg_upgrade keeps the format).
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "doc/doc.h"

#define NUM_SIGN_MASK		0xC000
#define NUM_NEG				0x4000
#define NUM_SHORT			0x8000
#define NUM_SPECIAL			0xC000
#define NUM_NBASE			10000
#define NUM_SHORT_SIGN		0x2000
#define NUM_SHORT_WEIGHT_SIGN 0x0040
#define NUM_SHORT_WEIGHT_MASK 0x003F
#define NUM_SHORT_DSCALE_MASK 0x1F80
#define NUM_SHORT_DSCALE_SHIFT 7
#define NUM_DSCALE_MASK		0x3FFF

static void
bad(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("a shard sent a document that is not valid jsonb"),
			 errdetail("%s", what)));
}

/* A numeric's weight (of its first base-10000 digit), short form or long. */
static int
numeric_header_weight(const char *p, uint16 header)
{
	int16		weight;

	if (header & NUM_SHORT)
		return (header & NUM_SHORT_WEIGHT_SIGN ? ~NUM_SHORT_WEIGHT_MASK : 0) |
			(header & NUM_SHORT_WEIGHT_MASK);
	memcpy(&weight, p + VARHDRSZ + sizeof(uint16), sizeof(int16));
	return weight;
}

static int
numeric_header_dscale(uint16 header)
{
	return header & NUM_SHORT ?
		(header & NUM_SHORT_DSCALE_MASK) >> NUM_SHORT_DSCALE_SHIFT : header & NUM_DSCALE_MASK;
}

/* Decimal places the last digit at base-10000 place last (< 0) needs. */
static int
places_needed(int last, uint16 digit)
{
	int			trailing = 0;

	for (; digit % 10 == 0 && trailing < 4; digit /= 10)
		trailing++;
	return -last * 4 - trailing;
}

static bool
numeric_header_negative(uint16 header)
{
	return header & NUM_SHORT ? (header & NUM_SHORT_SIGN) != 0 : (header & NUM_SIGN_MASK) == NUM_NEG;
}

/*
 * A number's bytes: a numeric varlena with a 4-byte header filling len,
 * finite, its base-10000 digits in range with no zero at either end and
 * a display scale that shows them all: numeric.c keeps every numeric so
 * (comparisons count on it), and text made from one that is not would
 * not parse back to it.
 */
static void
check_numeric(const char *p, uint32 len)
{
	uint16		header;
	int			hdr;
	int			ndigits;
	int			weight;
	uint16		digits[2];

	if (len < VARHDRSZ + sizeof(uint16) || !VARATT_IS_4B_U(p) || VARSIZE(p) != len)
		bad("a number's length does not match its entry");
	memcpy(&header, p + VARHDRSZ, sizeof(uint16));
	if ((header & NUM_SIGN_MASK) == NUM_SPECIAL)
		bad("a number is not finite");
	/* the short form's header is one word; the long one's two (sign and scale, weight) */
	hdr = VARHDRSZ + (header & NUM_SHORT ? 1 : 2) * sizeof(uint16);
	if (len < hdr)
		bad("a number's header is cut short");
	if ((len - hdr) % sizeof(uint16) != 0)
		bad("a number's digits are cut short");
	ndigits = (len - hdr) / sizeof(uint16);
	for (int i = 0; i < ndigits; i++)
	{
		uint16		d;

		memcpy(&d, p + hdr + i * sizeof(uint16), sizeof(uint16));
		if (d >= NUM_NBASE)
			bad("a number has a digit out of range");
		if (i == 0)
			digits[0] = d;
		digits[1] = d;
	}
	if (ndigits > 0 && (digits[0] == 0 || digits[1] == 0))
		bad("a number is not normalized");
	/* zero is positive with weight 0 (else it prints as -0 or 0000…) */
	weight = numeric_header_weight(p, header);
	if (ndigits == 0 && (weight != 0 || numeric_header_negative(header)))
		bad("a number is not normalized");
	/* its scale shows every digit it has, else it prints as another number */
	if (ndigits > 0 && weight - (ndigits - 1) < 0 &&
		places_needed(weight - (ndigits - 1), digits[1]) > numeric_header_dscale(header))
		bad("a number has digits its scale does not show");
}

/* A string's bytes: valid in the database's encoding, with no NUL. */
static void
check_string(const char *p, uint32 len)
{
	if (!pg_verify_mbstr(GetDatabaseEncoding(), p, len, true))
		bad("a string is not valid in the database's encoding");
}

/* Object keys come sorted by length, then bytes, and each once. */
static void
check_key_order(const char *prev, uint32 prevlen, const char *key, uint32 len)
{
	if (prevlen > len || (prevlen == len && memcmp(prev, key, len) >= 0))
		bad("an object's keys are out of order or repeated");
}

static void check_container(const char *p, uint32 len, bool root);

/* Child i, of type per its entry, at [start, end) of its container's data. */
static void
check_child(const char *data, uint32 start, uint32 end, uint32 entry)
{
	uint32		aligned = INTALIGN(start);

	switch (entry & JENTRY_TYPEMASK)
	{
		case JENTRY_ISSTRING:
			check_string(data + start, end - start);
			break;
		case JENTRY_ISNUMERIC:
			if (aligned > end)
				bad("a number lies outside its entry");
			check_numeric(data + aligned, end - aligned);
			break;
		case JENTRY_ISBOOL_FALSE:
		case JENTRY_ISBOOL_TRUE:
		case JENTRY_ISNULL:
			if (end != start)
				bad("a constant has a length");
			break;
		case JENTRY_ISCONTAINER:
			if (aligned > end)
				bad("a container lies outside its entry");
			check_container(data + aligned, end - aligned, false);
			break;
		default:
			bad("an entry has an unknown type");
	}
}

/*
 * A container of len bytes at p (4-byte aligned): its header, its
 * entries, and each child inside the data that follows them.
 */
static void
check_container(const char *p, uint32 len, bool root)
{
	uint32		header;
	uint32		count;
	uint32		nentries;
	bool		object;
	const JEntry *entries;
	const char *data;
	uint32		datalen;
	uint32		end = 0;
	const char *prevkey = NULL;
	uint32		prevlen = 0;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (len < sizeof(uint32))
		bad("a container is cut short");
	memcpy(&header, p, sizeof(uint32));
	count = header & JB_CMASK;
	object = (header & JB_FOBJECT) != 0;
	if (object == ((header & JB_FARRAY) != 0) ||
		((header & JB_FSCALAR) && (!root || object || count != 1)) ||
		(header & ~(JB_CMASK | JB_FSCALAR | JB_FOBJECT | JB_FARRAY)))
		bad("a container's header is not an object's or an array's");
	nentries = object ? count * 2 : count;
	if (nentries > (len - sizeof(uint32)) / sizeof(JEntry))
		bad("a container's entries do not fit in it");
	entries = (const JEntry *) (p + sizeof(uint32));
	data = (const char *) (entries + nentries);
	datalen = len - sizeof(uint32) - nentries * sizeof(JEntry);
	for (uint32 i = 0; i < nentries; i++)
	{
		uint32		start = end;
		uint32		entry = entries[i];

		end = JBE_HAS_OFF(entry) ? JBE_OFFLENFLD(entry) :
			(uint64) start + JBE_OFFLENFLD(entry) > datalen ? datalen + 1 :
			start + JBE_OFFLENFLD(entry);
		if (end < start || end > datalen)
			bad("an entry lies outside its container");
		if ((header & JB_FSCALAR) && JBE_ISCONTAINER(entry))
			bad("a scalar holds a container");
		if (object && i < count)
		{
			if (!JBE_ISSTRING(entry))
				bad("an object's key is not a string");
			if (i > 0)
				check_key_order(prevkey, prevlen, data + start, end - start);
			prevkey = data + start;
			prevlen = end - start;
		}
		check_child(data, start, end, entry);
	}
}

/*
 * The jsonb whose container bytes (a jsonb's VARDATA, as a shard's
 * argo_jsonb_bytes sends it) are data[0, len), checked; a palloc'd copy.
 */
Jsonb *
argo_jsonb_from_bytes(const char *data, int len)
{
	Jsonb	   *doc;

	if (len < 0 || (Size) len > MaxAllocSize - VARHDRSZ)
		bad("its length is out of range");
	doc = palloc(VARHDRSZ + len);
	SET_VARSIZE(doc, VARHDRSZ + len);
	memcpy(VARDATA(doc), data, len);
	check_container(VARDATA(doc), len, true);
	return doc;
}
