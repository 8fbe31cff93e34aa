%{
/*
 * gram.y — the Argo/SQL grammar: text to parse tree (parse.h), nothing more.
 *
 * A pure parser on palloc'd stacks, so an ERROR raised anywhere in a parse
 * leaks nothing.  Semantic checks that need a collection live in analyze.c.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "nodes/pg_list.h"

#include "common/errors.h"
#include "parse/compute.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "parser.h"

#define ARGO_YYLTYPE int
#define YYLLOC_DEFAULT(Current, Rhs, N) \
	do { (Current) = (N) ? (Rhs)[1] : (Rhs)[0]; } while (0)
#define YYMALLOC palloc
#define YYFREE pfree

static ArgoLiteral *make_literal(ArgoLitType type, int location);
static ArgoLiteral *make_number(const char *text, int location);
static ArgoLiteral *make_param(ArgoParseState *ps, const char *digits,
								int location);
static ArgoPath *make_path(ArgoStep *first, int location);
static ArgoStep *make_key(char *key);
static ArgoStep *make_index(ArgoParseState *ps, const char *text, int location);
static ArgoStep *make_wild(void);
static ArgoPred *make_pred(ArgoPredKind kind, ArgoPred *l, ArgoPred *r);
static ArgoPred *make_leaf(ArgoPredKind kind, ArgoPath *path, ArgoCmpOp op,
						   ArgoLiteral *lit, ArgoLiteral *lit2);
static ArgoPred *make_in(ArgoPath *path, List *lits);
static ArgoPred *make_in_param(ArgoPred *p, ArgoLiteral *param);
static ArgoTarget *make_agg(ArgoAggKind agg, ArgoPath *path, int location);
static ArgoPred *make_like(ArgoPath *path, ArgoLikeKind kind, ArgoLiteral *pattern);
static ArgoStmt *make_insert(char *coll, int location, List *objects, ArgoReturningClause *ret);
static ArgoStmt *make_update(char *coll, int location, List *sets, ArgoPred *where,
							 ArgoReturningClause *ret);
static ArgoReturningClause *make_returning(ArgoReturning kind, char *id_name);
static ArgoPred *make_agg_leaf(ArgoTarget *agg, ArgoCmpOp op, ArgoLiteral *lit);
static ArgoJson *make_json(char *text, ArgoLiteral *lit, int location);
static ArgoSetItem *make_set(ArgoSetKind kind, ArgoPath *path, ArgoJson *value);
static ArgoCmpOp commute(ArgoCmpOp op);
static ArgoTarget *make_target(ArgoParseState *ps, ArgoExpr *e, char *alias, int location);
static ArgoTarget *make_agg_of(ArgoParseState *ps, ArgoAggKind agg, ArgoExpr *e, int location);
static ArgoExpr *make_expr(ArgoExprKind kind, int location);
static ArgoExpr *make_op(char op, ArgoExpr *a, ArgoExpr *b, int location);
static ArgoExpr *make_neg(ArgoExpr *a, int location);
static ArgoExpr *make_call(char *name, List *args, int location);
static ArgoPred *make_compare(ArgoParseState *ps, ArgoExpr *l, ArgoCmpOp op, ArgoExpr *r);
static ArgoPred *make_like_x(ArgoParseState *ps, ArgoExpr *x, ArgoLikeKind kind, ArgoExpr *pattern);
static ArgoPred *make_between(ArgoParseState *ps, ArgoExpr *x, ArgoExpr *lo, ArgoExpr *hi);
static ArgoPred *make_in_x(ArgoParseState *ps, ArgoExpr *x, List *list);
static ArgoPred *make_in_param_x(ArgoParseState *ps, ArgoExpr *x, ArgoLiteral *param);
static ArgoPred *make_null_test(ArgoPredKind kind, ArgoExpr *x);
static ArgoPath *expr_plain_path(ArgoParseState *ps, ArgoExpr *e, const char *what);
static ArgoLiteral *expr_literal(ArgoParseState *ps, ArgoExpr *e, const char *what);
static ArgoSetItem *make_set_x(ArgoPath *path, ArgoExpr *e);
static ArgoPath *make_standin(int location);
static ArgoPath *group_item(ArgoExpr *e);
static ArgoTarget *make_value_agg(ArgoAggKind agg, ArgoExpr *e, int location);
%}

%define api.pure full
%define api.prefix {argo_yy}
%expect 0
%locations
%parse-param {ArgoParseState *ps}
%lex-param {ArgoParseState *ps}

%union
{
	char	   *str;
	bool		boolean;
	ArgoStmt   *stmt;
	ArgoLiteral *lit;
	ArgoPath   *path;
	ArgoStep   *step;
	ArgoPred   *pred;
	ArgoTarget *target;
	ArgoSource *source;
	ArgoOrder  *order;
	ArgoJson   *json;
	ArgoSetItem *setitem;
	ArgoCmpOp	op;
	ArgoAggKind agg;
	ArgoLikeKind like;
	ArgoReturningClause *returning;
	ArgoExpr   *expr;
	List	   *list;
}

%{
static int	argo_yylex(YYSTYPE *lval, YYLTYPE *lloc, ArgoParseState *ps);
static void argo_yyerror(YYLTYPE *lloc, ArgoParseState *ps, const char *msg);
%}

%token <str> IDENT NUMBER STRING PARAM JSONTEXT
%token NE LE GE PLUS_EQ MINUS_EQ TSMATCH CONCAT

/* keywords: keep AND first and WHERE last (see scan_bracket_is_subscript) */
%token <str> AND ANY AS ASC AVG BETWEEN BY COUNT DELETE_P DESC EXISTS FALSE_P
%token <str> FROM GROUP_P IN_P INNER_P INSERT INTO IS JOIN LIKE LIMIT MAX MIN
%token <str> NOT NULL_P OBJECT_P OFFSET ON OR ORDER SELECT SET SUM TRUE_P UNSET
%token <str> ADD_P APPEND ID_P REMOVE RETURNING UPSERT
%token <str> DISTINCT HAVING ILIKE LEFT OUTER_P OBJECTS
%token <str> NULLS_P FIRST_P LAST_P EXCEPT_P ARRAY_AGG EACH KEEP
%token <str> CASE_P WHEN_P THEN_P ELSE_P END_P
%token <str> UPDATE WHERE

%type <stmt>	stmt select_stmt select_body insert_stmt delete_stmt update_stmt upsert_stmt
%type <lit>	opt_keep
%type <lit>		literal opt_limit opt_offset
%type <path>	path id_call agg_arg join_side
%type <step>	first_step
%type <str>		name key_name opt_alias any_keyword unreserved_keyword
%type <boolean> join_kind
%type <returning> opt_returning
%type <pred>	pred leaf opt_where opt_having
%type <op>		cmp_op
%type <agg>		agg_func
%type <like>	like_op
%type <target>	target agg_call
%type <source>	source join
%type <order>	order_item
%type <json>	json_value
%type <setitem>	set_item unset_item
%type <list>	target_list targets from_list json_list order_list opt_group
%type <list>	opt_order set_list unset_list opt_unset path_list opt_except group_list
%type <boolean> opt_desc
%type <order>	opt_nulls opt_agg_order
%type <expr>	expr primary opt_else
%type <list>	expr_list when_list

%left OR
%left AND
%precedence NOT
/* SELECT DISTINCT EXCEPT …: DISTINCT the keyword, "except" a key */
%precedence DISTINCT
%precedence EXCEPT_P
/* expressions (reference.md §9): SQL's precedence */
%left '+' '-' CONCAT
%left '*' '/' '%'
%precedence UMINUS

%%

top: stmt opt_semi				{ ps->result = $1; }
	;

opt_semi: ';' | %empty ;

stmt: select_stmt | insert_stmt | delete_stmt | update_stmt | upsert_stmt ;

select_stmt:
	SELECT select_body			{ $$ = $2; }
	| SELECT DISTINCT select_body	{ $$ = $3; $$->distinct = true; }
	;

/*
 * Without DISTINCT as an empty alternative, "SELECT distinct FROM c" (a
 * key named distinct) still parses: the word after DISTINCT decides.
 */
select_body:
	target_list opt_except FROM from_list opt_where opt_group opt_having opt_order
	opt_limit opt_offset
		{
			ArgoStmt   *s = palloc0(sizeof(ArgoStmt));

			s->kind = ASTMT_SELECT;
			s->star = ($1 == NIL || linitial($1) == NULL);
			s->targets = $1 != NIL && linitial($1) == NULL ? list_delete_first($1) : $1;
			s->except = $2;
			s->except_location = @2;
			s->from = $4;
			s->where = $5;
			s->group_by = $6;
			s->having = $7;
			s->order_by = $8;
			s->limit = $9;
			s->offset = $10;
			$$ = s;
		}
	;

/* the whole object but these paths (MongoDB's {password: 0}) */
opt_except:
	EXCEPT_P '(' path_list ')'	{ $$ = $3; }
	| %empty				{ $$ = NIL; }
	;

target_list:
	'*'							{ $$ = NIL; }
	| '*' ',' targets
		{
			/* the whole object and more: a first target with no path says so */
			$$ = lcons(NULL, $3);
		}
	| targets ',' '*'			{ $$ = lcons(NULL, $1); }
	| targets ',' '*' ',' targets
		{
			$$ = lcons(NULL, list_concat($1, $5));
		}
	| targets					{ $$ = $1; }
	;

targets:
	target						{ $$ = list_make1($1); }
	| targets ',' target		{ $$ = lappend($1, $3); }
	;

target:
	expr opt_alias				{ $$ = make_target(ps, $1, $2, @1); }
	;

/* ID(): the object's id, where a path may stand */
id_call:
	ID_P '(' ')'
		{
			$$ = palloc0(sizeof(ArgoPath));
			$$->id = true;
			$$->keystr = "";
			$$->location = @1;
		}
	;

agg_call:
	COUNT '(' '*' ')'			{ $$ = make_agg(AAGG_COUNT_STAR, NULL, @1); }
	| COUNT '(' expr ')'		{ $$ = make_agg_of(ps, AAGG_COUNT, $3, @1); }
	| COUNT '(' DISTINCT expr ')'	{ $$ = make_agg_of(ps, AAGG_COUNT_DISTINCT, $4, @1); }
	| agg_func '(' expr ')'		{ $$ = make_agg_of(ps, $1, $3, @1); }
	| ARRAY_AGG '(' expr opt_agg_order ')'
		{
			$$ = make_value_agg(AAGG_ARRAY, $3, @1);
			$$->order = $4;
		}
	| ARRAY_AGG '(' DISTINCT expr ')'
		{
			$$ = make_value_agg(AAGG_ARRAY, $4, @1);
			$$->distinct = true;
		}
	| FIRST_P '(' expr opt_agg_order ')'
		{
			$$ = make_value_agg(AAGG_FIRST, $3, @1);
			$$->order = $4;
		}
	| LAST_P '(' expr opt_agg_order ')'
		{
			$$ = make_value_agg(AAGG_LAST, $3, @1);
			$$->order = $4;
		}
	;

/* what ARRAY_AGG, FIRST and LAST take, and order by: a path or ID() */
agg_arg:
	path						{ $$ = $1; }
	| id_call					{ $$ = $1; }
	;

/* the order inside a group an aggregate takes its values in (else object id) */
opt_agg_order:
	ORDER BY agg_arg opt_desc
		{
			$$ = palloc0(sizeof(ArgoOrder));
			$$->path = $3;
			$$->desc = $4;
			$$->nulls_first = $4;
		}
	| %empty				{ $$ = NULL; }
	;

agg_func:
	SUM							{ $$ = AAGG_SUM; }
	| AVG						{ $$ = AAGG_AVG; }
	| MIN						{ $$ = AAGG_MIN; }
	| MAX						{ $$ = AAGG_MAX; }
	;

opt_alias:
	AS key_name					{ $$ = $2; }
	| %empty				{ $$ = NULL; }
	;

from_list:
	source						{ $$ = list_make1($1); }
	| from_list join			{ $$ = lappend($1, $2); }
	;

source:
	name						{ $$ = palloc0(sizeof(ArgoSource)); $$->coll = $1; $$->location = @1; }
	| name AS name
		{
			$$ = palloc0(sizeof(ArgoSource));
			$$->coll = $1;
			$$->alias = $3;
			$$->location = @1;
		}
	| name IDENT
		{
			/* AS left out, as SQL allows; RIGHT, FULL … are not aliases */
			argo_check_alias_word(&ps->scan, $2, @2);
			$$ = palloc0(sizeof(ArgoSource));
			$$->coll = $1;
			$$->alias = $2;
			$$->location = @1;
		}
	;

join:
	join_kind JOIN source ON '(' join_side '=' join_side ')'
		{
			$$ = $3;
			$$->left_join = $1;
			$$->on_left = $6;
			$$->on_right = $8;
		}
	| join_kind JOIN source ON join_side '=' join_side
		{
			$$ = $3;
			$$->left_join = $1;
			$$->on_left = $5;
			$$->on_right = $7;
		}
	;

/* a side of ON: a path, or ID(alias), the object id of that FROM item's objects (§9.2) */
join_side:
	path						{ $$ = $1; }
	| ID_P '(' name ')'
		{
			$$ = palloc0(sizeof(ArgoPath));
			$$->id = true;
			$$->keystr = "";
			$$->steps = list_make1(make_key($3));
			$$->location = @1;
		}
	;

/* JOIN alone is INNER JOIN; LEFT [OUTER] JOIN keeps every left object */
join_kind:
	INNER_P						{ $$ = false; }
	| LEFT opt_outer			{ $$ = true; }
	| %empty				{ $$ = false; }
	;

opt_outer:
	OUTER_P
	| %empty
	;

opt_where:
	WHERE pred					{ $$ = $2; }
	| %empty				{ $$ = NULL; }
	;

opt_group:
	GROUP_P BY group_list		{ $$ = $3; }
	| %empty				{ $$ = NIL; }
	;

path_list:
	path						{ $$ = list_make1($1); }
	| id_call					{ $$ = list_make1($1); }
	| path_list ',' path		{ $$ = lappend($1, $3); }
	| path_list ',' id_call		{ $$ = lappend($1, $3); }
	;

opt_having:
	HAVING pred					{ $$ = $2; }
	| %empty				{ $$ = NULL; }
	;

opt_order:
	ORDER BY order_list			{ $$ = $3; }
	| %empty				{ $$ = NIL; }
	;

order_list:
	order_item					{ $$ = list_make1($1); }
	| order_list ',' order_item	{ $$ = lappend($1, $3); }
	;

order_item:
	expr opt_desc opt_nulls
		{
			$$ = $3;
			$$->desc = $2;
			if (!$$->nulls_given)
				$$->nulls_first = $2;
			if ($1->kind == AX_PATH)
				$$->path = $1->path;
			else
			{
				$$->expr = $1;
				$$->path = make_standin($1->location);
			}
			/* an id is never missing: NULLS changes nothing */
			if ($$->path->id)
				$$->nulls_first = $2;
		}
	;

/* Where objects lacking the path go; by default last ASC, first DESC (3). */
opt_nulls:
	NULLS_P FIRST_P				{ $$ = palloc0(sizeof(ArgoOrder)); $$->nulls_given = true; $$->nulls_first = true; }
	| NULLS_P LAST_P			{ $$ = palloc0(sizeof(ArgoOrder)); $$->nulls_given = true; }
	| %empty				{ $$ = palloc0(sizeof(ArgoOrder)); }
	;

opt_desc:
	ASC							{ $$ = false; }
	| DESC						{ $$ = true; }
	| %empty				{ $$ = false; }
	;

opt_limit:
	LIMIT literal				{ $$ = $2; }
	| %empty				{ $$ = NULL; }
	;

opt_offset:
	OFFSET literal				{ $$ = $2; }
	| %empty				{ $$ = NULL; }
	;

insert_stmt:
	INSERT INTO name OBJECT_P json_list opt_returning
		{
			$$ = make_insert($3, @3, $5, $6);
		}
	| INSERT INTO name OBJECTS json_value opt_returning
		{
			/* one JSON array of objects, inline or a parameter */
			$$ = make_insert($3, @3, list_make1($5), $6);
			$$->objects_array = true;
		}
	;

opt_returning:
	RETURNING ID_P				{ $$ = make_returning(ARET_IDS, NULL); }
	| RETURNING id_call			{ $$ = make_returning(ARET_IDS, NULL); }
	| RETURNING '*'				{ $$ = make_returning(ARET_OBJECTS, NULL); }
	| RETURNING '*' ',' id_call opt_alias
		{
			$$ = make_returning(ARET_OBJECTS, $5 ? $5 : "_id");
		}
	| %empty				{ $$ = make_returning(ARET_COUNT, NULL); }
	;

json_list:
	json_value					{ $$ = list_make1($1); }
	| json_list ',' json_value	{ $$ = lappend($1, $3); }
	;

json_value:
	JSONTEXT					{ $$ = make_json($1, NULL, @1); }
	| literal					{ $$ = make_json(NULL, $1, @1); }
	;

delete_stmt:
	DELETE_P FROM name opt_where opt_returning
		{
			ArgoStmt   *s = palloc0(sizeof(ArgoStmt));
			ArgoSource *src = palloc0(sizeof(ArgoSource));

			src->coll = $3;
			src->location = @3;
			s->kind = ASTMT_DELETE;
			s->from = list_make1(src);
			s->where = $4;
			s->returning = $5->kind;
			s->returning_id = $5->id_name;
			$$ = s;
		}
	;

update_stmt:
	UPDATE name SET set_list opt_unset opt_where opt_returning
		{
			$$ = make_update($2, @2, list_concat($4, $5), $6, $7);
		}
	| UPDATE name UNSET unset_list opt_where opt_returning
		{
			$$ = make_update($2, @2, $4, $5, $6);
		}
	;

upsert_stmt:
	UPSERT name SET set_list opt_unset opt_where opt_returning
		{
			$$ = make_update($2, @2, list_concat($4, $5), $6, $7);
			$$->upsert = true;
		}
	| UPSERT name SET set_list opt_unset ON INSERT SET set_list opt_where opt_returning
		{
			/* MongoDB's $setOnInsert: those only when the UPSERT inserts */
			$$ = make_update($2, @2, list_concat($4, $5), $10, $11);
			$$->upsert = true;
			$$->insert_sets = $9;
		}
	;

set_list:
	set_item					{ $$ = list_make1($1); }
	| set_list ',' set_item		{ $$ = lappend($1, $3); }
	;

set_item:
	path '=' expr				{ $$ = make_set_x($1, $3); }
	| path PLUS_EQ literal		{ $$ = make_set(ASET_INC, $1, make_json(NULL, $3, @3)); }
	| path MINUS_EQ literal
		{
			$$ = make_set(ASET_INC, $1, make_json(NULL, $3, @3));
			$$->negate = true;
		}
	| path APPEND json_value opt_keep
		{
			$$ = make_set(ASET_APPEND, $1, $3);
			$$->keep = $4;
		}
	| path APPEND EACH json_value opt_keep
		{
			$$ = make_set(ASET_APPEND, $1, $4);
			$$->each = true;
			$$->keep = $5;
		}
	| path ADD_P json_value		{ $$ = make_set(ASET_ADD, $1, $3); }
	| path ADD_P EACH json_value
		{
			$$ = make_set(ASET_ADD, $1, $4);
			$$->each = true;
		}
	| path REMOVE json_value	{ $$ = make_set(ASET_REMOVE, $1, $3); }
	| path REMOVE EACH json_value
		{
			$$ = make_set(ASET_REMOVE, $1, $4);
			$$->each = true;
		}
	;

/* APPEND … KEEP LAST n (FIRST n): a bounded array, MongoDB's $push with $slice */
opt_keep:
	KEEP LAST_P literal			{ $$ = $3; }
	| KEEP FIRST_P literal		{ $$ = $3; $$->keep_first = true; }
	| %empty				{ $$ = NULL; }
	;

opt_unset:
	UNSET unset_list			{ $$ = $2; }
	| %empty				{ $$ = NIL; }
	;

unset_list:
	unset_item					{ $$ = list_make1($1); }
	| unset_list ',' unset_item	{ $$ = lappend($1, $3); }
	;

unset_item:
	path
		{
			$$ = make_set(ASET_UNSET, $1, NULL);
		}
	;

pred:
	pred AND pred				{ $$ = pred_combine(APRED_AND, $1, $3); }
	| pred OR pred				{ $$ = pred_combine(APRED_OR, $1, $3); }
	| NOT pred					{ $$ = make_pred(APRED_NOT, $2, NULL); }
	| '(' pred ')'				{ $$ = $2; }
	| leaf						{ $$ = $1; }
	;

leaf:
	expr cmp_op expr			{ $$ = make_compare(ps, $1, $2, $3); }
	| expr '=' expr				{ $$ = make_compare(ps, $1, ACMP_EQ, $3); }
	| expr like_op expr			{ $$ = make_like_x(ps, $1, $2, $3); }
	| expr TSMATCH expr
		{
			$$ = make_leaf(APRED_TEXT, expr_plain_path(ps, $1, "@@"), ACMP_EQ,
						   expr_literal(ps, $3, "@@"), NULL);
		}
	| expr NOT like_op expr		{ $$ = make_pred(APRED_NOT, make_like_x(ps, $1, $3, $4), NULL); }
	| expr BETWEEN expr AND expr	{ $$ = make_between(ps, $1, $3, $5); }
	| expr NOT BETWEEN expr AND expr
		{
			$$ = make_pred(APRED_NOT, make_between(ps, $1, $4, $6), NULL);
		}
	| expr IN_P '(' expr_list ')'		{ $$ = make_in_x(ps, $1, $4); }
	| expr NOT IN_P '(' expr_list ')'	{ $$ = make_pred(APRED_NOT, make_in_x(ps, $1, $5), NULL); }
	| expr IN_P PARAM			{ $$ = make_in_param_x(ps, $1, make_param(ps, $3, @3)); }
	| expr NOT IN_P PARAM
		{
			$$ = make_pred(APRED_NOT, make_in_param_x(ps, $1, make_param(ps, $4, @4)), NULL);
		}
	| expr cmp_op ANY path		{ $$ = make_leaf(APRED_ANY, $4, $2, expr_literal(ps, $1, "ANY"), NULL); }
	| expr '=' ANY path			{ $$ = make_leaf(APRED_ANY, $4, ACMP_EQ, expr_literal(ps, $1, "ANY"), NULL); }
	| EXISTS path				{ $$ = make_leaf(APRED_EXISTS, $2, ACMP_EQ, NULL, NULL); }
	| expr IS NULL_P			{ $$ = make_null_test(APRED_ISNULL, $1); }
	| expr IS NOT NULL_P		{ $$ = make_null_test(APRED_ISNOTNULL, $1); }
	;

/* An expression (reference.md §9.1); a sign binds to a number only where an operand begins (scan.l). */
expr:
	primary						{ $$ = $1; }
	| '-' expr %prec UMINUS		{ $$ = make_neg($2, @1); }
	| expr '+' expr				{ $$ = make_op('+', $1, $3, @2); }
	| expr '-' expr				{ $$ = make_op('-', $1, $3, @2); }
	| expr '*' expr				{ $$ = make_op('*', $1, $3, @2); }
	| expr '/' expr				{ $$ = make_op('/', $1, $3, @2); }
	| expr '%' expr				{ $$ = make_op('%', $1, $3, @2); }
	| expr CONCAT expr			{ $$ = make_op('|', $1, $3, @2); }
	;

primary:
	literal
		{
			$$ = make_expr(AX_LIT, @1);
			$$->lit = $1;
		}
	| JSONTEXT
		{
			$$ = make_expr(AX_LIT, @1);
			$$->lit = make_literal(ALIT_JSON, @1);
			$$->lit->json_text = $1;
		}
	| path
		{
			$$ = make_expr(AX_PATH, @1);
			$$->path = $1;
		}
	| id_call
		{
			$$ = make_expr(AX_PATH, @1);
			$$->path = $1;
		}
	| '(' expr ')'				{ $$ = $2; $$->parens = true; }
	| agg_call
		{
			/* an aggregate: a target, HAVING's, or inside an expression over aggregates */
			$$ = make_expr(AX_AGG, @1);
			$$->agg = $1;
		}
	| IDENT '(' ')'				{ $$ = make_call($1, NIL, @1); }
	| IDENT '(' expr_list ')'	{ $$ = make_call($1, $3, @1); }
	| CASE_P when_list opt_else END_P
		{
			$$ = make_expr(AX_CASE, @1);
			$$->whens = linitial($2);
			$$->thens = lsecond($2);
			$$->els = $3;
		}
	;

/* GROUP BY paths, ID() (refused by analysis), or expressions: each a path or a stand-in */
group_list:
	expr						{ $$ = list_make1(group_item($1)); }
	| group_list ',' expr		{ $$ = lappend($1, group_item($3)); }
	;

/* CASE's branches: a list of two lists, the predicates and their expressions */
when_list:
	WHEN_P pred THEN_P expr		{ $$ = list_make2(list_make1($2), list_make1($4)); }
	| when_list WHEN_P pred THEN_P expr
		{
			$$ = $1;
			linitial($$) = lappend(linitial($$), $3);
			lsecond($$) = lappend(lsecond($$), $5);
		}
	;

opt_else:
	ELSE_P expr					{ $$ = $2; }
	| %empty				{ $$ = NULL; }
	;

expr_list:
	expr						{ $$ = list_make1($1); }
	| expr_list ',' expr		{ $$ = lappend($1, $3); }
	;

/* LIKE, ILIKE, and POSIX regular expressions, ~ and ~* */
like_op:
	LIKE						{ $$ = ALIKE_LIKE; }
	| ILIKE						{ $$ = ALIKE_ILIKE; }
	| '~'						{ $$ = ALIKE_REGEX; }
	| '~' '*'					{ $$ = ALIKE_IREGEX; }
	;

/* '=' is its own token: it also assigns in SET and joins in ON. */
cmp_op:
	NE							{ $$ = ACMP_NE; }
	| '<'						{ $$ = ACMP_LT; }
	| LE						{ $$ = ACMP_LE; }
	| '>'						{ $$ = ACMP_GT; }
	| GE						{ $$ = ACMP_GE; }
	;

literal:
	STRING
		{
			$$ = make_literal(ALIT_STRING, @1);
			$$->str = $1;
		}
	| NUMBER					{ $$ = make_number($1, @1); }
	| TRUE_P					{ $$ = make_literal(ALIT_BOOL, @1); $$->b = true; }
	| FALSE_P					{ $$ = make_literal(ALIT_BOOL, @1); $$->b = false; }
	| NULL_P					{ $$ = make_literal(ALIT_NULL, @1); }
	| PARAM						{ $$ = make_param(ps, $1, @1); }
	;

path:
	first_step					{ $$ = make_path($1, @1); }
	| path '.' key_name			{ $$ = $1; $$->steps = lappend($$->steps, make_key($3)); }
	| path '[' NUMBER ']'
		{
			ArgoStep   *s = make_index(ps, $3, @3);

			$$ = $1;
			$$->steps = lappend($$->steps, s);
			/* from the end: judged on each object, as a filter is */
			if (s->index < 0)
				$$->filtered = true;
		}
	| path '[' '*' ']'			{ $$ = $1; $$->steps = lappend($$->steps, make_wild()); $$->wild = true; }
	| path '[' '?' pred ']'
		{
			ArgoStep   *s = make_wild();

			s->filter = $4;
			$$ = $1;
			$$->steps = lappend($$->steps, s);
			$$->wild = $$->filtered = true;
		}
	;

first_step:
	IDENT						{ $$ = make_key($1); }
	| unreserved_keyword		{ $$ = make_key($1); }
	| '@'
		{
			/* the element a filter tests (analysis refuses it elsewhere) */
			$$ = palloc0(sizeof(ArgoStep));
			$$->is_self = true;
			$$->key = "@";
		}
	;

name:
	IDENT						{ $$ = $1; }
	| unreserved_keyword		{ $$ = $1; }
	;

/* Keywords that are names too: keys had long been free to use them. */
unreserved_keyword:
	ADD_P | APPEND | ID_P | REMOVE | RETURNING | UPSERT | DISTINCT | HAVING
	| ILIKE | LEFT | OUTER_P | OBJECTS | NULLS_P | FIRST_P | LAST_P | EXCEPT_P | ARRAY_AGG
	| EACH | KEEP | WHEN_P | THEN_P | ELSE_P | END_P
	;

/* After '.', a keyword can only be a key. */
key_name:
	IDENT						{ $$ = $1; }
	| any_keyword				{ $$ = $1; }
	;

any_keyword:
	AND | ANY | AS | ASC | AVG | BETWEEN | BY | COUNT | DELETE_P | DESC
	| EXISTS | FALSE_P | FROM | GROUP_P | IN_P | INNER_P | INSERT | INTO | IS
	| JOIN | LIKE | LIMIT | MAX | MIN | NOT | NULL_P | OBJECT_P | OFFSET | ON
	| OR | ORDER | SELECT | SET | SUM | TRUE_P | UNSET | UPDATE | WHERE
	| ADD_P | APPEND | ID_P | REMOVE | RETURNING | UPSERT | DISTINCT | HAVING
	| ILIKE | LEFT | OUTER_P | OBJECTS | NULLS_P | FIRST_P | LAST_P | EXCEPT_P | ARRAY_AGG
	| EACH | KEEP | CASE_P | WHEN_P | THEN_P | ELSE_P | END_P
	;

%%

/*
 * A keyword used as a key (after '.' or AS) keeps its spelling as written:
 * keys are case sensitive, so "a.Count" is the key "Count".
 */
static int
argo_yylex(YYSTYPE *lval, YYLTYPE *lloc, ArgoParseState *ps)
{
	int			tok = scan_next_token(lval, lloc, ps->scanner);

	if (tok == 0)
		ps->scan.tok_len = -1;	/* at end of input */
	else if (tok >= AND && tok <= WHERE)
		lval->str = pnstrdup(ps->scan.query + ps->scan.tok_start,
							 ps->scan.tok_len);
	return tok;
}

static void
argo_yyerror(YYLTYPE *lloc, ArgoParseState *ps, const char *msg)
{
	const char *q = ps->scan.query;
	int			start = ps->scan.tok_start;
	int			len = ps->scan.tok_len;

	/* bison's only other message; its stack is what ran out */
	if (strcmp(msg, "memory exhausted") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_STATEMENT_TOO_COMPLEX),
				 errmsg("Argo/SQL statement is too deeply nested")));
	if (len < 0)
		argo_syntax_error(q, strlen(q), "syntax error at end of input");
	/* SQL that Argo/SQL does not have is named (0A000), not a syntax error */
	argo_check_unsupported(&ps->scan);
	/* never cut a multibyte character in two */
	if (len == 1 && IS_HIGHBIT_SET(q[start]))
		len = pg_mblen(q + start);
	argo_syntax_error(q, start, "syntax error at or near \"%s\"",
					  pnstrdup(q + start, len));
}

