// SPDX-License-Identifier: GPL-2.0
/*
 * Reader and writer of job records (see jobrec.h): CSV (csv.h) with a
 * header line that names the columns.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* getline, strdup, timegm under -std=c11 */
#endif
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csv.h"
#include "jobrec.h"

const char *const jobrec_component_columns[JOBREC_NR_COMPONENTS] = {
	[JOBREC_ERR_PILOT] = "piloterrorcode",
	[JOBREC_ERR_EXE] = "exeerrorcode",
	[JOBREC_ERR_DDM] = "ddmerrorcode",
	[JOBREC_ERR_DISPATCHER] = "jobdispatchererrorcode",
	[JOBREC_ERR_TASKBUFFER] = "taskbuffererrorcode",
};

/* Columns the reader knows; the first five are required. */
enum column {
	COL_ID,
	COL_CREATED,
	COL_SITE,
	COL_CPU,
	COL_CORES,
	COL_STARTED,
	COL_ENDED,
	COL_NAME,
	COL_CATEGORY,
	COL_IN_BYTES,
	COL_OUT_BYTES,
	COL_IN_FILES,
	COL_OUT_FILES,
	COL_TRANSFER,
	COL_STATUS,
	COL_ERR_FIRST,
	NR_COLUMNS = COL_ERR_FIRST + JOBREC_NR_COMPONENTS,
};

#define NR_REQUIRED	(COL_CORES + 1)

static const char *const column_names[COL_ERR_FIRST] = {
	[COL_ID] = "pandaid",
	[COL_CREATED] = "creationtime",
	[COL_SITE] = "computingsite",
	[COL_CPU] = "cpuconsumptiontime",
	[COL_CORES] = "corecount",
	[COL_STARTED] = "starttime",
	[COL_ENDED] = "endtime",
	[COL_NAME] = "jobname",
	[COL_CATEGORY] = "category",
	[COL_IN_BYTES] = "inputfilebytes",
	[COL_OUT_BYTES] = "outputfilebytes",
	[COL_IN_FILES] = "ninputdatafiles",
	[COL_OUT_FILES] = "noutputdatafiles",
	[COL_TRANSFER] = "transfertype",
	[COL_STATUS] = "jobstatus",
};

static const char *column_name(unsigned int c)
{
	return c < COL_ERR_FIRST ? column_names[c] :
	       jobrec_component_columns[c - COL_ERR_FIRST];
}

void jobrecs_init(struct jobrecs *t)
{
	memset(t, 0, sizeof(*t));
	t->first_created_s = INT64_MAX;
}

static void jobrec_free(struct jobrec *r)
{
	free(r->site);
	free(r->name);
	free(r->category);
}

void jobrecs_free(struct jobrecs *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		jobrec_free(&t->r[i]);
	free(t->r);
	jobrecs_init(t);
}

/* ---- reading ---- */

struct reader {
	const char *name;
	unsigned long line;
	char *err;
	size_t errlen;
	int where[NR_COLUMNS];		/* field index of each column, or -1 */
	unsigned int nr_fields;		/* in the header */
	char **field;			/* this line's fields, in place */
};

