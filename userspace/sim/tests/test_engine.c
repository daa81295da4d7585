// SPDX-License-Identifier: GPL-2.0
/*
 * The simulator's event loop, n(t) record, key figures and options on
 * small fleets whose every event is computed by hand. Times may be late
 * by 1 ns per rate change: the core rounds each service end up to a ns.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "kpi.h"
#include "ntrace.h"
#include "options.h"
#include "tap.h"

#define MS	1000000ULL
#define SEC	1000000000ULL
#define MAX_EV	64

struct log {
	struct fnblk_event ev[MAX_EV];
	unsigned int nr;
};

static void log_write(void *ctx, const struct fnblk_event *ev)
{
	struct log *l = ctx;

	if (l->nr < MAX_EV)
		l->ev[l->nr++] = *ev;
}

static const struct fnblk_event *find(const struct log *l, unsigned int job,
				      unsigned int cycle)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		if (l->ev[i].job == job && l->ev[i].cycle == cycle)
			return &l->ev[i];
	return NULL;
}

/* Simulate a fleet given as option pairs; 0 on success. */
static int simulate(const char *const (*opts)[2], struct log *l,
		    struct sim_result *res)
{
	struct sim_options o;
	struct fleet_workload fw;
	struct sim_workload w;
	struct sim_sink sink = { .ctx = l, .write = log_write };
	char err[256];
	int ret = -1;

	memset(l, 0, sizeof(*l));
	sim_options_init(&o);
	for (; (*opts)[0]; opts++) {
		if (sim_options_set(&o, (*opts)[0], (*opts)[1], err,
				    sizeof(err))) {
			diag("option %s: %s", (*opts)[0], err);
			goto out;
		}
	}
	if (fleet_workload_init(&fw, &o.fleet, err, sizeof(err))) {
		diag("%s", err);
		goto out;
	}
	fleet_workload_fill(&fw, &w);
	ret = sim_run(&o.dev, &o.io, &w, &sink, res, err, sizeof(err));
	if (ret)
		diag("%s", err);
	fleet_workload_free(&fw);
out:
	sim_options_free(&o);
	return ret;
}

/* slack: ns the clock may add, one per service end the write went through. */
static void check_slack(const struct log *l, unsigned int job,
			unsigned int cycle, uint64_t start, uint64_t end,
			uint64_t slack, const char *what)
{
	const struct fnblk_event *ev = find(l, job, cycle);
	char name[200];

	snprintf(name, sizeof(name), "%s: job %u cycle %u starts at %.3f s",
		 what, job, cycle, start * 1e-9);
	at(ev ? ev->start_ns : 0, start, 2, name);
	snprintf(name, sizeof(name), "%s: job %u cycle %u ends at %.3f s",
		 what, job, cycle, end * 1e-9);
	at(ev ? ev->end_ns : 0, end, slack, name);
}

static void check(const struct log *l, unsigned int job, unsigned int cycle,
		  uint64_t start, uint64_t end, const char *what)
{
	check_slack(l, job, cycle, start, end, 2, what);
}

/* Two jobs in sync: compute 1 s, then 10 MiB each at 10 MiB/s shared. */
static void test_sync_pair(void)
{
	static const char *const opts[][2] = {
		{ "jobs", "2" }, { "cycles", "2" }, { "compute", "1s" },
		{ "size", "10MiB" }, { "bw", "10MiB/s" }, { "bs", "0" },
		{ "grace", "0" }, { NULL, NULL }
	};
	struct log l;
	struct sim_result res;

	if (!ok(!simulate(opts, &l, &res), "sync pair simulated"))
		return;
	is_u64(res.writes, 4, "sync pair: 2 jobs x 2 cycles = 4 writes");
	check(&l, 0, 0, 1 * SEC, 3 * SEC, "sync pair (2S/B together)");
	check(&l, 1, 0, 1 * SEC, 3 * SEC, "sync pair");
	check(&l, 0, 1, 4 * SEC, 6 * SEC, "sync pair (compute 1 s after)");
	is_u64(res.peak_active, 2, "sync pair: peak n 2");
	is_u64(res.requests, 4, "bs 0: one request per checkpoint");
}

