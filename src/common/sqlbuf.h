/*
 * sqlbuf.h — SQL text with the values of its parameters, Argo's functions by schema (sqlbuf.c), and SQL over several lines for argo_explain (sqlpretty.c).
 */
#ifndef ARGO_SQLBUF_H
#define ARGO_SQLBUF_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

/* SQL text plus the values of its $n parameters. */
typedef struct SqlBuf
{
	StringInfoData sql;
	int			nparams;
	int			maxparams;
	Oid		   *types;
	Datum	   *values;
	char	   *nulls;
	const char **notes;			/* what each parameter is, for argo_explain */
	bool		custom_plan;	/* its best plan depends on the values */
	bool		generic_plan;	/* … never does: plan it once */
	bool		fast_start;		/* streamed: plan for its first rows, as a cursor */
	bool		want_doctid;	/* the next leaf's rows give their doctid too, if they have it */
	bool		gave_doctid;	/* … and they did */
} SqlBuf;

extern SqlBuf *sqlbuf_create(void);
extern int	sqlbuf_param(SqlBuf *buf, Oid type, Datum value);
extern void sqlbuf_add_param(SqlBuf *buf, Oid type, Datum value);
extern void sqlbuf_note(SqlBuf *buf, int paramno, const char *note);
extern void sqlbuf_add_text(SqlBuf *buf, const char *text);
extern void sqlbuf_replace(SqlBuf *buf, const char *placeholder,
						   const char *text);
extern char *argo_function(const char *fn);
extern char *extension_function(const char *extname, const char *fn);

/* sqlpretty.c: generated SQL over several lines, for argo_explain */
extern List *sql_pretty_lines(const char *sql);

#endif							/* ARGO_SQLBUF_H */
