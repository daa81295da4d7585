// SPDX-License-Identifier: GPL-2.0
/*
 * TAP tests of the replay simulator (replay_engine.c) and of what a job
 * record becomes (lib/replay.c), against cases computed by hand: a device
 * of 1 MiB/s serves 1 MiB in 1 s, so every phase's length is known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_engine.h"
#include "replay_kpi.h"
#include "replay_locality.h"
#include "tap.h"

#define MiB		1048576ULL
#define SEC		1000000000ULL
#define TOL_NS		2000.0	/* the core's ns rounding over a few requests */

static const char header[] =
	"pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,"
	"inputfilebytes,outputfilebytes,ninputdatafiles,transfertype,jobstatus\n";

struct capture {
	struct replay_kpi kpi;
	struct replay_result res[16];	/* by end order */
	size_t nr;
	FILE *events;
};

static int cap_rows(void *ctx, const struct replay_row *rows, size_t nr)
{
	struct capture *c = ctx;
	size_t i;

	for (i = 0; c->events && i < nr; i++)
		if (replay_events_row(c->events, &rows[i]))
			return -1;
	return 0;
}

static int cap_result(void *ctx, const struct replay_result *r)
{
	struct capture *c = ctx;

	if (c->nr < 16)
		c->res[c->nr++] = *r;
	return replay_kpi_add(&c->kpi, r);
}

static void records(struct jobrecs *t, const char *body)
{
	char text[4096], err[256] = "";
	FILE *f;

	snprintf(text, sizeof(text), "%s%s", header, body);
	f = fmemopen(text, strlen(text), "r");
	jobrecs_init(t);
	if (!f || jobrecs_read_stream(f, "test", t, err, sizeof(err)))
		diag("records: %s", err);
	if (f)
		fclose(f);
}

static struct replay_site site(const char *name, unsigned int slots)
{
	struct replay_site s = { .slots = slots, .fail = { -1, -1, -1 } };

	snprintf(s.name, sizeof(s.name), "%s", name);
	fnblk_params_default(&s.dev);
	s.dev.bw = MiB;		/* 1 MiB/s: 1 MiB takes 1 s */
	return s;
}

static void config(struct replay_config *rc)
{
	replay_config_default(rc);
	rc->time_scale = 1;
	rc->byte_scale = 1;
}

/* Run t; 0 on success (results in c). */
static int run(const struct replay_config *rc, const struct replay_site *sites,
	       unsigned int nr_sites, enum replay_assign assign,
	       struct jobrecs *t, struct capture *c, char *err, size_t len)
{
	struct replay_sim sim = {
		.rc = rc, .sites = sites, .nr_sites = nr_sites,
		.assign = assign, .bs = MiB, .qd = 1,
	};
	struct replay_sim_sink sink = {
		.ctx = c, .rows = cap_rows, .result = cap_result,
	};
	struct replay_sim_stats st;

	replay_kpi_init(&c->kpi);
	c->nr = 0;
	return replay_sim_run(&sim, t, &sink, &st, err, len);
}

static const struct replay_result *result_of(const struct capture *c,
					     uint64_t id)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (c->res[i].id == id)
			return &c->res[i];
	return NULL;
}

/* copy: stage-in 1 s, payload 2 s, stage-out 1 s. */
static void test_copy_job_phases(void)
{
	struct replay_config rc;
	struct replay_site s = site("A", 1);
	struct capture c = { 0 };
	const struct replay_result *r;
	struct jobrecs t;
	char err[256];

	config(&rc);
	records(&t, "1,2025-01-01 00:00:00,A,2,1,1048576,1048576,1,copy,finished\n");
	ok(!run(&rc, &s, 1, REPLAY_ASSIGN_RECORDED, &t, &c, err, sizeof(err)),
	   "one copy job runs");
	r = result_of(&c, 1);
	if (r) {
		near((double)r->wall_ns, 4.0 * SEC, TOL_NS,
		     "copy job: 1 s in, 2 s payload, 1 s out = 4 s wall");
		near((double)r->io_ns, 2.0 * SEC, TOL_NS, "2 s of it is I/O");
		is_u64(r->queue_ns, 0, "no queue at a free slot");
		is_u64(r->remote_bytes, 0, "copy reads nothing remotely");
		is_u64(r->in_bytes, MiB, "its input");
	} else {
		ok(false, "job 1 has a result");
	}
	replay_kpi_free(&c.kpi);
	jobrecs_free(&t);
}

