/*
 * docfunc.c — the functions of reference.md §9.1, on values computed on
 * a document: PostgreSQL's own functions where it has them (numeric's,
 * text's, timestamps'), so their digits, scale and errors are its.
 *
 * A function gives no value where an argument it needs has none or is
 * of another type.  Timestamps are read as argo_expire reads them (an ISO
 * 8601 string with its zone, or seconds since 1970) and worked on in UTC
 * whatever the session's TimeZone; dates given out are ISO 8601 with Z.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_collation.h"
#include "datatype/timestamp.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "common/fold.h"
#include "common/isotime.h"
#include "common/numbers.h"
#include "doc/docexpr.h"

typedef bool (*DocFn) (JsonbValue *a, int n, JsonbValue *out);

static bool
num_out(Datum n, JsonbValue *out)
{
	out->type = jbvNumeric;
	out->val.numeric = DatumGetNumeric(n);
	return true;
}

static bool
str_out(const char *s, int len, JsonbValue *out)
{
	out->type = jbvString;
	out->val.string.val = (char *) s;
	out->val.string.len = len;
	return true;
}

static bool
text_out(text *t, JsonbValue *out)
{
	return str_out(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), out);
}

static text *
text_of(JsonbValue *v)
{
	return cstring_to_text_with_len(v->val.string.val, v->val.string.len);
}

static Datum
numd(JsonbValue *v)
{
	return NumericGetDatum(v->val.numeric);
}

/* A number as an int4 (numeric's rounding; 22003 beyond int4). */
static int32
int_of(JsonbValue *v)
{
	return DatumGetInt32(DirectFunctionCall1(numeric_int4, numd(v)));
}

/* ---------- numbers ---------- */

static const struct
{
	const char *name;
	PGFunction	fn;
}			unary_numeric[] = {
	{"abs", numeric_abs}, {"ceil", numeric_ceil}, {"floor", numeric_floor},
	{"sqrt", numeric_sqrt}, {"exp", numeric_exp}, {"ln", numeric_ln},
};

static bool
fn_log10(JsonbValue *a, int n, JsonbValue *out)
{
	return num_out(DirectFunctionCall2(numeric_log,
									   DirectFunctionCall1(int4_numeric, Int32GetDatum(10)), numd(&a[0])),
				   out);
}

static bool
fn_power(JsonbValue *a, int n, JsonbValue *out)
{
	return num_out(DirectFunctionCall2(numeric_power, numd(&a[0]), numd(&a[1])), out);
}

static bool
fn_mod(JsonbValue *a, int n, JsonbValue *out)
{
	return num_out(DirectFunctionCall2(numeric_mod, numd(&a[0]), numd(&a[1])), out);
}

static bool
fn_round(JsonbValue *a, int n, JsonbValue *out)
{
	return num_out(DirectFunctionCall2(numeric_round, numd(&a[0]), Int32GetDatum(n > 1 ? int_of(&a[1]) : 0)), out);
}

static bool
fn_trunc(JsonbValue *a, int n, JsonbValue *out)
{
	return num_out(DirectFunctionCall2(numeric_trunc, numd(&a[0]), Int32GetDatum(n > 1 ? int_of(&a[1]) : 0)), out);
}

/* ---------- strings ---------- */

static bool
fn_lower(JsonbValue *a, int n, JsonbValue *out)
{
	return text_out(DatumGetTextPP(DirectFunctionCall1Coll(lower, argo_fold_collation(),
														   PointerGetDatum(text_of(&a[0])))), out);
}

static bool
fn_upper(JsonbValue *a, int n, JsonbValue *out)
{
	return text_out(DatumGetTextPP(DirectFunctionCall1Coll(upper, argo_fold_collation(),
														   PointerGetDatum(text_of(&a[0])))), out);
}

static bool
fn_length(JsonbValue *a, int n, JsonbValue *out)
{
	return num_out(DirectFunctionCall1(int4_numeric,
									   Int32GetDatum(pg_mbstrlen_with_len(a[0].val.string.val, a[0].val.string.len))),
				   out);
}

static bool
fn_substr(JsonbValue *a, int n, JsonbValue *out)
{
	Datum		t = PointerGetDatum(text_of(&a[0]));

	if (n == 2)
		return text_out(DatumGetTextPP(DirectFunctionCall2(text_substr_no_len, t, Int32GetDatum(int_of(&a[1])))), out);
	return text_out(DatumGetTextPP(DirectFunctionCall3(text_substr, t, Int32GetDatum(int_of(&a[1])),
													   Int32GetDatum(int_of(&a[2])))), out);
}

