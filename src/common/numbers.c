/*
 * numbers.c — JSON numbers to double precision and back, losing nothing.
 *
 * Numbers are stored as double (the paper's choice, and what makes range
 * predicates index-friendly) and come back as jsonb gives them back: the
 * double's shortest round-trip text where that is the number's own
 * ("0.1" in, "0.1" out), else the number's text as jsonb keeps it, stored
 * beside the double — 17-digit coordinates, integers past 2^53 that are
 * not their double's, and a price of "1.50" or a "1.0", whose trailing
 * zeros jsonb keeps (a shop's prices came back "1.5").  Predicates,
 * ordering and aggregates use the double.  Only numbers outside double's
 * range are refused.
 */
#include "postgres.h"

#include <math.h>

#include "common/shortest_dec.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/numeric.h"

#include "common/numbers.h"

/* Integers below this are exact doubles whose shortest text has no exponent. */
#define EXACT_INT_LIMIT 9007199254740992.0	/* 2^53 */

static int
significant_digits(const char *s)
{
	int			n = 0;
	bool		leading = true;

	for (; *s && *s != 'e' && *s != 'E'; s++)
	{
		if (*s < '0' || *s > '9')
			continue;
		if (*s == '0' && leading)
			continue;
		leading = false;
		n++;
	}
	return n;
}

/*
 * The strict shortest text of d, as JavaScript and Python print it.
 * PostgreSQL's Ryu leaves out the two bounds of d's rounding interval, so
 * where one of them is a shorter decimal it prints a longer one
 * ('4.73e21'::float8 is 4.729999999999999e+21).  Bounds are half-way
 * between doubles, integers only where doubles are 2 or more apart
 * (|d| >= 2^53); there the nearest decimal of each shorter length is tried.
 */
static void
shortest_text(double d, char *buf)
{
	char		tmp[32];
	int			n;

	double_to_shortest_decimal_buf(d, buf);
	if (fabs(d) < EXACT_INT_LIMIT)
		return;
	n = significant_digits(buf);
	for (int p = 1; p < n; p++)
	{
		snprintf(tmp, sizeof(tmp), "%.*e", p - 1, d);
		if (strtod(tmp, NULL) == d)
		{
			strlcpy(buf, tmp, DOUBLE_SHORTEST_DECIMAL_LEN);
			return;
		}
	}
}

static Numeric
text_numeric(const char *s)
{
	return DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(s),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1)));
}

static Numeric
shortest_numeric(double d)
{
	char		buf[DOUBLE_SHORTEST_DECIMAL_LEN];

	/* most JSON numbers are integers: skip the trip through text */
	if (fabs(d) < EXACT_INT_LIMIT && d == trunc(d))
		return int64_to_numeric((int64) d);
	shortest_text(d, buf);
	return text_numeric(buf);
}

/* num's double (22003 outside double's range) and that double's shortest number */
static double
double_and_shortest(Numeric num, Numeric *shortest)
{
	double		d;

	/* overflow gives ±inf here, so the error below can name the number */
	d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
										   NumericGetDatum(num)));
	/* ±inf: too large; 0 for a number that is not: too small (1e-400) */
	if (isinf(d) || isnan(d) ||
		(d == 0 && !DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(num),
													 NumericGetDatum(int64_to_numeric(0))))))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("number is out of range for double precision")));
	if (shortest != NULL)
		*shortest = shortest_numeric(d);
	return d;
}

/*
 * The double for a JSON number; 22003 outside double's range.  With
 * exact, *exact is set to the number's text as jsonb writes it where the
 * double's shortest number is not that text (digits and scale), else to
 * NULL.
 */
double
argo_number_from_numeric(Numeric num, char **exact)
{
	Numeric		s;
	double		d = double_and_shortest(num, exact != NULL ? &s : NULL);

	/* the same digits and scale: the double gives it back as jsonb would */
	if (exact != NULL)
		*exact = VARSIZE(s) == VARSIZE(num) && memcmp(s, num, VARSIZE(num)) == 0 ? NULL :
			DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num)));
	return d;
}

/*
 * The JSON number for a double read from a value table.  Argo never
 * stores NaN or infinity, but a role that may write the table could:
 * JSON has no text for them.
 */
Numeric
argo_number_to_numeric(double d)
{
	if (isnan(d) || isinf(d))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a value table holds the number %s, which JSON cannot hold",
						isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity")));
	return shortest_numeric(d);
}

/* Whether s is JSON number syntax: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)? */
bool
argo_json_number_syntax(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return false;
	if (*s == '.')
	{
		if (!(*++s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E')
	{
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/*
 * The JSON number for a value row that keeps its exact text beside its
 * double.  The text is the table's, so it is checked: a number, and one
 * whose double is the row's.
 */
Numeric
argo_number_from_exact(text *exact, double d)
{
	char	   *s = text_to_cstring(exact);
	Numeric		num;

	if (!argo_json_number_syntax(s) || strtod(s, NULL) != d)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a value table holds an exact number text that is not its number"),
				 errdetail("The text is \"%.40s\".", s)));
	num = text_numeric(s);
	pfree(s);
	return num;
}
