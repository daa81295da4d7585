// SPDX-License-Identifier: GPL-2.0
/* Totals and the text report of a run (see report.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../lib/fnblk.h"
#include "../lib/units.h"
#include "delays.h"
#include "hist.h"
#include "report.h"
#include "waits.h"

#define U	FNBLK_UNIT_BUFLEN

/* A value at a dotted path ("memory.events.oom_kill"), or NULL. */
static json_t *at(const json_t *o, const char *path)
{
	char key[64];

	while (o && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		path += n + (path[n] == '.');
	}
	return (json_t *)o;
}

static uint64_t num(const json_t *o, const char *path)
{
	json_t *v = at(o, path);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) :
	       json_is_real(v) ? (uint64_t)json_real_value(v) : 0;
}

static double real(const json_t *o, const char *path)
{
	return json_number_value(at(o, path));
}

static json_t *hist_summary(const struct mx_hist *h)
{
	json_t *j = mx_hist_json(h);

	json_object_del(j, "buckets");
	return j;
}

static double rate(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0;
}

/* Totals of one job's workers, into the job's entry and the run's. */
struct totals {
	uint64_t accesses, elements, updates, verified, wrong, syncs;
	uint64_t minflt, majflt, worker_ns, elapsed_ns, final_sync_ns;
	uint64_t durable_checked, durable_lost;
	struct mx_hist lat, sync;
	struct mx_delays delays;	/* span_ns: the threads they cover */
	unsigned int delays_dropped;	/* threads with impossible delays */
};

static void add_thread(struct totals *t, const json_t *th)
{
	struct mx_hist h;
	struct mx_delays d;

	t->accesses += num(th, "accesses");
	t->elements += num(th, "elements");
	t->updates += num(th, "updates");
	t->verified += num(th, "verified");
	t->wrong += num(th, "wrong");
	t->syncs += num(th, "syncs");
	t->minflt += num(th, "minflt");
	t->majflt += num(th, "majflt");
	t->worker_ns += num(th, "elapsed_ns");
	if (!mx_hist_from_json(&h, json_object_get(th, "latency")))
		mx_hist_merge(&t->lat, &h);
	if (!mx_hist_from_json(&h, json_object_get(th, "sync_latency")))
		mx_hist_merge(&t->sync, &h);
	if (!mx_delays_from_json(&d, json_object_get(th, "delays")))
		mx_delays_add(&t->delays, &d);
	if (json_is_true(json_object_get(th, "delays_implausible")))
		t->delays_dropped++;
}

static void totals_init(struct totals *t)
{
	memset(t, 0, sizeof(*t));
	mx_hist_init(&t->lat);
	mx_hist_init(&t->sync);
}

/*
 * Share of the workers' time each delay took. CPU time and run-queue
 * waits are always counted; the sleeping kinds only with delay
 * accounting on (null otherwise, and "other_sleep" is all sleep).
 */
static json_t *delay_shares(const struct totals *t, bool delayacct)
{
	const struct mx_delays *d = &t->delays;
	double all = (double)d->span_ns;	/* threads with sound delays */
	double known;

	if (!d->valid || all <= 0)
		return json_null();
	known = (double)(d->run_ns + d->runq_ns);
	if (delayacct)
		known += (double)(d->blkio_ns + d->reclaim_ns);
	return json_pack("{s:f, s:f, s:o, s:o, s:o, s:f}",
			 "cpu", (double)d->run_ns / all,
			 "waiting_for_cpu", (double)d->runq_ns / all,
			 "block_io", delayacct ? json_real((double)d->blkio_ns / all) : json_null(),
			 "reclaim", delayacct ? json_real((double)d->reclaim_ns / all) : json_null(),
			 "thrashing", delayacct ? json_real((double)d->thrashing_ns / all) :
			 json_null(),
			 "other_sleep", known < all ? 1.0 - known / all : 0.0);
}