/* Two jobs, one slot: the second waits for the first's 4 s. */
static void test_slots_queue(void)
{
	static const char body[] =
		"1,2025-01-01 00:00:00,A,2,1,1048576,1048576,1,copy,finished\n"
		"2,2025-01-01 00:00:00,A,2,1,1048576,1048576,1,copy,finished\n";
	struct replay_config rc;
	struct replay_site s = site("A", 1);
	struct replay_figures f;
	struct capture c = { 0 };
	struct jobrecs t;
	char err[256];

	config(&rc);
	records(&t, body);
	ok(!run(&rc, &s, 1, REPLAY_ASSIGN_RECORDED, &t, &c, err, sizeof(err)),
	   "two jobs on one slot run");
	if (result_of(&c, 2))
		near((double)result_of(&c, 2)->queue_ns, 4.0 * SEC, TOL_NS,
		     "the second job queues 4 s");
	replay_kpi_figures(&c.kpi, &c.kpi.all, &f);
	near(f.queue_mean_s, 2.0, 1e-5, "mean queue time 2 s");
	near(f.queue_p95_s, 4.0, 1e-5, "p95 queue time 4 s");
	near(f.wall_mean_s, 4.0, 1e-5, "both walls 4 s");
	near(f.makespan_s, 8.0, 1e-5, "makespan 8 s");
	replay_kpi_free(&c.kpi);
	jobrecs_free(&t);

	/* Two slots: they share the device, each phase of I/O takes 2 s. */
	s = site("A", 2);
	records(&t, body);
	ok(!run(&rc, &s, 1, REPLAY_ASSIGN_RECORDED, &t, &c, err, sizeof(err)),
	   "two jobs on two slots run");
	replay_kpi_figures(&c.kpi, &c.kpi.all, &f);
	near(f.queue_mean_s, 0, 1e-9, "no queue with a slot each");
	near(f.wall_mean_s, 6.0, 1e-5,
	     "sharing 1 MiB/s: 2 s in, 2 s payload, 2 s out");
	near(f.io_share, 4.0 / 6.0, 1e-5, "I/O share 4/6");
	replay_kpi_free(&c.kpi);
	jobrecs_free(&t);
}

/* direct, 4 files: 4 x (read 1 MiB, compute 0.5 s), then 1 s out. */
static void test_direct_job(void)
{
	struct replay_config rc;
	struct replay_site s = site("A", 1);
	struct replay_figures f;
	struct capture c = { 0 };
	struct jobrecs t;
	char err[256];

	config(&rc);
	records(&t, "1,2025-01-01 00:00:00,A,2,1,4194304,1048576,4,direct,finished\n");
	ok(!run(&rc, &s, 1, REPLAY_ASSIGN_RECORDED, &t, &c, err, sizeof(err)),
	   "one direct job runs");
	replay_kpi_figures(&c.kpi, &c.kpi.all, &f);
	near(f.wall_mean_s, 7.0, 1e-5, "4 reads of 1 s, 2 s compute, 1 s out");
	near(f.io_share, 5.0 / 7.0, 1e-5, "I/O share 5/7");
	near(f.remote_fraction, 1.0, 0, "all input read remotely");
	replay_kpi_free(&c.kpi);
	jobrecs_free(&t);
}

