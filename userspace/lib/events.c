// SPDX-License-Identifier: GPL-2.0
/*
 * Reader and writers of fleet event files (see events.h). CSV is parsed by
 * hand (five unsigned integers a row); JSON lines go through jansson.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* getline, strdup under -std=c11 */
#endif
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "events.h"
#include "units.h"

void fnblk_events_init(struct fnblk_events *e)
{
	memset(e, 0, sizeof(*e));
	/*
	 * jansson seeds its hash tables from /dev/urandom on first use, which
	 * blocks in a fresh guest until the CRNG is ready (seconds under TCG)
	 * and would stall a fleet. Hash-flooding is no threat here.
	 */
	json_object_seed(0x666e626c);
}

void fnblk_events_free(struct fnblk_events *e)
{
	size_t i;

	for (i = 0; i < e->nr_params; i++) {
		free(e->params[i].name);
		free(e->params[i].value);
	}
	free(e->params);
	free(e->source);
	free(e->ev);
	fnblk_events_init(e);
}

int fnblk_events_set_source(struct fnblk_events *e, const char *source)
{
	char *s = strdup(source);

	if (!s)
		return -1;
	free(e->source);
	e->source = s;
	return 0;
}

int fnblk_events_set_param(struct fnblk_events *e, const char *name,
			   const char *value)
{
	struct fnblk_event_param *p;
	char *v = strdup(value);
	size_t i;

	if (!v)
		return -1;
	for (i = 0; i < e->nr_params; i++) {
		if (!strcmp(e->params[i].name, name)) {
			free(e->params[i].value);
			e->params[i].value = v;
			return 0;
		}
	}
	p = realloc(e->params, (e->nr_params + 1) * sizeof(*p));
	if (!p)
		goto fail;
	e->params = p;
	p[e->nr_params].name = strdup(name);
	if (!p[e->nr_params].name)
		goto fail;
	p[e->nr_params].value = v;
	e->nr_params++;
	return 0;
fail:
	free(v);
	errno = ENOMEM;
	return -1;
}

const char *fnblk_events_param(const struct fnblk_events *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->nr_params; i++)
		if (!strcmp(e->params[i].name, name))
			return e->params[i].value;
	return NULL;
}

int fnblk_events_add(struct fnblk_events *e, const struct fnblk_event *ev)
{
	if (e->nr == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 256;
		struct fnblk_event *n = realloc(e->ev, cap * sizeof(*n));

		if (!n)
			return -1;
		e->ev = n;
		e->cap = cap;
	}
	e->ev[e->nr++] = *ev;
	return 0;
}

static int cmp_start(const void *pa, const void *pb)
{
	const struct fnblk_event *a = pa, *b = pb;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	if (a->cycle != b->cycle)
		return a->cycle < b->cycle ? -1 : 1;
	return 0;
}

void fnblk_events_sort(struct fnblk_events *e)
{
	if (e->nr > 1)
		qsort(e->ev, e->nr, sizeof(*e->ev), cmp_start);
}

/* ---- reading ---- */

struct reader {
	const char *name;
	unsigned long line;
	char *err;
	size_t errlen;
};

