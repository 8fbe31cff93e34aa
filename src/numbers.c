/*
 * numbers.c — JSON numbers to double precision and back, losing nothing.
 *
 * Numbers are stored as double (the paper's choice, and what makes range
 * predicates index-friendly).  A number is accepted only if the shortest
 * decimal text of its double is numerically equal to it, so "0.1" goes in
 * and comes back "0.1", while a 30-digit integer is refused, not rounded.
 */
#include "postgres.h"

#include "common/shortest_dec.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/numeric.h"

#include "argo.h"

/* Integers below this are exact doubles whose shortest text has no exponent. */
#define EXACT_INT_LIMIT 9007199254740992.0	/* 2^53 */

static Numeric
shortest_numeric(double d)
{
	char		buf[DOUBLE_SHORTEST_DECIMAL_LEN];

	/* most JSON numbers are integers: skip the trip through text */
	if (fabs(d) < EXACT_INT_LIMIT && d == trunc(d))
		return int64_to_numeric((int64) d);
	double_to_shortest_decimal_buf(d, buf);
	return DatumGetNumeric(DirectFunctionCall3(numeric_in,
											   CStringGetDatum(buf),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1)));
}

/*
 * The double for a JSON number; with exact, 22003 unless that double gives
 * the number back.
 */
double
argo_number_from_numeric(Numeric num, bool exact)
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
	if (exact && (!DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(num),
													   NumericGetDatum(shortest_numeric(d))))))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("number %s cannot be stored exactly as double precision",
						DatumGetCString(DirectFunctionCall1(numeric_out,
															NumericGetDatum(num)))),
				 errhint("Store it as a string to keep all its digits.")));
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