/* One job, 4 x 1 MiB at 1 MiB/s with 5 ms latency: qd hides latency. */
static void test_qd_latency(void)
{
	static const char *const qd1[][2] = {
		{ "jobs", "1" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "4MiB" }, { "bw", "1MiB/s" }, { "bs", "1MiB" },
		{ "latency", "5ms" }, { "grace", "0" }, { "qd", "1" },
		{ NULL, NULL }
	};
	static const char *const qd2[][2] = {
		{ "jobs", "1" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "4MiB" }, { "bw", "1MiB/s" }, { "bs", "1MiB" },
		{ "latency", "5ms" }, { "grace", "0" }, { "qd", "2" },
		{ NULL, NULL }
	};
	struct log l;
	struct sim_result res;

	if (ok(!simulate(qd1, &l, &res), "qd 1 simulated")) {
		check_slack(&l, 0, 0, SEC, SEC + 4 * (SEC + 5 * MS), 4,
			    "qd 1: every request pays service and latency");
		is_u64(res.requests, 4, "4 MiB in 1 MiB requests is 4 requests");
	}
	if (ok(!simulate(qd2, &l, &res), "qd 2 simulated"))
		check_slack(&l, 0, 0, SEC, SEC + 4 * SEC + 5 * MS, 4,
			    "qd 2: the next request is queued, only the last latency shows");
}

/*
 * A latency longer than the grace: the job waits for each completion and
 * stays counted in n all along (the grace runs from the completion), so
 * its write is one activity period, n = 1 from its start to a grace after
 * its end, as the module counts it.
 */
static void test_latency_keeps_user_active(void)
{
	static const char *const opts[][2] = {
		{ "jobs", "1" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "4MiB" }, { "bw", "1MiB/s" }, { "bs", "1MiB" },
		{ "latency", "5ms" }, { "grace", "2ms" }, { "qd", "1" },
		{ NULL, NULL }
	};
	struct log l;
	struct sim_result res;
	const struct fnblk_event *ev;
	/* Each resume may start up to 1 ns early (V's fraction is credited). */
	uint64_t end = SEC + 4 * (SEC + 5 * MS) - 4;

	if (!ok(!simulate(opts, &l, &res), "latency 5 ms, grace 2 ms simulated"))
		return;
	ev = find(&l, 0, 0);
	if (!ok(ev != NULL, "the write was recorded"))
		return;
	at(ev->end_ns, end, 8, "every request pays service and latency");
	at(res.n_time_sum, ev->end_ns + 2 * MS - SEC, 0,
	   "n = 1 from the write's start to a grace after its end");
}

/* Power cap: P jobs' worth of power shared by m computing jobs. */
static void test_power_cap(void)
{
	static const char *const two[][2] = {
		{ "jobs", "2" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "1MiB" }, { "bw", "1MiB/s" }, { "bs", "0" },
		{ "grace", "0" }, { "power-cap", "1" }, { NULL, NULL }
	};
	static const char *const three[][2] = {
		{ "jobs", "3" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "1MiB" }, { "bw", "1MiB/s" }, { "bs", "0" },
		{ "grace", "0" }, { "power-cap", "2" }, { NULL, NULL }
	};
	static const char *const loose[][2] = {
		{ "jobs", "2" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "1MiB" }, { "bw", "1MiB/s" }, { "bs", "0" },
		{ "grace", "0" }, { "power-cap", "2" }, { NULL, NULL }
	};
	struct log l;
	struct sim_result res;

	if (ok(!simulate(two, &l, &res), "cap 1, 2 jobs simulated"))
		check(&l, 1, 0, 2 * SEC, 4 * SEC,
		      "cap 1 with 2 computing: rate 1/2, compute takes 2 s");
	if (ok(!simulate(three, &l, &res), "cap 2, 3 jobs simulated"))
		check(&l, 2, 0, 1500 * MS, 4500 * MS,
		      "cap 2 with 3 computing: rate 2/3, compute takes 1.5 s");
	if (ok(!simulate(loose, &l, &res), "cap 2, 2 jobs simulated"))
		check(&l, 0, 0, SEC, 3 * SEC,
		      "a cap that does not bind changes nothing");
}

/* Compute 1 s and 3 s: the second job's first write meets the first's second. */
static void test_heterogeneous(void)
{
	static const char *const opts[][2] = {
		{ "jobs", "2" }, { "cycles", "2" }, { "compute", "1s,3s" },
		{ "size", "1MiB" }, { "bw", "1MiB/s" }, { "bs", "0" },
		{ "grace", "0" }, { NULL, NULL }
	};
	struct log l;
	struct sim_result res;

	if (!ok(!simulate(opts, &l, &res), "heterogeneous pair simulated"))
		return;
	check(&l, 0, 0, 1 * SEC, 2 * SEC, "heterogeneous: alone");
	check(&l, 0, 1, 3 * SEC, 5 * SEC, "heterogeneous: shared with job 1");
	check(&l, 1, 0, 3 * SEC, 5 * SEC, "heterogeneous: shared with job 0");
	check(&l, 1, 1, 8 * SEC, 9 * SEC, "heterogeneous: alone again");
}

