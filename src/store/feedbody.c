/*
 * feedbody.c — whether a change-feed message's body is one Argo's
 * writers (feed.c) could have written, judged by the output plugin
 * before it puts the body into an event.
 *
 * Anyone may log a message with Argo's prefix, and a writer of one
 * collection may log one in a transaction that vouches for one of its
 * objects; the body must still not be able to add or override the
 * event's own fields ("_id", "ns", "operationType"), nor be text that
 * is not JSON (which would make every later read of the slot fail).
 * So the body is checked against the exact shape writers give it, for
 * its operation, and refused otherwise:
 *
 *   insert   "fullDocument": {…}
 *   update   "updateDescription": {"updatedFields": {…},
 *             "removedFields": ["…", …]} [, "fullDocument": {…}]
 *            [, "fullDocumentBeforeChange": {…}]
 *   delete   (nothing) or "fullDocumentBeforeChange": {…}
 *   drop     (nothing)
 *
 * Tokens come from PostgreSQL's JSON lexer (json_lex, which reports
 * errors by return value); the nesting is followed here with an explicit
 * stack, so no depth a message can have uses the C stack, and nothing
 * here raises an error inside logical decoding.  What jsonb would refuse
 * on reading the event (argo_changes parses it) is refused here too: a
 * \u0000 escape, an unpaired surrogate, a non-ASCII escape in a database
 * whose encoding is not UTF-8, bytes that are not text in its encoding,
 * a number numeric cannot hold, an object larger than jsonb can.
 */
#include "postgres.h"

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"

#include "common/common.h"
#include "store/feed.h"

/*
 * Deeper than any object Argo stores: each level of a stored object
 * adds at least one byte to a flattened key of at most
 * ARGO_MAX_KEY_BYTES, and the event's own fields add three levels.
 */
#define BODY_MAX_DEPTH (ARGO_MAX_KEY_BYTES + 16)

/* jsonb's limit on a container's size (JENTRY_OFFLENMASK), with room for the event's fields. */
#define BODY_MAX_BYTES ((1 << 28) - 4096)

/* numeric_in's limit on an exponent (NUMERIC_MAX_PRECISION), and on digits here. */
#define NUMBER_MAX_EXPONENT 1000
#define NUMBER_MAX_CHARS 1000

/* The fields an event's body may have, as bits. */
#define F_FULL_DOCUMENT	0x01
#define F_UPDATE_DESC	0x02
#define F_UPDATED		0x04
#define F_REMOVED		0x08
#define F_BEFORE		0x10

/* What a container expects next. */
typedef enum Expect
{
	EXPECT_KEY_OR_END,			/* an object just opened */
	EXPECT_KEY,					/* after a comma in an object */
	EXPECT_COLON,
	EXPECT_VALUE_OR_END,		/* an array just opened */
	EXPECT_VALUE,				/* after a colon, or a comma in an array */
	EXPECT_COMMA_OR_END
} Expect;

/* Where the walk is: one frame per open container. */
typedef struct Frame
{
	bool		object;
	Expect		expect;
	int			field;			/* the F_ bit of the member being read, or 0 */
} Frame;

typedef struct Walk
{
	Frame	   *stack;
	int			depth;
	int			seen;			/* F_ bits of the body's own members */
	int			seen_desc;		/* F_ bits inside updateDescription */
	int			allowed;		/* F_ bits the operation allows */
} Walk;

/* A string token's escapes are ones jsonb accepts (s, end: the token, quotes included). */
static bool
feed_string_ok(const char *s, const char *end)
{
	bool		utf8 = GetDatabaseEncoding() == PG_UTF8;
	bool		want_low = false;

	for (const char *p = s + 1; p < end - 1; p++)
	{
		unsigned int ch = 0;

		if (*p != '\\' || p[1] != 'u')
		{
			if (want_low)
				return false;
			p += *p == '\\';
			continue;
		}
		/* the lexer checked the four hexadecimal digits */
		for (int i = 2; i <= 5; i++)
			ch = ch * 16 + (p[i] <= '9' ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10);
		p += 5;
		if (ch == 0 || (!utf8 && ch > 0x7F))
			return false;
		if (ch >= 0xDC00 && ch <= 0xDFFF)
		{
			if (!want_low)
				return false;
			want_low = false;
		}
		else if (want_low)
			return false;
		else
			want_low = ch >= 0xD800 && ch <= 0xDBFF;
	}
	return !want_low;
}