static ArgoLiteral *
make_literal(ArgoLitType type, int location)
{
	ArgoLiteral *lit = palloc0(sizeof(ArgoLiteral));

	lit->type = type;
	lit->location = location;
	return lit;
}

/* Query literals round to the nearest double, as PostgreSQL's float8 does. */
static ArgoLiteral *
make_number(const char *text, int location)
{
	ArgoLiteral *lit = make_literal(ALIT_NUMBER, location);

	lit->num = DatumGetFloat8(DirectFunctionCall1(float8in,
												  CStringGetDatum(text)));
	lit->str = (char *) text;
	return lit;
}

static ArgoLiteral *
make_param(ArgoParseState *ps, const char *digits, int location)
{
	ArgoLiteral *lit = make_literal(ALIT_NULL, location);

	/* no call passes this many parameters; say so before atoi overflows */
	if (strlen(digits) > 6)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_PARAMETER),
				 errmsg("there is no parameter $%s", digits),
				 argo_errquery(ps->scan.query, location)));
	lit->paramno = atoi(digits);
	if (lit->paramno == 0)
		lit->paramno = -1;
	return lit;
}

static ArgoPath *
make_path(ArgoStep *first, int location)
{
	ArgoPath   *p = palloc0(sizeof(ArgoPath));

	p->steps = list_make1(first);
	p->location = location;
	return p;
}