__attribute__((format(printf, 3, 4)))
static int fail(struct reader *rd, int col, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (col >= 0)
		n = (size_t)snprintf(rd->err, rd->errlen, "%s:%lu:%d (%s): ",
				     rd->name, rd->line, rd->where[col] + 1,
				     column_name((unsigned int)col));
	else
		n = (size_t)snprintf(rd->err, rd->errlen, "%s:%lu: ", rd->name,
				     rd->line);
	if (n < rd->errlen) {
		va_start(ap, fmt);
		vsnprintf(rd->err + n, rd->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static const char *value(const struct reader *rd, unsigned int col)
{
	return rd->where[col] < 0 ? NULL : rd->field[rd->where[col]];
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/*
 * A non-negative decimal ("172", "0.56", "3.6e10" as exported by data
 * tools); no sign, no spaces, finite.
 */
static int parse_real(struct reader *rd, unsigned int col, double *v)
{
	const char *s = value(rd, col);
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return fail(rd, (int)col, "'%s' is not a non-negative number", s);
	errno = 0;
	*v = strtod(s, &end);
	if (*end || errno || !isfinite(*v))
		return fail(rd, (int)col, "'%s' is not a non-negative number", s);
	return 0;
}

/*
 * A whole number up to max. Data tools often write counts as "10.0", so a
 * zero fraction is accepted; an empty field is empty_value, or refused when
 * empty_value is negative.
 */
static int parse_count(struct reader *rd, unsigned int col, uint64_t max,
		       int64_t empty_value, uint64_t *v)
{
	const char *s = value(rd, col);
	double d;

	if (!s || !*s) {
		if (empty_value < 0)
			return fail(rd, (int)col, "value required");
		*v = (uint64_t)empty_value;
		return 0;
	}
	if (all_digits(s)) {
		errno = 0;
		*v = strtoull(s, NULL, 10);
		if (errno || *v > max)
			return fail(rd, (int)col, "'%s' is above %" PRIu64, s, max);
		return 0;
	}
	if (parse_real(rd, col, &d))
		return -1;
	/* Beyond 2^53 a double no longer names every whole number. */
	if (d != floor(d) || d > 9007199254740992.0)
		return fail(rd, (int)col, "'%s' is not a whole number", s);
	if (d > (double)max)
		return fail(rd, (int)col, "'%s' is above %" PRIu64, s, max);
	*v = (uint64_t)d;
	return 0;
}

/* Error codes may be negative in some exports; empty means none. */
static int parse_code(struct reader *rd, unsigned int col, int64_t *v)
{
	const char *s = value(rd, col);
	char *end;

	if (!s || !*s) {
		*v = 0;
		return 0;
	}
	errno = 0;
	*v = strtoll(s, &end, 10);
	if (!strcmp(end, ".0"))
		end += 2;
	if (*end || errno || end == s || isspace((unsigned char)*s))
		return fail(rd, (int)col, "'%s' is not an error code (an integer)",
			    s);
	return 0;
}

/* "YYYY-MM-DD HH:MM:SS" (or a 'T' between), UTC; a fraction is dropped. */
static int parse_time(struct reader *rd, unsigned int col, bool required,
		      int64_t *t)
{
	const char *s = value(rd, col);
	int y, mo, d, h, mi, sec, used = 0;
	struct tm tm = { 0 };
	char sep;

	if (!s || !*s) {
		if (required)
			return fail(rd, (int)col, "value required");
		*t = JOBREC_NO_TIME;
		return 0;
	}
	if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi,
		   &sec, &used) != 7 || (sep != ' ' && sep != 'T') ||
	    used != 19)
		goto bad;
	if (s[used] == '.') {
		used++;
		if (!isdigit((unsigned char)s[used]))
			goto bad;
		while (isdigit((unsigned char)s[used]))
			used++;
	}
	if (s[used] == 'Z')
		used++;
	if (s[used] || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60 || y < 1970)
		goto bad;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*t = (int64_t)timegm(&tm);
	/* timegm normalises 2025-02-30 to March: refuse what it moved. */
	if (tm.tm_mday != d || tm.tm_mon != mo - 1)
		goto bad;
	return 0;
bad:
	return fail(rd, (int)col, "'%s' is not a time 'YYYY-MM-DD HH:MM:SS' (UTC)",
		    s);
}

static int dup_text(struct reader *rd, unsigned int col, bool required,
		    char **out)
{
	const char *s = value(rd, col);

	if (!s)
		s = "";
	if (required && !*s)
		return fail(rd, (int)col, "value required");
	*out = strdup(s);
	if (!*out)
		return fail(rd, (int)col, "out of memory");
	return 0;
}

static int parse_stagein(struct reader *rd, enum jobrec_stagein *m)
{
	const char *s = value(rd, COL_TRANSFER);

	if (!s || !*s)
		*m = JOBREC_STAGEIN_UNSAID;
	else if (!strcmp(s, "direct"))
		*m = JOBREC_STAGEIN_DIRECT;
	else if (!strcmp(s, "copy") || !strcmp(s, "copy_to_scratch"))
		*m = JOBREC_STAGEIN_COPY;
	else
		return fail(rd, COL_TRANSFER, "'%s' is not direct, copy or empty",
			    s);
	return 0;
}

/* A job that did not produce its output counts as failed. */
static int parse_status(struct reader *rd, bool *failed)
{
	static const char *const ok_states[] = { "finished", "" };
	static const char *const failed_states[] = {
		"failed", "cancelled", "closed",
	};
	const char *s = value(rd, COL_STATUS);
	size_t i;

	*failed = false;
	if (!s)
		return 0;
	for (i = 0; i < sizeof(ok_states) / sizeof(*ok_states); i++)
		if (!strcmp(s, ok_states[i]))
			return 0;
	for (i = 0; i < sizeof(failed_states) / sizeof(*failed_states); i++) {
		if (!strcmp(s, failed_states[i])) {
			*failed = true;
			return 0;
		}
	}
	return fail(rd, COL_STATUS,
		    "'%s' is not finished, failed, cancelled or closed", s);
}

static int parse_record(struct reader *rd, struct jobrec *r)
{
	char cat[64];
	uint64_t v;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	if (parse_count(rd, COL_ID, UINT64_MAX, -1, &r->id) ||
	    parse_time(rd, COL_CREATED, true, &r->created_s) ||
	    parse_time(rd, COL_STARTED, false, &r->started_s) ||
	    parse_time(rd, COL_ENDED, false, &r->ended_s))
		return -1;
	if (r->started_s != JOBREC_NO_TIME && r->started_s < r->created_s)
		return fail(rd, COL_STARTED, "before the creation time");
	if (r->ended_s != JOBREC_NO_TIME && r->started_s != JOBREC_NO_TIME &&
	    r->ended_s < r->started_s)
		return fail(rd, COL_ENDED, "before the start time");
	if (value(rd, COL_CPU) && !*value(rd, COL_CPU))
		return fail(rd, COL_CPU, "value required");
	if (parse_real(rd, COL_CPU, &r->cpu_s))
		return -1;
	/* Beyond this, scaled times no longer fit the replay's ns clock. */
	if (r->cpu_s > 1e12)
		return fail(rd, COL_CPU, "'%s' is above 1e12 seconds",
			    value(rd, COL_CPU));
	if (parse_count(rd, COL_CORES, 4096, -1, &v))
		return -1;
	if (!v)
		return fail(rd, COL_CORES, "must be at least 1");
	r->cores = (uint32_t)v;
	if (parse_count(rd, COL_IN_BYTES, UINT64_MAX, 0, &r->in_bytes) ||
	    parse_count(rd, COL_OUT_BYTES, UINT64_MAX, 0, &r->out_bytes))
		return -1;
	if (parse_count(rd, COL_IN_FILES, UINT32_MAX, 0, &v))
		return -1;
	r->in_files = (uint32_t)v;
	if (parse_count(rd, COL_OUT_FILES, UINT32_MAX, 0, &v))
		return -1;
	r->out_files = (uint32_t)v;
	if (parse_stagein(rd, &r->stagein) || parse_status(rd, &r->failed))
		return -1;
	for (i = 0; i < JOBREC_NR_COMPONENTS; i++) {
		if (parse_code(rd, COL_ERR_FIRST + i, &r->error[i]))
			return -1;
		if (r->error[i])
			r->failed = true;
	}
	if (dup_text(rd, COL_SITE, true, &r->site) ||
	    dup_text(rd, COL_NAME, false, &r->name))
		goto fail_free;
	if (rd->where[COL_CATEGORY] >= 0) {
		if (dup_text(rd, COL_CATEGORY, true, &r->category))
			goto fail_free;
	} else {
		r->category = strdup(jobrec_category(r->name, cat, sizeof(cat)));
		if (!r->category) {
			fail(rd, -1, "out of memory");
			goto fail_free;
		}
	}
	return 0;
fail_free:
	jobrec_free(r);
	return -1;
}

static int read_header(struct reader *rd, unsigned int nr)
{
	unsigned int c, f;

	for (c = 0; c < NR_COLUMNS; c++)
		rd->where[c] = -1;
	for (f = 0; f < nr; f++) {
		for (c = 0; c < NR_COLUMNS; c++) {
			if (strcmp(rd->field[f], column_name(c)))
				continue;
			if (rd->where[c] >= 0)
				return fail(rd, -1, "column %u: '%s' named twice (also column %d)",
					    f + 1, rd->field[f],
					    rd->where[c] + 1);
			rd->where[c] = (int)f;
		}
	}
	for (c = 0; c < NR_REQUIRED; c++)
		if (rd->where[c] < 0)
			return fail(rd, -1, "required column '%s' missing from the header",
				    column_name(c));
	rd->nr_fields = nr;
	return 0;
}

static int add_record(struct jobrecs *t, const struct jobrec *r)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct jobrec *n = realloc(t->r, cap * sizeof(*n));

		if (!n)
			return -1;
		t->r = n;
		t->cap = cap;
	}
	t->r[t->nr++] = *r;
	if (r->created_s < t->first_created_s)
		t->first_created_s = r->created_s;
	return 0;
}