static void test_duration(void)
{
	static const char *const opts[][2] = {
		{ "jobs", "1" }, { "cycles", "0" }, { "duration", "11s" },
		{ "compute", "1s" }, { "size", "1MiB" }, { "bw", "1MiB/s" },
		{ "bs", "0" }, { "grace", "0" }, { NULL, NULL }
	};
	struct log l;
	struct sim_result res;

	if (!ok(!simulate(opts, &l, &res), "duration run simulated"))
		return;
	/* Writes end at 2, 4, 6, 8, 10 s; the sixth, begun at 11 s, is cut. */
	is_u64(res.writes, 5, "an 11 s run of 2 s cycles completes 5 writes");
	is_u64(res.end_ns, 11 * SEC, "the run stops at its duration");
}

/* A cycle that takes no time would loop forever at one instant. */
static void test_timeless(void)
{
	static const char *const opts[][2] = {
		{ "jobs", "2" }, { "cycles", "0" }, { "duration", "1s" },
		{ "compute", "0" }, { "bw", "0" }, { NULL, NULL }
	};
	struct log l;
	struct sim_result res;

	diag("the next run is expected to fail:");
	ok(simulate(opts, &l, &res) == -1,
	   "an unthrottled, computeless run by duration is refused, not hung");
}

static void test_ntrace(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ntrace nt;

	ntrace_open(&nt, f);
	ntrace_change(&nt, 0, 1);
	ntrace_change(&nt, 5, 0);
	ntrace_change(&nt, 5, 1);	/* leave and rejoin at 5: no row */
	ntrace_change(&nt, 7, 2);
	ntrace_change(&nt, 9, 1);
	ntrace_change(&nt, 9, 0);	/* two changes at 9: the last holds */
	ntrace_close(&nt);
	fclose(f);
	ok(!strcmp(buf, "# fnblk-ntrace v1\n# source=sim\nt_ns,n\n0,1\n7,2\n9,0\n"),
	   "n(t) record: one row per change, instants collapsed");
	if (strcmp(buf, "# fnblk-ntrace v1\n# source=sim\nt_ns,n\n0,1\n7,2\n9,0\n"))
		diag("got:\n%s", buf);
	free(buf);
}

static void test_kpi(void)
{
	struct fnblk_events e;
	struct fnblk_event w[] = {
		{ .job = 0, .cycle = 0, .start_ns = 0, .end_ns = 2 * SEC },
		{ .job = 1, .cycle = 0, .start_ns = 1 * SEC, .end_ns = 3 * SEC },
		{ .job = 1, .cycle = 1, .start_ns = 5 * SEC, .end_ns = 6 * SEC },
	};
	struct kpi k;
	unsigned int i;

	fnblk_events_init(&e);
	for (i = 0; i < 3; i++)
		fnblk_events_add(&e, &w[i]);
	if (!ok(!kpi_compute(&e, 2, &k), "key figures computed"))
		return;
	near(k.times.all.mean_ns, 5.0 / 3 * SEC, 1e-3, "mean write time (2+2+1)/3 s");
	near(k.times.all.p99_ns, 2.0 * SEC, 0, "p99 write time is the largest of 3");
	/* Over [0, 6): n=1 on [0,1), [2,3), [5,6); n=2 on [1,2); 0 on [3,5). */
	near(k.conc.time_at[0], 2.0 / 6, 1e-12, "time with no writer: 2 of 6 s");
	near(k.conc.time_at[1], 3.0 / 6, 1e-12, "time with one writer: 3 of 6 s");
	near(k.conc.time_at[2], 1.0 / 6, 1e-12, "time with two writers: 1 of 6 s");
	near(k.conc.mean_n, 5.0 / 6, 1e-12, "mean concurrent writers 5/6");
	near(k.times.job[1].mean_ns, 1.5 * SEC, 1e-3, "job 1 mean write 1.5 s");
	near(kpi_rel_error(1.1, 1.0), 0.1, 1e-12, "relative error (p - m)/m");
	kpi_free(&k);
	fnblk_events_free(&e);
}

