// SPDX-License-Identifier: GPL-2.0
/* A stream of JSON documents (see json_docs.h). */
#include <stdlib.h>
#include <string.h>

#include "json_docs.h"

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 65536, n = 0, got;
	char *buf = malloc(cap);

	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *p = realloc(buf, cap *= 2);

			if (!p)
				free(buf);
			buf = p;
		}
	}
	*len = n;
	return buf;
}

int fnblk_json_each(FILE *f, int (*fn)(json_t *doc, int index, void *arg),
		    void *arg, char *err, size_t errlen)
{
	size_t len, off = 0;
	char *buf = read_all(f, &len);
	int docs = 0, ret = 0;

	if (!buf || ferror(f)) {
		snprintf(err, errlen, "%s", buf ? "read error" : "out of memory");
		free(buf);
		return -1;
	}
	for (;;) {
		json_error_t e;
		json_t *doc;

		off += strspn(buf + off, " \t\r\n");
		if (off >= len)
			break;
		doc = json_loadb(buf + off, len - off,
				 JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &e);
		if (!doc) {
			snprintf(err, errlen, "document %d: line %d column %d: %s",
				 docs + 1, e.line, e.column, e.text);
			ret = -1;
			break;
		}
		off += (size_t)e.position;
		ret = fn ? fn(doc, docs, arg) : 0;
		json_decref(doc);
		docs++;
		if (ret)
			break;
	}
	free(buf);
	return ret ? ret : docs;
}
