/*
 * numbers.h — JSON numbers as doubles and back, with the exact text jsonb keeps (numbers.c).
 */
#ifndef ARGO_NUMBERS_H
#define ARGO_NUMBERS_H

#include "postgres.h"

#include "utils/numeric.h"

extern double argo_number_from_numeric(Numeric num, char **exact);
extern Numeric argo_number_to_numeric(double d);
extern Numeric argo_number_from_exact(text *exact, double d);
extern bool argo_json_number_syntax(const char *s);

#endif							/* ARGO_NUMBERS_H */
