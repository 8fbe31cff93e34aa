/*
 * params.c — the VARIADIC jsonb[] of argo_query's parameters.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "fn/fn.h"

/*
 * The parameters in array (none if it is NULL); an SQL NULL element is
 * JSON null.
 */
Jsonb **
argo_params_of(Datum array, bool isnull, int *nparams)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	Jsonb	  **params;

	*nparams = 0;
	if (isnull)
		return NULL;
	arr = DatumGetArrayTypeP(array);
	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("parameters must be a one-dimensional array")));
	deconstruct_array(arr, JSONBOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, nparams);
	params = palloc(sizeof(Jsonb *) * Max(*nparams, 1));
	for (int i = 0; i < *nparams; i++)
		params[i] = nulls[i] ?
			DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("null"))) :
			DatumGetJsonbP(elems[i]);
	return params;
}