static json_t *totals_json(const struct totals *t, bool delayacct)
{
	json_t *o = json_object();

	json_object_set_new(o, "elapsed_ns", json_integer((json_int_t)t->elapsed_ns));
	json_object_set_new(o, "accesses", json_integer((json_int_t)t->accesses));
	json_object_set_new(o, "elements", json_integer((json_int_t)t->elements));
	json_object_set_new(o, "bytes", json_integer((json_int_t)(t->elements * 8)));
	json_object_set_new(o, "elements_per_s", json_real(rate(t->elements, t->elapsed_ns)));
	json_object_set_new(o, "bytes_per_s", json_real(rate(t->elements * 8, t->elapsed_ns)));
	json_object_set_new(o, "accesses_per_s", json_real(rate(t->accesses, t->elapsed_ns)));
	json_object_set_new(o, "updates", json_integer((json_int_t)t->updates));
	json_object_set_new(o, "verified", json_integer((json_int_t)t->verified));
	json_object_set_new(o, "wrong", json_integer((json_int_t)t->wrong));
	json_object_set_new(o, "syncs", json_integer((json_int_t)t->syncs));
	json_object_set_new(o, "final_sync_ns", json_integer((json_int_t)t->final_sync_ns));
	json_object_set_new(o, "durable_checked", json_integer((json_int_t)t->durable_checked));
	json_object_set_new(o, "durable_lost", json_integer((json_int_t)t->durable_lost));
	json_object_set_new(o, "minflt", json_integer((json_int_t)t->minflt));
	json_object_set_new(o, "majflt", json_integer((json_int_t)t->majflt));
	json_object_set_new(o, "latency", hist_summary(&t->lat));
	json_object_set_new(o, "sync_latency", hist_summary(&t->sync));
	json_object_set_new(o, "delays", mx_delays_json(&t->delays));
	json_object_set_new(o, "delay_shares", delay_shares(t, delayacct));
	json_object_set_new(o, "delays_dropped", json_integer(t->delays_dropped));
	return o;
}

void mx_report_summarise(json_t *rep)
{
	json_t *jobs = json_object_get(rep, "jobs"), *job, *th;
	bool delayacct = json_is_true(at(rep, "system.delayacct"));
	struct totals all, one;
	size_t i, k;

	totals_init(&all);
	json_array_foreach(jobs, i, job) {
		totals_init(&one);
		json_array_foreach(json_object_get(job, "threads"), k, th)
			add_thread(&one, th);
		one.elapsed_ns = num(job, "elapsed_ns");
		one.final_sync_ns = num(job, "final_sync_ns");
		one.durable_checked = num(job, "durability.checked");
		one.durable_lost = num(job, "durability.lost");
		json_object_set_new(job, "result", totals_json(&one, delayacct));
		all.accesses += one.accesses;
		all.elements += one.elements;
		all.updates += one.updates;
		all.verified += one.verified;
		all.wrong += one.wrong;
		all.syncs += one.syncs;
		all.minflt += one.minflt;
		all.majflt += one.majflt;
		all.worker_ns += one.worker_ns;
		all.durable_checked += one.durable_checked;
		all.durable_lost += one.durable_lost;
		if (one.elapsed_ns > all.elapsed_ns)
			all.elapsed_ns = one.elapsed_ns;
		if (one.final_sync_ns > all.final_sync_ns)
			all.final_sync_ns = one.final_sync_ns;
		mx_hist_merge(&all.lat, &one.lat);
		mx_hist_merge(&all.sync, &one.sync);
		mx_delays_add(&all.delays, &one.delays);
		all.delays_dropped += one.delays_dropped;
	}
	json_object_set_new(rep, "result", totals_json(&all, delayacct));
}

bool mx_report_data_wrong(const json_t *rep)
{
	return num(rep, "result.wrong") || num(rep, "result.durable_lost");
}