static ArgoStep *
make_key(char *key)
{
	ArgoStep   *s = palloc0(sizeof(ArgoStep));

	s->key = key;
	return s;
}

static ArgoStep *
make_index(ArgoParseState *ps, const char *text, int location)
{
	ArgoStep   *s = palloc0(sizeof(ArgoStep));

	const char *digits = text[0] == '-' ? text + 1 : text;

	if (digits[0] == '\0' || strspn(digits, "0123456789") != strlen(digits) ||
		strcmp(text, "-0") == 0)
		argo_syntax_error(ps->scan.query, location,
						  "array index must be an integer (negative from the end), not %s",
						  text);
	s->is_index = true;
	s->index = pg_strtoint64(text);
	return s;
}

/* [*]: every element of the array there */
static ArgoStep *
make_wild(void)
{
	ArgoStep   *s = palloc0(sizeof(ArgoStep));

	s->is_index = true;
	s->is_wild = true;
	return s;
}

static ArgoPred *
make_pred(ArgoPredKind kind, ArgoPred *l, ArgoPred *r)
{
	ArgoPred   *p = palloc0(sizeof(ArgoPred));

	Assert(r == NULL);
	p->kind = kind;
	p->left = l;
	return p;
}

static ArgoPred *
make_leaf(ArgoPredKind kind, ArgoPath *path, ArgoCmpOp op,
		  ArgoLiteral *lit, ArgoLiteral *lit2)
{
	ArgoPred   *p = make_pred(kind, NULL, NULL);

	p->path = path;
	p->op = op;
	p->lit = lit;
	p->lit2 = lit2;
	return p;
}

