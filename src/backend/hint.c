/*
 * hint.c — the hint a newcomer needs when a parameter is not jsonb.
 *
 * argo_query(text, VARIADIC jsonb[]) called with a text or integer
 * parameter fails in PostgreSQL's parser ("function argo_query(unknown,
 * text) does not exist") with a hint about casts that never says jsonb.
 * An overload taking "any" would fix the message and break what works
 * now (untyped literals resolve to jsonb), so the hint is rewritten as
 * the error is reported instead.  That takes the library loaded: after
 * any Argo call in the session, or from its start with
 * session_preload_libraries = 'argo' (docs/operations.md).
 */
#include "postgres.h"

#include "utils/elog.h"
#include "utils/memutils.h"

#include "backend/hooks.h"

static emit_log_hook_type prev_emit_log_hook = NULL;

/*
 * Whether the parameters in "(unknown, text, …)" include one that is not
 * jsonb (all jsonb: the function itself was not found, a search_path
 * matter the usual hint covers).
 */
static bool
has_other_parameter(const char *args)
{
	const char *p = strchr(args, ',');

	while (p != NULL && *p == ',')
	{
		size_t		len;

		p++;
		while (*p == ' ')
			p++;
		len = strcspn(p, ",)");
		if (!((len == 5 && strncmp(p, "jsonb", 5) == 0) ||
			  (len == 7 && strncmp(p, "jsonb[]", 7) == 0) ||
			  (len == 7 && strncmp(p, "unknown", 7) == 0)))
			return true;
		p += len;
	}
	return false;
}

/* Whether message is the parser's "function argo_query(…) does not exist" for a parameter not jsonb. */
static bool
about_argo_call(const char *message)
{
	static const char *const names[] = {"argo_query(", "argo_explain("};

	if (message == NULL || strncmp(message, "function ", 9) != 0)
		return false;
	for (int i = 0; i < lengthof(names); i++)
	{
		const char *at = strstr(message + 9, names[i]);

		/* the name alone or schema-qualified, as the parser prints it */
		if (at != NULL && (at == message + 9 || at[-1] == '.'))
			return has_other_parameter(at);
	}
	return false;
}

static void
argo_emit_log(ErrorData *edata)
{
	if (edata->elevel >= ERROR && edata->sqlerrcode == ERRCODE_UNDEFINED_FUNCTION &&
		about_argo_call(edata->message))
		edata->hint = MemoryContextStrdup(ErrorContext,
										  "Argo's parameters are jsonb: pass JSON text cast to jsonb ($2::jsonb, '\"Ada\"'::jsonb) or to_jsonb(value).");
	if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
}

void
argo_hint_init(void)
{
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = argo_emit_log;
}
