/*
 * errors.h — errors that quote long statements in bounded excerpts, failures caught in subtransactions, checked text arguments (errors.c).
 */
#ifndef ARGO_ERRORS_H
#define ARGO_ERRORS_H

#include "postgres.h"

#include "fmgr.h"

/* errors.c: errors that quote a bounded excerpt of long statements */
extern int	argo_errquery(const char *query, int location);
extern void argo_with_bounded_errors(void (*fn) (void *), void *arg,
									 void (*amend) (ErrorData *));
extern ErrorData *argo_in_subtransaction(void (*fn) (void *), void *arg);
extern char *argo_text_arg(FunctionCallInfo fcinfo, int argno, const char *what);

#endif							/* ARGO_ERRORS_H */
