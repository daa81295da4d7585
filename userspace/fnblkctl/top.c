// SPDX-License-Identifier: GPL-2.0
/*
 * fnblkctl top: a refreshing view of one device. Each frame compares two
 * snapshots an interval apart, so rates, mean n and the n histogram are
 * those of the last interval. Plain ANSI clear/home, and only on a
 * terminal: works on a serial console and in a pipe.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "fnblkctl.h"
#include "print.h"

#define TOP_USERS	10

struct users {
	struct fnblk_user_info *u;
	size_t nr, cap;
	bool oom;
	bool denied;		/* per-user data needs CAP_NET_ADMIN */
};

struct sample {
	struct fnblk_stats st;
	struct users users;
};

/* A user's activity over the interval. */
struct user_rate {
	const struct fnblk_user_info *u;
	double read_bps, write_bps, ops_ps, active_share;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int collect(const struct fnblk_user_info *u, void *arg)
{
	struct users *l = arg;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		void *p = realloc(l->u, cap * sizeof(*l->u));

		if (!p) {
			l->oom = true;
			return 1;
		}
		l->u = p;
		l->cap = cap;
	}
	l->u[l->nr++] = *u;
	return 0;
}

static int take_sample(struct fnblk *h, const char *dev, struct sample *s)
{
	int ret;

	s->users.nr = 0;
	if (fnblk_stats_get(h, dev, &s->st) < 0)
		return nl_error(h, "top");
	/* Unprivileged, top shows the device alone. */
	ret = fnblk_users_dump(h, dev, collect, &s->users);
	s->users.denied = ret == -EPERM;
	if (ret < 0 && !s->users.denied)
		return nl_error(h, "top");
	if (s->users.oom)
		return runtime_error("out of memory");
	return 0;
}

static const struct fnblk_user_info *find_user(const struct users *l,
					       const struct fnblk_user_info *u)
{
	for (size_t i = 0; i < l->nr; i++)
		if (same_user(&l->u[i], u))
			return &l->u[i];
	return NULL;
}

/* b - a, or b alone when the counter went back (stats were reset). */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : b;
}

static int by_rate(const void *a, const void *b)
{
	const struct user_rate *x = a, *y = b;
	double rx = x->read_bps + x->write_bps, ry = y->read_bps + y->write_bps;

	return rx < ry ? 1 : rx > ry ? -1 : 0;
}

static void print_frame(const struct sample *prev, const struct sample *cur,
			bool clear)
{
	const uint64_t *p = prev->st.val, *c = cur->st.val;
	uint64_t dt = delta(p[FNBLK_STAT_TIME_NS], c[FNBLK_STAT_TIME_NS]);
	double sec = dt ? (double)dt / 1e9 : 1;
	uint64_t hist[FNBLK_NHIST_BINS], lat_nr = 0, q_nr = 0;
	uint64_t d_elapsed = delta(p[FNBLK_STAT_ELAPSED_NS],
				   c[FNBLK_STAT_ELAPSED_NS]);
	struct user_rate *rates;
	size_t nr_rates = 0;

#define D(stat) delta(p[stat], c[stat])
	for (unsigned int i = 0; i < FNBLK_NHIST_BINS; i++)
		hist[i] = delta(prev->st.n_hist[i], cur->st.n_hist[i]);
	for (unsigned int i = 0; i < FNBLK_LHIST_BINS; i++) {
		lat_nr += delta(prev->st.lat_hist[i], cur->st.lat_hist[i]);
		q_nr += delta(prev->st.queue_hist[i], cur->st.queue_hist[i]);
	}

	if (clear)
		fputs("\033[H\033[2J", stdout);
	pr_open_object(NULL);
	pr_str("dev", "%s", cur->st.dev_name);
	pr_u64("time_ns", NULL, c[FNBLK_STAT_TIME_NS]);
	pr_duration("interval_ns", "  interval %s\n", dt);
	pr_u64("nr_active", "n now %llu", c[FNBLK_STAT_NR_ACTIVE]);
	pr_double("mean_n", "  mean n %.2f",
		  d_elapsed ? (double)D(FNBLK_STAT_N_TIME_SUM) /
			      (double)d_elapsed : 0);
	pr_u64("peak_active", "  peak %llu", c[FNBLK_STAT_PEAK_ACTIVE]);
	pr_u64("nr_users", "  users %llu", c[FNBLK_STAT_NR_USERS]);
	pr_u64("inflight", "  inflight %llu\n", c[FNBLK_STAT_INFLIGHT]);
	pr_rate("read_bps", "read  %10s",
		(uint64_t)((double)D(FNBLK_STAT_READ_BYTES) / sec));
	pr_double("read_iops", " %8.0f ops/s",
		  (double)D(FNBLK_STAT_READ_OPS) / sec);
	pr_rate("write_bps", "   write %10s",
		(uint64_t)((double)D(FNBLK_STAT_WRITE_BYTES) / sec));
	pr_double("write_iops", " %8.0f ops/s\n",
		  (double)D(FNBLK_STAT_WRITE_OPS) / sec);
	pr_duration("latency_mean_ns", "latency mean %s",
		    lat_nr ? D(FNBLK_STAT_LAT_SUM_NS) / lat_nr : 0);
	pr_duration("queue_mean_ns", "  queue mean %s",
		    q_nr ? D(FNBLK_STAT_QUEUE_SUM_NS) / q_nr : 0);
	pr_u64("activations", "  activations %llu\n",
	       D(FNBLK_STAT_ACTIVATIONS));
	pr_text("\n");
	print_n_hist(hist, "n_hist_ns");
#undef D

	rates = calloc(cur->users.nr ? cur->users.nr : 1, sizeof(*rates));
	for (size_t i = 0; rates && i < cur->users.nr; i++) {
		const struct fnblk_user_info *u = &cur->users.u[i], *o;
		const uint64_t *v = u->val;
		uint64_t zero[__FNBLK_USER_MAX] = { 0 };
		const uint64_t *w;

		o = find_user(&prev->users, u);
		w = o ? o->val : zero;
		rates[nr_rates++] = (struct user_rate) {
			.u = u,
			.read_bps = (double)delta(w[FNBLK_USER_READ_BYTES],
					v[FNBLK_USER_READ_BYTES]) / sec,
			.write_bps = (double)delta(w[FNBLK_USER_WRITE_BYTES],
					v[FNBLK_USER_WRITE_BYTES]) / sec,
			.ops_ps = (double)(delta(w[FNBLK_USER_READ_OPS],
					v[FNBLK_USER_READ_OPS]) +
				  delta(w[FNBLK_USER_WRITE_OPS],
					v[FNBLK_USER_WRITE_OPS])) / sec,
			.active_share = (double)delta(w[FNBLK_USER_ACTIVE_NS],
					v[FNBLK_USER_ACTIVE_NS]) /
					(dt ? (double)dt : 1),
		};
	}
	if (rates)
		qsort(rates, nr_rates, sizeof(*rates), by_rate);
	if (cur->users.denied) {
		pr_bool("users_denied", "\nper-user rows need CAP_NET_ADMIN\n",
			true);
		goto out;
	}
	pr_text("\ntop users\n%-12s %-3s %-3s %11s %11s %8s %7s\n", "KEY", "KT",
		"ACT", "READ/s", "WRITE/s", "OPS/s", "ACTIVE");
	pr_open_array("users");
	for (size_t i = 0; i < nr_rates && i < TOP_USERS; i++) {
		const uint64_t *v = rates[i].u->val;

		pr_open_object(NULL);
		print_user_key(rates[i].u);
		pr_bool("kthread", " %-3s", v[FNBLK_USER_KTHREAD]);
		pr_bool("active", " %-3s", v[FNBLK_USER_ACTIVE]);
		pr_rate("read_bps", " %11s", (uint64_t)rates[i].read_bps);
		pr_rate("write_bps", " %11s", (uint64_t)rates[i].write_bps);
		pr_double("ops_per_s", " %8.0f", rates[i].ops_ps);
		pr_double("active_share", NULL, rates[i].active_share);
		pr_text(" %6.1f%%\n", 100 * rates[i].active_share);
		pr_close_object();
	}
	pr_close_array();
out:
	pr_close_object();
	pr_end();
	fflush(stdout);
	free(rates);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000),
			       .tv_nsec = (long)(ns % 1000000000) };

	/* A signal cuts the wait short; the loop then stops. */
	nanosleep(&ts, NULL);
}