/*
 * p IN (a, b, …) means p = a OR p = b OR …, kept as one node: a list of
 * any length becomes one array comparison per value type.
 */
static ArgoPred *
make_in(ArgoPath *path, List *lits)
{
	ArgoPred   *p = make_leaf(APRED_IN, path, ACMP_EQ, NULL, NULL);

	p->lits = lits;
	return p;
}

/* IN $n: the parameter is a JSON array of the values, bound later. */
static ArgoPred *
make_in_param(ArgoPred *p, ArgoLiteral *param)
{
	p->list_param = param;
	return p;
}

static ArgoTarget *
make_agg(ArgoAggKind agg, ArgoPath *path, int location)
{
	ArgoTarget *t = palloc0(sizeof(ArgoTarget));

	t->agg = agg;
	t->path = path;
	t->location = location;
	return t;
}

static ArgoStmt *
make_insert(char *coll, int location, List *objects, ArgoReturningClause *ret)
{
	ArgoStmt   *s = palloc0(sizeof(ArgoStmt));
	ArgoSource *src = palloc0(sizeof(ArgoSource));

	src->coll = coll;
	src->location = location;
	s->kind = ASTMT_INSERT;
	s->from = list_make1(src);
	s->objects = objects;
	s->returning = ret->kind;
	s->returning_id = ret->id_name;
	return s;
}

