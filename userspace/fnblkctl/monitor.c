// SPDX-License-Identifier: GPL-2.0
/*
 * fnblkctl monitor: the event stream, like "ip monitor".
 *
 * Every event carries its device's sequence number, and user events the
 * new n. The monitor tracks, per device, the last sequence number it has
 * applied. A gap, or ENOBUFS from the socket (the kernel dropped
 * notifications it could not queue), means n may have changed unseen:
 * the monitor says so and resyncs from a STATS_GET snapshot, whose
 * NR_ACTIVE and EVENTS (the last sequence number) are taken together.
 * Events still queued from before the snapshot (seq <= EVENTS) are then
 * dropped, so the n printed is never a stale one.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "fnblkctl.h"
#include "print.h"
#include "track.h"

enum format { TEXT, CSV, JSON };

struct monitor {
	struct fnblk *h;
	enum format fmt;
	const char *filter;	/* device, or NULL for all */
	struct fnblk_track track;
	uint64_t printed, lost, overruns, resyncs;
	uint64_t max_events;	/* 0 = no limit */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static bool wanted(const struct monitor *m, uint32_t id, const char *name)
{
	char idbuf[16];

	if (!m->filter)
		return true;
	snprintf(idbuf, sizeof(idbuf), "%u", id);
	return !strcmp(m->filter, name) || !strcmp(m->filter, idbuf);
}

/* One output record; user is the user key of user events. */
static void emit(struct monitor *m, uint64_t t,
		 const struct fnblk_track_dev *d, const char *event,
		 const uint64_t *user, bool kthread)
{
	switch (m->fmt) {
	case CSV:
		printf("%" PRIu64 ",%s,%u,%s,", t, d->name, d->n, event);
		if (user)
			printf("%" PRIu64, *user);
		putchar('\n');
		break;
	case JSON:
		pr_open_object(NULL);
		pr_u64("time_ns", NULL, t);
		pr_str("dev", NULL, d->name);
		pr_u64("dev_id", NULL, d->id);
		pr_str("event", NULL, event);
		if (user) {
			pr_u64("user", NULL, *user);
			pr_bool("kthread", NULL, kthread);
		}
		pr_u64("n", NULL, d->n);
		pr_u64("seq", NULL, d->seq);
		pr_close_object();
		pr_end();
		break;
	case TEXT:
		printf("[%" PRIu64 ".%09" PRIu64 "] %s %s", t / 1000000000,
		       t % 1000000000, d->name, event);
		if (user)
			printf(" user %" PRIu64 "%s", *user,
			       kthread ? " (kthread)" : "");
		printf(" n %u seq %" PRIu64 "\n", d->n, d->seq);
		break;
	}
	fflush(stdout);
}

