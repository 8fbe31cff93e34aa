/*
 * common.h — the lowest layer: what every other layer may use.
 *
 * Errors that quote long statements in bounded excerpts, checked function
 * arguments, the flattened-key format, JSON numbers as doubles and back,
 * SQL text with its parameters, prepared statements run through SPI, and
 * object ids in bulk.  Nothing here knows collections or statements.
 */
#ifndef ARGO_COMMON_H
#define ARGO_COMMON_H

#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "tcop/dest.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/portal.h"
#include "utils/snapshot.h"

/* Schema holding every collection's tables and sequence. */
#define ARGO_SCHEMA "argo_data"

/*
 * Flattened keys go into B-tree indexes, whose rows are limited to about
 * 2.7 kB; the key and the indexed prefix of a string value share that.
 */
#define ARGO_MAX_KEY_BYTES	1024
#define ARGO_STR_PREFIX_CHARS 256

/* errors.c: errors that quote a bounded excerpt of long statements */
extern int	argo_errquery(const char *query, int location);
extern void argo_with_bounded_errors(void (*fn) (void *), void *arg,
									 void (*amend) (ErrorData *));
extern ErrorData *argo_in_subtransaction(void (*fn) (void *), void *arg);
extern char *argo_text_arg(FunctionCallInfo fcinfo, int argno, const char *what);

/* ---------- keys (keypath.c) ---------- */

/* Kinds of row a flattened key can stand for. */
#define ARGO_MARK_EMPTY_OBJECT	"{}"
#define ARGO_MARK_EMPTY_ARRAY	"[]"

extern void keypath_append_key(StringInfo buf, const char *key, int len,
							   bool first);
extern void keypath_append_index(StringInfo buf, int64 index);
extern void keypath_check_length(int len);
extern char *keypath_prefix_upper(const char *prefix);
extern struct HTAB *keystr_hash_create(const char *name, Size entrysize,
									   MemoryContext cxt);
/* A parsed flattened key. */
typedef enum KeySegKind
{
	KSEG_KEY,
	KSEG_INDEX,
	KSEG_EMPTY_OBJECT,
	KSEG_EMPTY_ARRAY,
	KSEG_WILD					/* [*] of a query's path: never in a stored key */
} KeySegKind;

typedef struct KeySeg
{
	KeySegKind	kind;
	const char *key;			/* unescaped, not terminated */
	int			keylen;
	int64		index;
} KeySeg;

extern int	keypath_parse(const char *keystr, int len, KeySeg **segs);
extern int	keyseg_cmp(const KeySeg *a, const KeySeg *b);
extern bool keypath_matches(const KeySeg *key, int nkey, const KeySeg *pattern,
							int npat, bool subtree);
extern char *keypath_from_segs(const KeySeg *segs, int n);

/* A key as the dictionary knows it, parsed once per backend. */
typedef struct ArgoKey
{
	int32		id;
	char	   *str;
	int			len;
	KeySeg	   *segs;
	int			nsegs;
} ArgoKey;

/* ---------- numbers (numbers.c) ---------- */

extern double argo_number_from_numeric(Numeric num, char **exact);
extern Numeric argo_number_to_numeric(double d);
extern Numeric argo_number_from_exact(text *exact, double d);

/* ---------- SQL building (sqlbuf.c) ---------- */

/* SQL text plus the values of its $n parameters. */
typedef struct SqlBuf
{
	StringInfoData sql;
	int			nparams;
	int			maxparams;
	Oid		   *types;
	Datum	   *values;
	char	   *nulls;
	const char **notes;			/* what each parameter is, for argo_explain */
	bool		custom_plan;	/* its best plan depends on the values */
	bool		generic_plan;	/* … never does: plan it once */
	bool		fast_start;		/* streamed: plan for its first rows, as a cursor */
} SqlBuf;

extern SqlBuf *sqlbuf_create(void);
extern int	sqlbuf_param(SqlBuf *buf, Oid type, Datum value);
extern void sqlbuf_add_param(SqlBuf *buf, Oid type, Datum value);
extern void sqlbuf_note(SqlBuf *buf, int paramno, const char *note);
extern void sqlbuf_add_text(SqlBuf *buf, const char *text);
extern void sqlbuf_replace(SqlBuf *buf, const char *placeholder,
						   const char *text);
extern char *argo_function(const char *fn);
extern char *extension_function(const char *extname, const char *fn);

/* sqlpretty.c: generated SQL over several lines, for argo_explain */
extern List *sql_pretty_lines(const char *sql);

/* ---------- prepared statements (plancache.c) ---------- */

extern SPIPlanPtr argo_prepare(SqlBuf *buf, int cursor_options);
extern Portal argo_open_cursor(SqlBuf *buf, bool read_only);
extern void argo_spi_connect(void);
extern int	argo_run(SqlBuf *buf, bool read_only);
extern int	argo_run_with(SqlBuf *buf, int cursor_options, SPIExecuteOptions *opts);
extern int	argo_run_snapshot(SqlBuf *buf, Snapshot snap);
extern ParamListInfo argo_param_list(SqlBuf *buf);

/* rowcursor.c: a read-only statement run a few rows at a time */
typedef struct RowCursor RowCursor;

extern RowCursor *rowcursor_open(SqlBuf *buf, DestReceiver *dest);
extern bool rowcursor_fetch(RowCursor *c, uint64 n);
extern void rowcursor_close(RowCursor *c);
extern int	argo_pin_search_path(void);
extern void argo_unpin_search_path(int nest);
extern void run_ddl(const char *sql);

/* ids.c: object ids in bulk */
extern Datum objid_array(const int64 *ids, int n);
extern void objid_sort(int64 *ids, int n);

#endif							/* ARGO_COMMON_H */
