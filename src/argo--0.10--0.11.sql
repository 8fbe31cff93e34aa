-- Argo 0.10 -> 0.11.
\echo Use "ALTER EXTENSION argo UPDATE TO '0.11'" to load this file. \quit

-- What an expression computes on a document (src/fn/compute.c): the values
-- an aggregate over an expression adds, one, or one per array element.
CREATE FUNCTION argo_compute(doc jsonb, spec jsonb, elem integer DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'argo_compute'
LANGUAGE C STABLE PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_compute(jsonb, jsonb, integer) IS
'The values an expression ({"x": expression, "each": [steps to an array]}) computes on a document, one per element of that array (or of element elem alone), as an array; NULL where none';

-- A value row's number exactly as written: what SUM and AVG add (src/fn/compute.c).
CREATE FUNCTION argo_exact(valnum float8, valexact text)
RETURNS numeric
AS 'MODULE_PATHNAME', 'argo_exact'
LANGUAGE C IMMUTABLE PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_exact(float8, text) IS
'A number of a value table as written: its exact text where the row keeps one (valexact), else its double''s shortest decimal; NULL for no number';


-- A sort key or a test may compute NOW() (the transaction's start) now:
-- stable, no longer immutable.
ALTER FUNCTION argo_sort_key(jsonb, jsonb) STABLE;
ALTER FUNCTION argo_filter_test(jsonb, jsonb) STABLE;