/* TRIM and its sides: spaces, tabs, carriage returns and line feeds (§9.4) */
static bool
trim_with(PGFunction fn, JsonbValue *a, JsonbValue *out)
{
	return text_out(DatumGetTextPP(DirectFunctionCall2(fn, PointerGetDatum(text_of(&a[0])),
													   CStringGetTextDatum(" \t\r\n"))), out);
}

static bool
fn_trim(JsonbValue *a, int n, JsonbValue *out)
{
	return trim_with(btrim, a, out);
}

static bool
fn_ltrim(JsonbValue *a, int n, JsonbValue *out)
{
	return trim_with(ltrim, a, out);
}

static bool
fn_rtrim(JsonbValue *a, int n, JsonbValue *out)
{
	return trim_with(rtrim, a, out);
}

static bool
fn_replace(JsonbValue *a, int n, JsonbValue *out)
{
	return text_out(DatumGetTextPP(DirectFunctionCall3Coll(replace_text, C_COLLATION_OID,
														   PointerGetDatum(text_of(&a[0])),
													   PointerGetDatum(text_of(&a[1])),
													   PointerGetDatum(text_of(&a[2])))), out);
}

static JsonbValue
string_value(const char *s, int len)
{
	JsonbValue	v;

	str_out(s, len, &v);
	return v;
}

static bool
fn_split(JsonbValue *a, int n, JsonbValue *out)
{
	const char *s = a[0].val.string.val;
	int			len = a[0].val.string.len;
	const char *sep = a[1].val.string.val;
	int			seplen = a[1].val.string.len;
	JsonbParseState *st = NULL;
	JsonbValue	part;
	int			start = 0;

	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; seplen > 0 && i + seplen <= len;)
	{
		if (memcmp(s + i, sep, seplen) != 0)
		{
			i++;
			continue;
		}
		part = string_value(s + start, i - start);
		pushJsonbValue(&st, WJB_ELEM, &part);
		i += seplen;
		start = i;
	}
	part = string_value(s + start, len - start);
	pushJsonbValue(&st, WJB_ELEM, &part);
	*out = *pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return true;
}

static bool
fn_concat(JsonbValue *a, int n, JsonbValue *out)
{
	StringInfoData s;

	initStringInfo(&s);
	for (int i = 0; i < n; i++)
	{
		if (a[i].type != jbvString)
			return false;
		appendBinaryStringInfo(&s, a[i].val.string.val, a[i].val.string.len);
	}
	return str_out(s.data, s.len, out);
}

/* ---------- arrays and types ---------- */

static bool
is_array(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data) &&
		!JsonContainerIsScalar(v->val.binary.data);
}

static bool
fn_size(JsonbValue *a, int n, JsonbValue *out)
{
	if (!is_array(&a[0]))
		return false;
	return num_out(DirectFunctionCall1(int4_numeric, Int32GetDatum((int32) JsonContainerSize(a[0].val.binary.data))), out);
}

/* SLICE(p, start [, n]): start 0-based, negative from the end, before the front the front (§9.4) */
static bool
fn_slice(JsonbValue *a, int n, JsonbValue *out)
{
	JsonbParseState *st = NULL;
	int64		size,
				start,
				count;

	if (!is_array(&a[0]) || a[1].type != jbvNumeric || (n > 2 && a[2].type != jbvNumeric))
		return false;
	size = JsonContainerSize(a[0].val.binary.data);
	start = int_of(&a[1]);
	count = n > 2 ? int_of(&a[2]) : size;
	if (count < 0)
		return false;
	if (start < 0)
		start = Max(start + size, 0);
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int64 i = start; i < size && i < start + count; i++)
		pushJsonbValue(&st, WJB_ELEM, getIthJsonbValueFromContainer(a[0].val.binary.data, (uint32) i));
	*out = *pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return true;
}

static bool
fn_typeof(JsonbValue *a, int n, JsonbValue *out)
{
	const char *t;

	switch (a[0].type)
	{
		case jbvNumeric:
			t = "number";
			break;
		case jbvString:
			t = "string";
			break;
		case jbvBool:
			t = "boolean";
			break;
		case jbvNull:
			t = "null";
			break;
		default:
			t = is_array(&a[0]) ? "array" : "object";
	}
	return str_out(t, strlen(t), out);
}

