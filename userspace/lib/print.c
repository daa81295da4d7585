// SPDX-License-Identifier: GPL-2.0
/* The text/JSON printer of every fnblk program (see print.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "print.h"
#include "units.h"

#define MAX_DEPTH	16

static bool json_mode;
static bool compact;
static json_t *root;
static json_t *stack[MAX_DEPTH];
static int depth;
static FILE *out;

static FILE *output(void)
{
	return out ? out : stdout;
}

void pr_set_file(FILE *f)
{
	out = f;
}

void pr_init(bool json)
{
	json_mode = json;
}

bool pr_json(void)
{
	return json_mode;
}

void pr_set_compact(bool on)
{
	compact = on;
}

/* Attach v (reference stolen) to the innermost open container. */
static void attach(const char *key, json_t *v)
{
	json_t *top;

	if (!v)
		return;
	if (!depth) {
		json_decref(v);
		return;
	}
	top = stack[depth - 1];
	if (json_is_array(top))
		json_array_append_new(top, v);
	else if (key)
		json_object_set_new(top, key, v);
	else
		json_decref(v);	/* a text-only value */
}

static void open_container(const char *key, json_t *c)
{
	if (!json_mode)
		return;
	if (!c || depth == MAX_DEPTH) {
		fprintf(stderr, "JSON output nested too deep\n");
		exit(1);
	}
	if (depth)
		attach(key, json_incref(c));
	else
		root = json_incref(c);
	stack[depth++] = c;
	json_decref(c);	/* the parent (or root) holds it now */
}

void pr_open_object(const char *key)
{
	if (json_mode)
		open_container(key, json_object());
}

void pr_open_array(const char *key)
{
	if (json_mode)
		open_container(key, json_array());
}

void pr_close_object(void)
{
	if (json_mode && depth)
		depth--;
}

void pr_close_array(void)
{
	pr_close_object();
}

int pr_end(void)
{
	int ret;

	if (!json_mode || !root)
		return ferror(output()) ? -1 : 0;
	ret = json_dumpf(root, output(), compact ? JSON_COMPACT : JSON_INDENT(2));
	fputc('\n', output());
	if (fflush(output()) || ferror(output()))
		ret = -1;
	json_decref(root);
	root = NULL;
	depth = 0;
	return ret;
}

void pr_text(const char *fmt, ...)
{
	va_list ap;

	if (json_mode)
		return;
	va_start(ap, fmt);
	vfprintf(output(), fmt, ap);
	va_end(ap);
}

void pr_u64(const char *key, const char *fmt, uint64_t v)
{
	if (json_mode)
		attach(key, json_integer((json_int_t)v));
	else if (fmt)
		fprintf(output(), fmt, (unsigned long long)v);
}

void pr_int(const char *key, const char *fmt, int64_t v)
{
	if (json_mode)
		attach(key, json_integer((json_int_t)v));
	else if (fmt)
		fprintf(output(), fmt, (long long)v);
}

void pr_double(const char *key, const char *fmt, double v)
{
	if (json_mode)
		attach(key, isfinite(v) ? json_real(v) : json_null());
	else if (fmt)
		fprintf(output(), fmt, v);
}

void pr_str(const char *key, const char *fmt, const char *s)
{
	if (json_mode)
		attach(key, s ? json_string(s) : json_null());
	else if (fmt)
		fprintf(output(), fmt, s ? s : "-");
}

void pr_bool(const char *key, const char *fmt, bool v)
{
	if (json_mode)
		attach(key, json_boolean(v));
	else if (fmt)
		fprintf(output(), fmt, v ? "yes" : "no");
}

void pr_size(const char *key, const char *fmt, uint64_t bytes)
{
	char buf[FNBLK_UNIT_BUFLEN];

	if (json_mode)
		attach(key, json_integer((json_int_t)bytes));
	else if (fmt)
		fprintf(output(), fmt, fnblk_format_size(bytes, buf, sizeof(buf)));
}

void pr_size_exact(const char *key, const char *fmt, uint64_t bytes)
{
	char buf[FNBLK_UNIT_BUFLEN];

	if (json_mode)
		attach(key, json_integer((json_int_t)bytes));
	else if (fmt)
		fprintf(output(), fmt, fnblk_format_size_exact(bytes, buf, sizeof(buf)));
}

void pr_rate(const char *key, const char *fmt, uint64_t bytes_per_s)
{
	char buf[FNBLK_UNIT_BUFLEN];

	if (json_mode)
		attach(key, json_integer((json_int_t)bytes_per_s));
	else if (fmt)
		fprintf(output(), fmt, fnblk_format_rate(bytes_per_s, buf, sizeof(buf)));
}

void pr_duration(const char *key, const char *fmt, uint64_t ns)
{
	char buf[FNBLK_UNIT_BUFLEN];

	if (json_mode)
		attach(key, json_integer((json_int_t)ns));
	else if (fmt)
		fprintf(output(), fmt, fnblk_format_duration(ns, buf, sizeof(buf)));
}

void pr_duration_exact(const char *key, const char *fmt, uint64_t ns)
{
	char buf[FNBLK_UNIT_BUFLEN];

	if (json_mode)
		attach(key, json_integer((json_int_t)ns));
	else if (fmt)
		fprintf(output(), fmt, fnblk_format_duration_exact(ns, buf, sizeof(buf)));
}
