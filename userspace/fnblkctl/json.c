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
#include "json_docs.h"

static json_t *walk(json_t *v, const char *path)
{
	char seg[128];

	while (v && *path) {
		size_t len = strcspn(path, ".");
		const char *why;

		if (len == 0 || len >= sizeof(seg)) {
			path += len + (path[len] == '.');
			continue;
		}
		memcpy(seg, path, len);
		seg[len] = '\0';
		path += len + (path[len] == '.');
		if (json_is_array(v)) {
			uint64_t i;

			v = fnblk_parse_uint(seg, 0, SIZE_MAX, &i, &why) ? NULL :
			    json_array_get(v, (size_t)i);
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

struct query {
	const char *path;
	bool length;
	int missing;	/* document without the path, from 1 */
};

static int print_doc(json_t *doc, int index, void *arg)
{
	struct query *q = arg;
	json_t *v = walk(doc, q->path);

	if (!v) {
		q->missing = index + 1;
		return 1;
	}
	if (q->length)
		printf("%zu\n", json_is_array(v) ? json_array_size(v) :
		       json_is_object(v) ? json_object_size(v) : 0);
	else if (*q->path)
		print_value(v);
	return 0;
}

int do_json(int argc, char **argv)
{
	static const char *const usage[] = { "[PATH[#]] < INPUT", NULL };
	static const struct cli_program prog = {
		.name = "fnblkctl json", .usage = usage,
		.about = "Check that standard input is JSON (one document or "
			 "JSON lines) and print the value at PATH of each "
			 "document: keys and array indexes joined by dots "
			 "(summary.mean_n, 0.name, n_hist_ns.3). A trailing # "
			 "prints the length of an array or object. Strings print "
			 "raw, other values as compact JSON. For test systems "
			 "without jq(1).",
	};
	const char *path;
	char pathbuf[512], err[256];
	struct query q = { .path = pathbuf };
	int docs, ret = object_args(&prog, &argc, &argv);

	if (ret != CLI_CONTINUE)
		return ret;
	path = argc > 1 ? argv[1] : "";
	if (argc > 2)
		return usage_error("json: expected at most one PATH");
	if (strlen(path) >= sizeof(pathbuf))
		return usage_error("json: PATH too long");
	strcpy(pathbuf, path);
	if (*pathbuf && pathbuf[strlen(pathbuf) - 1] == '#') {
		pathbuf[strlen(pathbuf) - 1] = '\0';
		q.length = true;
	}
	docs = fnblk_json_each(stdin, print_doc, &q, err, sizeof(err));
	if (docs < 0)
		return runtime_error("json: %s", err);
	if (q.missing)
		return runtime_error("json: document %d has no '%s'",
				     q.missing, pathbuf);
	if (!docs)
		return runtime_error("json: no JSON on standard input");
	return 0;
}
