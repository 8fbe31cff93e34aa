/*
 * errors.c — errors of a bounded size.
 *
 * A statement may be megabytes long (an IN list of 100,000 values) and the
 * SQL generated for it longer still.  An error quotes the Argo/SQL around
 * the position it names, not the whole text, and an error raised inside
 * the generated SQL keeps its message but only a short excerpt of that
 * SQL: the full text is what argo_explain is for.
 */
#include "postgres.h"

#include "access/xact.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/resowner.h"

#include "common/errors.h"

/* Quoted text around an error's position, either side. */
#define EXCERPT_SIDE	400
/* Longest line of context kept, and all of it. */
#define CONTEXT_LINE	300
#define CONTEXT_TOTAL	2000

/* The start of the character holding byte off. */
static int
char_boundary(const char *text, int off)
{
	int			enc = GetDatabaseEncoding();
	int			p = 0;

	if (pg_encoding_max_length(enc) == 1)
		return off;
	if (enc == PG_UTF8)
	{
		while (off > 0 && (text[off] & 0xC0) == 0x80)
			off--;
		return off;
	}
	while (p + pg_mblen(text + p) <= off)
		p += pg_mblen(text + p);
	return p;
}

/*
 * The slice of text (len bytes) around byte offset at, as a new string
 * marked with "..." where it was cut; *pos becomes at's offset in it.
 */
static char *
excerpt(const char *text, int len, int at, int *pos)
{
	int			start = char_boundary(text, Max(0, at - EXCERPT_SIDE));
	int			end = Min(len, start + 2 * EXCERPT_SIDE);
	StringInfoData out;

	if (end < len)
		end = char_boundary(text, end);
	initStringInfo(&out);
	if (start > 0)
		appendStringInfoString(&out, "...");
	*pos = out.len + (at - start);
	appendBinaryStringInfo(&out, text + start, end - start);
	if (end < len)
		appendStringInfoString(&out, "...");
	return out.data;
}

/*
 * internalerrquery and internalerrposition for an error at byte offset
 * location of an Argo/SQL statement, quoting at most a window of it.
 */
int
argo_errquery(const char *query, int location)
{
	int			len = strlen(query);
	int			pos;
	char	   *q;

	if (len <= 2 * EXCERPT_SIDE)
	{
		internalerrposition(pg_mbstrlen_with_len(query, location) + 1);
		return internalerrquery(query);
	}
	q = excerpt(query, len, Min(Max(location, 0), len), &pos);
	internalerrposition(pg_mbstrlen_with_len(q, pos) + 1);
	return internalerrquery(q);
}

/* Context lines cut to CONTEXT_LINE bytes, CONTEXT_TOTAL in all. */
static char *
trim_context(const char *context)
{
	StringInfoData out;
	const char *line = context;

	initStringInfo(&out);
	while (*line && out.len < CONTEXT_TOTAL)
	{
		const char *nl = strchr(line, '\n');
		int			n = nl ? nl - line : strlen(line);

		if (out.len > 0)
			appendStringInfoChar(&out, '\n');
		if (n > CONTEXT_LINE)
		{
			appendBinaryStringInfo(&out, line, pg_mbcliplen(line, n, CONTEXT_LINE));
			appendStringInfoString(&out, "...");
		}
		else
			appendBinaryStringInfo(&out, line, n);
		line += n + (nl ? 1 : 0);
	}
	if (*line)
		appendStringInfoString(&out, "\n...");
	return out.data;
}

/* Bound what an error quotes of generated SQL. */
static void
trim_error(ErrorData *e)
{
	if (e->context && strlen(e->context) > CONTEXT_LINE)
		e->context = trim_context(e->context);
	if (e->internalquery && strlen(e->internalquery) > 2 * EXCERPT_SIDE)
	{
		const char *q = e->internalquery;
		int			len = strlen(q);
		int			at = e->internalpos > 0 ?
			pg_mbcharcliplen(q, len, e->internalpos - 1) : 0;
		int			pos;

		e->internalquery = excerpt(q, len, at, &pos);
		if (e->internalpos > 0)
			e->internalpos = pg_mbstrlen_with_len(e->internalquery, pos) + 1;
	}
}

/*
 * Run fn(arg); an ERROR it raises is raised again with its quoted SQL
 * bounded.  Nothing is caught for good, so no subtransaction is needed.
 */
void
argo_with_bounded_errors(void (*fn) (void *), void *arg, void (*amend) (ErrorData *))
{
	MemoryContext cxt = CurrentMemoryContext;

	PG_TRY();
	{
		fn(arg);
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		trim_error(e);
		if (amend)
			amend(e);
		ReThrowError(e);
	}
	PG_END_TRY();
}

/*
 * fn(arg) in a subtransaction of its own: NULL when it ran, else its
 * error, copied, with what it did rolled back, for the caller to judge
 * (a query cancel among them).
 */
ErrorData *
argo_in_subtransaction(void (*fn) (void *), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile e = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_END_TRY();
	return e;
}

/* A text argument as a C string; NULL is an error naming the argument. */
char *
argo_text_arg(FunctionCallInfo fcinfo, int argno, const char *what)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", what)));
	return text_to_cstring(PG_GETARG_TEXT_PP(argno));
}