/* Checkpoint every 1 s of compute: 2.5 s payload + 2 checkpoints of 1 s. */
static void test_checkpoints(void)
{
	struct replay_config rc;
	struct replay_site s = site("A", 1);
	struct replay_plan p = { 0 };
	struct replay_figures f;
	struct capture c = { 0 };
	struct jobrecs t;
	const char *why;
	char err[256];

	config(&rc);
	rc.ckpt_period_ns = SEC;
	rc.ckpt_bytes = MiB;
	records(&t, "1,2025-01-01 00:00:00,A,2.5,1,0,0,0,copy,finished\n");
	ok(!replay_plan_build(&rc, &t.r[0], true, &p, &why) && p.nr == 5 &&
	   p.ops[1].checkpoint && p.ops[3].checkpoint &&
	   p.ops[4].amount == SEC / 2,
	   "plan: compute 1 s, checkpoint, compute 1 s, checkpoint, compute 0.5 s");
	replay_plan_free(&p);
	ok(!run(&rc, &s, 1, REPLAY_ASSIGN_RECORDED, &t, &c, err, sizeof(err)),
	   "a checkpointing job runs");
	replay_kpi_figures(&c.kpi, &c.kpi.all, &f);
	near(f.wall_mean_s, 4.5, 1e-5, "2.5 s compute + 2 checkpoints of 1 s");
	replay_kpi_free(&c.kpi);
	jobrecs_free(&t);
}

/*
 * Every payload fails: 3 attempts (0-3 s, 4-7 s after a 1 s backoff, 9-12 s
 * after 2 s), then the job counts as failed.
 */
static void test_retries(void)
{
	struct replay_config rc;
	struct replay_site s = site("A", 1);
	const struct replay_result *r;
	struct replay_figures f;
	struct capture c = { 0 };
	struct jobrecs t;
	char err[256];

	config(&rc);
	rc.fail[REPLAY_PAYLOAD] = 1;
	rc.backoff_ns = SEC;
	rc.max_attempts = 3;
	records(&t, "1,2025-01-01 00:00:00,A,2,1,1048576,1048576,1,copy,finished\n");
	ok(!run(&rc, &s, 1, REPLAY_ASSIGN_RECORDED, &t, &c, err, sizeof(err)),
	   "a failing job runs");
	r = result_of(&c, 1);
	if (r) {
		ok(r->failed && r->attempts == 3 && r->failed_attempts == 3,
		   "3 failed attempts, job failed (%u, %u)", r->attempts,
		   r->failed_attempts);
		near((double)r->end_ns, 12.0 * SEC, TOL_NS,
		     "ends at 12 s (backoff 1 s, then 2 s)");
		near((double)r->wall_ns, 3.0 * SEC, TOL_NS,
		     "wall time is the last attempt's");
	}
	replay_kpi_figures(&c.kpi, &c.kpi.all, &f);
	near(f.error_rate, 1, 0, "error rate 1");
	replay_kpi_free(&c.kpi);
	jobrecs_free(&t);

	/* A site's own probability wins over the config's, for its jobs only. */
	{
		struct replay_site two[2] = { site("A", 1), site("B", 1) };

		config(&rc);
		rc.max_attempts = 2;
		two[1].fail[REPLAY_STAGEIN] = 1;
		records(&t, "1,2025-01-01 00:00:00,A,1,1,4096,0,1,copy,finished\n"
			    "2,2025-01-01 00:00:00,B,1,1,4096,0,1,copy,finished\n");
		ok(!run(&rc, two, 2, REPLAY_ASSIGN_RECORDED, &t, &c, err,
			sizeof(err)), "a site with its own failure probability runs");
		ok(result_of(&c, 1) && !result_of(&c, 1)->failed &&
		   result_of(&c, 2) && result_of(&c, 2)->failed &&
		   result_of(&c, 2)->failed_attempts == 2,
		   "B's stage-ins all fail, A's none");
		replay_kpi_free(&c.kpi);
		jobrecs_free(&t);
	}

	/* A record that failed fails every attempt unless told otherwise. */
	config(&rc);
	rc.max_attempts = 2;
	records(&t, "1,2025-01-01 00:00:00,A,1,1,0,0,0,copy,failed\n"
		    "2,2025-01-01 00:00:00,A,1,1,0,0,0,copy,finished\n");
	ok(!run(&rc, &s, 1, REPLAY_ASSIGN_RECORDED, &t, &c, err, sizeof(err)),
	   "a recorded failure replays");
	replay_kpi_figures(&c.kpi, &c.kpi.all, &f);
	near(f.error_rate, 0.5, 0, "one of two jobs failed as recorded");
	is_u64(f.attempts, 3, "two attempts of the failed one, one of the other");
	replay_kpi_free(&c.kpi);
	jobrecs_free(&t);

	/* Draws are a function of seed, id, attempt and phase only. */
	config(&rc);
	rc.fail[REPLAY_STAGEIN] = 0.5;
	records(&t, "1,2025-01-01 00:00:00,A,1,1,0,0,0,copy,finished\n");
	{
		unsigned int a, same = 0, fails = 0, differ = 0;
		struct replay_config other = rc;

		other.seed = 2;
		for (a = 1; a <= 2000; a++) {
			bool x = replay_fails(&rc, NULL, &t.r[0], a, REPLAY_STAGEIN);

			fails += x;
			same += x == replay_fails(&rc, NULL, &t.r[0], a, REPLAY_STAGEIN);
			differ += x != replay_fails(&other, NULL, &t.r[0], a,
						    REPLAY_STAGEIN);
		}
		is_u64(same, 2000, "the same draw every time");
		ok(differ > 800, "another seed draws otherwise (%u of 2000 differ)",
		   differ);
		ok(fails > 900 && fails < 1100,
		   "about half of 2000 draws at p = 0.5 fail (%u)", fails);
	}
	jobrecs_free(&t);
}

