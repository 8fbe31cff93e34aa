/*
 * keydict.h — a collection's key dictionary (keydict.c): key ids and
 * their flattened keys, cached per backend, assigned as objects are
 * written.
 */
#ifndef ARGO_KEYDICT_H
#define ARGO_KEYDICT_H

#include "common/keypath.h"
#include "store/collection.h"

/*
 * Per-key statistics kept in the dictionary by argo_analyze: rows and
 * distinct values per type, and rows holding null (or marking {} / []);
 * whether every object holds a scalar at the key (keyflags.c).
 */
#define ARGO_KEY_STATS_COLUMNS \
	"rows_str bigint, distinct_str bigint, rows_num bigint, distinct_num bigint, " \
	"rows_bool bigint, distinct_bool bigint, rows_null bigint, analyzed_at pg_catalog.timestamptz, " \
	"complete boolean"

typedef struct KeyDict KeyDict;

/* keydict.c */
extern KeyDict *keydict_of(ArgoCollection *c);
extern const ArgoKey *keydict_get(KeyDict *d, int32 id);
extern bool keydict_knows(KeyDict *d, int32 id);
extern int32 keydict_find(KeyDict *d, const char *keystr);
extern List *keydict_subtree(KeyDict *d, const char *keystr);
extern List *keydict_in_array(KeyDict *d, const char *keystr);
extern List *keydict_elements(KeyDict *d, const char *keystr);
extern List *keydict_match(KeyDict *d, const char *prefix, const KeySeg *pattern,
						   int nsegs, bool subtree);
extern Datum keydict_id_array(List *keys);
extern void keydict_assign(ArgoCollection *c, char **keys, int n, int32 *ids);
extern void keydict_assign_existing(ArgoCollection *c, char **keys, int n, int32 *ids);
extern List *keydict_take_missing(void);
extern const char *keydict_cached_keystr(const char *coll, int32 id);

/* keyflags.c: the keys every object holds a scalar at (the complete column) */
extern bool keyflags_usable(ArgoCollection *c);
extern void keyflags_check_object(ArgoCollection *c, Jsonb *doc);
extern bool keyflags_set(ArgoCollection *c, bool wait, bool counted);
extern char *keyflags_sql(ArgoCollection *c, int k);

#endif							/* ARGO_KEYDICT_H */