static int cmp_id(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Ids name jobs in every output: two records must not share one. */
static int check_unique_ids(const struct jobrecs *t, size_t from,
			    const char *name, char *err, size_t errlen)
{
	uint64_t *ids;
	size_t i, n = t->nr - from;
	int ret = 0;

	if (n < 2)
		return 0;
	ids = malloc(n * sizeof(*ids));
	if (!ids) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	for (i = 0; i < n; i++)
		ids[i] = t->r[from + i].id;
	qsort(ids, n, sizeof(*ids), cmp_id);
	for (i = 1; i < n; i++) {
		if (ids[i] == ids[i - 1]) {
			snprintf(err, errlen, "%s: pandaid %" PRIu64 " appears twice",
				 name, ids[i]);
			ret = -1;
			break;
		}
	}
	free(ids);
	return ret;
}

int jobrecs_read_stream(FILE *f, const char *name, struct jobrecs *t,
			char *err, size_t errlen)
{
	struct reader rd = { .name = name, .err = err, .errlen = errlen };
	size_t len_cap = 0, field_cap = 0, from = t->nr;
	bool header = false;
	char *line = NULL, msg[128];
	ssize_t len;
	int ret = -1;

	while ((len = getline(&line, &len_cap, f)) >= 0) {
		struct jobrec r;
		int nr;

		rd.line++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		nr = csv_split(line, &rd.field, &field_cap, msg, sizeof(msg));
		if (nr < 0) {
			fail(&rd, -1, "%s", msg);
			goto out;
		}
		if (!header) {
			if (read_header(&rd, (unsigned int)nr))
				goto out;
			header = true;
			continue;
		}
		if ((unsigned int)nr != rd.nr_fields) {
			fail(&rd, -1, "%d fields, the header has %u", nr,
			     rd.nr_fields);
			goto out;
		}
		if (parse_record(&rd, &r))
			goto out;
		if (add_record(t, &r)) {
			jobrec_free(&r);
			fail(&rd, -1, "out of memory");
			goto out;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		goto out;
	}
	if (!header) {
		snprintf(err, errlen, "%s: no header line (an empty file?)", name);
		goto out;
	}
	ret = check_unique_ids(t, from, name, err, errlen);
out:
	free(line);
	free(rd.field);
	return ret;
}

int jobrecs_read_file(const char *path, struct jobrecs *t, char *err,
		      size_t errlen)
{
	FILE *f;
	int ret;

	if (!strcmp(path, "-"))
		return jobrecs_read_stream(stdin, "<stdin>", t, err, errlen);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = jobrecs_read_stream(f, path, t, err, errlen);
	fclose(f);
	return ret;
}

static int cmp_arrival(const void *pa, const void *pb)
{
	const struct jobrec *a = pa, *b = pb;

	if (a->created_s != b->created_s)
		return a->created_s < b->created_s ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

void jobrecs_sort(struct jobrecs *t)
{
	if (t->nr > 1)
		qsort(t->r, t->nr, sizeof(*t->r), cmp_arrival);
}

/* ---- categories ---- */

static bool starts_kind(const char *w, size_t len, const char **kind)
{
	size_t i;

	if (len >= 4 && !strncmp(w, "data", 4) && isdigit((unsigned char)w[4])) {
		*kind = "data";
		return true;
	}
	if (len >= 2 && !strncmp(w, "mc", 2) && isdigit((unsigned char)w[2])) {
		*kind = "mc";
		return true;
	}
	/* A bare six-digit dataset number names a simulated sample. */
	if (len == 6) {
		for (i = 0; i < 6; i++)
			if (!isdigit((unsigned char)w[i]))
				return false;
		*kind = "mc";
		return true;
	}
	return false;
}

const char *jobrec_category(const char *jobname, char *buf, size_t len)
{
	const char *group = "prod", *kind = "other";
	const char *w = jobname;
	unsigned int word = 0;

	if (!strncmp(jobname, "user.", 5))
		group = "user";
	else if (!strncmp(jobname, "group.", 6))
		group = "group";
	while (*w) {
		size_t n = strcspn(w, "./");

		/* user.NAME.<sample>: the owner's name is not a kind. */
		if ((word >= 2 || !strcmp(group, "prod")) &&
		    starts_kind(w, n, &kind))
			break;
		w += n;
		if (*w)
			w++;
		word++;
	}
	snprintf(buf, len, "%s.%s", group, kind);
	return buf;
}

/* ---- writing ---- */

static void write_time(FILE *f, int64_t t)
{
	struct tm tm;
	time_t tt = (time_t)t;
	char buf[32];

	if (t == JOBREC_NO_TIME)
		return;
	gmtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	fputs(buf, f);
}

static const char *const stagein_names[] = {
	[JOBREC_STAGEIN_UNSAID] = "",
	[JOBREC_STAGEIN_DIRECT] = "direct",
	[JOBREC_STAGEIN_COPY] = "copy",
};

int jobrecs_write_csv(FILE *f, const struct jobrecs *t)
{
	unsigned int c, i;
	size_t k;

	for (c = 0; c < NR_COLUMNS; c++)
		fprintf(f, "%s%s", c ? "," : "", column_name(c));
	fputc('\n', f);
	for (k = 0; k < t->nr; k++) {
		const struct jobrec *r = &t->r[k];

		fprintf(f, "%" PRIu64 ",", r->id);
		write_time(f, r->created_s);
		fputc(',', f);
		csv_write_field(f, r->site);
		fprintf(f, ",%.17g,%" PRIu32 ",", r->cpu_s, r->cores);
		write_time(f, r->started_s);
		fputc(',', f);
		write_time(f, r->ended_s);
		fputc(',', f);
		csv_write_field(f, r->name);
		fputc(',', f);
		csv_write_field(f, r->category);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu32 ",%s,%s",
			r->in_bytes, r->out_bytes, r->in_files, r->out_files,
			stagein_names[r->stagein],
			r->failed ? "failed" : "finished");
		for (i = 0; i < JOBREC_NR_COMPONENTS; i++)
			fprintf(f, ",%" PRId64, r->error[i]);
		fputc('\n', f);
	}
	return ferror(f) || fflush(f) ? -1 : 0;
}