static void test_assignment(void)
{
	static const char body[] =
		"1,2025-01-01 00:00:00,X,1,1,1048576,0,1,copy,finished\n"
		"2,2025-01-01 00:00:00,X,1,1,1048576,0,1,copy,finished\n"
		"3,2025-01-01 00:00:00,X,1,1,1048576,0,1,copy,finished\n"
		"4,2025-01-01 00:00:00,X,1,1,1048576,0,1,copy,finished\n";
	struct replay_site s[2] = { site("A", 1), site("B", 1) };
	struct replay_config rc;
	struct capture c = { 0 };
	struct jobrecs t;
	char err[256] = "";
	size_t i, a_jobs = 0;

	config(&rc);
	records(&t, body);
	ok(run(&rc, s, 2, REPLAY_ASSIGN_RECORDED, &t, &c, err, sizeof(err)) &&
	   strstr(err, "job 1 ran at site 'X', which no --site names"),
	   "a recorded site that is not given is refused (%s)", err);
	replay_kpi_free(&c.kpi);
	ok(!run(&rc, s, 2, REPLAY_ASSIGN_LEAST_LOADED, &t, &c, err,
		sizeof(err)), "least-loaded runs");
	for (i = 0; i < c.kpi.nr_sites; i++)
		if (!strcmp(c.kpi.sites[i].name, "A"))
			a_jobs = c.kpi.sites[i].jobs;
	is_u64(a_jobs, 2, "least-loaded puts two of four jobs on each site");
	replay_kpi_free(&c.kpi);
	jobrecs_free(&t);
}

/*
 * Category "user.data" has its data at B only: data-local sends its jobs
 * there; run elsewhere (as recorded, at A), a copy job's stage-in is a
 * remote read.
 */
