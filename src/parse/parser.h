/*
 * parser.h — what the scanner and the grammar share; nothing else needs it.
 */
#ifndef ARGO_PARSER_H
#define ARGO_PARSER_H

#include "parse/parse.h"

/* Scanner state, reached from flex as yyextra. */
typedef struct ArgoScanState
{
	const char *query;
	int			pos;			/* byte offset of the next character */
	int			tok_start;		/* last token, for error messages */
	int			tok_len;
	int			prev_token;
	int			prev2_token;
	int			clause;			/* the last clause keyword: SELECT, FROM, ON, WHERE … */
	bool		path_end;		/* the last token can end a path */
	int			json_start;
	int			json_depth;
} ArgoScanState;

/* What the grammar builds and hands back. */
typedef struct ArgoParseState
{
	ArgoScanState scan;
	void	   *scanner;
	ArgoStmt   *result;
} ArgoParseState;

#define ARGO_YYLTYPE int
union ARGO_YYSTYPE;

extern void *scan_start(ArgoScanState *st, const char *query);
extern int	scan_next_token(union ARGO_YYSTYPE *lval, int *lloc, void *scanner);
extern bool scan_bracket_is_subscript(ArgoScanState *st);
extern char *scan_json_string(const char *text, int len);

/* A 42601 syntax error pointing into the text (the format at the call, for translation) */
#define argo_syntax_error(query, location, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_SYNTAX_ERROR), \
			 errmsg(__VA_ARGS__), \
			 argo_errquery((query), (location))))

/* unsupported.c */
extern void argo_check_unsupported(ArgoScanState *st);
extern void argo_check_alias_word(ArgoScanState *st, const char *word, int location);

#endif							/* ARGO_PARSER_H */