/* Loss goes to stderr in CSV (the data stays plottable), inline otherwise. */
static void report_loss(struct monitor *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report_loss(struct monitor *m, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	switch (m->fmt) {
	case CSV:
		fprintf(stderr, "fnblkctl: monitor: %s\n", msg);
		break;
	case JSON:
		pr_open_object(NULL);
		pr_str("event", NULL, "lost");
		pr_str("message", NULL, msg);
		pr_close_object();
		pr_end();
		break;
	case TEXT:
		printf("lost events: %s\n", msg);
		break;
	}
	fflush(stdout);
}

/* Adopt a snapshot's n and seq and print it as a "start"/"resync" record. */
static int apply_snapshot(struct monitor *m, const struct fnblk_stats *st,
			  const char *why)
{
	const struct fnblk_track_dev *d = fnblk_track_snapshot(&m->track, st);

	if (!d)
		return -ENOMEM;
	emit(m, st->val[FNBLK_STAT_TIME_NS], d, why, NULL, false);
	return 0;
}

static int snapshot_one(const struct fnblk_stats *st, void *arg)
{
	struct monitor *m = arg;

	return wanted(m, st->dev_id, st->dev_name) ?
		apply_snapshot(m, st, "start") : 0;
}

static int resync_one(const struct fnblk_stats *st, void *arg)
{
	struct monitor *m = arg;

	return wanted(m, st->dev_id, st->dev_name) ?
		apply_snapshot(m, st, "resync") : 0;
}

/* After an overrun any device may have lost events: resync them all. */
static int resync_all(struct monitor *m)
{
	fnblk_track_forget_all(&m->track);	/* removed ones drop out */
	m->resyncs++;
	if (fnblk_stats_dump(m->h, resync_one, m) < 0)
		return nl_error(m->h, "monitor: resync");
	return 0;
}

/* Resync one device; false if it is gone. */
static bool resync_dev(struct monitor *m, uint32_t id)
{
	struct fnblk_stats st;
	char name[16];

	snprintf(name, sizeof(name), "%u", id);
	m->resyncs++;
	if (fnblk_stats_get(m->h, name, &st) < 0 ||
	    apply_snapshot(m, &st, "resync")) {
		fnblk_track_forget(&m->track, id);
		return false;
	}
	return true;
}

static int handle_event(struct monitor *m, const struct fnblk_dev_event *ev)
{
	bool user_event = ev->cmd == FNBLK_CMD_EVT_USER_ACTIVE ||
			  ev->cmd == FNBLK_CMD_EVT_USER_IDLE;
	struct fnblk_track_dev d;
	uint64_t lost;
	int verdict;

	if (!wanted(m, ev->dev_id, ev->dev_name))
		return 0;
	verdict = fnblk_track_event(&m->track, ev, &d, &lost);
	if (verdict == FNBLK_TRACK_GAP || verdict == FNBLK_TRACK_UNKNOWN) {
		if (verdict == FNBLK_TRACK_GAP) {
			m->lost += lost;
			report_loss(m, "%s: %" PRIu64 " events lost (seq %"
				    PRIu64 "..%" PRIu64 "); resyncing",
				    ev->dev_name, lost, ev->seq - lost,
				    ev->seq - 1);
		} else {
			report_loss(m, "%s: events before seq %" PRIu64
				    " were missed; resyncing", ev->dev_name,
				    ev->seq);
		}
		if (!resync_dev(m, ev->dev_id))
			return 0;
		/* The snapshot covers the event, or it is the next one. */
		verdict = fnblk_track_event(&m->track, ev, &d, &lost);
	}
	if (verdict < 0)
		return runtime_error("monitor: out of memory");
	if (verdict != FNBLK_TRACK_APPLIED)
		return 0;
	emit(m, ev->time_ns, &d, fnblk_event_name(ev->cmd),
	     user_event ? &ev->user_key : NULL, ev->kthread);
	m->printed++;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int monitor_usage(void)
{
	printf(
"usage: fnblkctl [-j] monitor [NAME] [--csv] [--rcvbuf BYTES]\n"
"                [--duration DUR] [--count N] [--no-enobufs]\n"
"\n"
"Print fnblk events as they happen: users becoming active or idle (with\n"
"the new n) and devices added, removed or changed. Timestamps are\n"
"CLOCK_MONOTONIC. --csv prints time_ns,dev,n,event,user rows: n(t) ready\n"
"to plot. Lost events (socket overrun or a sequence gap) are reported\n"
"(on stderr with --csv) and followed by a 'resync' record with n from a\n"
"stats snapshot. --rcvbuf sets the socket receive buffer; --duration and\n"
"--count stop after a time or a number of events. --no-enobufs asks the\n"
"kernel not to report overruns, leaving sequence gaps as the only sign\n"
"(to test gap detection).\n");
	return 0;
}

int do_monitor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "no-enobufs", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct monitor m = { .fmt = pr_json() ? JSON : TEXT };
	uint64_t rcvbuf = 0, duration = 0, end = 0;
	bool no_enobufs = false;
	struct sigaction sa = { .sa_handler = on_signal };
	struct fnblk_dev_event ev;
	char err[256];
	int c, ret, status = 0;

	optind = 0;	/* glibc: rescan from argv[1] with this optstring */
	opterr = 0;	/* our own messages, below */
	while ((c = getopt_long(argc, argv, ":hn:", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			m.fmt = CSV;
			break;
		case 'r': {
			const char *why;

			if (fnblk_parse_size(optarg, &rcvbuf, &why))
				return usage_error("monitor: --rcvbuf '%s': %s",
						   optarg, why);
			if (!rcvbuf || rcvbuf > INT32_MAX)
				return usage_error("monitor: --rcvbuf '%s': "
						   "expected 1 byte to 2GiB",
						   optarg);
			break;
		}
		case 'd':
			if (args_parse_interval("--duration", optarg, &duration,
						err, sizeof(err)))
				return usage_error("monitor: %s", err);
			break;
		case 'n':
			if (args_parse_count("--count", optarg, 1, UINT64_MAX,
					     &m.max_events, err, sizeof(err)))
				return usage_error("monitor: %s", err);
			break;
		case 'E':
			no_enobufs = true;
			break;
		case 'h':
			return monitor_usage();
		case ':':
			return usage_error("monitor: option '%s' needs a value",
					   argv[optind - 1]);
		default:
			return usage_error("monitor: unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return usage_error("monitor: unexpected argument '%s'",
				   argv[optind + 1]);
	if (argc - optind == 1) {
		if (args_check_dev(argv[optind], err, sizeof(err)))
			return usage_error("monitor: %s", err);
		m.filter = argv[optind];
	}

	m.h = ctl_handle();
	if (fnblk_monitor_open(m.h, (int)rcvbuf) < 0 ||
	    (no_enobufs && fnblk_monitor_no_enobufs(m.h) < 0))
		return nl_error(m.h, "monitor");
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pr_set_compact(true);
	if (m.fmt == CSV)
		printf("time_ns,dev,n,event,user\n");
	/* Subscribed first, then the snapshot: nothing falls in between. */
	if (fnblk_stats_dump(m.h, snapshot_one, &m) < 0)
		return nl_error(m.h, "monitor");
	if (duration)
		end = now_ns() + duration;

	while (!stop && (!m.max_events || m.printed < m.max_events)) {
		int timeout = -1;

		if (end) {
			uint64_t now = now_ns();

			if (now >= end)
				break;
			timeout = (int)((end - now + 999999) / 1000000);
		}
		ret = fnblk_monitor_next(m.h, &ev, timeout);
		if (ret == 1) {
			status = handle_event(&m, &ev);
			if (status)
				break;
		} else if (ret == -ENOBUFS) {
			m.overruns++;
			report_loss(&m, "socket receive buffer overrun "
				    "(ENOBUFS); resyncing every device");
			status = resync_all(&m);
			if (status)
				break;
		} else if (ret == -EINTR) {
			continue;
		} else if (ret < 0) {
			status = nl_error(m.h, "monitor");
			break;
		}
	}
	if (m.lost || m.overruns)
		fprintf(stderr, "fnblkctl: monitor: %" PRIu64 " events, %"
			PRIu64 " lost in gaps, %" PRIu64 " overruns, %" PRIu64
			" resyncs\n", m.printed, m.lost, m.overruns,
			m.resyncs);
	fnblk_track_free(&m.track);
	return status;
}
