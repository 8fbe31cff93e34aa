/*
 * access.h — whether C may read or write a collection's table directly
 * (access.c) and the table's columns and indexes, remembered per backend,
 * and its pages (layout.c).
 */
#ifndef ARGO_ACCESS_H
#define ARGO_ACCESS_H

#include "utils/rel.h"

#include "store/collection.h"

/* access.c */
/*
 * argo.prefetch_pages: how far ahead of the page it reads Argo asks for
 * the next ones — kept documents and value rows read from C, and, as
 * effective_io_concurrency, its own SQL's bitmap scans; 0: never.
 */
extern int	argo_prefetch_pages;

extern bool argo_insertable_to_shards(Relation rel, int natts);
extern bool argo_shards_take_objects(ArgoCollection *c);
extern bool argo_shards_take_writes(ArgoCollection *c, AclMode mode);
extern void argo_table_resolved(ArgoCollection *c, const char *suffix, Oid relid);
extern Oid	argo_table_relid(ArgoCollection *c, const char *suffix);
extern Relation argo_open_table(ArgoCollection *c, const char *suffix);
extern void argo_check_privilege(Relation rel, AclMode mode);
extern void collection_check_writer(ArgoCollection *c);
extern void argo_check_writable(AclMode mode);
extern bool argo_rls_applies(Relation rel);
extern bool argo_readable_directly(Relation rel);
extern bool argo_insertable_directly(Relation rel, int natts);
extern Oid	argo_objid_index(Relation rel);
extern Oid	argo_relation_owner(Oid relid);
extern bool argo_only_own_triggers(Relation rel);
extern Oid	argo_forget_rowmaps_oid(void);
extern Oid	argo_trigger_function_oid(const char *fn);
extern Oid	argo_resolved_relid(ArgoCollection *c, const char *suffix);
typedef struct TableLayout
{
	AttrNumber	objatt;
	AttrNumber	keyatt;
	AttrNumber	valatt[4];		/* valstr, valnum, valbool, valexact (<= 0: none) */
	AttrNumber	docatt;			/* doctid (tid), or 0: a table made before 0.7 */
	bool		ids_first;		/* objid int8, keyid int4: columns 1 and 2 */
	Oid			objid_index;	/* a valid B-tree led by objid, or InvalidOid */
	Oid			valindex[3];	/* (keyid, value) of strings, numbers, booleans */
	bool		valcover[3];	/* that index has INCLUDE (objid …) */
	bool		doc_indexed;	/* an index holds doctid: never set it in place */
} TableLayout;

/* layout.c */
extern TableLayout argo_table_layout(Relation rel);
extern bool argo_is_prefix_expr(Node *e, AttrNumber valatt);
extern bool argo_block_exists(Relation rel, BlockNumber block);

#endif							/* ARGO_ACCESS_H */
