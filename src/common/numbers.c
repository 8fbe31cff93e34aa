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

/*
 * Ryu's shortest text s as digits over a power of ten (an exact SUM
 * reads every row's number: numeric_in's parse was most of it); false
 * where it does not fit an int64 over 10^0..10^1000.
 */
static bool
shortest_as_fraction(const char *s, int64 *digits, int *scale)
{
	int64		m = 0;
	int			frac = 0,
				n = 0,
				exp = 0;
	bool		neg = *s == '-',
				point = false;

	if (neg)
		s++;
	for (; (*s >= '0' && *s <= '9') || *s == '.'; s++)
	{
		if (*s == '.')
		{
			point = true;
			continue;
		}
		if (++n > 18)
			return false;
		m = m * 10 + (*s - '0');
		frac += point;
	}
	if (*s == 'e' || *s == 'E')
		exp = atoi(s + 1);
	*scale = frac - exp;
	*digits = neg ? -m : m;
	return *scale >= 0 && *scale <= 1000;
}

/*
 * d's shortest decimal as digits over 10^scale where it has at most
 * seven decimals and fewer than 2^52 units of its last one: the first
 * scale at which the nearest integer over 10^scale reads back as d (a
 * division of two exact doubles rounds as strtod does).  Below 2^52
 * units no other decimal of that scale lies within d's rounding
 * interval, so it is the one Ryu would write.
 */
static bool
few_decimals(double d, int64 *digits, int *scale)
{
	static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7};

	for (int s = 1; s < lengthof(pow10); s++)
	{
		double		m = rint(d * pow10[s]);

		if (fabs(m) >= 4503599627370496.0)	/* 2^52 */
			return false;
		if (m / pow10[s] == d)
		{
			*digits = (int64) m;
			*scale = s;
			return true;
		}
	}
	return false;
}

static Numeric
shortest_numeric(double d)
{
	char		buf[DOUBLE_SHORTEST_DECIMAL_LEN];
	int64		digits;
	int			scale;

	/* most JSON numbers are integers: skip the trip through text */
	if (fabs(d) < EXACT_INT_LIMIT && d == trunc(d))
		return int64_to_numeric((int64) d);
	/* and most others have a few decimals (prices): nor for those */
	if (few_decimals(d, &digits, &scale))
		return int64_div_fast_to_numeric(digits, scale);
	shortest_text(d, buf);
	if (fabs(d) < EXACT_INT_LIMIT && shortest_as_fraction(buf, &digits, &scale))
		return int64_div_fast_to_numeric(digits, scale);
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