/* Counts as people read them: 1234, 12.3k, 4.56M. */
static const char *count(uint64_t n, char *buf, size_t len)
{
	if (n < 10000)
		snprintf(buf, len, "%" PRIu64, n);
	else if (n < 10000000)
		snprintf(buf, len, "%.1fk", (double)n / 1e3);
	else if (n < 10000000000ULL)
		snprintf(buf, len, "%.2fM", (double)n / 1e6);
	else
		snprintf(buf, len, "%.2fG", (double)n / 1e9);
	return buf;
}

static const char *dur(uint64_t ns, char *buf)
{
	return fnblk_format_duration(ns, buf, U);
}

static const char *size(uint64_t b, char *buf)
{
	return fnblk_format_size(b, buf, U);
}

static void print_header(const json_t *rep)
{
	const json_t *s = at(rep, "settings"), *dev = at(rep, "device");
	char a[U], b[U], c[U];

	printf("fnblk-matrix: %s (%s), matrix %" PRIu64 " x %" PRIu64 " (%s each), %" PRIu64
	       " job%s\n", json_string_value(at(rep, "path")),
	       json_string_value(at(rep, "kind")), num(rep, "matrix.rows"),
	       num(rep, "matrix.cols"), size(num(rep, "matrix.bytes"), a),
	       num(s, "jobs"), num(s, "jobs") == 1 ? "" : "s");
	printf("  mode %s", json_string_value(at(s, "mode")));
	if (at(s, "advise"))
		printf(" (advise %s)", json_string_value(at(s, "advise")));
	if (at(s, "bs"))
		printf(" (bs %s)", json_is_null(at(s, "bs")) ? "default" :
		       size(num(s, "bs"), a));
	printf(", pattern %s (block %" PRIu64, json_string_value(at(s, "pattern")),
	       num(s, "block"));
	if (at(s, "block_cols"))
		printf("x%" PRIu64, num(s, "block_cols"));
	printf("), %" PRIu64 " thread%s, ", num(s, "threads"),
	       num(s, "threads") == 1 ? "" : "s");
	if (num(s, "duration_ns"))
		printf("for %s", dur(num(s, "duration_ns"), a));
	else
		printf("%" PRIu64 " accesses", num(s, "accesses"));
	if (real(s, "write_fraction") > 0)
		printf(", writes %.3g%% (sync every %" PRIu64 ")",
		       100 * real(s, "write_fraction"), num(s, "sync_every"));
	printf("%s, cache %s\n", json_is_true(at(s, "verify")) ? ", verify" : "",
	       json_string_value(at(s, "cache")));
	if (json_is_object(dev)) {
		printf("  device %s: readahead %s, largest request %s",
		       json_string_value(at(dev, "name")),
		       size(num(dev, "read_ahead_kb") * 1024, a),
		       size(num(dev, "max_sectors_kb") * 1024, b));
		if (at(dev, "config"))
			printf("; fnblk bw %s, latency %s, overhead %s, f(n) %s, store %s",
			       num(dev, "config.bw") ?
			       fnblk_format_rate(num(dev, "config.bw"), c, U) : "unlimited",
			       dur(num(dev, "config.latency_ns"), a),
			       size(num(dev, "config.overhead"), b),
			       json_string_value(at(dev, "config.fn")),
			       json_string_value(at(dev, "config.store")));
		putchar('\n');
	}
	printf("  kernel %s, %" PRIu64 " cpus, delay accounting %s\n",
	       json_string_value(at(rep, "system.kernel")), num(rep, "system.cpus"),
	       json_is_true(at(rep, "system.delayacct")) ? "on" :
	       "off (sysctl kernel.task_delayacct=1 to see where threads wait)");
	if (at(rep, "note"))
		printf("  %s\n", json_string_value(at(rep, "note")));
}

static void print_hist(const char *what, const json_t *h)
{
	char a[U], b[U], c[U], d[U];

	printf("  %s: p50 %s  p99 %s  max %s  (mean %s, %" PRIu64 ")\n", what,
	       dur(num(h, "p50_ns"), a), dur(num(h, "p99_ns"), b),
	       dur(num(h, "max_ns"), c), dur(num(h, "mean_ns"), d), num(h, "count"));
}

