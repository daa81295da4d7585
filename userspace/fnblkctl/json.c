// SPDX-License-Identifier: GPL-2.0
/*
 * fnblkctl json [PATH]: check that standard input is JSON (one document
 * or JSON lines) and print the value at PATH of each document. The test
 * VM has no jq and no python; this keeps the selftests to sh + fnblkctl.
 *
 * PATH is keys and array indexes joined by dots ("summary.mean_n",
 * "0.name", "n_hist_ns.3"); a trailing "#" prints the length of the array
 * or object instead. Strings print raw, numbers as JSON, containers as
 * compact JSON. Exit 1 if the input does not parse or PATH is absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fnblkctl.h"

static json_t *walk(json_t *v, const char *path)
{
	char seg[128];

	while (v && *path) {
		size_t len = strcspn(path, ".");
		char *end;

		if (len == 0 || len >= sizeof(seg)) {
			path += len + (path[len] == '.');
			continue;
		}
		memcpy(seg, path, len);
		seg[len] = '\0';
		path += len + (path[len] == '.');
		if (json_is_array(v)) {
			unsigned long i = strtoul(seg, &end, 10);

			v = *end ? NULL : json_array_get(v, i);
		} else {
			v = json_object_get(v, seg);
		}
	}
	return v;
}

static void print_value(json_t *v)
{
	char *s;

	if (json_is_string(v)) {
		puts(json_string_value(v));
		return;
	}
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	puts(s ? s : "");
	free(s);
}

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

int do_json(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "";
	char pathbuf[512];
	bool length = false;
	size_t len, off = 0;
	int docs = 0;
	char *buf;

	if (argc > 1 && is_help(argv[1])) {
		printf("usage: fnblkctl json [PATH[#]] < input\n\n"
		       "Check that the input is JSON and print the value at "
		       "PATH (keys and indexes\njoined by dots) of every "
		       "document; PATH# prints its length.\n");
		return 0;
	}
	if (argc > 2)
		return usage_error("json: expected at most one PATH");
	if (strlen(path) >= sizeof(pathbuf))
		return usage_error("json: PATH too long");
	strcpy(pathbuf, path);
	if (*pathbuf && pathbuf[strlen(pathbuf) - 1] == '#') {
		pathbuf[strlen(pathbuf) - 1] = '\0';
		length = true;
	}
	buf = read_all(stdin, &len);
	if (!buf)
		return runtime_error("json: out of memory");
	for (;;) {
		json_error_t e;
		json_t *doc, *v;

		off += strspn(buf + off, " \t\r\n");
		if (off >= len)
			break;
		doc = json_loadb(buf + off, len - off,
				 JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &e);
		if (!doc) {
			free(buf);
			return runtime_error("json: document %d: line %d "
					     "column %d: %s", docs + 1, e.line,
					     e.column, e.text);
		}
		docs++;
		off += (size_t)e.position;
		v = walk(doc, pathbuf);
		if (!v) {
			json_decref(doc);
			free(buf);
			return runtime_error("json: document %d has no '%s'",
					     docs, pathbuf);
		}
		if (length)
			printf("%zu\n", json_is_array(v) ? json_array_size(v) :
			       json_is_object(v) ? json_object_size(v) : 0);
		else if (*pathbuf)
			print_value(v);
		json_decref(doc);
	}
	free(buf);
	if (!docs)
		return runtime_error("json: no JSON on standard input");
	return 0;
}