/* A number token numeric_in reads without error. */
static bool
number_ok(const char *s, const char *end)
{
	const char *e = s;

	if (end - s > NUMBER_MAX_CHARS)
		return false;
	while (e < end && *e != 'e' && *e != 'E')
		e++;
	if (e < end)
	{
		long		exp = strtol(e + 1, NULL, 10);

		if (exp > NUMBER_MAX_EXPONENT || exp < -NUMBER_MAX_EXPONENT)
			return false;
	}
	return true;
}

/* Whether the walk is inside updateDescription's own object. */
static bool
in_description(Walk *w)
{
	return w->depth == 2 && w->stack[0].field == F_UPDATE_DESC;
}

/*
 * The F_ bit of a key of the current object: the body's members and
 * updateDescription's are fixed, each once; deeper keys are the
 * object's own (0).  -1 when the shape has no such key.
 */
static int
key_bit(Walk *w, const char *key, int len)
{
	int			bit;

#define IS(name) (len == strlen(name) && memcmp(key, name, len) == 0)
	if (w->depth == 1)
	{
		bit = IS("fullDocument") ? F_FULL_DOCUMENT :
			IS("updateDescription") ? F_UPDATE_DESC :
			IS("fullDocumentBeforeChange") ? F_BEFORE : 0;
		if (!(w->allowed & bit) || (w->seen & bit))
			return -1;
		w->seen |= bit;
		return bit;
	}
	if (in_description(w))
	{
		bit = IS("updatedFields") ? F_UPDATED : IS("removedFields") ? F_REMOVED : 0;
		if (bit == 0 || (w->seen_desc & bit))
			return -1;
		w->seen_desc |= bit;
		return bit;
	}
#undef IS
	return 0;
}

/*
 * Whether a value starting with tok may stand where the walk is: the
 * body's members and updatedFields are objects, removedFields an array
 * of strings; below them, any JSON.
 */
static bool
value_ok(Walk *w, JsonTokenType tok)
{
	if (w->depth == 1)
		return tok == JSON_TOKEN_OBJECT_START;
	if (in_description(w))
		return tok == (w->stack[1].field == F_REMOVED ?
					   JSON_TOKEN_ARRAY_START : JSON_TOKEN_OBJECT_START);
	if (w->depth == 3 && w->stack[0].field == F_UPDATE_DESC && w->stack[1].field == F_REMOVED)
		return tok == JSON_TOKEN_STRING;
	return tok != JSON_TOKEN_OBJECT_END && tok != JSON_TOKEN_ARRAY_END &&
		tok != JSON_TOKEN_COMMA && tok != JSON_TOKEN_COLON && tok != JSON_TOKEN_END &&
		tok != JSON_TOKEN_INVALID;
}

static bool
push(Walk *w, bool object)
{
	Frame	   *f;

	if (w->depth == BODY_MAX_DEPTH)
		return false;
	f = &w->stack[w->depth++];
	f->object = object;
	f->expect = object ? EXPECT_KEY_OR_END : EXPECT_VALUE_OR_END;
	f->field = 0;
	return true;
}

/* A value where the walk is: its checks, and a container opened. */
static bool
value(Walk *w, JsonLexContext *lex)
{
	JsonTokenType tok = lex->token_type;

	if (!value_ok(w, tok))
		return false;
	w->stack[w->depth - 1].expect = EXPECT_COMMA_OR_END;
	if (tok == JSON_TOKEN_OBJECT_START || tok == JSON_TOKEN_ARRAY_START)
		return push(w, tok == JSON_TOKEN_OBJECT_START);
	if (tok == JSON_TOKEN_STRING)
		return feed_string_ok(lex->token_start, lex->token_terminator);
	if (tok == JSON_TOKEN_NUMBER)
		return number_ok(lex->token_start, lex->token_terminator);
	return true;
}

