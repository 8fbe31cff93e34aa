/*
 * unsupported.c — SQL that Argo/SQL does not have, named.
 *
 * A statement written as SQL would be (a UNION, a RIGHT JOIN, a function
 * in the targets, a subquery) reaches a token the grammar has no place
 * for.  Rather than a bare "syntax error at or near X", such a token in
 * such a place is said to be a known construct that the language does
 * not support: 0A000, naming it (reference.md §10), with the Argo/SQL way
 * where there is one.  Anything else stays a syntax error.
 */
#include "postgres.h"

#include "common/errors.h"
#include "parse/parse.h"
#include "parser.h"
#include "gram.h"

typedef struct Construct
{
	const char *word;			/* the offending word, lower case */
	const char *name;			/* what it starts */
	const char *hint;
} Construct;

static const Construct words[] = {
	{"union", "UNION", "Run the statements one by one."},
	{"intersect", "INTERSECT", NULL},
	{"right", "RIGHT JOIN", "Swap the collections and use LEFT JOIN."},
	{"full", "FULL JOIN", NULL},
	{"cross", "CROSS JOIN", "Join on a condition: JOIN c ON a.p = b.q."},
	{"natural", "NATURAL JOIN", "Join on a condition: JOIN c ON a.p = b.q."},
	{"using", "JOIN … USING", "Join on a condition: JOIN c ON a.p = b.q."},
	{"lateral", "LATERAL", NULL},
	{"with", "WITH", NULL},
	{"over", "a window function", NULL},
	{"window", "WINDOW", NULL},
	{"partition", "a window function", NULL},
	{"cast", "CAST", NULL},
	{"similar", "SIMILAR TO", "Use a regular expression: p ~ 'pattern'."},
	{"escape", "LIKE … ESCAPE", "LIKE escapes % and _ with \\."},
	{"fetch", "FETCH", "Use LIMIT."},
	{"values", "INSERT … VALUES", "Insert objects: INSERT INTO c OBJECT {…}, or OBJECTS […]."},
	{"for", "FOR UPDATE", "UPDATE and DELETE lock the objects they change."},
	{"all", "ALL", NULL},
	{"collate", "COLLATE", NULL},
	{"rollup", "ROLLUP", NULL},
	{"cube", "CUBE", NULL},
};

/* The token's text, lower case. */
static char *
token_text(ArgoScanState *st)
{
	char	   *t = pnstrdup(st->query + st->tok_start, Max(st->tok_len, 0));

	for (char *c = t; *c; c++)
		*c = pg_ascii_tolower((unsigned char) *c);
	return t;
}

static void
unsupported_at(ArgoScanState *st, int location, const char *what, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s is not supported in Argo/SQL", what),
			 hint ? errhint("%s", hint) : 0,
			 argo_errquery(st->query, location)));
}

static void
unsupported(ArgoScanState *st, const char *what, const char *hint)
{
	unsupported_at(st, st->tok_start, what, hint);
}

/*
 * A collection's alias written without AS: a word that starts a known
 * construct (FROM a RIGHT JOIN b) is that construct, not an alias.
 */
void
argo_check_alias_word(ArgoScanState *st, const char *word, int location)
{
	for (int i = 0; i < lengthof(words); i++)
		if (pg_strcasecmp(word, words[i].word) == 0)
			unsupported_at(st, location, words[i].name, words[i].hint);
}

/*
 * Whether the offending token follows "agg(DISTINCT": DISTINCT is a key's
 * name too, so SUM(DISTINCT x) fails only at x.  The aggregate's name, or NULL.
 */
static char *
aggregate_over_distinct(ArgoScanState *st)
{
	int			p = st->tok_start;
	int			end;

	while (p > 0 && isspace((unsigned char) st->query[p - 1]))
		p--;
	if (p < 8 || pg_strncasecmp(st->query + p - 8, "distinct", 8) != 0)
		return NULL;
	p -= 8;
	while (p > 0 && isspace((unsigned char) st->query[p - 1]))
		p--;
	if (p == 0 || st->query[p - 1] != '(')
		return NULL;
	end = --p;
	while (p > 0 && isspace((unsigned char) st->query[p - 1]))
		p--;
	end = p;
	while (p > 0 && isalpha((unsigned char) st->query[p - 1]))
		p--;
	return end > p ? pnstrdup(st->query + p, end - p) : NULL;
}

/* The word just before the offending token (a function's name). */
static char *
previous_word(ArgoScanState *st)
{
	int			end = st->tok_start;
	int			start;

	while (end > 0 && isspace((unsigned char) st->query[end - 1]))
		end--;
	start = end;
	while (start > 0 && (isalnum((unsigned char) st->query[start - 1]) || st->query[start - 1] == '_'))
		start--;
	return pnstrdup(st->query + start, end - start);
}

