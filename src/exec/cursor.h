/*
 * cursor.h — a statement's results taken one at a time (cursor.c), and a
 * read shared among a parallel query's processes.
 */
#ifndef ARGO_EXEC_CURSOR_H
#define ARGO_EXEC_CURSOR_H

#include "port/atomics.h"
#include "utils/jsonb.h"

#include "parse/parse.h"

typedef struct ArgoCursor ArgoCursor;

/*
 * A read shared among a parallel query's processes (backend/customscan.c): each
 * takes the next chunk of the directory's pages; a statement that cannot
 * be shared runs whole in the first process to claim it, and in no other.
 */
typedef struct ArgoShare
{
	pg_atomic_uint32 next_chunk;
	pg_atomic_uint32 whole_claimed;
	pg_atomic_uint32 rest_claimed;	/* the objects without kept documents */
} ArgoShare;

/* cursor.c */
extern void argo_share_init(ArgoShare *share);
extern bool argo_shareable_statement(ArgoStmt *s);
extern bool argo_shareable_query(const char *query, bool deep);
extern ArgoCursor *argo_cursor_open(const char *query, Jsonb **params, int nparams,
									ArgoShare *share);
extern Jsonb *argo_cursor_next(ArgoCursor *c);
extern void argo_cursor_close(ArgoCursor *c);
extern bool argo_cursor_queued(ArgoCursor *c);
extern bool argo_cursor_rewind(ArgoCursor *c);
extern bool argo_is_write(const char *query);
extern const char *argo_cursor_describe(ArgoCursor *c);

#endif							/* ARGO_EXEC_CURSOR_H */