int do_top(int argc, char **argv)
{
	static const char *const usage[] = { "NAME [INTERVAL] [OPTIONS]", NULL };
	uint64_t interval = 1000000000ULL, count = 0;
	bool once = false;
	const struct cli_option options[] = {
		{ .name = "once", .type = CLI_FLAG, .var = &once,
		  .help = "print one frame and exit" },
		{ .name = "count", .key = 'n', .arg = "N", .type = CLI_U64,
		  .var = &count, .min = 1, .max = UINT32_MAX, .dflt = "until "
		  "stopped", .help = "print N frames and exit" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Options", .options = options },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblkctl top", .usage = usage,
		.about = "A view of NAME refreshed every INTERVAL (1s unless "
			 "given; a bare number is seconds, as in top(1)): n now, "
			 "mean n, peak, read and write rates, latency and "
			 "queueing delay, the n histogram of the last interval, "
			 "and the ten users moving the most bytes (their rows "
			 "need CAP_NET_ADMIN; without it top shows the device "
			 "alone). The screen is "
			 "cleared with plain ANSI codes, and only when standard "
			 "output is a terminal, so it works over a serial "
			 "console and in a pipe.",
		.groups = groups, .json = &ctl_json,
		.json_help = "one JSON line per frame",
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct sample *a, *b, *tmp;
	const char *dev;
	struct fnblk *h;
	char err[256];
	bool clear;
	int ret;

	ret = object_args(&prog, &argc, &argv);
	if (ret != CLI_CONTINUE)
		return ret;
	if (once)
		count = 1;
	if (argc < 2)
		return usage_error("top: missing device name");
	dev = argv[1];
	if (args_check_dev(dev, err, sizeof(err)))
		return usage_error("top: %s", err);
	if (argc > 2 &&
	    args_parse_interval("interval", argv[2], &interval, err,
				sizeof(err)))
		return usage_error("top: %s", err);
	if (argc > 3)
		return usage_error("top: unexpected argument '%s'", argv[3]);
	ret = 0;

	h = ctl_handle();
	clear = !pr_json() && isatty(STDOUT_FILENO);
	pr_set_compact(true);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	if (!a || !b)
		return runtime_error("out of memory");
	ret = take_sample(h, dev, a);
	for (uint64_t frame = 0; !ret && !stop && (!count || frame < count);
	     frame++) {
		sleep_ns(interval);
		if (stop)
			break;
		ret = take_sample(h, dev, b);
		if (ret)
			break;
		print_frame(a, b, clear);
		tmp = a;
		a = b;
		b = tmp;
	}
	free(a->users.u);
	free(b->users.u);
	free(a);
	free(b);
	return ret;
}
