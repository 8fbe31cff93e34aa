/*
 * plancache.h — statements prepared once per backend and run through SPI, the pinned search_path, DDL (plancache.c).
 */
#ifndef ARGO_PLANCACHE_H
#define ARGO_PLANCACHE_H

#include "postgres.h"

#include "executor/spi.h"
#include "utils/portal.h"
#include "utils/snapshot.h"

#include "common/sqlbuf.h"

extern SPIPlanPtr argo_prepare(SqlBuf *buf, int cursor_options);
extern Portal argo_open_cursor(SqlBuf *buf, bool read_only);
extern void argo_spi_connect(void);
extern int	argo_run(SqlBuf *buf, bool read_only);
extern int	argo_run_with(SqlBuf *buf, int cursor_options, SPIExecuteOptions *opts);
extern int	argo_run_snapshot(SqlBuf *buf, Snapshot snap);
extern ParamListInfo argo_param_list(SqlBuf *buf);
extern int	argo_pin_search_path(void);
extern void argo_unpin_search_path(int nest);
extern void run_ddl(const char *sql);

#endif							/* ARGO_PLANCACHE_H */
