/*
 * feed.h — the change feed's messages, logged with each change (feed.c),
 * their bodies checked (feedbody.c).
 */
#ifndef ARGO_FEED_H
#define ARGO_FEED_H

#include "utils/jsonb.h"

#include "store/collection.h"

#define ARGO_FEED_PREFIX "argo"
/*
 * An event's token (its "_id"): its transaction's commit LSN and its
 * number there, in hex digits (feedplugin.c writes it, fn/feed.c reads it)
 */
#define FEED_LSN_DIGITS 16
#define FEED_TOKEN_DIGITS (FEED_LSN_DIGITS + 8)

typedef enum FeedMode
{
	FEED_OFF,
	FEED_CHANGES,				/* updates say what changed */
	FEED_FULL					/* … and carry the object after */
} FeedMode;

/* catalog.c */
extern void drop_feed(ArgoCollection *c, bool collection_dropped);

/* feed.c */
extern FeedMode feed_mode(ArgoCollection *c);
extern bool feed_before_change(ArgoCollection *c);
extern void feed_log_insert(ArgoCollection *c, int64 objid, Jsonb *doc);
extern void feed_log_update(ArgoCollection *c, FeedMode mode, bool before_change,
							int64 objid, Jsonb *before, Jsonb *after);
extern void feed_log_delete(ArgoCollection *c, int64 objid, Jsonb *before);
extern void feed_log_drop(ArgoCollection *c);

/* feedbody.c */
extern bool feed_body_valid(const char *op, const char *body, int len);

#endif							/* ARGO_FEED_H */
