// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of merging several hosts' event files (userspace/lib/hosts.c):
 * job numbering, clock offsets, per-job parameters, hosts writing at once.
 */
#include <stdlib.h>
#include <string.h>

#include "hosts.h"
#include "../../fleet/tests/tap.h"

static void add(struct fnblk_events *e, unsigned int job, unsigned int cycle,
		uint64_t start, uint64_t end)
{
	struct fnblk_event ev = { job, cycle, start, end, 4096 };

	fnblk_events_add(e, &ev);
}

/* Host 0: two jobs; host 1: one job on a clock 1 s ahead (offset -1 s). */
static void two_hosts(struct fnblk_events *in)
{
	fnblk_events_init(&in[0]);
	fnblk_events_init(&in[1]);
	fnblk_events_set_source(&in[0], "fleet");
	fnblk_events_set_source(&in[1], "fleet");
	fnblk_events_set_param(&in[0], "jobs", "2");
	fnblk_events_set_param(&in[0], "bw", "32MiB/s");
	fnblk_events_set_param(&in[0], "target", "/dev/nbd0");
	fnblk_events_set_param(&in[0], "solo_ns", "7");
	fnblk_events_set_param(&in[0], "start_ns", "100");
	fnblk_events_set_param(&in[0], "plan.1", "phase_ns=5");
	fnblk_events_set_param(&in[1], "jobs", "1");
	fnblk_events_set_param(&in[1], "bw", "32MiB/s");
	fnblk_events_set_param(&in[1], "target", "/dev/nbd1");
	fnblk_events_set_param(&in[1], "solo_ns.0", "9");
	fnblk_events_set_param(&in[1], "start_ns", "1000000090");
	fnblk_events_set_param(&in[1], "clock_offset_ns", "-1000000000");
	add(&in[0], 0, 0, 100, 110);
	add(&in[0], 1, 0, 120, 130);
	add(&in[1], 0, 0, 1000000105, 1000000125);
}

static void test_merge(void)
{
	struct fnblk_events in[2], out;
	struct fnblk_hosts h;
	char err[256];
	const char *p;

	two_hosts(in);
	fnblk_events_init(&out);
	TAP_OK(!fnblk_hosts_merge(&out, &h, in, NULL, 2, err, sizeof(err)), "two hosts merge");
	TAP_EQ_U(h.nr, 2, "two hosts");
	TAP_EQ_U(h.first_job[1], 2, "host 1's jobs start after host 0's two");
	TAP_EQ_U(out.nr, 3, "every write kept");
	TAP_EQ_U(out.ev[2].job, 2, "host 1's job 0 is job 2");
	TAP_EQ_U(out.ev[2].start_ns, 105, "host 1's times moved by its clock offset");
	TAP_EQ_U(out.ev[2].end_ns, 125, "... ends too");
	p = fnblk_events_param(&out, "jobs");
	TAP_OK(p && !strcmp(p, "3"), "jobs is the sum");
	p = fnblk_events_param(&out, "host_jobs");
	TAP_OK(p && !strcmp(p, "2,1"), "host_jobs lists each host's jobs");
	p = fnblk_events_param(&out, "start_ns");
	TAP_OK(p && !strcmp(p, "90"), "start is the earliest corrected start");
	p = fnblk_events_param(&out, "bw");
	TAP_OK(p && !strcmp(p, "32MiB/s"), "a parameter all hosts share is kept");
	TAP_OK(!fnblk_events_param(&out, "target"), "one that differs is dropped");
	TAP_OK(!fnblk_events_param(&out, "clock_offset_ns"), "the offset is not kept");
	p = fnblk_events_param(&out, "solo_ns.1");
	TAP_OK(p && !strcmp(p, "7"), "solo_ns of a host becomes each of its jobs' solo_ns.J");
	p = fnblk_events_param(&out, "solo_ns.2");
	TAP_OK(p && !strcmp(p, "9"), "solo_ns.0 of host 1 is solo_ns.2");
	p = fnblk_events_param(&out, "plan.1");
	TAP_OK(p && !strcmp(p, "phase_ns=5"), "plan.J renumbered (host 0 keeps its own)");
	TAP_EQ_U(fnblk_hosts_of_job(&h, 0), 0, "job 0 is host 0's");
	TAP_EQ_U(fnblk_hosts_of_job(&h, 1), 0, "job 1 is host 0's");
	TAP_EQ_U(fnblk_hosts_of_job(&h, 2), 1, "job 2 is host 1's");
	TAP_EQ_U(fnblk_hosts_of_job(&h, 3), 2, "job 3 is nobody's");
	fnblk_hosts_free(&h);
	fnblk_events_free(&out);

	/* An offset that moves a time before 0 is refused, with the host. */
	fnblk_events_set_param(&in[1], "clock_offset_ns", "-2000000000");
	fnblk_events_init(&out);
	TAP_OK(fnblk_hosts_merge(&out, &h, in, NULL, 2, err, sizeof(err)) &&
	       strstr(err, "host 1") && strstr(err, "out of range"),
	       "an offset below the clock's 0 is refused");
	fnblk_events_free(&out);
	fnblk_events_set_param(&in[1], "clock_offset_ns", "12x");
	fnblk_events_init(&out);
	TAP_OK(fnblk_hosts_merge(&out, &h, in, NULL, 2, err, sizeof(err)) &&
	       strstr(err, "clock_offset_ns=12x"), "an offset that is no number is refused");
	fnblk_events_free(&out);
	fnblk_events_free(&in[0]);
	fnblk_events_free(&in[1]);
}