static ArgoReturningClause *
make_returning(ArgoReturning kind, char *id_name)
{
	ArgoReturningClause *r = palloc(sizeof(ArgoReturningClause));

	r->kind = kind;
	r->id_name = id_name;
	return r;
}

static ArgoStmt *
make_update(char *coll, int location, List *sets, ArgoPred *where, ArgoReturningClause *ret)
{
	ArgoStmt   *s = palloc0(sizeof(ArgoStmt));
	ArgoSource *src = palloc0(sizeof(ArgoSource));

	src->coll = coll;
	src->location = location;
	s->kind = ASTMT_UPDATE;
	s->from = list_make1(src);
	s->sets = sets;
	s->where = where;
	s->returning = ret->kind;
	s->returning_id = ret->id_name;
	return s;
}

/* path LIKE (ILIKE, ~, ~*) pattern */
static ArgoPred *
make_like(ArgoPath *path, ArgoLikeKind kind, ArgoLiteral *pattern)
{
	ArgoPred   *p = make_leaf(APRED_LIKE, path, ACMP_EQ, pattern, NULL);

	p->like = kind;
	return p;
}

/* HAVING's aggregate op literal: a comparison whose left side is the aggregate */
static ArgoPred *
make_agg_leaf(ArgoTarget *agg, ArgoCmpOp op, ArgoLiteral *lit)
{
	ArgoPred   *p = make_leaf(APRED_CMP, NULL, op, lit, NULL);

	p->agg = agg;
	return p;
}

