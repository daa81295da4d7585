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
/*
 * One line per applied event. user is the user's key, NULL for device
 * events; overflow marks the shared user of a full table, which has none.
 */
static void emit(struct monitor *m, uint64_t t,
		 const struct fnblk_track_dev *d, const char *event,
		 const uint64_t *user, bool kthread, bool overflow)
{
	switch (m->fmt) {
	case CSV:
		printf("%" PRIu64 ",%s,%u,%s,", t, d->name, d->n, event);
		if (overflow)
			printf("overflow");
		else if (user)
			printf("%" PRIu64, *user);
		putchar('\n');
		break;
	case JSON:
		pr_open_object(NULL);
		pr_u64("time_ns", NULL, t);
		pr_str("dev", NULL, d->name);
		pr_u64("dev_id", NULL, d->id);
		pr_str("event", NULL, event);
		if (overflow) {
			pr_bool("overflow", NULL, true);
		} else if (user) {
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
		if (overflow)
			printf(" user overflow");
		else if (user)
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
	emit(m, st->val[FNBLK_STAT_TIME_NS], d, why, NULL, false, false);
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
	     user_event ? &ev->user_key : NULL, ev->kthread, ev->overflow);
	m->printed++;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int do_monitor(int argc, char **argv)
{
	static const char *const usage[] = { "[NAME] [OPTIONS]", NULL };
	struct monitor m = { 0 };
	/*
	 * libnl's buffer (32 KiB, 64 once the kernel doubles it) holds about
	 * 70 events (a queued event takes 0.8-0.9 KiB): a monitor kept off
	 * the CPU for a moment in a busy guest lost events to an overrun.
	 * 4 MiB (8 once doubled) holds 9,000 or more.
	 */
	uint64_t rcvbuf = 4u << 20, duration = 0, end = 0;
	bool csv = false, no_enobufs = false;
	const struct cli_option options[] = {
		{ .name = "csv", .type = CLI_FLAG, .var = &csv,
		  .help = "print time_ns,dev,n,event,user rows: n(t) ready to "
			  "plot" },
		{ .name = "rcvbuf", .arg = "BYTES", .type = CLI_SIZE,
		  .var = &rcvbuf, .min = 1, .max = INT32_MAX,
		  .dflt = "4MiB",
		  .help = "the socket's receive buffer (the kernel doubles it "
			  "and enforces a minimum): the events that wait while "
			  "the monitor is not scheduled" },
		{ .name = "duration", .arg = "DUR", .type = CLI_DURATION,
		  .var = &duration, .min = 1, .dflt = "none",
		  .help = "stop after this long" },
		{ .name = "count", .key = 'n', .arg = "N", .type = CLI_U64,
		  .var = &m.max_events, .min = 1, .dflt = "none",
		  .help = "stop after N events" },
		{ .name = "no-enobufs", .type = CLI_FLAG, .var = &no_enobufs,
		  .help = "ask the kernel not to report overruns, leaving "
			  "sequence gaps as the only sign (for testing)" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Options", .options = options },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblkctl monitor", .usage = usage,
		.about = "Print the events of every device, or of NAME, as they "
			 "happen, with CLOCK_MONOTONIC timestamps: users "
			 "becoming active or idle (with the new n) and devices "
			 "added, removed or changed, after a start snapshot of "
			 "every device. Each device numbers its events; a gap, "
			 "or ENOBUFS from the socket (the kernel dropped "
			 "events), is reported (on standard error with --csv, "
			 "inline otherwise) and followed by a resync record with "
			 "n from a stats snapshot, so a stale n is never "
			 "printed. SIGINT and SIGTERM stop it; a loss summary "
			 "goes to standard error if anything was lost. The "
			 "shared user of a full user table shows as user "
			 "overflow. Needs CAP_NET_ADMIN: events name other "
			 "users' processes.",
		.groups = groups, .json = &ctl_json,
		.json_help = "one JSON object per line and event",
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct fnblk_dev_event ev;
	char err[256];
	int ret, status = 0;

	ret = object_args(&prog, &argc, &argv);
	if (ret != CLI_CONTINUE)
		return ret;
	m.fmt = csv ? CSV : pr_json() ? JSON : TEXT;
	if (argc > 2)
		return usage_error("monitor: unexpected argument '%s'", argv[2]);
	if (argc == 2) {
		if (args_check_dev(argv[1], err, sizeof(err)))
			return usage_error("monitor: %s", err);
		m.filter = argv[1];
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