static int fail(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(rd->err, rd->errlen, "%s:%lu: ", rd->name, rd->line);
	if (n < 0 || (size_t)n >= rd->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int parse_u64(const char **p, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	*v = strtoull(*p, &end, 10);
	if (errno)
		return -1;
	*p = end;
	return 0;
}

static int check_event(struct reader *rd, const struct fnblk_event *ev)
{
	if (ev->end_ns < ev->start_ns)
		return fail(rd, "end_ns %" PRIu64 " before start_ns %" PRIu64,
			    ev->end_ns, ev->start_ns);
	return 0;
}

int fnblk_events_meta_line(struct fnblk_events *e, char *s, const char **why)
{
	char *eq;

	s = trim(s + 1);
	if (!strncmp(s, "source=", 7)) {
		if (fnblk_events_set_source(e, s + 7))
			goto nomem;
	} else if (!strncmp(s, "param ", 6)) {
		s = trim(s + 6);
		eq = strchr(s, '=');
		if (!eq || eq == s) {
			*why = "param line without name=value";
			return -1;
		}
		*eq = '\0';
		if (fnblk_events_set_param(e, trim(s), trim(eq + 1)))
			goto nomem;
	}
	/* The magic and any other comment carry nothing to keep. */
	return 0;
nomem:
	*why = "out of memory";
	return -1;
}

static int csv_comment(struct reader *rd, struct fnblk_events *e, char *s)
{
	const char *why;

	if (!strncmp(s, "# fnblk-events v", 16) && strcmp(s, FNBLK_EVENTS_MAGIC))
		return fail(rd, "unsupported version \"%s\" (this reader knows %s)",
			    s, FNBLK_EVENTS_MAGIC);
	if (fnblk_events_meta_line(e, s, &why))
		return fail(rd, "%s", why);
	return 0;
}

static int csv_row(struct reader *rd, struct fnblk_events *e, const char *s)
{
	uint64_t f[5];
	int i;
	struct fnblk_event ev;

	for (i = 0; i < 5; i++) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (parse_u64(&s, &f[i]))
			return fail(rd, "field %d: expected an unsigned integer",
				    i + 1);
		while (*s == ' ' || *s == '\t')
			s++;
		if (i < 4 && *s++ != ',')
			return fail(rd, "expected 5 comma-separated fields");
	}
	if (*s == ',')
		return fail(rd, "more than 5 fields (a v1 row has exactly 5)");
	if (*s)
		return fail(rd, "field 5: expected an unsigned integer");
	if (f[0] > UINT32_MAX || f[1] > UINT32_MAX)
		return fail(rd, "job or cycle out of range");
	ev = (struct fnblk_event){ .job = f[0], .cycle = f[1],
		.start_ns = f[2], .end_ns = f[3], .bytes = f[4] };
	if (check_event(rd, &ev))
		return -1;
	if (fnblk_events_add(e, &ev))
		return fail(rd, "%s", strerror(errno));
	return 0;
}

static int json_u64(json_t *o, const char *key, uint64_t *v)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return -1;
	*v = (uint64_t)json_integer_value(x);
	return 0;
}

static int jsonl_header(struct reader *rd, struct fnblk_events *e, json_t *o)
{
	json_t *src = json_object_get(o, "source");
	json_t *params = json_object_get(o, "params");
	const char *key;
	json_t *val;

	if (json_is_string(src) &&
	    fnblk_events_set_source(e, json_string_value(src)))
		return fail(rd, "%s", strerror(errno));
	if (!params)
		return 0;
	if (!json_is_object(params))
		return fail(rd, "\"params\" is not an object");
	json_object_foreach(params, key, val) {
		char buf[64];
		const char *s = buf;

		if (json_is_string(val))
			s = json_string_value(val);
		else if (json_is_integer(val))
			snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(val));
		else if (json_is_real(val))
			snprintf(buf, sizeof(buf), "%.17g", json_real_value(val));
		else
			return fail(rd, "param %s: not a string or number", key);
		if (fnblk_events_set_param(e, key, s))
			return fail(rd, "%s", strerror(errno));
	}
	return 0;
}