struct param_list {
	char name[32][32];
	char value[32][128];
	unsigned int nr;
};

/*
 * The path in front of the device (processor sharing, Documentation/
 * simulator.rst). One host: each request crosses the path alone, then the
 * device: 4 x 1 MiB at qd 1, 0.5 s of path and 1 s of device each, 6 s.
 * The capacity in bytes, in requests or both (their times add) is the same.
 */
static void test_path_one_host(void)
{
	static const char *const bytes[][2] = {
		{ "jobs", "1" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "4MiB" }, { "bw", "1MiB/s" }, { "bs", "1MiB" },
		{ "qd", "1" }, { "grace", "0" }, { "path-bw", "2MiB/s" },
		{ NULL, NULL }
	};
	static const char *const reqs[][2] = {
		{ "jobs", "1" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "4MiB" }, { "bw", "1MiB/s" }, { "bs", "1MiB" },
		{ "qd", "1" }, { "grace", "0" }, { "path-iops", "2/s" },
		{ NULL, NULL }
	};
	static const char *const both[][2] = {
		{ "jobs", "1" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "4MiB" }, { "bw", "1MiB/s" }, { "bs", "1MiB" },
		{ "qd", "1" }, { "grace", "0" }, { "path-bw", "4MiB/s" },
		{ "path-iops", "4" }, { NULL, NULL }
	};
	struct sim_io io = { .bs = 1 << 20, .qd = 1, .path_bw = 2 << 20 };
	struct fnblk_params dev;
	struct log l;
	struct sim_result res;

	if (ok(!simulate(bytes, &l, &res), "path 2 MiB/s, one host simulated"))
		check_slack(&l, 0, 0, SEC, 7 * SEC, 8,
			    "one host: 4 x (0.5 s path + 1 s device)");
	if (ok(!simulate(reqs, &l, &res), "path 2 requests/s simulated"))
		check_slack(&l, 0, 0, SEC, 7 * SEC, 8,
			    "path in requests: 0.5 s each, the same 6 s");
	if (ok(!simulate(both, &l, &res), "path 4 MiB/s + 4/s simulated"))
		check_slack(&l, 0, 0, SEC, 7 * SEC, 8,
			    "bytes and requests: 0.25 s + 0.25 s each, 6 s");
	fnblk_params_default(&dev);
	dev.bw = 1 << 20;
	dev.grace_ns = 0;
	at(sim_solo_write_ns(&dev, &io, 4 << 20), 6 * SEC, 8,
	   "the solo write time includes the path");
}

/*
 * Hosts that saturate the path: the device is unlimited, so the path alone
 * sets the times. Two hosts of 1 MiB at 1 MiB/s, 0.5 s apart: the first
 * has half its request done alone, then both get 1/2 until it leaves at
 * 2.5 s, and the second finishes its last half alone at 3 s. Four hosts in
 * sync with a device of the path's speed: path and device take turns,
 * each step 4 x 1/4 s, so 256 KiB in 64 KiB requests take 4 x (0.125 s x
 * 4 x 2) = 1 s.
 */
static void test_path_saturated(void)
{
	static const char *const staggered[][2] = {
		{ "jobs", "2" }, { "cycles", "1" }, { "compute", "1s,1.5s" },
		{ "size", "1MiB" }, { "bw", "0" }, { "bs", "0" }, { "qd", "1" },
		{ "grace", "0" }, { "path-bw", "1MiB/s" }, { NULL, NULL }
	};
	static const char *const turns[][2] = {
		{ "jobs", "4" }, { "cycles", "1" }, { "compute", "1s" },
		{ "size", "256KiB" }, { "bw", "2MiB/s" }, { "bs", "64KiB" },
		{ "qd", "1" }, { "path-bw", "2MiB/s" }, { NULL, NULL }
	};
	struct log l;
	struct sim_result res;
	unsigned int j;

	if (ok(!simulate(staggered, &l, &res), "two hosts on the path simulated")) {
		check_slack(&l, 0, 0, SEC, 2500 * MS, 2,
			    "path shared: the first leaves at 2.5 s");
		check_slack(&l, 1, 0, 1500 * MS, 3 * SEC, 2,
			    "path shared: the second has it alone from 2.5 s");
		is_u64(res.peak_active, 1,
		       "an unlimited device: never two users at once");
	}
	if (!ok(!simulate(turns, &l, &res), "four hosts in sync simulated"))
		return;
	for (j = 0; j < 4; j++)
		check_slack(&l, j, 0, SEC, 2 * SEC, 8,
			    "four hosts: path and device in turn, 1 s");
	is_u64(res.peak_active, 4, "four hosts: n = 4 on the device");
}