static ArgoJson *
make_json(char *text, ArgoLiteral *lit, int location)
{
	ArgoJson   *j = palloc0(sizeof(ArgoJson));

	j->text = text;
	j->lit = lit;
	j->location = location;
	return j;
}

static ArgoSetItem *
make_set(ArgoSetKind kind, ArgoPath *path, ArgoJson *value)
{
	ArgoSetItem *item = palloc0(sizeof(ArgoSetItem));

	item->kind = kind;
	item->path = path;
	item->value = value;
	return item;
}

/* lit op path is path op' lit */
static ArgoCmpOp
commute(ArgoCmpOp op)
{
	switch (op)
	{
		case ACMP_LT:
			return ACMP_GT;
		case ACMP_LE:
			return ACMP_GE;
		case ACMP_GT:
			return ACMP_LT;
		case ACMP_GE:
			return ACMP_LE;
		default:
			return op;
	}
}

/*
 * A path given alone, as argo_unique takes one: parsed as the target of
 * "SELECT <text> FROM _", which must be all the statement is.
 */
ArgoPath *
argo_parse_path(const char *text)
{
	MemoryContext cxt = CurrentMemoryContext;
	ArgoStmt   *s = NULL;
	ArgoTarget *t;

	/* a path's syntax error names the path, not the statement wrapped round it */
	PG_TRY();
	{
		s = argo_parse(psprintf("SELECT %s FROM _", text));
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		if (e->sqlerrcode != ERRCODE_SYNTAX_ERROR)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("\"%s\" is not a path", text),
				 errdetail("Argo/SQL: %s.", e->message)));
	}
	PG_END_TRY();
	t = list_length(s->targets) == 1 ? linitial(s->targets) : NULL;

	if (t == NULL || t->agg != AAGG_NONE || t->path == NULL || t->alias != NULL || s->star || s->distinct ||
		s->where || s->group_by || s->order_by || s->limit || s->offset ||
		list_length(s->from) != 1 ||
		strcmp(((ArgoSource *) linitial(s->from))->coll, "_") != 0 ||
		((ArgoSource *) linitial(s->from))->alias != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("\"%s\" is not a path", text)));
	return t->path;
}