/*
 * One token of the body's members, wrapped in braces; false when it
 * breaks JSON or the shape.  *done once the closing brace is read.
 */
static bool
step(Walk *w, JsonLexContext *lex, bool *done)
{
	JsonTokenType tok = lex->token_type;
	Frame	   *top;

	if (w->depth == 0)
		return tok == JSON_TOKEN_OBJECT_START && push(w, true);
	top = &w->stack[w->depth - 1];
	switch (top->expect)
	{
		case EXPECT_KEY_OR_END:
			if (tok == JSON_TOKEN_OBJECT_END)
				break;
			/* FALLTHROUGH */
		case EXPECT_KEY:
			if (tok != JSON_TOKEN_STRING || !feed_string_ok(lex->token_start, lex->token_terminator))
				return false;
			top->field = key_bit(w, lex->token_start + 1,
								 lex->token_terminator - lex->token_start - 2);
			top->expect = EXPECT_COLON;
			return top->field >= 0;
		case EXPECT_COLON:
			top->expect = EXPECT_VALUE;
			return tok == JSON_TOKEN_COLON;
		case EXPECT_VALUE_OR_END:
			if (tok == JSON_TOKEN_ARRAY_END)
				break;
			/* FALLTHROUGH */
		case EXPECT_VALUE:
			return value(w, lex);
		case EXPECT_COMMA_OR_END:
			if (tok == JSON_TOKEN_COMMA)
			{
				top->expect = top->object ? EXPECT_KEY : EXPECT_VALUE;
				return true;
			}
			if (tok != (top->object ? JSON_TOKEN_OBJECT_END : JSON_TOKEN_ARRAY_END))
				return false;
			break;
	}
	/* the container closes */
	w->depth--;
	*done = w->depth == 0;
	return true;
}

/*
 * Whether body (len bytes, not terminated) is what Argo's writers log
 * for op: see above.  Never raises an error.
 */
bool
feed_body_valid(const char *op, const char *body, int len)
{
	bool		insert = strcmp(op, "insert") == 0;
	bool		update = strcmp(op, "update") == 0;
	bool		delete = strcmp(op, "delete") == 0;
	char	   *text;
	JsonLexContext *lex;
	Walk		w = {0};
	bool		done = false;
	bool		ok = true;

	if (len == 0)
		return !insert && !update;
	if ((!insert && !update && !delete) || len > BODY_MAX_BYTES || !pg_verifymbstr(body, len, true))
		return false;
	text = palloc(len + 3);
	text[0] = '{';
	memcpy(text + 1, body, len);
	text[len + 1] = '}';
	text[len + 2] = '\0';
	lex = makeJsonLexContextCstringLen(text, len + 2, GetDatabaseEncoding(), false);
	w.stack = palloc(sizeof(Frame) * BODY_MAX_DEPTH);
	w.allowed = insert ? F_FULL_DOCUMENT : delete ? F_BEFORE :
		F_FULL_DOCUMENT | F_UPDATE_DESC | F_BEFORE;
	while (ok && !done)
		ok = json_lex(lex) == JSON_SUCCESS && step(&w, lex, &done);
	/* nothing after the closing brace, and every field the operation needs */
	ok = ok && json_lex(lex) == JSON_SUCCESS && lex->token_type == JSON_TOKEN_END &&
		(insert ? w.seen == F_FULL_DOCUMENT : delete ? w.seen == F_BEFORE :
		 (w.seen & F_UPDATE_DESC) && w.seen_desc == (F_UPDATED | F_REMOVED));
	pfree(w.stack);
	pfree(text);
	return ok;
}
