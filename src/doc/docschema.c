/*
 * docschema.c — a JSON Schema (the subset argo_validate takes) checked
 * against an object, from C, on the jsonb being written.
 *
 * The keywords are those of the reference's section on validation: type
 * (with "integer") and MongoDB's bsonType names, enum, const, required,
 * properties, additionalProperties (a boolean or a schema), items,
 * minItems, maxItems, uniqueItems, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum (numbers, as in 2020-12), multipleOf, minLength,
 * maxLength (in characters), pattern (PostgreSQL regular expressions),
 * allOf, anyOf, oneOf, not; annotations are accepted and ignored.
 * schema_check_keywords refuses anything else when the schema is set, so
 * schema_accepts meets only keywords it knows.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "doc/doc.h"

static const char *const annotations[] = {"title", "description", "$comment", "default", "examples"};
static const char *const keywords[] = {
	"type", "bsonType", "enum", "const", "required", "properties", "additionalProperties",
	"items", "minItems", "maxItems", "uniqueItems", "minimum", "maximum", "exclusiveMinimum",
	"exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "allOf", "anyOf",
	"oneOf", "not"
};

static bool
known(const char *key, int len, const char *const *list, int n)
{
	for (int i = 0; i < n; i++)
		if ((int) strlen(list[i]) == len && memcmp(list[i], key, len) == 0)
			return true;
	return false;
}

static JsonbValue *
keyword(JsonbContainer *schema, const char *key)
{
	return getKeyJsonValueFromContainer(schema, key, strlen(key), NULL);
}

static bool
is_object(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data);
}

static bool
is_array(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data);
}

static void
bad_schema(const char *path, const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid schema at \"%s\": %s", path[0] ? path : "(the root)", msg)));
}

static void check_schema(JsonbValue *s, const char *path);

/* Each element of an array of schemas (allOf, anyOf, oneOf). */
static void
check_schemas(JsonbValue *list, const char *path, const char *kw)
{
	if (!is_array(list) || JsonContainerSize(list->val.binary.data) == 0)
		bad_schema(path, psprintf("%s takes a non-empty array of schemas", kw));
	for (uint32 i = 0; i < JsonContainerSize(list->val.binary.data); i++)
		check_schema(getIthJsonbValueFromContainer(list->val.binary.data, i),
					 psprintf("%s/%s/%u", path, kw, i));
}

/* A schema's keywords, each known and of the right shape; 22023 naming the first that is not. */
static void
check_schema(JsonbValue *s, const char *path)
{
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue	k;
	JsonbValue	v;

	check_stack_depth();
	if (s->type == jbvBool)
		return;					/* true accepts everything, false nothing */
	if (!is_object(s))
		bad_schema(path, "a schema is a JSON object");
	it = JsonbIteratorInit(s->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *kw;

		if (tok != WJB_KEY)
			continue;
		JsonbIteratorNext(&it, &v, true);
		kw = pnstrdup(k.val.string.val, k.val.string.len);
		if (known(kw, k.val.string.len, annotations, lengthof(annotations)))
			continue;
		if (!known(kw, k.val.string.len, keywords, lengthof(keywords)))
			bad_schema(path, psprintf("unknown keyword \"%s\"", kw));
		if ((strcmp(kw, "exclusiveMinimum") == 0 || strcmp(kw, "exclusiveMaximum") == 0) && v.type == jbvBool)
			bad_schema(path, psprintf("%s is a number (JSON Schema 2020-12), not draft 4's boolean", kw));
		if ((strncmp(kw, "min", 3) == 0 || strncmp(kw, "max", 3) == 0 || strncmp(kw, "exclusive", 9) == 0 ||
			 strcmp(kw, "multipleOf") == 0) && v.type != jbvNumeric)
			bad_schema(path, psprintf("%s takes a number", kw));
		if (strcmp(kw, "multipleOf") == 0 &&
			DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v.val.numeric),
											  NumericGetDatum(int64_to_numeric(0)))) <= 0)
			bad_schema(path, "multipleOf takes a number above 0");
		if ((strcmp(kw, "required") == 0 || strcmp(kw, "enum") == 0) && !is_array(&v))
			bad_schema(path, psprintf("%s takes an array", kw));
		if (strcmp(kw, "pattern") == 0)
		{
			if (v.type != jbvString)
				bad_schema(path, "pattern takes a string");
			/* a bad regular expression is 2201B now */
			(void) DirectFunctionCall2Coll(textregexeq, C_COLLATION_OID, CStringGetTextDatum(""),
										   PointerGetDatum(cstring_to_text_with_len(v.val.string.val, v.val.string.len)));
		}
		if (strcmp(kw, "properties") == 0)
		{
			JsonbIterator *pit;
			JsonbValue	pk;
			JsonbValue	pv;

			if (!is_object(&v))
				bad_schema(path, "properties takes an object of schemas");
			pit = JsonbIteratorInit(v.val.binary.data);
			while ((tok = JsonbIteratorNext(&pit, &pk, true)) != WJB_DONE)
				if (tok == WJB_KEY)
				{
					JsonbIteratorNext(&pit, &pv, true);
					check_schema(&pv, psprintf("%s/properties/%.*s", path, pk.val.string.len, pk.val.string.val));
				}
		}
		if (strcmp(kw, "additionalProperties") == 0 || strcmp(kw, "items") == 0 || strcmp(kw, "not") == 0)
			check_schema(&v, psprintf("%s/%s", path, kw));
		if (strcmp(kw, "allOf") == 0 || strcmp(kw, "anyOf") == 0 || strcmp(kw, "oneOf") == 0)
			check_schemas(&v, path, kw);
	}
}