/* A path far faster than the device changes the times by its work only. */
static void test_path_fast(void)
{
	static const char *const none[][2] = {
		{ "jobs", "4" }, { "cycles", "2" }, { "compute", "1s" },
		{ "size", "4MiB" }, { "bw", "1MiB/s" }, { "bs", "1MiB" },
		{ "qd", "1" }, { NULL, NULL }
	};
	static const char *const fast[][2] = {
		{ "jobs", "4" }, { "cycles", "2" }, { "compute", "1s" },
		{ "size", "4MiB" }, { "bw", "1MiB/s" }, { "bs", "1MiB" },
		{ "qd", "1" }, { "path-bw", "1TiB/s" }, { NULL, NULL }
	};
	struct log a, b;
	struct sim_result ra, rb;
	unsigned int i;
	uint64_t worst = 0, d;

	if (!ok(!simulate(none, &a, &ra) && !simulate(fast, &b, &rb),
		"with and without a 1 TiB/s path simulated"))
		return;
	is_u64(b.nr, a.nr, "a fast path: as many writes");
	for (i = 0; i < a.nr && i < b.nr; i++) {
		const struct fnblk_event *x = &a.ev[i];
		const struct fnblk_event *y = find(&b, x->job, x->cycle);

		if (!y)
			continue;
		d = y->end_ns > x->end_ns ? y->end_ns - x->end_ns :
		    x->end_ns - y->end_ns;
		worst = d > worst ? d : worst;
	}
	/* 8 requests of a job, each at most 4 x 1 MiB / 1 TiB/s ~ 4 us late. */
	ok(worst <= 40000, "a fast path moves no write end by more than its work");
	diag("largest move of a write end: %llu ns", (unsigned long long)worst);
	is_u64(rb.peak_active, ra.peak_active, "a fast path: the same peak n");
}

/*
 * Completion on drain: 1 MiB each at 1 MiB/s, the second job 0.5 s later.
 * Served as ever (the first at 2.5 s, the second at 3 s), but the first
 * completes only when the device is empty, at 3 s, with the second; a job
 * alone is not held at all.
 */
static void test_drain(void)
{
	static const char *const pair[][2] = {
		{ "jobs", "2" }, { "cycles", "1" }, { "compute", "1s,1.5s" },
		{ "size", "1MiB" }, { "bw", "1MiB/s" }, { "bs", "0" }, { "qd", "1" },
		{ "grace", "0" }, { "completion", "drain" }, { NULL, NULL }
	};
	static const char *const own[][2] = {
		{ "jobs", "2" }, { "cycles", "1" }, { "compute", "1s,1.5s" },
		{ "size", "1MiB" }, { "bw", "1MiB/s" }, { "bs", "0" }, { "qd", "1" },
		{ "grace", "0" }, { NULL, NULL }
	};
	static const char *const alone[][2] = {
		{ "jobs", "1" }, { "cycles", "2" }, { "compute", "1s" },
		{ "size", "4MiB" }, { "bw", "1MiB/s" }, { "bs", "1MiB" },
		{ "qd", "2" }, { "grace", "0" }, { "completion", "drain" },
		{ NULL, NULL }
	};
	struct log l;
	struct sim_result res;

	if (ok(!simulate(own, &l, &res), "two jobs, own completion simulated"))
		check(&l, 0, 0, SEC, 2500 * MS,
		      "own completion: the first is done at 2.5 s");
	/* Shared service may end 1 ns early (the core credits V's fraction). */
	if (ok(!simulate(pair, &l, &res), "two jobs, drain simulated")) {
		check_slack(&l, 0, 0, SEC, 3 * SEC - 1, 3,
			    "drain: the first completes when the device is empty");
		check_slack(&l, 1, 0, 1500 * MS, 3 * SEC - 1, 3,
			    "drain: the second as with own completion");
		is_u64(res.requests, 2, "drain: every request delivered once");
	}
	if (ok(!simulate(alone, &l, &res), "one job, drain, qd 2 simulated")) {
		const struct fnblk_event *ev = find(&l, 0, 1);

		check_slack(&l, 0, 0, SEC, 5 * SEC, 4,
			    "drain, one job at qd 2: 4 s, as with own completion");
		at(ev ? ev->end_ns - ev->start_ns : 0, 4 * SEC, 4,
		   "drain, one job: the second cycle as the first");
	}
}