ArgoStmt *
argo_parse(const char *query)
{
	ArgoParseState ps;

	memset(&ps, 0, sizeof(ps));
	ps.scanner = scan_start(&ps.scan, query);
	if (argo_yyparse(&ps) != 0 || ps.result == NULL)
		argo_syntax_error(query, 0, "syntax error");
	return ps.result;
}

/* ---------- expressions (reference.md §9) ---------- */

static ArgoExpr *
make_expr(ArgoExprKind kind, int location)
{
	ArgoExpr   *e = palloc0(sizeof(ArgoExpr));

	e->kind = kind;
	e->location = location;
	return e;
}

static ArgoExpr *
make_op(char op, ArgoExpr *a, ArgoExpr *b, int location)
{
	ArgoExpr   *e = make_expr(AX_OP, location);

	e->op = op;
	e->args = list_make2(a, b);
	return e;
}

/* -5 written with a space, - 5, is the literal -5 still */
static ArgoExpr *
make_neg(ArgoExpr *a, int location)
{
	ArgoExpr   *e;

	if (a->kind == AX_LIT && a->lit->type == ALIT_NUMBER && a->lit->paramno == 0 && !a->parens)
	{
		a->lit->num = -a->lit->num;
		a->lit->str = a->lit->str[0] == '-' ? a->lit->str + 1 :
			psprintf("-%s", a->lit->str[0] == '+' ? a->lit->str + 1 : a->lit->str);
		a->location = a->lit->location = location;
		return a;
	}
	e = make_expr(AX_NEG, location);
	e->args = list_make1(a);
	return e;
}

static ArgoExpr *
make_call(char *name, List *args, int location)
{
	ArgoExpr   *e = make_expr(AX_FUNC, location);

	e->func = pstrdup(name);
	for (char *c = e->func; *c; c++)
		*c = pg_ascii_tolower((unsigned char) *c);
	e->args = args;
	return e;
}

/* A path, not ID() */
static bool
is_plain_path(ArgoExpr *e)
{
	return e->kind == AX_PATH && !e->path->id;
}

static bool
is_id(ArgoExpr *e)
{
	return e->kind == AX_PATH && e->path->id;
}

static bool
is_value(ArgoExpr *e)
{
	return e->kind == AX_LIT;
}

/* Where only a path may stand (@@, IN $n): a path, else 0A000 naming the place. */
static ArgoPath *
expr_plain_path(ArgoParseState *ps, ArgoExpr *e, const char *what)
{
	if (!is_plain_path(e))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s of an expression is not supported", what),
				 argo_errquery(ps->scan.query, e->location)));
	return e->path;
}

/* Where only a literal may stand: a literal or parameter, else 0A000. */
static ArgoLiteral *
expr_literal(ArgoParseState *ps, ArgoExpr *e, const char *what)
{
	if (!is_value(e))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an expression in %s is not supported", what),
				 errhint("It compares with a literal or a parameter."),
				 argo_errquery(ps->scan.query, e->location)));
	return e->lit;
}

/* A test whose sides are not a path and a literal: judged on documents. */
static ArgoPred *
make_expr_leaf(ArgoPredKind test, ArgoExpr *x)
{
	ArgoPred   *p = make_pred(APRED_EXPR, NULL, NULL);

	p->expr_test = test;
	p->x = x;
	return p;
}

/*
 * l op r: a path and a literal (or ID() and one) are the leaves of 4 and
 * 7 as before; anything else compares computed values.
 */