/* schema (jsonb) as argo_validate takes it; 22023 naming what it cannot use. */
void
schema_check_keywords(Jsonb *schema)
{
	JsonbValue	s = {.type = jbvBinary, .val.binary = {.data = &schema->root, .len = VARSIZE(schema)}};

	if (JB_ROOT_IS_SCALAR(schema))
	{
		JsonbExtractScalar(&schema->root, &s);
		if (s.type != jbvBool)
			bad_schema("", "a schema is a JSON object");
	}
	check_schema(&s, "");
}

/* Whether v is of the JSON Schema type (or MongoDB bsonType) name. */
static bool
of_type(JsonbValue *v, const char *name, int len)
{
#define IS(s) (len == (int) strlen(s) && memcmp(name, s, len) == 0)
	if (IS("object"))
		return is_object(v);
	if (IS("array"))
		return is_array(v);
	if (IS("string"))
		return v->type == jbvString;
	if (IS("boolean") || IS("bool"))
		return v->type == jbvBool;
	if (IS("null"))
		return v->type == jbvNull;
	if (IS("number") || IS("double") || IS("decimal"))
		return v->type == jbvNumeric;
	if (IS("integer") || IS("int") || IS("long"))
		return v->type == jbvNumeric &&
			DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(v->val.numeric),
											 DirectFunctionCall2(numeric_trunc, NumericGetDatum(v->val.numeric),
																 Int32GetDatum(0))));
	return false;
#undef IS
}

static bool
type_matches(JsonbValue *v, JsonbValue *t)
{
	if (t->type == jbvString)
		return of_type(v, t->val.string.val, t->val.string.len);
	if (is_array(t))
		for (uint32 i = 0; i < JsonContainerSize(t->val.binary.data); i++)
		{
			JsonbValue *n = getIthJsonbValueFromContainer(t->val.binary.data, i);

			if (n->type == jbvString && of_type(v, n->val.string.val, n->val.string.len))
				return true;
		}
	return false;
}

static bool
schema_same_value(JsonbValue *a, JsonbValue *b)
{
	return compareJsonbContainers(&JsonbValueToJsonb(a)->root, &JsonbValueToJsonb(b)->root) == 0;
}

static int
num_cmp(JsonbValue *v, JsonbValue *bound)
{
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v->val.numeric),
											 NumericGetDatum(bound->val.numeric)));
}

/* Where a check failed: the value's path and the keyword. */
typedef struct Failure
{
	StringInfoData path;
	const char *keyword;
} Failure;

static bool accepts(JsonbValue *s, JsonbValue *v, Failure *f);

static bool
fail(Failure *f, const char *kw)
{
	f->keyword = kw;
	return false;
}

