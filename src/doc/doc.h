/*
 * doc.h — documents: objects rebuilt from their rows as jsonb.
 *
 * A rebuilder gathers one object's rows (key, value), sorts them by key
 * and writes the object straight into jsonb's binary form.  Where the
 * rows come from is the layers above's business.
 */
#ifndef ARGO_DOC_H
#define ARGO_DOC_H

#include "utils/jsonb.h"

#include "common/keypath.h"

struct KeyDict;					/* storage's key dictionary, passed through */

typedef struct Rebuilder Rebuilder;

/* One row of an object being rebuilt, its key parsed. */
typedef struct RRow
{
	KeySeg	   *segs;
	int			nsegs;			/* 0: the object itself, which may be {} */
	JsonbValue	val;			/* jbvNull for null, {} and [] too */
} RRow;

extern Jsonb *jsonb_write_object(RRow *rows, int nrows, int64 objid);

/* sortkey.c: ORDER BY's key of the value at a path of a document */
extern bool argo_doc_sort_key(Jsonb *doc, Jsonb *path, StringInfo key);
extern bool argo_value_sort_key(JsonbValue *v, StringInfo key);
extern int	argo_sort_key_cmp(StringInfo a, StringInfo b);
extern int	argo_sort_key_order(StringInfo a, StringInfo b, bool desc, bool nulls_first);

/* jsonbcheck.c: a jsonb's bytes from another server, checked */
extern Jsonb *argo_jsonb_from_bytes(const char *data, int len);

/* docproject.c: a kept document cut down to a projection's paths of object keys */
typedef struct DocPath
{
	int			nsteps;
	char	  **keys;
} DocPath;
extern Jsonb *doc_project(Jsonb *doc, const DocPath *paths, int npaths);

/* docedit.c: a document changed on its way out */
typedef struct DocCutStep
{
	char	   *key;			/* NULL: an array step */
	bool		every;			/* [*], or a filter: every element it keeps */
	Jsonb	   *filter;			/* a filter's predicate (doc_filter_keeps), or NULL */
	int64		index;			/* else a position, negative from the end */
} DocCutStep;
typedef struct DocCutPath
{
	int			nsteps;
	DocCutStep *steps;
} DocCutPath;
extern Jsonb *doc_with_id(Jsonb *doc, const char *name, int64 objid);
extern Jsonb *doc_with_member(Jsonb *doc, const char *name, Jsonb *value);
extern Jsonb *doc_distinct_values(Jsonb *array);
extern Jsonb *doc_flatten(Jsonb *arrays);
extern Jsonb *doc_without(Jsonb *doc, const DocCutPath *paths, int npaths);

/* docschema.c: a JSON Schema (argo_validate's subset) against an object */
extern void schema_check_keywords(Jsonb *schema);
extern bool schema_accepts(Jsonb *schema, Jsonb *obj, char **path, const char **kw);

/* docpred.c: predicates through filters [? …], judged on a document */
extern bool doc_filter_keeps(JsonbValue *elem, Jsonb *spec);
extern struct DocExpr *doc_compute_compile(Jsonb *spec);

/* docpick.c: a projection through filters or negative indices, from the document */
extern Jsonb *doc_pick(Jsonb *doc, Jsonb **paths, int npaths);

/* Receives each rebuilt object, with its id. */
typedef void (*rebuild_emit) (void *arg, int64 objid, Jsonb *obj);

extern Rebuilder *rebuilder_create(struct KeyDict *dict, rebuild_emit emit, void *arg);

/*
 * Where a key's rows go in a result, when a statement renames what it
 * projects (SELECT address.city AS city): one or more places, each a
 * path of segments; a key with none keeps its own.
 */
typedef struct KeyPlaces
{
	int32		keyid;			/* hash key */
	int			n;
	KeySeg	  **segs;
	int		   *nsegs;
} KeyPlaces;

extern void rebuilder_set_places(Rebuilder *rb, struct HTAB *places);
extern void rebuilder_set_id(Rebuilder *rb, const char *name);
extern void rebuilder_add_row(Rebuilder *rb, int64 objid, const ArgoKey *key,
							  text *valstr, bool num_null, double valnum,
							  bool bool_null, bool valbool);
extern void rebuilder_add_object(Rebuilder *rb, int64 objid);
extern void rebuilder_forget(Rebuilder *rb, int64 objid);
extern struct KeyDict *rebuilder_dict(Rebuilder *rb);
extern void rebuilder_add_keystr_row(Rebuilder *rb, int64 objid,
									 const char *keystr, text *valstr,
									 bool num_null, double valnum,
									 bool bool_null, bool valbool);
extern void rebuilder_finish(Rebuilder *rb);
extern bool rebuilder_takes_docs(Rebuilder *rb);
extern void rebuilder_add_doc(Rebuilder *rb, int64 objid, Jsonb *doc);


#endif							/* ARGO_DOC_H */
