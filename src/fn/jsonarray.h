/*
 * jsonarray.h — the elements of one JSON array read from a file, one at a
 * time (jsonarray.c), for argo_load_file.
 */
#ifndef ARGO_JSONARRAY_H
#define ARGO_JSONARRAY_H

#include "lib/stringinfo.h"

typedef struct ArrayReader
{
	FILE	   *file;
	const char *path;
	int64		line;			/* newlines read so far */
	int64		element;		/* elements read, the current one included */
	int64		element_line;	/* the line the current element starts on */
	int64		bytes;			/* of the file, read so far */
	bool		ended;			/* the array's ']' has been read */
} ArrayReader;

extern bool array_reader_start(ArrayReader *r, FILE *file, const char *path);
extern bool array_reader_next(ArrayReader *r, StringInfo element);

#endif