/* minimum … multipleOf: numbers only (other types pass them, as JSON Schema says) */
static bool
numeric_ok(JsonbContainer *s, JsonbValue *v, Failure *f)
{
	JsonbValue *b;

	if (v->type != jbvNumeric)
		return true;
	if ((b = keyword(s, "minimum")) && num_cmp(v, b) < 0)
		return fail(f, "minimum");
	if ((b = keyword(s, "maximum")) && num_cmp(v, b) > 0)
		return fail(f, "maximum");
	if ((b = keyword(s, "exclusiveMinimum")) && num_cmp(v, b) <= 0)
		return fail(f, "exclusiveMinimum");
	if ((b = keyword(s, "exclusiveMaximum")) && num_cmp(v, b) >= 0)
		return fail(f, "exclusiveMaximum");
	if ((b = keyword(s, "multipleOf")) &&
		!DatumGetBool(DirectFunctionCall2(numeric_eq,
										  DirectFunctionCall2(numeric_mod, NumericGetDatum(v->val.numeric),
															  NumericGetDatum(b->val.numeric)),
										  NumericGetDatum(int64_to_numeric(0)))))
		return fail(f, "multipleOf");
	return true;
}

static bool
schema_string_ok(JsonbContainer *s, JsonbValue *v, Failure *f)
{
	JsonbValue *b;
	int			chars;

	if (v->type != jbvString)
		return true;
	chars = pg_mbstrlen_with_len(v->val.string.val, v->val.string.len);
	if ((b = keyword(s, "minLength")) && num_cmp(&(JsonbValue) {.type = jbvNumeric, .val.numeric = int64_to_numeric(chars)}, b) < 0)
		return fail(f, "minLength");
	if ((b = keyword(s, "maxLength")) && num_cmp(&(JsonbValue) {.type = jbvNumeric, .val.numeric = int64_to_numeric(chars)}, b) > 0)
		return fail(f, "maxLength");
	if ((b = keyword(s, "pattern")) &&
		!DatumGetBool(DirectFunctionCall2Coll(textregexeq, C_COLLATION_OID,
											  PointerGetDatum(cstring_to_text_with_len(v->val.string.val, v->val.string.len)),
											  PointerGetDatum(cstring_to_text_with_len(b->val.string.val, b->val.string.len)))))
		return fail(f, "pattern");
	return true;
}

/* items, minItems, maxItems, uniqueItems: arrays only */
static bool
array_ok(JsonbContainer *s, JsonbValue *v, Failure *f)
{
	JsonbValue *b;
	uint32		n;
	int			len = f->path.len;

	if (!is_array(v))
		return true;
	n = JsonContainerSize(v->val.binary.data);
	if ((b = keyword(s, "minItems")) && num_cmp(&(JsonbValue) {.type = jbvNumeric, .val.numeric = int64_to_numeric(n)}, b) < 0)
		return fail(f, "minItems");
	if ((b = keyword(s, "maxItems")) && num_cmp(&(JsonbValue) {.type = jbvNumeric, .val.numeric = int64_to_numeric(n)}, b) > 0)
		return fail(f, "maxItems");
	if ((b = keyword(s, "uniqueItems")) && b->type == jbvBool && b->val.boolean)
		for (uint32 i = 0; i < n; i++)
			for (uint32 j = i + 1; j < n; j++)
				if (schema_same_value(getIthJsonbValueFromContainer(v->val.binary.data, i),
							   getIthJsonbValueFromContainer(v->val.binary.data, j)))
					return fail(f, "uniqueItems");
	if ((b = keyword(s, "items")) != NULL)
		for (uint32 i = 0; i < n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			appendStringInfo(&f->path, "[%u]", i);
			if (!accepts(b, getIthJsonbValueFromContainer(v->val.binary.data, i), f))
				return false;
			f->path.len = len;
			f->path.data[len] = '\0';
		}
	return true;
}