static void print_result(const json_t *r)
{
	char a[U], b[U], c[U], d[U], e[U], f[U];

	printf("result: %s accesses, %s elements (%s) in %s: %s elements/s, %s\n",
	       count(num(r, "accesses"), a, U), count(num(r, "elements"), b, U),
	       size(num(r, "bytes"), c), dur(num(r, "elapsed_ns"), d),
	       count((uint64_t)real(r, "elements_per_s"), e, U),
	       fnblk_format_rate((uint64_t)real(r, "bytes_per_s"), f, U));
	print_hist("latency per access", at(r, "latency"));
	if (num(r, "verified"))
		printf("  verified %s elements: %s\n", count(num(r, "verified"), a, U),
		       num(r, "wrong") ? "SOME ARE WRONG (see jobs)" : "all correct");
	if (num(r, "updates")) {
		printf("  updated %s elements, %" PRIu64 " syncs, final sync %s",
		       count(num(r, "updates"), a, U), num(r, "syncs"),
		       dur(num(r, "final_sync_ns"), b));
		if (num(r, "durable_checked"))
			printf("; read back from the device: %" PRIu64 " checked, %" PRIu64 " lost",
			       num(r, "durable_checked"), num(r, "durable_lost"));
		putchar('\n');
		if (num(r, "syncs"))
			print_hist("sync", at(r, "sync_latency"));
	}
	printf("  page faults: %s minor, %s major\n", count(num(r, "minflt"), a, U),
	       count(num(r, "majflt"), b, U));
	if (json_is_object(at(r, "delay_shares")) &&
	    json_is_null(at(r, "delay_shares.block_io")))
		printf("  worker time: cpu %.1f%%, waiting for a cpu %.1f%%, asleep %.1f%% (delay accounting off: no split)\n",
		       100 * real(r, "delay_shares.cpu"),
		       100 * real(r, "delay_shares.waiting_for_cpu"),
		       100 * real(r, "delay_shares.other_sleep"));
	else if (json_is_object(at(r, "delay_shares")))
		printf("  worker time: cpu %.1f%%, waiting for a cpu %.1f%%, block I/O %.1f%%, reclaim %.1f%%, thrashing %.1f%%, other sleep %.1f%%\n",
		       100 * real(r, "delay_shares.cpu"),
		       100 * real(r, "delay_shares.waiting_for_cpu"),
		       100 * real(r, "delay_shares.block_io"),
		       100 * real(r, "delay_shares.reclaim"),
		       100 * real(r, "delay_shares.thrashing"),
		       100 * real(r, "delay_shares.other_sleep"));
	if (num(r, "delays_dropped"))
		printf("  (%" PRIu64 " thread%s left out of that split: the kernel counted a delay longer than the run)\n",
		       num(r, "delays_dropped"), num(r, "delays_dropped") == 1 ? "" : "s");
}

static void print_threads(const json_t *rep)
{
	const json_t *job, *th;
	char a[U], b[U], c[U], d[U], e[U], f[U];
	size_t i, k;

	printf("threads:\n  %4s %4s %9s %9s %8s %8s %8s %9s %9s %7s\n", "job", "id",
	       "accesses", "elements", "minflt", "majflt", "vcsw", "p50", "p99", "blkio");
	json_array_foreach(at(rep, "jobs"), i, job) {
		json_array_foreach(at(job, "threads"), k, th) {
			double el = (double)num(th, "elapsed_ns");

			printf("  %4" PRIu64 " %4" PRIu64 " %9s %9s %8s %8s %8" PRIu64 " %9s %9s",
			       num(job, "job"), num(th, "id"),
			       count(num(th, "accesses"), a, U), count(num(th, "elements"), b, U),
			       count(num(th, "minflt"), c, U), count(num(th, "majflt"), d, U),
			       num(th, "nvcsw"), dur(num(th, "latency.p50_ns"), e),
			       dur(num(th, "latency.p99_ns"), f));
			if (json_is_object(at(th, "delays")) && el > 0)
				printf(" %6.1f%%", 100.0 * (double)num(th, "delays.blkio_ns") / el);
			else
				printf(" %7s", "-");
			putchar('\n');
		}
	}
}