static void keep_param(void *arg, const char *name, const char *value)
{
	struct param_list *p = arg;

	if (p->nr < 32) {
		snprintf(p->name[p->nr], sizeof(p->name[0]), "%s", name);
		snprintf(p->value[p->nr], sizeof(p->value[0]), "%s", value);
		p->nr++;
	}
}

/* What a run records as params sets the same options again. */
static void test_params_round_trip(void)
{
	static const char *const opts[][2] = {
		{ "jobs", "5" }, { "compute", "uniform:1s,2s" }, { "size", "3MiB" },
		{ "bw", "12345678" }, { "fn", "table:1,0.75,0.5" },
		{ "latency", "1234567ns" }, { "overhead", "4097" },
		{ "grace", "3ms" }, { "policy", "weighted" }, { "bs", "12288" },
		{ "qd", "3" }, { "power-cap", "2.5" }, { "path-bw", "3MiB/s" },
		{ "path-iops", "150/s" }, { "completion", "drain" }, { NULL, NULL }
	};
	struct sim_options a, b;
	struct param_list pa = { 0 }, pb = { 0 };
	char err[256];
	unsigned int i;
	bool same, set = true;

	sim_options_init(&a);
	sim_options_init(&b);
	for (i = 0; opts[i][0]; i++)
		set = set && !sim_options_set(&a, opts[i][0], opts[i][1], err,
					      sizeof(err));
	ok(set, "every option accepted");
	sim_options_params(&a, keep_param, &pa);
	for (i = 0; i < pa.nr; i++)
		if (sim_options_set(&b, pa.name[i], pa.value[i], err,
				    sizeof(err)) < 0)
			diag("param %s=%s: %s", pa.name[i], pa.value[i], err);
	sim_options_params(&b, keep_param, &pb);
	same = pa.nr == pb.nr && !memcmp(pa.value, pb.value, sizeof(pa.value));
	ok(same && a.dev.bw == b.dev.bw && a.dev.latency_ns == b.dev.latency_ns &&
	   a.dev.overhead == b.dev.overhead && a.io.bs == b.io.bs &&
	   a.io.path_bw == b.io.path_bw && a.io.path_iops == 150 &&
	   b.io.path_iops == 150 && a.io.drain && b.io.drain &&
	   !memcmp(&a.dev.fn, &b.dev.fn, sizeof(a.dev.fn)),
	   "the recorded params re-create the same run");
	ok(sim_options_set(&a, "policy", "fair", err, sizeof(err)) == -1 &&
	   strstr(err, "expected anon, fifo or weighted"),
	   "a bad policy is refused with the valid names");
	ok(sim_options_set(&a, "fn", "linear:0", err, sizeof(err)) == -1 &&
	   strstr(err, "linear:K needs"),
	   "a bad f(n) is refused with the core's message");
	ok(sim_options_set(&a, "bs", "12345", err, sizeof(err)) == -1 &&
	   strstr(err, "not a multiple of 4KiB"),
	   "a request size is a multiple of 4KiB, as fnblk-fleet's");
	ok(sim_options_set(&a, "bs", "0", err, sizeof(err)) == 0 && a.io.bs == 0,
	   "bs 0: the whole checkpoint in one request, as fnblk-fleet's");
	ok(sim_options_set(&a, "path-bw", "none", err, sizeof(err)) == 0 &&
	   sim_options_set(&a, "path-iops", "none", err, sizeof(err)) == 0 &&
	   !a.io.path_bw && !a.io.path_iops,
	   "path none: no path, as by default");
	ok(sim_options_set(&a, "path-iops", "fast", err, sizeof(err)) == -1,
	   "a path capacity in requests is a number");
	ok(sim_options_set(&a, "colour", "red", err, sizeof(err)) == 1,
	   "an unknown name is reported as not ours");
	sim_options_free(&a);
	sim_options_free(&b);
}

int main(void)
{
	test_sync_pair();
	test_qd_latency();
	test_latency_keeps_user_active();
	test_power_cap();
	test_heterogeneous();
	test_duration();
	test_timeless();
	test_ntrace();
	test_kpi();
	test_path_one_host();
	test_path_saturated();
	test_path_fast();
	test_drain();
	test_params_round_trip();
	return tap_done();
}