/* required, properties, additionalProperties: objects only */
static bool
object_ok(JsonbContainer *s, JsonbValue *v, Failure *f)
{
	JsonbValue *props = keyword(s, "properties");
	JsonbValue *extra = keyword(s, "additionalProperties");
	JsonbValue *req = keyword(s, "required");
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue	k;
	JsonbValue	m;
	int			len = f->path.len;

	if (!is_object(v))
		return true;
	for (uint32 i = 0; req && i < JsonContainerSize(req->val.binary.data); i++)
	{
		JsonbValue *name = getIthJsonbValueFromContainer(req->val.binary.data, i);

		if (name->type == jbvString &&
			getKeyJsonValueFromContainer(v->val.binary.data, name->val.string.val, name->val.string.len, NULL) == NULL)
		{
			appendStringInfo(&f->path, "%s%.*s", len ? "." : "", name->val.string.len, name->val.string.val);
			return fail(f, "required");
		}
	}
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		JsonbValue *sub = NULL;

		if (tok != WJB_KEY)
			continue;
		JsonbIteratorNext(&it, &m, true);
		CHECK_FOR_INTERRUPTS();
		if (props && is_object(props))
			sub = getKeyJsonValueFromContainer(props->val.binary.data, k.val.string.val, k.val.string.len, NULL);
		if (sub == NULL)
			sub = extra;
		if (sub == NULL)
			continue;
		appendStringInfo(&f->path, "%s%.*s", len ? "." : "", k.val.string.len, k.val.string.val);
		if (sub == extra && sub->type == jbvBool && !sub->val.boolean)
			return fail(f, "additionalProperties");
		if (!accepts(sub, &m, f))
			return false;
		f->path.len = len;
		f->path.data[len] = '\0';
	}
	return true;
}

/* allOf, anyOf, oneOf, not */
static bool
combined_ok(JsonbContainer *s, JsonbValue *v, Failure *f)
{
	JsonbValue *b;
	int			len = f->path.len;

	if ((b = keyword(s, "allOf")) != NULL)
		for (uint32 i = 0; i < JsonContainerSize(b->val.binary.data); i++)
			if (!accepts(getIthJsonbValueFromContainer(b->val.binary.data, i), v, f))
				return false;
	for (int one = 0; one < 2; one++)
	{
		int			passed = 0;

		if ((b = keyword(s, one ? "oneOf" : "anyOf")) == NULL)
			continue;
		for (uint32 i = 0; i < JsonContainerSize(b->val.binary.data); i++)
		{
			Failure		scratch;

			initStringInfo(&scratch.path);
			passed += accepts(getIthJsonbValueFromContainer(b->val.binary.data, i), v, &scratch);
		}
		if (one ? passed != 1 : passed == 0)
			return fail(f, one ? "oneOf" : "anyOf");
	}
	if ((b = keyword(s, "not")) != NULL)
	{
		Failure		scratch;

		initStringInfo(&scratch.path);
		if (accepts(b, v, &scratch))
			return fail(f, "not");
	}
	f->path.len = len;
	return true;
}

static bool
accepts(JsonbValue *schema, JsonbValue *v, Failure *f)
{
	JsonbContainer *s;
	JsonbValue *b;

	check_stack_depth();
	if (schema->type == jbvBool)
		return schema->val.boolean ? true : fail(f, "false");
	s = schema->val.binary.data;
	if (((b = keyword(s, "type")) || (b = keyword(s, "bsonType"))) && !type_matches(v, b))
		return fail(f, keyword(s, "type") ? "type" : "bsonType");
	if ((b = keyword(s, "enum")) != NULL)
	{
		bool		found = false;

		for (uint32 i = 0; i < JsonContainerSize(b->val.binary.data) && !found; i++)
			found = schema_same_value(getIthJsonbValueFromContainer(b->val.binary.data, i), v);
		if (!found)
			return fail(f, "enum");
	}
	if ((b = keyword(s, "const")) && !schema_same_value(b, v))
		return fail(f, "const");
	return numeric_ok(s, v, f) && schema_string_ok(s, v, f) && array_ok(s, v, f) &&
		object_ok(s, v, f) && combined_ok(s, v, f);
}

/*
 * Whether obj satisfies schema; where it does not, *path and *kw say
 * where and which keyword.
 */
bool
schema_accepts(Jsonb *schema, Jsonb *obj, char **path, const char **kw)
{
	JsonbValue	s;
	JsonbValue	v = {.type = jbvBinary, .val.binary = {.data = &obj->root, .len = VARSIZE(obj)}};
	Failure		f;

	if (JB_ROOT_IS_SCALAR(schema))
		JsonbExtractScalar(&schema->root, &s);
	else
	{
		s.type = jbvBinary;
		s.val.binary.data = &schema->root;
		s.val.binary.len = VARSIZE(schema);
	}
	initStringInfo(&f.path);
	f.keyword = NULL;
	if (accepts(&s, &v, &f))
		return true;
	*path = f.path.len ? f.path.data : "(the object)";
	*kw = f.keyword;
	return false;
}