static bool
fn_to_number(JsonbValue *a, int n, JsonbValue *out)
{
	char	   *s;

	if (a[0].type == jbvNumeric)
	{
		*out = a[0];
		return true;
	}
	if (a[0].type != jbvString)
		return false;
	s = pnstrdup(a[0].val.string.val, a[0].val.string.len);
	if (!argo_json_number_syntax(s))
		return false;
	return num_out(DirectFunctionCall3(numeric_in, CStringGetDatum(s), ObjectIdGetDatum(InvalidOid),
									   Int32GetDatum(-1)), out);
}

static bool
fn_to_string(JsonbValue *a, int n, JsonbValue *out)
{
	char	   *s;

	switch (a[0].type)
	{
		case jbvString:
			*out = a[0];
			return true;
		case jbvNumeric:
			s = DatumGetCString(DirectFunctionCall1(numeric_out, numd(&a[0])));
			return str_out(s, strlen(s), out);
		case jbvBool:
			s = a[0].val.boolean ? "true" : "false";
			return str_out(s, strlen(s), out);
		default:
			return false;
	}
}

/* ---------- timestamps, in UTC ---------- */

/* t as 8.6 reads a timestamp, as UTC's wall clock; false where it is none. */
static bool
timestamp_of(JsonbValue *v, Timestamp *ts)
{
	if (v->type == jbvNumeric)
	{
		*ts = DatumGetTimestampTz(DirectFunctionCall1(float8_timestamptz,
													  Float8GetDatum(argo_number_from_numeric(v->val.numeric, NULL))));
		return !TIMESTAMP_NOT_FINITE(*ts);
	}
	if (v->type == jbvString)
	{
		char	   *s = pnstrdup(v->val.string.val, v->val.string.len);

		if (!argo_iso_with_zone(s))
			return false;
		/* a timestamptz counts UTC's microseconds, as a timestamp of UTC's clock does */
		*ts = DatumGetTimestampTz(DirectFunctionCall3(timestamptz_in, CStringGetDatum(s),
													  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
		return true;
	}
	return false;
}

/* YYYY-MM-DDThh:mm:ss[.ffffff]Z, the fraction without trailing zeros */
static bool
iso_out(Timestamp ts, JsonbValue *out)
{
	struct pg_tm tm;
	fsec_t		fsec;
	char	   *s;

	if (TIMESTAMP_NOT_FINITE(ts) || timestamp2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range")));
	s = psprintf("%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year, tm.tm_mon, tm.tm_mday,
				 tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (fsec != 0)
	{
		char	   *f = psprintf(".%06d", (int) fsec);
		int			end = strlen(f);

		while (f[end - 1] == '0')
			f[--end] = '\0';
		s = psprintf("%s%s", s, f);
	}
	s = psprintf("%sZ", s);
	return str_out(s, strlen(s), out);
}

static bool
fn_now(JsonbValue *a, int n, JsonbValue *out)
{
	return iso_out(GetCurrentTransactionStartTimestamp(), out);
}

/* A field the table names (lower case), else 22023. */
static const char *
field_of(JsonbValue *v, const char *const *fields, const char *fn)
{
	char	   *f = pnstrdup(v->val.string.val, v->val.string.len);

	for (char *c = f; *c; c++)
		*c = pg_ascii_tolower((unsigned char) *c);
	for (int i = 0; fields[i] != NULL; i++)
		if (strcmp(f, fields[i]) == 0)
			return fields[i];
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s has no field \"%s\"", fn, f)));
	return NULL;
}

static bool
fn_date_part(JsonbValue *a, int n, JsonbValue *out)
{
	static const char *const fields[] = {"year", "month", "day", "hour", "minute", "second",
	"dow", "doy", "week", NULL};
	const char *field = field_of(&a[0], fields, "DATE_PART");
	Timestamp	ts;

	if (!timestamp_of(&a[1], &ts))
		return false;
	return num_out(DirectFunctionCall2(extract_timestamp, CStringGetTextDatum(field),
									   TimestampGetDatum(ts)), out);
}

static bool
fn_date_trunc(JsonbValue *a, int n, JsonbValue *out)
{
	static const char *const fields[] = {"year", "month", "week", "day", "hour", "minute", NULL};
	const char *field = field_of(&a[0], fields, "DATE_TRUNC");
	Timestamp	ts;

	if (!timestamp_of(&a[1], &ts))
		return false;
	return iso_out(DatumGetTimestamp(DirectFunctionCall2(timestamp_trunc, CStringGetTextDatum(field),
															   TimestampGetDatum(ts))), out);
}

static bool
fn_date_add(JsonbValue *a, int n, JsonbValue *out)
{
	Timestamp	ts;
	Datum		interval;

	if (!timestamp_of(&a[0], &ts) || a[1].type != jbvString)
		return false;
	interval = DirectFunctionCall3(interval_in, CStringGetDatum(pnstrdup(a[1].val.string.val, a[1].val.string.len)),
								   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	return iso_out(DatumGetTimestamp(DirectFunctionCall2(timestamp_pl_interval, TimestampGetDatum(ts),
															   interval)), out);
}

/* ---------- the table ---------- */

/*
 * types: what each argument must be, 'n' a number, 's' a string, '*'
 * anything with a value (the last letter stands for the rest).
 */
static const struct
{
	const char *name;
	int			min;
	int			max;			/* -1: any number */
	const char *types;
	DocFn		fn;
}			functions[] = {
	{"abs", 1, 1, "n", NULL}, {"ceil", 1, 1, "n", NULL}, {"floor", 1, 1, "n", NULL},
	{"sqrt", 1, 1, "n", NULL}, {"exp", 1, 1, "n", NULL}, {"ln", 1, 1, "n", NULL},
	{"log10", 1, 1, "n", fn_log10}, {"power", 2, 2, "n", fn_power}, {"mod", 2, 2, "n", fn_mod},
	{"round", 1, 2, "n", fn_round}, {"trunc", 1, 2, "n", fn_trunc},
	{"lower", 1, 1, "s", fn_lower}, {"upper", 1, 1, "s", fn_upper}, {"length", 1, 1, "s", fn_length},
	{"substr", 2, 3, "snn", fn_substr}, {"trim", 1, 1, "s", fn_trim}, {"ltrim", 1, 1, "s", fn_ltrim},
	{"rtrim", 1, 1, "s", fn_rtrim}, {"replace", 3, 3, "s", fn_replace}, {"split", 2, 2, "s", fn_split},
	{"concat", 1, -1, "*", fn_concat}, {"size", 1, 1, "*", fn_size}, {"slice", 2, 3, "*", fn_slice},
	{"typeof", 1, 1, "*", fn_typeof}, {"to_number", 1, 1, "*", fn_to_number},
	{"to_string", 1, 1, "*", fn_to_string}, {"coalesce", 1, -1, "*", NULL}, {"now", 0, 0, "", fn_now},
	{"date_part", 2, 2, "s*", fn_date_part}, {"date_trunc", 2, 2, "s*", fn_date_trunc},
	{"date_add", 2, 2, "*", fn_date_add},
};

static int
function_index(const char *name)
{
	for (int i = 0; i < lengthof(functions); i++)
		if (strcmp(functions[i].name, name) == 0)
			return i;
	return -1;
}

bool
doc_function_known(const char *name)
{
	return function_index(name) >= 0;
}

bool
doc_function_arity(const char *name, int nargs)
{
	int			i = function_index(name);

	return i >= 0 && nargs >= functions[i].min && (functions[i].max < 0 || nargs <= functions[i].max);
}

bool
doc_function_call(const char *name, JsonbValue *args, bool *has, int nargs, JsonbValue *out)
{
	int			f = function_index(name);
	const char *types;

	if (f < 0 || !doc_function_arity(name, nargs))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("function %s() with %d argument(s) does not exist", name, nargs)));
	types = functions[f].types;
	for (int i = 0; i < nargs; i++)
	{
		char		t = types[Min(i, (int) strlen(types) - 1)];

		if (!has[i] || (t == 'n' && args[i].type != jbvNumeric) || (t == 's' && args[i].type != jbvString))
			return false;
	}
	if (functions[f].fn == NULL)
	{
		for (int i = 0; i < lengthof(unary_numeric); i++)
			if (strcmp(unary_numeric[i].name, name) == 0)
				return num_out(DirectFunctionCall1(unary_numeric[i].fn, numd(&args[0])), out);
		return false;
	}
	return functions[f].fn(args, nargs, out);
}