static void print_waits(const json_t *t)
{
	const json_t *w = at(t, "workers"), *site;
	const char *key;
	json_t *v;
	size_t i;

	if (!num(w, "thread_samples"))
		return;
	printf("thread states (%" PRIu64 " samples): running %.1f%%, uninterruptible %.1f%%, sleeping %.1f%%\n",
	       num(t, "samples"), 100 * real(w, "running"),
	       100 * real(w, "uninterruptible"), 100 * real(w, "sleeping"));
	if (!json_is_true(at(t, "stacks"))) {
		printf("  (kernel stacks unreadable: run as root to see where threads wait)\n");
		return;
	}
	printf("  waiting in:");
	json_object_foreach((json_t *)at(w, "waiting_in"), key, v)
		printf(" %s %.1f%%", key, 100 * json_number_value(v));
	printf("\n  sites:");
	json_array_foreach(at(t, "worker_sites"), i, site) {
		if (i == 6)
			break;
		printf(" %s (%s) %.1f%%", json_string_value(at(site, "site")),
		       json_string_value(at(site, "class")),
		       100.0 * (double)num(site, "samples") / (double)num(w, "thread_samples"));
	}
	putchar('\n');
}

static void print_memory(const json_t *rep)
{
	const json_t *m = at(rep, "memory"), *ser = at(m, "series");
	size_t last = json_array_size(at(ser, "t_ns"));
	char a[U], b[U], c[U], d[U];

	if (!json_is_object(m))
		return;
	if (!strcmp(json_string_value(at(m, "scope")), "cgroup")) {
		printf("memory (%s, max %s): peak %s", json_string_value(at(m, "cgroup")),
		       json_is_null(at(m, "max")) ? "none" : size(num(m, "max"), a),
		       size(num(m, "peak"), b));
		if (last)
			printf("; last sample %s (file %s, anon %s)",
			       size((uint64_t)json_integer_value(json_array_get(at(ser, "current"), last - 1)), a),
			       size((uint64_t)json_integer_value(json_array_get(at(ser, "file"), last - 1)), c),
			       size((uint64_t)json_integer_value(json_array_get(at(ser, "anon"), last - 1)), d));
		printf("\n  events: high %" PRIu64 ", max %" PRIu64 ", oom %" PRIu64 ", oom_kill %" PRIu64 "\n",
		       num(m, "events.high"), num(m, "events.max"), num(m, "events.oom"),
		       num(m, "events.oom_kill"));
	} else {
		printf("memory (the system's: no cgroup)\n");
	}
	printf("  reclaim: %s pages scanned, %s reclaimed; %s file refaults; %s major faults\n",
	       count(num(m, "counters.pgscan"), a, U), count(num(m, "counters.pgsteal"), b, U),
	       count(num(m, "counters.workingset_refault_file"), c, U),
	       count(num(m, "counters.pgmajfault"), d, U));
	if (at(rep, "pressure"))
		printf("pressure: io some %.1f%% full %.1f%%; memory some %.1f%% full %.1f%%\n",
		       100 * real(rep, "pressure.io.some_share"),
		       100 * real(rep, "pressure.io.full_share"),
		       100 * real(rep, "pressure.memory.some_share"),
		       100 * real(rep, "pressure.memory.full_share"));
	if (json_is_object(at(rep, "cpu")))
		printf("cpu (all): user %.1f%%, system %.1f%%, iowait %.1f%%, idle %.1f%%\n",
		       100 * real(rep, "cpu.user_share"), 100 * real(rep, "cpu.system_share"),
		       100 * real(rep, "cpu.iowait_share"), 100 * real(rep, "cpu.idle_share"));
}

