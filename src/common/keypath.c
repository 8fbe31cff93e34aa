/*
 * keypath.c — the flattened-key format, in one place.
 *
 * A leaf's key is its path from the object root: keys joined by '.', array
 * positions as "[i]" (the paper's "kids[3].kids[0]").  So that every JSON
 * key round-trips, a key's characters '.', '[', ']', '{', '}' and '\' are
 * preceded by '\'.  An unescaped "{}" or "[]" at the end marks an empty
 * object or array, which has no leaf of its own.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "common/common.h"
#include "common/keypath.h"

static bool
needs_escape(char c)
{
	return c == '.' || c == '[' || c == ']' || c == '{' || c == '}' ||
		c == '\\';
}

/* Append an object key; the first key of a path has no '.' before it. */
void
keypath_append_key(StringInfo buf, const char *key, int len, bool first)
{
	if (!first)
		appendStringInfoChar(buf, '.');
	for (int i = 0; i < len; i++)
	{
		if (needs_escape(key[i]))
			appendStringInfoChar(buf, '\\');
		appendStringInfoChar(buf, key[i]);
	}
}

void
keypath_append_index(StringInfo buf, int64 index)
{
	appendStringInfo(buf, "[" INT64_FORMAT "]", index);
}

void
keypath_check_length(int len)
{
	if (len > ARGO_MAX_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("flattened key is %d bytes long, more than the %d Argo can index",
						len, ARGO_MAX_KEY_BYTES),
				 errhint("Nest less deeply or use shorter keys.")));
}

/*
 * The least string greater than every string starting with prefix, in
 * byte order (keystr is COLLATE "C"): keys with the prefix are exactly
 * those in [prefix, upper).  Prefixes here end in ASCII punctuation, so
 * incrementing the last byte never carries.
 */
char *
keypath_prefix_upper(const char *prefix)
{
	char	   *upper = pstrdup(prefix);
	int			len = strlen(upper);

	Assert(len > 0 && (unsigned char) upper[len - 1] < 0x7f);
	upper[len - 1]++;
	return upper;
}

/* Parse one key starting at s[i]; returns the index after it. */
static int
parse_key(const char *s, int len, int i, KeySeg *seg, char *out)
{
	int			n = 0;

	seg->kind = KSEG_KEY;
	seg->key = out;
	while (i < len && s[i] != '.' && s[i] != '[' && s[i] != '{')
	{
		if (s[i] == '\\' && i + 1 < len)
			i++;
		out[n++] = s[i++];
	}
	seg->keylen = n;
	return i;
}

static void
corrupt_key(const char *s, int len)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("malformed flattened key \"%.*s\"%s", Min(len, 200), s,
					len > 200 ? "…" : "")));
}

/*
 * Split a flattened key into segments; unescaped key text is written to
 * one palloc'd buffer the segments point into.  Returns the count.
 */
int
keypath_parse(const char *s, int len, KeySeg **segs_out)
{
	KeySeg	   *segs = palloc(sizeof(KeySeg) * (len + 2));
	char	   *keybuf = palloc(len + 1);
	int			n = 0;
	int			i = 0;

	i = parse_key(s, len, 0, &segs[n++], keybuf);
	while (i < len)
	{
		KeySeg	   *seg = &segs[n++];

		if (s[i] == '.')
		{
			i = parse_key(s, len, i + 1, seg, keybuf + i + 1);
		}
		else if (s[i] == '{' && i + 2 == len && s[i + 1] == '}')
		{
			seg->kind = KSEG_EMPTY_OBJECT;
			i += 2;
		}
		else if (s[i] == '[' && i + 2 == len && s[i + 1] == ']')
		{
			seg->kind = KSEG_EMPTY_ARRAY;
			i += 2;
		}
		else if (s[i] == '[')
		{
			int64		idx = 0;

			i++;
			if (i >= len || !isdigit((unsigned char) s[i]))
				corrupt_key(s, len);
			/* no JSON array has 2^31 elements: more digits is corruption */
			while (i < len && isdigit((unsigned char) s[i]) && idx <= PG_INT32_MAX)
				idx = idx * 10 + (s[i++] - '0');
			if (i >= len || s[i] != ']' || idx > PG_INT32_MAX)
				corrupt_key(s, len);
			i++;
			seg->kind = KSEG_INDEX;
			seg->index = idx;
		}
		else
			corrupt_key(s, len);
	}
	*segs_out = segs;
	return n;
}

/*
 * Order of segments when sorting an object's rows: rows of one subtree
 * must end up next to each other, and array elements in index order.
 * Keys go in jsonb's own order (shorter first, then bytes): rows were
 * written in that order, so they mostly arrive sorted, and jsonb's
 * builder then finds each object's keys already in order.
 */
int
keyseg_cmp(const KeySeg *a, const KeySeg *b)
{
	if (a->kind != b->kind)
		return (int) a->kind - (int) b->kind;
	switch (a->kind)
	{
		case KSEG_KEY:
			if (a->keylen != b->keylen)
				return a->keylen - b->keylen;
			return memcmp(a->key, b->key, a->keylen);
		case KSEG_INDEX:
			return (a->index > b->index) - (a->index < b->index);
		default:
			return 0;
	}
}

/*
 * Whether a key's segments match a path's pattern (KSEG_WILD: any array
 * position): exactly, or with subtree, as the value's own key or any key
 * under it (descendants, and the markers of an empty object or array).
 */
bool
keypath_matches(const KeySeg *key, int nkey, const KeySeg *pattern, int npat,
				bool subtree)
{
	if (nkey < npat || (!subtree && nkey != npat))
		return false;
	for (int i = 0; i < npat; i++)
	{
		if (pattern[i].kind == KSEG_WILD ? key[i].kind != KSEG_INDEX :
			keyseg_cmp(&key[i], &pattern[i]) != 0)
			return false;
	}
	return true;
}

/* The flattened key of a key's first n segments (the value a pattern reached). */
char *
keypath_from_segs(const KeySeg *segs, int n)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
	{
		if (segs[i].kind == KSEG_KEY)
			keypath_append_key(&buf, segs[i].key, segs[i].keylen, i == 0);
		else if (segs[i].kind == KSEG_INDEX)
			keypath_append_index(&buf, segs[i].index);
		else
			appendStringInfoString(&buf, segs[i].kind == KSEG_EMPTY_OBJECT ?
								   ARGO_MARK_EMPTY_OBJECT : ARGO_MARK_EMPTY_ARRAY);
	}
	return buf.data;
}

static uint32
keystr_hash(const void *key, Size keysize)
{
	const char *s = *(const char *const *) key;

	return hash_bytes((const unsigned char *) s, strlen(s));
}

static int
keystr_match(const void *a, const void *b, Size keysize)
{
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/*
 * A hash table keyed by a pointer to a flattened key (its first field,
 * a const char *), hashing and comparing the strings, in cxt.
 */
HTAB *
keystr_hash_create(const char *name, Size entrysize, MemoryContext cxt)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(char *);
	ctl.entrysize = entrysize;
	ctl.hash = keystr_hash;
	ctl.match = keystr_match;
	ctl.hcxt = cxt;
	return hash_create(name, 256, &ctl,
					   HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
}
