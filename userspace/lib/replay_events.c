// SPDX-License-Identifier: GPL-2.0
/* Replay event files (see replay_events.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* getline */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "replay_events.h"
#include "units.h"

const char *const replay_what_names[REPLAY_NR_WHAT] = {
	[REPLAY_WHAT_QUEUE] = "queue",
	[REPLAY_WHAT_STAGEIN] = "stagein",
	[REPLAY_WHAT_PAYLOAD] = "payload",
	[REPLAY_WHAT_STAGEOUT] = "stageout",
	[REPLAY_WHAT_JOB] = "job",
};

enum field {
	F_ID, F_CATEGORY, F_ATTEMPT, F_SITE, F_WHAT, F_START, F_END, F_IO,
	F_BYTES, F_REMOTE, F_RESULT, NR_FIELDS,
};

int replay_events_header(FILE *f, const char *source,
			 const struct fnblk_events *p)
{
	fprintf(f, "%s\n# source=%s\n", REPLAY_EVENTS_MAGIC, source);
	if (p) {
		struct fnblk_events only_params = *p;

		only_params.source = NULL;
		fnblk_events_write_meta(f, &only_params);
	}
	fprintf(f, "%s\n", REPLAY_EVENTS_HEADER);
	return ferror(f) ? -1 : 0;
}

int replay_events_row(FILE *f, const struct replay_row *r)
{
	fprintf(f, "%" PRIu64 ",", r->id);
	csv_write_field(f, r->category);
	fprintf(f, ",%" PRIu32 ",", r->attempt);
	csv_write_field(f, r->site);
	fprintf(f, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
		PRIu64 ",%s\n", replay_what_names[r->what], r->start_ns,
		r->end_ns, r->io_ns, r->bytes, r->remote_bytes,
		r->ok ? "ok" : r->what == REPLAY_WHAT_JOB ? "failed" : "error");
	return ferror(f) ? -1 : 0;
}

/* ---- reading ---- */

struct reader {
	const char *name;
	unsigned long line;
	char *err;
	size_t errlen;
	struct replay_builder job;	/* the job being read */
};

