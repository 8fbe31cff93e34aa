/*
 * sqlpretty.c — generated SQL over several lines, for argo_explain.
 *
 * One statement of generated SQL is often 700 characters on one line,
 * which widens psql's whole output.  A new line starts before each
 * clause keyword, indented by the parentheses it sits in; string
 * literals and quoted names are left alone.
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "common/sqlbuf.h"

/* Clause keywords that start a line (each with a space before it). */
static const char *const breaks[] = {
	"SELECT ", "FROM ", "WHERE ", "UNION ALL ", "GROUP BY ", "HAVING ",
	"ORDER BY ", "CROSS JOIN ", "LEFT JOIN ", "JOIN ", "LIMIT ", "OFFSET ",
	"FETCH ", "INSERT ", "UPDATE ", "DELETE ", "RETURNING ",
	"EXCEPT ", "INTERSECT ",
};

/* Length of the clause keyword at s, where a line should break, or 0. */
static int
break_at(const char *sql, const char *s)
{
	if (s == sql || (s[-1] != ' ' && s[-1] != '('))
		return 0;
	/* one line for FOR UPDATE, and for CROSS JOIN, LEFT JOIN, INNER JOIN */
	if (strncmp(s, "UPDATE ", 7) == 0 && s - sql >= 4 && strncmp(s - 4, "FOR ", 4) == 0)
		return 0;
	if (strncmp(s, "JOIN ", 5) == 0 &&
		((s - sql >= 6 && strncmp(s - 6, "CROSS ", 6) == 0) ||
		 (s - sql >= 5 && strncmp(s - 5, "LEFT ", 5) == 0) ||
		 (s - sql >= 6 && strncmp(s - 6, "INNER ", 6) == 0)))
		return 0;
	for (int i = 0; i < lengthof(breaks); i++)
		if (strncmp(s, breaks[i], strlen(breaks[i])) == 0)
			return strlen(breaks[i]);
	return 0;
}

static List *
end_line(List *lines, StringInfo line)
{
	int			len = line->len;

	while (len > 0 && line->data[len - 1] == ' ')
		len--;
	if (len > 0)
		lines = lappend(lines, pnstrdup(line->data, len));
	resetStringInfo(line);
	return lines;
}

List *
sql_pretty_lines(const char *sql)
{
	List	   *lines = NIL;
	StringInfoData line;
	int			depth = 0;
	char		quote = 0;

	initStringInfo(&line);
	for (const char *s = sql; *s; s++)
	{
		if (quote == 0 && break_at(sql, s) > 0 && line.len > 0)
		{
			lines = end_line(lines, &line);
			appendStringInfoSpaces(&line, 2 * depth);
		}
		if (quote != 0)
		{
			if (*s == quote)
				quote = 0;
		}
		else if (*s == '\'' || *s == '"')
			quote = *s;
		else if (*s == '(')
			depth++;
		else if (*s == ')' && depth > 0)
			depth--;
		if (line.len == 2 * depth && *s == ' ')
			continue;			/* no space after the indent */
		appendStringInfoChar(&line, *s);
	}
	return end_line(lines, &line);
}
