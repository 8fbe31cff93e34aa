/*
 * common.h — the constants every layer shares: the schema of the
 * collections' tables and the limits of keys.  The lowest layer's
 * modules (errors, keypath, numbers, sqlbuf, plancache, rowcursor, ids)
 * have headers of their own; nothing here knows collections or
 * statements.
 */
#ifndef ARGO_COMMON_H
#define ARGO_COMMON_H

#include "postgres.h"


/* Schema holding every collection's tables and sequence. */
#define ARGO_SCHEMA "argo_data"

/*
 * Flattened keys go into B-tree indexes, whose rows are limited to about
 * 2.7 kB; the key and the indexed prefix of a string value share that.
 */
#define ARGO_MAX_KEY_BYTES	1024
#define ARGO_STR_PREFIX_CHARS 256

#endif							/* ARGO_COMMON_H */