static ArgoPred *
make_compare(ArgoParseState *ps, ArgoExpr *l, ArgoCmpOp op, ArgoExpr *r)
{
	ArgoPred   *p;

	/* HAVING's aggregate against a literal */
	if (l->kind == AX_AGG && is_value(r))
		return make_agg_leaf(l->agg, op, r->lit);
	if (is_value(l) && r->kind == AX_AGG)
		return make_agg_leaf(r->agg, commute(op), l->lit);
	if (is_plain_path(l) && is_value(r))
		return make_leaf(APRED_CMP, l->path, op, r->lit, NULL);
	if (is_value(l) && is_plain_path(r))
		return make_leaf(APRED_CMP, r->path, commute(op), l->lit, NULL);
	if (is_id(l) && is_value(r))
		return make_leaf(APRED_ID, NULL, op, r->lit, NULL);
	if (is_value(l) && is_id(r))
		return make_leaf(APRED_ID, NULL, commute(op), l->lit, NULL);
	p = make_expr_leaf(APRED_CMP, l);
	p->op = op;
	p->y = r;
	return p;
}

static ArgoPred *
make_like_x(ArgoParseState *ps, ArgoExpr *x, ArgoLikeKind kind, ArgoExpr *pattern)
{
	ArgoPred   *p;

	if (is_plain_path(x) && is_value(pattern))
		return make_like(x->path, kind, pattern->lit);
	p = make_expr_leaf(APRED_LIKE, x);
	p->like = kind;
	p->y = pattern;
	return p;
}

static ArgoPred *
make_between(ArgoParseState *ps, ArgoExpr *x, ArgoExpr *lo, ArgoExpr *hi)
{
	ArgoPred   *p;

	if (is_plain_path(x) && is_value(lo) && is_value(hi))
		return make_leaf(APRED_BETWEEN, x->path, ACMP_EQ, lo->lit, hi->lit);
	if (is_id(x) && is_value(lo) && is_value(hi))
		return pred_combine(APRED_AND, make_leaf(APRED_ID, NULL, ACMP_GE, lo->lit, NULL),
							make_leaf(APRED_ID, NULL, ACMP_LE, hi->lit, NULL));
	p = make_expr_leaf(APRED_BETWEEN, x);
	p->y = lo;
	p->z = hi;
	return p;
}

static ArgoPred *
make_in_x(ArgoParseState *ps, ArgoExpr *x, List *list)
{
	List	   *lits = NIL;
	ListCell   *lc;
	ArgoPred   *p;

	foreach(lc, list)
	{
		if (!is_value(lfirst(lc)))
			break;
		lits = lappend(lits, ((ArgoExpr *) lfirst(lc))->lit);
	}
	if (list_length(lits) == list_length(list) && is_plain_path(x))
		return make_in(x->path, lits);
	if (list_length(lits) == list_length(list) && is_id(x))
	{
		p = make_leaf(APRED_ID, NULL, ACMP_EQ, NULL, NULL);
		p->lits = lits;
		return p;
	}
	p = make_expr_leaf(APRED_IN, x);
	p->ys = list;
	return p;
}

static ArgoPred *
make_in_param_x(ArgoParseState *ps, ArgoExpr *x, ArgoLiteral *param)
{
	if (is_id(x))
		return make_in_param(make_leaf(APRED_ID, NULL, ACMP_EQ, NULL, NULL), param);
	return make_in_param(make_in(expr_plain_path(ps, x, "IN $n"), NIL), param);
}

static ArgoPred *
make_null_test(ArgoPredKind kind, ArgoExpr *x)
{
	if (is_plain_path(x))
		return make_leaf(kind, x->path, ACMP_EQ, NULL, NULL);
	return make_expr_leaf(kind, x);
}

/* A target: a path or ID() as before; anything else is computed and needs AS. */
static ArgoTarget *
make_target(ArgoParseState *ps, ArgoExpr *e, char *alias, int location)
{
	ArgoTarget *t = palloc0(sizeof(ArgoTarget));

	t->agg = AAGG_NONE;
	t->alias = alias;
	t->location = location;
	if (e->kind == AX_AGG)
	{
		e->agg->alias = alias;
		return e->agg;
	}
	if (e->kind == AX_PATH)
	{
		t->path = e->path;
		return t;
	}
	if (alias == NULL)
		argo_syntax_error(ps->scan.query, location,
						  "a computed target needs a name: … AS name");
	t->expr = e;
	return t;
}

/*
 * An aggregate of a path or ID() (COUNT(ID()) is COUNT(*)), or of an
 * expression, computed on each unit's document (path: a stand-in).
 */
static ArgoTarget *
make_agg_of(ArgoParseState *ps, ArgoAggKind agg, ArgoExpr *e, int location)
{
	ArgoTarget *t;

	if (e->kind != AX_PATH)
	{
		t = make_agg(agg, make_standin(e->location), location);
		t->expr = e;
		return t;
	}
	if (agg == AAGG_COUNT && e->path->id)
		return make_agg(AAGG_COUNT_STAR, NULL, location);
	return make_agg(agg, e->path, location);
}

/* SET p = v: a literal or JSON value as before; anything else computed per object. */
static ArgoSetItem *
make_set_x(ArgoPath *path, ArgoExpr *e)
{
	ArgoSetItem *item;

	if (e->kind == AX_LIT)
		return make_set(ASET_SET, path,
						e->lit->type == ALIT_JSON ? make_json(e->lit->json_text, NULL, e->location) :
						make_json(NULL, e->lit, e->location));
	item = make_set(ASET_SET, path, NULL);
	item->expr = e;
	return item;
}

/*
 * The path of something computed: no key, judged on documents (a test's,
 * an order's), as a path through a filter is; analysis gives it its
 * collection.
 */
static ArgoPath *
make_standin(int location)
{
	ArgoPath   *p = palloc0(sizeof(ArgoPath));

	p->keystr = "";
	p->prefix = "";
	p->filtered = true;
	p->location = location;
	return p;
}

/* A GROUP BY item: a path (a name too), or an expression's stand-in. */
static ArgoPath *
group_item(ArgoExpr *e)
{
	ArgoPath   *p;

	if (e->kind == AX_PATH)
		return e->path;
	p = make_standin(e->location);
	p->expr = e;
	return p;
}

/* ARRAY_AGG, FIRST, LAST of a path or ID(), or of an expression (path: a stand-in). */
static ArgoTarget *
make_value_agg(ArgoAggKind agg, ArgoExpr *e, int location)
{
	ArgoTarget *t;

	if (e->kind == AX_PATH)
		return make_agg(agg, e->path, location);
	t = make_agg(agg, make_standin(e->location), location);
	t->expr = e;
	return t;
}
