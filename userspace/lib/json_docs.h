/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a stream of JSON documents: one document, or JSON lines, as
 * every fnblk program's -j output is (fnblkctl json, the tests' JSON check).
 */
#ifndef FNBLK_JSON_DOCS_H
#define FNBLK_JSON_DOCS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/*
 * Call fn(doc, index, arg) for each document of f, in order (doc is freed
 * after the call). Returns the number of documents, a non-zero return of
 * fn, or -1 with err set when the input is not JSON or cannot be read.
 */
int fnblk_json_each(FILE *f, int (*fn)(json_t *doc, int index, void *arg),
		    void *arg, char *err, size_t errlen);

#endif /* FNBLK_JSON_DOCS_H */