static int jsonl_line(struct reader *rd, struct fnblk_events *e, const char *s)
{
	json_error_t jerr;
	json_t *o = json_loads(s, 0, &jerr);
	uint64_t job, cycle;
	struct fnblk_event ev;
	int ret = -1;

	if (!o)
		return fail(rd, "JSON: %s", jerr.text);
	if (!json_is_object(o)) {
		fail(rd, "expected a JSON object");
		goto out;
	}
	if (json_object_get(o, "fnblk_events")) {
		ret = jsonl_header(rd, e, o);
		goto out;
	}
	if (json_u64(o, "job", &job) || json_u64(o, "cycle", &cycle) ||
	    json_u64(o, "start_ns", &ev.start_ns) ||
	    json_u64(o, "end_ns", &ev.end_ns) ||
	    json_u64(o, "bytes", &ev.bytes)) {
		fail(rd, "expected unsigned job, cycle, start_ns, end_ns, bytes");
		goto out;
	}
	if (job > UINT32_MAX || cycle > UINT32_MAX) {
		fail(rd, "job or cycle out of range");
		goto out;
	}
	ev.job = job;
	ev.cycle = cycle;
	if (check_event(rd, &ev))
		goto out;
	if (fnblk_events_add(e, &ev)) {
		fail(rd, "%s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	json_decref(o);
	return ret;
}

/* ---- what the rows must hold together (Documentation/events-format.rst) ---- */

struct row_ref {
	const struct fnblk_event *ev;
	unsigned long line;
};

static int by_job_cycle(const void *pa, const void *pb)
{
	const struct fnblk_event *a = ((const struct row_ref *)pa)->ev;
	const struct fnblk_event *b = ((const struct row_ref *)pb)->ev;

	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	return a->cycle < b->cycle ? -1 : a->cycle > b->cycle;
}

static int by_job_start(const void *pa, const void *pb)
{
	const struct fnblk_event *a = ((const struct row_ref *)pa)->ev;
	const struct fnblk_event *b = ((const struct row_ref *)pb)->ev;

	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return a->end_ns < b->end_ns ? -1 : a->end_ns > b->end_ns;
}

/* Report at the later of two rows' lines, naming the earlier. */
static int fail_pair(struct reader *rd, const struct row_ref *a,
		     const struct row_ref *b, bool twice)
{
	const struct row_ref *first = a->line < b->line ? a : b;
	const struct row_ref *later = first == a ? b : a;

	rd->line = later->line;
	if (twice)
		return fail(rd, "job %" PRIu32 " cycle %" PRIu32 " again (its "
			    "first row is line %lu)", later->ev->job,
			    later->ev->cycle, first->line);
	return fail(rd, "job %" PRIu32 " cycle %" PRIu32 " (%" PRIu64 " to %"
		    PRIu64 " ns) overlaps its cycle %" PRIu32 " at line %lu (%"
		    PRIu64 " to %" PRIu64 " ns): a job writes one checkpoint "
		    "at a time", later->ev->job, later->ev->cycle,
		    later->ev->start_ns, later->ev->end_ns, first->ev->cycle,
		    first->line, first->ev->start_ns, first->ev->end_ns);
}

/* Rows of one job twice for a cycle, or overlapping in time: sorted. */
static int check_sorted(struct reader *rd, struct row_ref *r, size_t n)
{
	size_t i;

	qsort(r, n, sizeof(*r), by_job_cycle);
	for (i = 1; i < n; i++)
		if (r[i].ev->job == r[i - 1].ev->job &&
		    r[i].ev->cycle == r[i - 1].ev->cycle)
			return fail_pair(rd, &r[i - 1], &r[i], true);
	/* By start: if any two overlap, two neighbours do. */
	qsort(r, n, sizeof(*r), by_job_start);
	for (i = 1; i < n; i++)
		if (r[i].ev->job == r[i - 1].ev->job &&
		    r[i].ev->start_ns < r[i - 1].ev->end_ns)
			return fail_pair(rd, &r[i - 1], &r[i], false);
	return 0;
}

/*
 * The rows read, ev[0..n-1] from lines[]: jobs within the file's jobs
 * parameter, each (job, cycle) once, no two writes of a job overlapping.
 * Files as the tools write them (each job's rows in cycle order) take one
 * pass; anything else is sorted to find what is wrong.
 */
static int check_rows(struct reader *rd, const struct fnblk_events *e,
		      const struct fnblk_event *ev, const unsigned long *lines,
		      size_t n)
{
	const char *p = fnblk_events_param(e, "jobs"), *why;
	struct { const struct fnblk_event *ev; } *last = NULL;
	bool in_order = false;
	uint32_t max_job = 0;
	struct row_ref *r;
	uint64_t jobs;
	size_t i;
	int ret;

	if (p && !fnblk_parse_uint(p, 1, UINT32_MAX, &jobs, &why)) {
		for (i = 0; i < n; i++) {
			if (ev[i].job < jobs)
				continue;
			rd->line = lines[i];
			return fail(rd, "job %" PRIu32 " out of range: the file "
				    "has %" PRIu64 " jobs (param jobs), 0 to %"
				    PRIu64, ev[i].job, jobs, jobs - 1);
		}
	}
	for (i = 0; i < n; i++)
		max_job = ev[i].job > max_job ? ev[i].job : max_job;
	/* One pass, unless job numbers are far sparser than the rows. */
	if (n && (uint64_t)max_job < 4 * (uint64_t)n + 1024)
		last = calloc((size_t)max_job + 1, sizeof(*last));
	for (i = 0; last && i < n; i++) {
		const struct fnblk_event *prev = last[ev[i].job].ev;

		if (prev && (ev[i].cycle <= prev->cycle ||
			     ev[i].start_ns < prev->end_ns))
			break;
		last[ev[i].job].ev = &ev[i];
	}
	in_order = last && i == n;
	free(last);
	if (in_order)
		return 0;
	r = malloc((n ? n : 1) * sizeof(*r));
	if (!r)
		return fail(rd, "%s", strerror(ENOMEM));
	for (i = 0; i < n; i++)
		r[i] = (struct row_ref){ &ev[i], lines[i] };
	ret = check_sorted(rd, r, n);
	free(r);
	return ret;
}

static int add_line(unsigned long **lines, size_t *nr, size_t *cap,
		    unsigned long line)
{
	if (*nr == *cap) {
		size_t n = *cap ? 2 * *cap : 256;
		unsigned long *p = realloc(*lines, n * sizeof(*p));

		if (!p)
			return -1;
		*lines = p;
		*cap = n;
	}
	(*lines)[(*nr)++] = line;
	return 0;
}

int fnblk_events_read_stream(FILE *f, const char *name,
			     struct fnblk_events *e, char *err, size_t errlen)
{
	struct reader rd = { .name = name, .err = err, .errlen = errlen };
	enum { UNKNOWN, CSV, JSONL } kind = UNKNOWN;
	size_t nr0 = e->nr, nr_lines = 0, cap_lines = 0;
	unsigned long *lines = NULL;
	char *buf = NULL;
	size_t cap = 0;
	int ret = 0;

	while (getline(&buf, &cap, f) >= 0) {
		char *s = trim(buf);

		rd.line++;
		if (!*s)
			continue;
		if (kind == UNKNOWN)
			kind = *s == '{' ? JSONL : CSV;
		if (kind == JSONL)
			ret = jsonl_line(&rd, e, s);
		else if (*s == '#')
			ret = csv_comment(&rd, e, s);
		else if (!strncmp(s, "job,", 4))
			ret = strcmp(s, FNBLK_EVENTS_HEADER) ?
			      fail(&rd, "unexpected column header (v1 has "
				   FNBLK_EVENTS_HEADER ")") : 0;
		else
			ret = csv_row(&rd, e, s);
		if (ret)
			break;
		/* Each row's line, for what check_rows() may have to say. */
		if (e->nr > nr0 + nr_lines &&
		    add_line(&lines, &nr_lines, &cap_lines, rd.line)) {
			ret = fail(&rd, "%s", strerror(ENOMEM));
			break;
		}
	}
	if (!ret && !ferror(f))
		ret = check_rows(&rd, e, e->ev + nr0, lines, nr_lines);
	if (!ret && ferror(f)) {
		fail(&rd, "read error: %s", strerror(errno));
		ret = -1;
	}
	free(buf);
	free(lines);
	return ret;
}

int fnblk_events_read_file(const char *path, struct fnblk_events *e,
			   char *err, size_t errlen)
{
	FILE *f;
	int ret;

	if (!strcmp(path, "-"))
		return fnblk_events_read_stream(stdin, "<stdin>", e, err, errlen);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = fnblk_events_read_stream(f, path, e, err, errlen);
	fclose(f);
	return ret;
}

/* ---- writing ---- */

int fnblk_events_csv_header(FILE *f, const struct fnblk_events *e)
{
	fprintf(f, "%s\n", FNBLK_EVENTS_MAGIC);
	fnblk_events_write_meta(f, e);
	fprintf(f, "%s\n", FNBLK_EVENTS_HEADER);
	return ferror(f) ? -1 : 0;
}

int fnblk_events_write_meta(FILE *f, const struct fnblk_events *e)
{
	size_t i;

	if (e->source)
		fprintf(f, "# source=%s\n", e->source);
	for (i = 0; i < e->nr_params; i++)
		fprintf(f, "# param %s=%s\n", e->params[i].name,
			e->params[i].value);
	return ferror(f) ? -1 : 0;
}

int fnblk_events_csv_row(FILE *f, const struct fnblk_event *ev)
{
	fprintf(f, "%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		"\n", ev->job, ev->cycle, ev->start_ns, ev->end_ns, ev->bytes);
	return ferror(f) ? -1 : 0;
}

static int dump_line(FILE *f, json_t *o)
{
	int ret;

	if (!o)
		return -1;
	ret = json_dumpf(o, f, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (ret)
		return -1;
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

int fnblk_events_jsonl_header(FILE *f, const struct fnblk_events *e)
{
	json_t *params = json_object();
	size_t i;

	if (!params)
		return -1;
	for (i = 0; i < e->nr_params; i++)
		json_object_set_new(params, e->params[i].name,
				    json_string(e->params[i].value));
	return dump_line(f, json_pack("{s:i, s:s?, s:o}", "fnblk_events", 1,
				      "source", e->source, "params", params));
}

int fnblk_events_jsonl_row(FILE *f, const struct fnblk_event *ev)
{
	/* json_int_t is long long: every u64 time below 2^63 ns fits. */
	return dump_line(f, json_pack("{s:I, s:I, s:I, s:I, s:I}",
				      "job", (json_int_t)ev->job,
				      "cycle", (json_int_t)ev->cycle,
				      "start_ns", (json_int_t)ev->start_ns,
				      "end_ns", (json_int_t)ev->end_ns,
				      "bytes", (json_int_t)ev->bytes));
}

int fnblk_events_write_csv(FILE *f, const struct fnblk_events *e)
{
	size_t i;

	if (fnblk_events_csv_header(f, e))
		return -1;
	for (i = 0; i < e->nr; i++)
		if (fnblk_events_csv_row(f, &e->ev[i]))
			return -1;
	return 0;
}

int fnblk_events_write_jsonl(FILE *f, const struct fnblk_events *e)
{
	size_t i;

	if (fnblk_events_jsonl_header(f, e))
		return -1;
	for (i = 0; i < e->nr; i++)
		if (fnblk_events_jsonl_row(f, &e->ev[i]))
			return -1;
	return 0;
}

unsigned int fnblk_events_jobs(const struct fnblk_events *e, unsigned int max)
{
	const char *p = fnblk_events_param(e, "jobs"), *why;
	unsigned int n = 0;
	uint64_t v;
	size_t i;

	if (p && !fnblk_parse_uint(p, 1, max, &v, &why))
		return v;
	for (i = 0; i < e->nr; i++)
		if (e->ev[i].job + 1 > n)
			n = e->ev[i].job + 1;
	return n;
}

int fnblk_events_check_jobs(const struct fnblk_events *e, uint64_t jobs,
			    char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < e->nr; i++) {
		if (e->ev[i].job < jobs)
			continue;
		snprintf(err, errlen, "has writes of job %" PRIu32 ", beyond job %"
			 PRIu64, e->ev[i].job, jobs - 1);
		return -1;
	}
	return 0;
}
