/*
 * isotime.h — ISO 8601 timestamps with their zone, checked (isotime.c).
 */
#ifndef ARGO_ISOTIME_H
#define ARGO_ISOTIME_H

#include "postgres.h"

extern bool argo_iso_with_zone(const char *s);

#endif							/* ARGO_ISOTIME_H */
