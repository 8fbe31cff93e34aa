/*
 * keypath.h — the flattened-key format: keys appended, parsed and matched, and a key as the dictionary knows it (keypath.c).
 */
#ifndef ARGO_KEYPATH_H
#define ARGO_KEYPATH_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/memutils.h"

/* Kinds of row a flattened key can stand for. */
#define ARGO_MARK_EMPTY_OBJECT	"{}"
#define ARGO_MARK_EMPTY_ARRAY	"[]"

extern void keypath_append_key(StringInfo buf, const char *key, int len,
							   bool first);
extern void keypath_append_index(StringInfo buf, int64 index);
extern void keypath_check_length(int len);
extern char *keypath_prefix_upper(const char *prefix);
extern struct HTAB *keystr_hash_create(const char *name, Size entrysize,
									   MemoryContext cxt);
/* A parsed flattened key. */
typedef enum KeySegKind
{
	KSEG_KEY,
	KSEG_INDEX,
	KSEG_EMPTY_OBJECT,
	KSEG_EMPTY_ARRAY,
	KSEG_WILD					/* [*] of a query's path: never in a stored key */
} KeySegKind;

typedef struct KeySeg
{
	KeySegKind	kind;
	const char *key;			/* unescaped, not terminated */
	int			keylen;
	int64		index;
} KeySeg;

extern int	keypath_parse(const char *keystr, int len, KeySeg **segs);
extern int	keyseg_cmp(const KeySeg *a, const KeySeg *b);
extern bool keypath_matches(const KeySeg *key, int nkey, const KeySeg *pattern,
							int npat, bool subtree);
extern char *keypath_from_segs(const KeySeg *segs, int n);

/* A key as the dictionary knows it, parsed once per backend. */
typedef struct ArgoKey
{
	int32		id;
	char	   *str;
	int			len;
	KeySeg	   *segs;
	int			nsegs;
} ArgoKey;

#endif							/* ARGO_KEYPATH_H */