static void test_locality(void)
{
	static const char body[] =
		"1,2025-01-01 00:00:00,A,1,1,1048576,0,1,copy,finished\n"
		"2,2025-01-01 00:00:00,A,1,1,1048576,0,1,copy,finished\n";
	struct replay_site s[2] = { site("A", 2), site("B", 2) };
	const char *names[2] = { "A", "B" };
	struct replay_sim sim = { .sites = s, .nr_sites = 2, .bs = MiB, .qd = 1 };
	struct replay_sim_sink sink = { .result = cap_result };
	struct replay_locality loc;
	struct replay_sim_stats st;
	struct replay_config rc;
	struct replay_figures f;
	struct capture c = { 0 };
	struct jobrecs t;
	char err[256] = "";
	size_t i, at_b = 0;

	config(&rc);
	sim.rc = &rc;
	sink.ctx = &c;
	records(&t, body);
	/* The records' jobs are "prod.other": map that category. */
	replay_locality_init(&loc);
	ok(!replay_locality_add(&loc, "prod.other", "B", names, 2, err, sizeof(err)),
	   "a locality map: prod.other at B");
	ok(replay_locality_add(&loc, "x", "C", names, 2, err, sizeof(err)) &&
	   strstr(err, "site 'C' is not one of the sites"),
	   "a map naming a site nobody gives is refused (%s)", err);
	sim.locality = &loc;
	sim.assign = REPLAY_ASSIGN_DATA_LOCAL;
	replay_kpi_init(&c.kpi);
	c.nr = 0;
	ok(!replay_sim_run(&sim, &t, &sink, &st, err, sizeof(err)), "data-local runs");
	for (i = 0; i < c.kpi.nr_sites; i++)
		if (!strcmp(c.kpi.sites[i].name, "B"))
			at_b = c.kpi.sites[i].jobs;
	is_u64(at_b, 2, "data-local runs both jobs where their data are");
	replay_kpi_figures(&c.kpi, &c.kpi.all, &f);
	near(f.remote_fraction, 0, 0, "and reads nothing remotely");
	replay_kpi_free(&c.kpi);

	sim.assign = REPLAY_ASSIGN_RECORDED;
	replay_kpi_init(&c.kpi);
	c.nr = 0;
	ok(!replay_sim_run(&sim, &t, &sink, &st, err, sizeof(err)), "recorded runs");
	replay_kpi_figures(&c.kpi, &c.kpi.all, &f);
	near(f.remote_fraction, 1, 0,
	     "at A, away from the data, the copy stage-in is remote");
	replay_kpi_free(&c.kpi);
	replay_locality_free(&loc);
	jobrecs_free(&t);
}

/* The event file's KPIs are the simulator's own. */
static void test_events_round_trip(void)
{
	static const char body[] =
		"1,2025-01-01 00:00:00,A,2,1,4194304,1048576,4,direct,finished\n"
		"2,2025-01-01 00:00:01,A,3,1,1048576,2097152,1,copy,finished\n"
		"3,2025-01-01 00:00:01,A,1,1,1048576,0,1,copy,failed\n";
	struct replay_site s = site("A", 1);
	struct replay_figures f1, f2;
	struct replay_config rc;
	struct capture c = { 0 };
	struct fnblk_events params;
	struct replay_kpi back;
	struct jobrecs t;
	char path[] = "/tmp/test-replay-XXXXXX", err[256] = "";
	int fd = mkstemp(path);

	config(&rc);
	records(&t, body);
	c.events = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!ok(c.events != NULL, "a temporary file"))
		return;
	replay_events_header(c.events, "sim", NULL);
	ok(!run(&rc, &s, 1, REPLAY_ASSIGN_RECORDED, &t, &c, err, sizeof(err)),
	   "three jobs run");
	fclose(c.events);
	replay_kpi_init(&back);
	fnblk_events_init(&params);
	if (!ok(!replay_events_read_file(path, &params, replay_kpi_add_fn, NULL, &back,
					 err, sizeof(err)), "the events read back"))
		diag("%s", err);
	replay_kpi_figures(&c.kpi, &c.kpi.all, &f1);
	replay_kpi_figures(&back, &back.all, &f2);
	ok(f1.jobs == 3 && f2.jobs == 3 && f1.failed == 1 && f2.failed == 1 &&
	   f1.attempts == f2.attempts, "same jobs, failures and attempts");
	near(f2.queue_mean_s, f1.queue_mean_s, 1e-12, "same mean queue time");
	near(f2.queue_p95_s, f1.queue_p95_s, 1e-12, "same p95 queue time");
	near(f2.wall_mean_s, f1.wall_mean_s, 1e-12, "same mean wall time");
	near(f2.io_share, f1.io_share, 1e-12, "same I/O share");
	near(f2.remote_fraction, f1.remote_fraction, 1e-12,
	     "same remote fraction");
	ok(f1.queue_mean_s > 0, "the single slot made jobs queue (%.3f s)",
	   f1.queue_mean_s);
	unlink(path);
	replay_kpi_free(&back);
	replay_kpi_free(&c.kpi);
	fnblk_events_free(&params);
	jobrecs_free(&t);
}

int main(void)
{
	test_copy_job_phases();
	test_slots_queue();
	test_direct_job();
	test_checkpoints();
	test_retries();
	test_assignment();
	test_events_round_trip();
	test_locality();
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}
