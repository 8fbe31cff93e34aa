/*
 * jsonarray.c — a file holding one JSON array, read an element at a time
 * (as mongoimport --jsonArray reads it), so a file of any size loads in
 * the memory of its largest element.
 *
 * Only the array's own structure is followed here: where each element
 * starts and ends (strings, escapes and nesting counted so that a comma
 * or bracket inside one does not end it).  Each element's text is parsed
 * by jsonb_in afterwards, which is where a malformed element is found.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "fn/jsonarray.h"

/* interrupts are checked every this many bytes within an element */
#define CHECK_EVERY 65536

static bool
json_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int
next_char(ArrayReader *r)
{
	int			c = getc(r->file);

	if (c == EOF)
		return EOF;
	r->bytes++;
	if (c == '\n')
		r->line++;
	if (r->bytes % CHECK_EVERY == 0)
		CHECK_FOR_INTERRUPTS();
	return c;
}

/* The next character that is not JSON whitespace, or EOF. */
static int
next_nonspace(ArrayReader *r)
{
	int			c;

	while ((c = next_char(r)) != EOF && json_space(c))
		;
	return c;
}

static void
malformed(ArrayReader *r, const char *problem)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("file \"%s\" is not one JSON array: %s", r->path, problem)));
}

/*
 * Read up to the file's first character that is not whitespace: true if
 * that is the '[' of a JSON array, which is then consumed; false for
 * anything else (JSON lines), which is left to be read, r->line and
 * r->bytes saying how much whitespace came before it.
 */
bool
array_reader_start(ArrayReader *r, FILE *file, const char *path)
{
	int			c;

	memset(r, 0, sizeof(*r));
	r->file = file;
	r->path = path;
	c = next_nonspace(r);
	if (c == '[')
		return true;
	if (c != EOF)
	{
		ungetc(c, file);
		r->bytes--;
	}
	return false;
}

/* After the array's ']': nothing but whitespace may follow. */
static void
array_end(ArrayReader *r)
{
	r->ended = true;
	if (next_nonspace(r) != EOF)
		malformed(r, "something follows the array's closing ]");
}

/*
 * The next element's text into element (reset first); false when the
 * array has ended.
 */
bool
array_reader_next(ArrayReader *r, StringInfo element)
{
	int			depth = 0;
	bool		in_string = false;
	bool		escaped = false;
	int			c;

	if (r->ended)
		return false;
	resetStringInfo(element);
	c = next_nonspace(r);
	if (c == ']' && r->element == 0)
	{
		array_end(r);
		return false;
	}
	r->element++;
	r->element_line = r->line + 1;
	if (c == ',' || c == ']')
		malformed(r, "an element is missing");
	for (;; c = next_char(r))
	{
		if (c == EOF)
			malformed(r, "the file ends inside it");
		if (in_string)
		{
			if (escaped)
				escaped = false;
			else if (c == '\\')
				escaped = true;
			else if (c == '"')
				in_string = false;
		}
		else if (c == '"')
			in_string = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && depth > 0)
			depth--;
		else if (c == ']')
		{
			array_end(r);
			break;
		}
		else if (c == ',' && depth == 0)
			break;
		appendStringInfoChar(element, (char) c);
	}
	return true;
}