__attribute__((format(printf, 2, 3)))
static int fail(struct reader *rd, const char *fmt, ...)
{
	size_t n = (size_t)snprintf(rd->err, rd->errlen, "%s:%lu: ", rd->name,
				    rd->line);
	va_list ap;

	if (n < rd->errlen) {
		va_start(ap, fmt);
		vsnprintf(rd->err + n, rd->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int parse_u64(struct reader *rd, char **f, enum field i,
		     const char *col, uint64_t *v)
{
	const char *why;

	if (fnblk_parse_uint(f[i], 0, UINT64_MAX, v, &why))
		return fail(rd, "%s '%s': %s", col, f[i], why);
	return 0;
}

static int copy_name(struct reader *rd, const char *s, const char *col,
		     char *out)
{
	if (strlen(s) >= REPLAY_NAME_MAX)
		return fail(rd, "%s '%s' is longer than %d characters", col, s,
			    REPLAY_NAME_MAX - 1);
	strcpy(out, s);
	return 0;
}

static int parse_row(struct reader *rd, char **f, struct replay_row *r)
{
	uint64_t attempt;
	unsigned int w;

	memset(r, 0, sizeof(*r));
	if (parse_u64(rd, f, F_ID, "id", &r->id) ||
	    parse_u64(rd, f, F_ATTEMPT, "attempt", &attempt) ||
	    parse_u64(rd, f, F_START, "start_ns", &r->start_ns) ||
	    parse_u64(rd, f, F_END, "end_ns", &r->end_ns) ||
	    parse_u64(rd, f, F_IO, "io_ns", &r->io_ns) ||
	    parse_u64(rd, f, F_BYTES, "bytes", &r->bytes) ||
	    parse_u64(rd, f, F_REMOTE, "remote_bytes", &r->remote_bytes) ||
	    copy_name(rd, f[F_CATEGORY], "category", r->category) ||
	    copy_name(rd, f[F_SITE], "site", r->site))
		return -1;
	if (!attempt || attempt > UINT32_MAX)
		return fail(rd, "attempt %" PRIu64 ": 1 or more", attempt);
	r->attempt = (uint32_t)attempt;
	for (w = 0; w < REPLAY_NR_WHAT; w++)
		if (!strcmp(f[F_WHAT], replay_what_names[w]))
			break;
	if (w == REPLAY_NR_WHAT)
		return fail(rd, "what '%s' is not queue, stagein, payload, stageout or job",
			    f[F_WHAT]);
	r->what = (uint8_t)w;
	if (r->end_ns < r->start_ns)
		return fail(rd, "end_ns %" PRIu64 " before start_ns %" PRIu64,
			    r->end_ns, r->start_ns);
	if (r->io_ns > r->end_ns - r->start_ns)
		return fail(rd, "io_ns %" PRIu64 " longer than the row's span",
			    r->io_ns);
	if (r->remote_bytes > r->bytes)
		return fail(rd, "remote_bytes above bytes");
	if (!strcmp(f[F_RESULT], "ok"))
		r->ok = true;
	else if (strcmp(f[F_RESULT], w == REPLAY_WHAT_JOB ? "failed" : "error"))
		return fail(rd, "result '%s' is not ok or %s", f[F_RESULT],
			    w == REPLAY_WHAT_JOB ? "failed" : "error");
	return 0;
}

int replay_builder_add(struct replay_builder *b, const struct replay_row *r,
		       char *msg, size_t len)
{
	struct replay_result *res = &b->res;

	if (!b->open) {
		memset(res, 0, sizeof(*res));
		res->id = r->id;
		res->arrival_ns = r->start_ns;
		strcpy(b->category, r->category);
		res->category = b->category;
		res->site = b->site;
		b->site[0] = '\0';
		b->attempt = 0;
		b->open = true;
	} else if (r->id != res->id) {
		snprintf(msg, len, "job %" PRIu64 " begins before job %" PRIu64
			 " has its job row", r->id, res->id);
		return -1;
	}
	if (strcmp(r->category, b->category)) {
		snprintf(msg, len, "job %" PRIu64 ": category changes", r->id);
		return -1;
	}
	switch (r->what) {
	case REPLAY_WHAT_QUEUE:
		if (r->attempt != b->attempt + 1) {
			snprintf(msg, len, "job %" PRIu64 ": attempt %" PRIu32
				 " queued after attempt %" PRIu32, r->id,
				 r->attempt, b->attempt);
			return -1;
		}
		b->attempt = r->attempt;
		res->queue_ns += r->end_ns - r->start_ns;
		b->attempt_start = r->end_ns;
		res->io_ns = 0;
		res->remote_bytes = 0;
		strcpy(b->site, r->site);
		return 0;
	case REPLAY_WHAT_JOB:
		if (r->attempt != b->attempt || !b->attempt) {
			snprintf(msg, len, "job %" PRIu64 ": job row says %" PRIu32
				 " attempts, its rows %" PRIu32, r->id,
				 r->attempt, b->attempt);
			return -1;
		}
		res->attempts = r->attempt;
		res->end_ns = r->end_ns;
		res->wall_ns = r->end_ns - b->attempt_start;
		res->in_bytes = r->bytes;
		res->failed = !r->ok;
		b->open = false;
		return 1;
	default:
		if (r->attempt != b->attempt) {
			snprintf(msg, len, "job %" PRIu64 ": a phase of attempt %"
				 PRIu32 " outside it", r->id, r->attempt);
			return -1;
		}
		if (r->start_ns < b->attempt_start) {
			snprintf(msg, len, "job %" PRIu64 ": %s begins before its slot",
				 r->id, replay_what_names[r->what]);
			return -1;
		}
		res->io_ns += r->io_ns;
		res->remote_bytes += r->remote_bytes;
		if (!r->ok)
			res->failed_attempts++;
		return 0;
	}
}

int replay_job_done(struct replay_builder *b, struct replay_row *rows,
		    size_t nr, replay_rows_fn rows_fn, replay_result_fn result_fn,
		    void *ctx, char *msg, size_t len)
{
	struct replay_row *job = &rows[nr - 1];
	size_t i;
	int done = 0;

	job->io_ns = job->remote_bytes = 0;
	for (i = nr - 1; i-- > 0 && rows[i].what != REPLAY_WHAT_QUEUE;) {
		job->io_ns += rows[i].io_ns;
		job->remote_bytes += rows[i].remote_bytes;
	}
	if (rows_fn && rows_fn(ctx, rows, nr)) {
		snprintf(msg, len, "writing the events failed");
		return -1;
	}
	for (i = 0; i < nr && !done; i++)
		done = replay_builder_add(b, &rows[i], msg, len);
	if (done <= 0) {
		if (!done)
			snprintf(msg, len, "job %" PRIu64 ": no job row", job->id);
		return -1;
	}
	if (result_fn && result_fn(ctx, &b->res)) {
		snprintf(msg, len, "out of memory");
		return -1;
	}
	return 0;
}

int replay_events_read_file(const char *path, struct fnblk_events *params,
			    replay_result_fn fn, replay_row_fn row_fn,
			    void *ctx, char *err, size_t errlen)
{
	struct reader rd = { .name = path, .err = err, .errlen = errlen };
	size_t cap = 0, field_cap = 0;
	bool magic = false, header = false;
	char *line = NULL, **fields = NULL, msg[128];
	struct replay_row row;
	FILE *f = stdin;
	ssize_t len;
	int ret = -1;

	if (strcmp(path, "-")) {
		f = fopen(path, "r");
		if (!f) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		const char *why;
		int nr;

		rd.line++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		if (!magic) {
			if (strcmp(line, REPLAY_EVENTS_MAGIC)) {
				fail(&rd, "not a replay event file (its first line is not '%s')",
				     REPLAY_EVENTS_MAGIC);
				goto out;
			}
			magic = true;
			continue;
		}
		if (line[0] == '#') {
			if (params && fnblk_events_meta_line(params, line, &why)) {
				fail(&rd, "%s", why);
				goto out;
			}
			continue;
		}
		if (!header) {
			if (strcmp(line, REPLAY_EVENTS_HEADER)) {
				fail(&rd, "the column line is not '%s'",
				     REPLAY_EVENTS_HEADER);
				goto out;
			}
			header = true;
			continue;
		}
		nr = csv_split(line, &fields, &field_cap, msg, sizeof(msg));
		if (nr < 0) {
			fail(&rd, "%s", msg);
			goto out;
		}
		if (nr != NR_FIELDS) {
			fail(&rd, "%d fields, not %d", nr, NR_FIELDS);
			goto out;
		}
		if (parse_row(&rd, fields, &row))
			goto out;
		nr = replay_builder_add(&rd.job, &row, msg, sizeof(msg));
		if (nr < 0) {
			fail(&rd, "%s", msg);
			goto out;
		}
		if ((row_fn && row_fn(ctx, &row)) ||
		    (nr > 0 && fn && fn(ctx, &rd.job.res))) {
			fail(&rd, "job %" PRIu64 ": out of memory", row.id);
			goto out;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!header) {
		snprintf(err, errlen, "%s: no column line", path);
		goto out;
	}
	if (rd.job.open) {
		snprintf(err, errlen, "%s: job %" PRIu64 " has no job row (a run cut short?)",
			 path, rd.job.res.id);
		goto out;
	}
	ret = 0;
out:
	free(line);
	free(fields);
	if (f != stdin)
		fclose(f);
	return ret;
}