/* "4KiB 97.1%, 128KiB 2.9%": the request sizes seen, by power-of-two bin. */
static void print_sizes(const char *what, const json_t *sizes)
{
	const json_t *bin;
	uint64_t total = 0;
	char a[U];
	size_t i;

	json_array_foreach(sizes, i, bin)
		total += num(bin, "requests");
	if (!total)
		return;
	printf("  %s request sizes:", what);
	json_array_foreach(sizes, i, bin)
		printf("%s %s%s %.1f%%", i ? "," : "", num(bin, "bytes") >= fnblk_rsize_bin_low(FNBLK_RSIZE_BINS - 1) ?
		       ">=" : "", size(num(bin, "bytes"), a),
		       100.0 * (double)num(bin, "requests") / (double)total);
	putchar('\n');
}

static void print_device(const json_t *rep)
{
	const json_t *io = at(rep, "device.io");
	char a[U], b[U], c[U], d[U], e[U], f[U];

	if (!json_is_object(io)) {
		if (at(rep, "device.error"))
			printf("device %s: counters unavailable: %s\n",
			       json_string_value(at(rep, "device.name")),
			       json_string_value(at(rep, "device.error")));
		return;
	}
	printf("device %s during the run: %s reads (%s, mean %s), %s writes (%s, mean %s), %" PRIu64 " flushes\n",
	       json_string_value(at(rep, "device.name")),
	       count(num(io, "read_ops"), a, U), size(num(io, "read_bytes"), b),
	       size((uint64_t)real(io, "mean_read_bytes"), c),
	       count(num(io, "write_ops"), d, U), size(num(io, "write_bytes"), e),
	       size((uint64_t)real(io, "mean_write_bytes"), f), num(io, "flush_ops"));
	print_sizes("read", at(io, "read_sizes"));
	print_sizes("write", at(io, "write_sizes"));
}

static void print_jobs(const json_t *rep)
{
	const json_t *job, *th, *w;
	char a[U], b[U];
	size_t i, k, n;

	json_array_foreach(at(rep, "jobs"), i, job) {
		printf("job %" PRIu64 ": %s", num(job, "job"), json_string_value(at(job, "exit")));
		if (at(job, "result.elapsed_ns"))
			printf(", %s, %s elements/s", dur(num(job, "result.elapsed_ns"), a),
			       count((uint64_t)real(job, "result.elements_per_s"), b, U));
		if (json_is_object(at(job, "memory")))
			printf(", memory peak %s", size(num(job, "memory.peak"), a));
		putchar('\n');
		if (at(job, "error"))
			printf("  error: %s\n", json_string_value(at(job, "error")));
		if (at(job, "results"))
			printf("  results: %s\n", json_string_value(at(job, "results")));
		json_array_foreach(at(job, "threads"), k, th) {
			json_array_foreach(at(th, "wrong_at"), n, w)
				printf("  WRONG element (%" PRIu64 ", %" PRIu64 ") read by thread %" PRIu64 ": %.17g\n",
				       num(w, "i"), num(w, "j"), num(th, "id"), real(w, "found"));
		}
		json_array_foreach(at(job, "durability.lost_at"), n, w)
			printf("  LOST update of (%" PRIu64 ", %" PRIu64 "): the device holds %.17g\n",
			       num(w, "i"), num(w, "j"), real(w, "found"));
	}
}

void mx_report_print(const json_t *rep, bool json)
{
	if (json) {
		json_dumpf(rep, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		putchar('\n');
		return;
	}
	print_header(rep);
	print_result(at(rep, "result"));
	print_threads(rep);
	print_waits(at(rep, "threads"));
	print_memory(rep);
	print_device(rep);
	print_jobs(rep);
	if (at(rep, "interrupted"))
		printf("interrupted (%s): the figures cover the run until then\n",
		       json_string_value(at(rep, "interrupted")));
}