/* Whether a token can end a path or value (a key, ']', a literal). */
static bool
ends_operand(int token)
{
	return token == IDENT || token == ']' || token == NUMBER || token == STRING ||
		token == PARAM || token == ')';
}

/*
 * At a syntax error: if the offending token starts a construct SQL has
 * and Argo/SQL does not, say so (0A000); else return, and the caller
 * reports a syntax error.
 */
void
argo_check_unsupported(ArgoScanState *st)
{
	int			tok = st->prev_token;	/* the offending token */
	int			before = st->prev2_token;
	char	   *text;
	char	   *agg;

	if (st->tok_len <= 0)
		return;
	text = token_text(st);
	if (tok == IDENT && before == LIMIT && strcmp(text, "all") == 0)
		unsupported(st, "LIMIT ALL", "Leave LIMIT out.");
	if (tok == IDENT)
	{
		for (int i = 0; i < lengthof(words); i++)
			if (strcmp(text, words[i].word) == 0)
				unsupported(st, words[i].name, words[i].hint);
	}
	/* CASE reads as a key until its WHEN */
	if (tok == IDENT && strcmp(text, "when") == 0)
		unsupported(st, "CASE", NULL);
	if (tok == SELECT && before == '(')
		unsupported(st, "a subquery", "Run it first and pass its results as parameters: p IN $1.");
	if (tok == SELECT && before == IDENT)
		unsupported(st, "INSERT … SELECT", "Use argo_load(collection, query).");
	if (tok == '(' && (before == EXISTS || before == ANY || before == IN_P))
		unsupported(st, "a subquery", "Run it first and pass its results as parameters: p IN $1.");
	if (tok == '(' && (before == IDENT || before == LEFT || before == ILIKE || before == REMOVE ||
					   before == APPEND || before == ADD_P || before == DISTINCT))
		unsupported(st, psprintf("function %s() here", previous_word(st)),
					"Functions stand in targets, predicates, ORDER BY, GROUP BY and SET (reference.md §9).");
	if (before == RETURNING || (tok == ',' && before == ID_P) ||
		(st->clause == RETURNING && tok == ',' && before == ')'))
		unsupported(st, "RETURNING a list of paths",
					"RETURNING * gives the objects written, RETURNING ID their ids, RETURNING *, ID() both.");
	if (tok == '(' && (before == FROM || before == JOIN))
		unsupported(st, "a subquery in FROM", "Run it first and pass its results as parameters: p IN $1.");
	/* ON … = ID(): a join names whose id (ID(alias)); "()" only follows ID there */
	if (tok == ')' && before == '(' && st->clause == ON)
		unsupported(st, "ID() without its collection in a join condition", "Name the collection: ON (o.cust = ID(c)).");
	if (tok == EXCEPT_P && st->clause != SELECT)
		unsupported(st, "EXCEPT of two statements", "Run the statements one by one.");
	if (before == DISTINCT && (agg = aggregate_over_distinct(st)) != NULL)
		unsupported(st, psprintf("%s(DISTINCT …)", agg),
					"COUNT(DISTINCT p) counts distinct values; SELECT DISTINCT p lists them.");
	if (st->clause == ON && (tok == AND || tok == OR))
		unsupported(st, "a join condition of more than one comparison",
					"Join on one equality, a.p = b.q; put the other conditions in WHERE.");
	if (st->clause == ON && (tok == '<' || tok == '>' || tok == LE || tok == GE || tok == NE))
		unsupported(st, "a join on anything but equality", "Join on one equality, a.p = b.q.");
	if (tok == '*' && before == '.')
		unsupported(st, "alias.*", "SELECT * gives a join's parts whole.");
	/* an aggregate's call closed, then an operator: SUM(a) / COUNT(*) */
	if (before == ')' && (tok == '+' || tok == '-' || tok == '*' || tok == '/' || tok == '%' || tok == CONCAT))
		unsupported(st, "an expression over an aggregate",
					"Aggregates take expressions (SUM(price * qty)); compute over their results in SQL around argo_query.");
	if (ends_operand(before) && (tok == '^' || tok == '|'))
		unsupported(st, psprintf("the operator %s", text), "POWER(x, y) raises; || concatenates strings.");
	if (tok == ',' && before == IDENT)
		unsupported(st, "a list of collections (FROM a, b)", "Join them: FROM a JOIN b ON a.p = b.q.");
	if (tok == ':')
		unsupported(st, "a cast (::)", "A literal's type is its JSON type: 5, '5', true.");
}