static void test_from_params(void)
{
	struct fnblk_events e;
	struct fnblk_hosts h;
	char err[256];

	fnblk_events_init(&e);
	TAP_OK(!fnblk_hosts_from_params(&e, 3, &h, err, sizeof(err)) && h.nr == 0,
	       "a file without host_jobs has no hosts");
	fnblk_events_set_param(&e, "host_jobs", "2,1");
	TAP_OK(!fnblk_hosts_from_params(&e, 3, &h, err, sizeof(err)) && h.nr == 2 &&
	       h.first_job[1] == 2 && h.first_job[2] == 3, "host_jobs=2,1 read back");
	fnblk_hosts_free(&h);
	TAP_OK(fnblk_hosts_from_params(&e, 4, &h, err, sizeof(err)) &&
	       strstr(err, "3 jobs, the file has 4"), "host_jobs must cover the jobs");
	fnblk_events_set_param(&e, "host_jobs", "2,,1");
	TAP_OK(fnblk_hosts_from_params(&e, 3, &h, err, sizeof(err)),
	       "an empty entry is refused");
	fnblk_events_free(&e);
}

static void test_concurrency(void)
{
	struct fnblk_events e;
	struct fnblk_hosts h;
	struct fnblk_host_stats st[2];
	double busy[3];
	char err[256];

	/*
	 * Host 0 (jobs 0, 1) writes [0, 10) and [5, 15): one host, not two.
	 * Host 1 (job 2) writes [10, 30) and, back to back, [30, 40).
	 */
	fnblk_events_init(&e);
	fnblk_events_set_param(&e, "host_jobs", "2,1");
	add(&e, 0, 0, 0, 10);
	add(&e, 1, 0, 5, 15);
	add(&e, 2, 0, 10, 30);
	add(&e, 2, 1, 30, 40);
	fnblk_hosts_from_params(&e, 3, &h, err, sizeof(err));
	TAP_OK(!fnblk_hosts_concurrency(&e, &h, 0, busy, st), "hosts writing at once");
	TAP_NEAR(busy[0], 0, 0, "no gap with no host writing");
	TAP_NEAR(busy[1], 35, 0, "one host: [0, 10) and [15, 40), back to back counts once");
	TAP_NEAR(busy[2], 5, 0, "two hosts: [10, 15)");
	TAP_EQ_U(st[0].writes, 2, "host 0 wrote twice");
	TAP_EQ_U(st[1].bytes, 8192, "host 1 wrote two writes' bytes");
	TAP_NEAR(st[0].write_ns, 20, 0, "host 0's write time is the sum of its writes'");
	TAP_EQ_U(st[1].jobs, 1, "host 1 has one job");
	TAP_OK(!fnblk_hosts_concurrency(&e, &h, 1, busy, st), "from cycle 1 on");
	TAP_NEAR(busy[1], 10, 0, "only host 1's second write is left: [30, 40)");
	TAP_NEAR(busy[0] + busy[2], 0, 0, "its window is that write");
	TAP_EQ_U(st[0].writes, 0, "host 0 wrote nothing from cycle 1 on");
	fnblk_hosts_free(&h);
	fnblk_events_free(&e);
}

int main(void)
{
	test_merge();
	test_from_params();
	test_concurrency();
	return tap_done();
}
