// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-bench: the figures behind Documentation/benchmarks.rst. Each
 * subcommand measures one property of a device and prints one table; run
 * inside a test VM by scripts/bench. It drives devices exactly as the
 * selftests do (same writer fleets, same netlink client), so a benchmark
 * and a test of the same property agree on what was measured.
 *
 *   share [MAX_N]        aggregate and per-user rate vs f(n)*B/n, n=1..MAX_N
 *   sync                 one synchronous writer against f(1)*B, own writer
 *                        and fio psync, 4 KiB to 1 MiB, store memory and none
 *   qd PATH|fnblk        rate of a QD16 writer over a QD1 writer on PATH,
 *                        64 KiB and 1 MiB, own writers and fio
 *   latency              p50/p99 of per-I/O time minus the configured latency
 *   iops PATH|fnblk...   unthrottled 4 KiB random-write IOPS, devices taking turns
 *   cost [MAX_N]         time per 4 KiB write with MAX_N users active
 */
#include "../../selftests/fnblk/fnblk_test.h"

#include <jansson.h>
#include <math.h>

#include "cli.h"
#include "print.h"
#include "units.h"

#define BENCH_DEV "fnblk20"
#define BENCH_PATH "/dev/" BENCH_DEV

static struct fnl nl;

static void die(const char *what)
{
	fprintf(stderr, "fnblk-bench: %s: %s\n", what,
		nl.err[0] ? nl.err : strerror(errno));
	exit(1);
}

static void bench_dev(const struct dev_cfg *d)
{
	dev_del(&nl, BENCH_DEV);
	if (dev_add(&nl, d))
		die("cannot add " BENCH_DEV);
}

static uint64_t user_bytes(const struct fnl_users *us, uint64_t key)
{
	size_t i;

	for (i = 0; i < us->nr; i++)
		if (us->u[i].key == key)
			return us->u[i].write_bytes;
	return 0;
}

struct sampler {
	struct fnl c;
	uint64_t skip_us, len_us, t0, t1;
	struct fnl_users a, b;
};

static void *sampler_run(void *arg)
{
	struct sampler *s = arg;

	usleep(s->skip_us);
	s->t0 = now_ns();
	fnl_users(&s->c, BENCH_DEV, &s->a);
	usleep(s->len_us);
	s->t1 = now_ns();
	fnl_users(&s->c, BENCH_DEV, &s->b);
	return NULL;
}

static void keep_pids(const pid_t *pids, int n, void *arg)
{
	memcpy(arg, pids, (size_t)n * sizeof(*pids));
}

/* n writers, constant f, B = 32 MiB/s: errors against f(n)*B/n. */
static void bench_share(int max_n)
{
	const double bw = 32.0 * MiB;
	static struct wspec ws[256];
	static struct wres res[256];
	static pid_t pids[256];
	int n, i;

	pr_open_object(NULL);
	pr_str("benchmark", NULL, "share");
	pr_text("# share: B = 32 MiB/s, f = constant, requests of 10 ms of a share, QD2;\n"
		"# rates from the kernel's per-user counters over 3 s\n");
	pr_double("bw_bps", NULL, bw);
	pr_text("%6s %14s %12s %14s %14s\n", "n", "aggregate", "agg err %",
		"mean user", "max user err %");
	pr_open_array("rows");
	for (n = 1; n <= max_n && n <= 256; n *= 2) {
		double each = bw / n, agg = 0, worst = 0, r;
		struct sampler s = { .skip_us = 800000, .len_us = 3000000 };
		uint32_t bs = (uint32_t)(each * 0.01) & ~4095U;
		pthread_t tid;

		bs = bs < 4096 ? 4096 : bs > MiB ? MiB : bs;
		bench_dev(&DEV_CFG(.name = BENCH_DEV, .bw = (uint64_t)bw,
				   .grace_ns = 50000000));
		for (i = 0; i < n; i++)
			ws[i] = (struct wspec){ .path = BENCH_PATH,
				.offset = (uint64_t)i * 4 * MiB, .bs = bs,
				.qd = 2, .fill = 0x77 };
		if (fnl_open(&s.c))
			die("netlink");
		s.a.u = calloc(n + 16, sizeof(struct fnl_user));
		s.b.u = calloc(n + 16, sizeof(struct fnl_user));
		s.a.cap = s.b.cap = n + 16;
		pthread_create(&tid, NULL, sampler_run, &s);
		if (run_writers_hook(ws, n, res, 4200000000ULL, keep_pids,
				     pids))
			die("writers failed");
		pthread_join(tid, NULL);
		for (i = 0; i < n; i++) {
			r = (double)(user_bytes(&s.b, pids[i]) -
				     user_bytes(&s.a, pids[i])) /
			    secs(s.t1 - s.t0);
			agg += r;
			if (fabs(r / each - 1) > worst)
				worst = fabs(r / each - 1);
		}
		pr_open_object(NULL);
		pr_int("n", "%6lld", n);
		pr_double("aggregate_bps", NULL, agg);
		pr_text(" %10.3f MiB/s", agg / MiB);
		pr_double("aggregate_err_pct", " %+11.2f", 100 * (agg / bw - 1));
		pr_double("mean_user_bps", NULL, agg / n);
		pr_text(" %10.3f MiB/s", agg / n / MiB);
		pr_double("max_user_err_pct", " %14.2f\n", 100 * worst);
		pr_close_object();
		fflush(stdout);
		free(s.a.u);
		free(s.b.u);
		fnl_close(&s.c);
	}
	pr_close_array();
	pr_close_object();
	dev_del(&nl, BENCH_DEV);
}

/*
 * Run fio with the given job options (two jobs at most) and its JSON
 * output, for runtime seconds after ramp seconds; the write rate of each
 * job in bytes/s, as fio reports it (its ramp_time excluded). 0 on
 * success.
 */
static int fio_rates(const char *opts, int runtime, int ramp, double *rate,
		     size_t nr)
{
	char cmd[1024], *out = NULL, *json;
	size_t len = 0, got;
	json_error_t jerr;
	json_t *root, *jobs, *bw;
	FILE *f;
	size_t i;
	int ret = -1;

	snprintf(cmd, sizeof(cmd),
		 "fio --output-format=json --direct=1 --rw=write --time_based --runtime=%d --ramp_time=%d %s",
		 runtime, ramp, opts);
	f = popen(cmd, "r");
	if (!f)
		die("fio");
	do {
		out = realloc(out, len + 65536);
		if (!out)
			die("memory");
		got = fread(out + len, 1, 65536, f);
		len += got;
	} while (got);
	out[len] = 0;
	if (pclose(f))
		fprintf(stderr, "fnblk-bench: fio failed: %s\n", cmd);
	/* fio may print notes before its JSON. */
	json = strchr(out, '{');
	root = json ? json_loads(json, JSON_DISABLE_EOF_CHECK, &jerr) : NULL;
	jobs = json_object_get(root, "jobs");
	if (json_array_size(jobs) >= nr) {
		for (i = 0; i < nr; i++) {
			bw = json_object_get(json_object_get(json_array_get(jobs, i),
							     "write"), "bw_bytes");
			rate[i] = json_is_number(bw) ? json_number_value(bw) : 0;
		}
		ret = 0;
	} else {
		fprintf(stderr, "fnblk-bench: no fio results from: %s\n", cmd);
	}
	json_decref(root);
	free(out);
	return ret;
}

static const char *const store_name[] = { "memory", "none" };

/* Activations of the bench device so far (grace periods that ran out + 1). */
static uint64_t activations(void)
{
	struct fnl_stats st;

	if (fnl_stats(&nl, BENCH_DEV, &st))
		die("stats");
	return st.v[FNBLK_STAT_ACTIVATIONS];
}

/*
 * One synchronous writer (QD1 direct writes) on a device with B = 32 MiB/s
 * and f = constant: its rate against f(1)*B, for the selftests' writer
 * (6 s, rates from the middle 65 %) and fio psync (8 s after 2 s of ramp),
 * each beside its ceiling (the same writer unthrottled, 3 s) and with the
 * activations it took (1 if its grace never ran out).
 */
static void bench_sync(void)
{
	static const uint32_t sizes[] = { 4096, 65536, 1048576 };
	const double bw = 32.0 * MiB;
	const uint64_t dur = 6000000000ULL;
	struct wspec ws = { .path = BENCH_PATH, .qd = 1, .fill = 0x5c };
	struct wres res;
	char opts[256];
	double own, fio, ceil_own, ceil_fio;
	uint64_t act_own, act_fio;
	int st;
	unsigned int k;

	pr_open_object(NULL);
	pr_str("benchmark", NULL, "sync");
	pr_text("# sync: one QD1 direct writer, B = 32 MiB/s, f = constant, grace default;\n"
		"# ceiling: the same writer on the device unthrottled; act: activations\n");
	pr_double("bw_bps", NULL, bw);
	pr_text("%6s %5s %8s %9s %8s %5s %8s %9s %8s %5s\n", "store", "bs",
		"ceiling", "own MiB/s", "of f(1)B", "act", "ceiling",
		"fio MiB/s", "of f(1)B", "act");
	pr_open_array("rows");
	for (st = 0; st < 2; st++) {
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			ws.bs = sizes[k];
			snprintf(opts, sizeof(opts),
				 "--name=sync --filename=%s --ioengine=psync --bs=%u --size=64M",
				 BENCH_PATH, sizes[k]);
			bench_dev(&DEV_CFG(.name = BENCH_DEV, .bw = 0, .store = st));
			if (run_writers(&ws, 1, &res, dur / 2))
				die("writer failed");
			ceil_own = wres_win_rate(&res, dur / 2);
			if (fio_rates(opts, 3, 1, &ceil_fio, 1))
				ceil_fio = 0;
			bench_dev(&DEV_CFG(.name = BENCH_DEV, .bw = (uint64_t)bw,
					   .store = st));
			if (run_writers(&ws, 1, &res, dur))
				die("writer failed");
			own = wres_win_rate(&res, dur);
			act_own = activations();
			if (fio_rates(opts, 8, 2, &fio, 1))
				fio = 0;
			act_fio = activations() - act_own;
			pr_open_object(NULL);
			pr_str("store", "%6s", store_name[st]);
			pr_u64("bs", NULL, sizes[k]);
			pr_text(" %4uK", sizes[k] / 1024);
			pr_double("ceiling_bps", NULL, ceil_own);
			pr_text(" %8.1f", ceil_own / MiB);
			pr_double("own_bps", NULL, own);
			pr_text(" %9.3f %7.2f%%", own / MiB, 100 * own / bw);
			pr_u64("own_activations", " %5llu", act_own);
			pr_double("fio_ceiling_bps", NULL, ceil_fio);
			pr_text(" %8.1f", ceil_fio / MiB);
			pr_double("fio_bps", NULL, fio);
			pr_text(" %9.3f %7.2f%%", fio / MiB, 100 * fio / bw);
			pr_u64("fio_activations", " %5llu\n", act_fio);
			pr_close_object();
			fflush(stdout);
		}
	}
	pr_close_array();
	pr_close_object();
	dev_del(&nl, BENCH_DEV);
}

/*
 * A QD16 and a QD1 writer side by side on any block device: the
 * selftests' writers for 6 s (rates from the middle 65 % of the run) and
 * fio (libaio iodepth 16 beside psync, 8 s after 2 s of ramp). On fnblk,
 * B = 32 MiB/s, anon, with store memory and none.
 */
static void bench_qd_one(const char *path, const char *label, uint32_t bs)
{
	const uint64_t dur = 6000000000ULL;
	struct wspec ws[2] = {
		{ .path = path, .offset = 0, .bs = bs, .qd = 16, .fill = 0x16 },
		{ .path = path, .offset = 64 * MiB, .bs = bs, .qd = 1,
		  .fill = 0x01 },
	};
	struct wres res[2];
	double qd16, qd1, fio[2];
	uint64_t act = 0, act_fio = 0;
	bool fnblk = !strcmp(path, BENCH_PATH);
	char opts[512];

	if (run_writers(ws, 2, res, dur))
		die("writers failed");
	qd16 = wres_win_rate(&res[0], dur);
	qd1 = wres_win_rate(&res[1], dur);
	if (fnblk)
		act = activations();
	snprintf(opts, sizeof(opts),
		 "--filename=%s --bs=%u --size=64M --name=qd16 --ioengine=libaio --iodepth=16 --offset=0 --name=qd1 --ioengine=psync --offset=64M",
		 path, bs);
	if (fio_rates(opts, 8, 2, fio, 2))
		fio[0] = fio[1] = 0;
	if (fnblk)
		act_fio = activations() - act;
	pr_open_object(NULL);
	pr_str("device", "%-10s", label);
	pr_u64("bs", NULL, bs);
	pr_text(" %6uK", bs / 1024);
	pr_double("qd16_bps", NULL, qd16);
	pr_double("qd1_bps", NULL, qd1);
	pr_text(" %9.2f %9.2f", qd16 / MiB, qd1 / MiB);
	pr_double("ratio", " %7.3f", qd16 / qd1);
	pr_double("fio_qd16_bps", NULL, fio[0]);
	pr_double("fio_qd1_bps", NULL, fio[1]);
	pr_text(" %9.2f %9.2f", fio[0] / MiB, fio[1] / MiB);
	pr_double("fio_ratio", " %7.3f", fio[1] > 0 ? fio[0] / fio[1] : 0);
	pr_u64("activations", " %5llu", act);
	pr_u64("fio_activations", " %5llu\n", act_fio);
	pr_close_object();
	fflush(stdout);
}

static void bench_qd(const char *path)
{
	static const uint32_t sizes[] = { 65536, 1048576 };
	char label[64];
	unsigned int k;
	int st;

	pr_open_object(NULL);
	pr_str("benchmark", NULL, "qd");
	pr_text("# act: activations on fnblk (2 if no grace ran out)\n");
	pr_text("%-10s %7s %9s %9s %7s %9s %9s %7s %5s %5s\n", "device", "bs",
		"QD16", "QD1", "ratio", "fio QD16", "fio QD1", "ratio", "act",
		"act");
	pr_open_array("rows");
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		if (strcmp(path, "fnblk")) {
			bench_qd_one(path, path, sizes[k]);
			continue;
		}
		for (st = 0; st < 2; st++) {
			bench_dev(&DEV_CFG(.name = BENCH_DEV, .bw = 32 * MiB,
					   .store = st));
			snprintf(label, sizeof(label), "fnblk/%s", store_name[st]);
			bench_qd_one(BENCH_PATH, label, sizes[k]);
		}
	}
	pr_close_array();
	pr_close_object();
	if (!strcmp(path, "fnblk"))
		dev_del(&nl, BENCH_DEV);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Per-I/O time of QD1 4 KiB writes on an unthrottled device with latency. */
static void bench_latency(void)
{
	static const uint64_t lat_us[] = { 200, 1000, 5000 };
	enum { OPS = 400 };
	static uint64_t t[OPS];
	unsigned int k;
	void *buf;
	int fd, i;

	if (posix_memalign(&buf, 4096, 4096))
		die("memory");
	memset(buf, 0x5a, 4096);
	pr_open_object(NULL);
	pr_str("benchmark", NULL, "latency");
	pr_int("ops", "# latency: QD1 4 KiB direct writes, bw unthrottled, %lld ops each\n",
	       OPS);
	pr_text("%10s %12s %12s %12s %12s\n", "latency", "p50", "p50 err",
		"p99", "p99 err");
	pr_open_array("rows");
	for (k = 0; k < sizeof(lat_us) / sizeof(lat_us[0]); k++) {
		uint64_t want = lat_us[k] * 1000, p50, p99;

		bench_dev(&DEV_CFG(.name = BENCH_DEV, .bw = 0,
				   .latency_ns = want));
		fd = open(BENCH_PATH, O_WRONLY | O_DIRECT);
		if (fd < 0)
			die("open");
		for (i = 0; i < OPS; i++) {
			uint64_t t0 = now_ns();

			if (pwrite(fd, buf, 4096, (off_t)(i % 256) * 4096) != 4096)
				die("write");
			t[i] = now_ns() - t0;
		}
		close(fd);
		qsort(t, OPS, sizeof(t[0]), cmp_u64);
		p50 = t[OPS / 2];
		p99 = t[OPS * 99 / 100];
		pr_open_object(NULL);
		pr_u64("latency_ns", NULL, want);
		pr_u64("p50_ns", NULL, p50);
		pr_u64("p99_ns", NULL, p99);
		pr_text("%7lu us %9.1f us %+9.1f us %9.1f us %+9.1f us\n",
			lat_us[k], p50 / 1e3, ((double)p50 - want) / 1e3,
			p99 / 1e3, ((double)p99 - want) / 1e3);
		pr_close_object();
	}
	pr_close_array();
	pr_close_object();
	free(buf);
	dev_del(&nl, BENCH_DEV);
}

enum { IOPS_SPAN = 16384 };	/* pages: a 64 MiB region */

/*
 * Open path for QD1 direct writes, every page of the region written once:
 * allocation is not what is measured.
 */
static int iops_open(const char *path, const void *buf)
{
	unsigned int i;
	int fd;

	fd = open(path, O_WRONLY | O_DIRECT);
	if (fd < 0)
		die(path);
	for (i = 0; i < IOPS_SPAN; i++)
		if (pwrite(fd, buf, 4096, (off_t)i * 4096) != 4096)
			die("write");
	return fd;
}

/* One 4 KiB write at a random page of the region (xorshift state x). */
static void iops_write(int fd, const void *buf, uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	if (pwrite(fd, buf, 4096, (off_t)(*x % IOPS_SPAN) * 4096) != 4096)
		die("write");
}

/* Unthrottled 4 KiB random writes, one QD1 writer for 4 s, any device. */
static double iops_on(const char *path)
{
	uint64_t end, ops = 0, x = 88172645463325252ULL;
	void *buf;
	int fd;

	if (posix_memalign(&buf, 4096, 4096))
		die("memory");
	memset(buf, 0x3c, 4096);
	fd = iops_open(path, buf);
	end = now_ns() + 4000000000ULL;
	while (now_ns() < end) {
		iops_write(fd, buf, &x);
		ops++;
	}
	close(fd);
	free(buf);
	return ops / 4.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The devices take turns of IOPS_TURN writes each for iops_ns (--iops-time,
 * 12 s), and a device's rate comes from the 10th percentile of its time per
 * write over its turns. A turn in which the host preempted the guest is slow for any
 * device, so the fastest tenth are the devices' own, and noise on the host
 * falls on all of them alike (runs of seconds each, as before, differed by
 * more than the gap between the devices on a loaded host).
 */
enum { IOPS_TURN = 50, IOPS_TURNS = 100000 };

/*
 * The fnblk device's grace: longer than a round of the turns, so its user
 * stays active from its first write to its last, as a writer that keeps
 * writing does. With the default 2 ms, a round longer than the grace
 * (null_blk's 50 writes take about 2 ms on 6.1, 0.5 ms on 6.12; or a stop
 * of the guest) ended the user's activity period between two of its
 * turns, and every turn began with an activation: 6.1 and 6.12 measured
 * different paths. The activations are printed with the figures.
 */
#define IOPS_GRACE_NS 1000000000ULL

static uint64_t iops_ns = 12000000000ULL;

static void bench_iops(int argc, char **argv)
{
	static double per[8][IOPS_TURNS];
	uint64_t x = 88172645463325252ULL, end, t0, act0;
	int fd[8], n = argc < 8 ? argc : 8, i, k, turns = 0;
	bool fnblk = false;
	void *buf;

	if (posix_memalign(&buf, 4096, 4096))
		die("memory");
	memset(buf, 0x3c, 4096);
	for (i = 0; i < n; i++)
		fnblk |= !strcmp(argv[i], "fnblk");
	if (fnblk)
		bench_dev(&DEV_CFG(.name = BENCH_DEV, .bw = 0,
				   .grace_ns = IOPS_GRACE_NS));
	for (i = 0; i < n; i++)
		fd[i] = iops_open(strcmp(argv[i], "fnblk") ? argv[i] : BENCH_PATH,
				  buf);
	act0 = fnblk ? activations() : 0;
	end = now_ns() + iops_ns;
	while (now_ns() < end && turns < IOPS_TURNS) {
		for (i = 0; i < n; i++) {
			t0 = now_ns();
			for (k = 0; k < IOPS_TURN; k++)
				iops_write(fd[i], buf, &x);
			per[i][turns] = (double)(now_ns() - t0) / IOPS_TURN;
		}
		turns++;
	}
	pr_open_object(NULL);
	pr_str("benchmark", NULL, "iops");
	pr_int("turns", NULL, turns);
	pr_int("time_ns", NULL, (long long)iops_ns);
	pr_open_array("rows");
	for (i = 0; i < n; i++) {
		close(fd[i]);
		qsort(per[i], turns, sizeof(per[i][0]), cmp_double);
		pr_open_object(NULL);
		pr_str("device", "iops %s", argv[i]);
		pr_double("iops", ": %.0f", 1e9 / per[i][turns / 10]);
		pr_double("iops_median", " (median turn %.0f;", 1e9 / per[i][turns / 2]);
		pr_int("turns", " %lld turns of 50 writes", turns);
		if (!strcmp(argv[i], "fnblk"))
			pr_u64("activations", "; %llu activations",
			       activations() - act0);
		pr_text(")\n");
		pr_close_object();
	}
	pr_close_array();
	pr_close_object();
	if (fnblk)
		dev_del(&nl, BENCH_DEV);
	free(buf);
}

struct holder {
	int fd;
	pthread_barrier_t *go;
};

static void *hold_user(void *arg)
{
	struct holder *h = arg;
	char buf[4096] __attribute__((aligned(4096)));

	memset(buf, 1, sizeof(buf));
	pthread_barrier_wait(h->go);
	if (pwrite(h->fd, buf, 4096, 0) != 4096)
		return (void *)1;
	return NULL;
}

/*
 * Time per 4 KiB write while N users are active: N-1 threads (key pid)
 * write once and stay active for the 10 s grace; then one thread measures.
 * B is 1 TiB/s and f = linear:1024, so every I/O goes through the
 * scheduler while each user's share (at least 256 GiB/s) never makes it
 * wait: what is measured is the cost, not the model's rate.
 */
static void bench_cost(int max_n)
{
	static pthread_t tid[4096];
	pthread_barrier_t go;
	pthread_attr_t attr;
	struct holder h;
	struct fnl_stats st;
	int n, i;

	pr_open_object(NULL);
	pr_str("benchmark", NULL, "cost");
	pr_text("# cost: 4 KiB QD1 direct writes, B = 1 TiB/s, f = linear:1024, key pid, N users active\n");
	pr_text("%6s %10s %12s %10s\n", "N", "active", "IOPS", "us/IO");
	pr_open_array("rows");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (n = 1; n <= max_n && n <= 4096; n *= 4) {
		double iops;

		bench_dev(&DEV_CFG(.name = BENCH_DEV, .bw = 1ULL << 40,
				   .fn = "linear:1024", .key = FNBLK_KEY_PID,
				   .grace_ns = 10000000000ULL));
		h.fd = open(BENCH_PATH, O_WRONLY | O_DIRECT);
		if (h.fd < 0)
			die("open");
		h.go = &go;
		if (n > 1) {
			pthread_barrier_init(&go, NULL, n - 1);
			for (i = 0; i < n - 1; i++)
				pthread_create(&tid[i], &attr, hold_user, &h);
			for (i = 0; i < n - 1; i++)
				pthread_join(tid[i], NULL);
			pthread_barrier_destroy(&go);
		}
		close(h.fd);
		iops = iops_on(BENCH_PATH);
		if (fnl_stats(&nl, BENCH_DEV, &st))
			die("stats");
		pr_open_object(NULL);
		pr_int("n", "%6lld", n);
		pr_u64("active", " %10llu", st.v[FNBLK_STAT_NR_ACTIVE]);
		pr_double("iops", " %12.0f", iops);
		pr_double("us_per_io", " %10.2f\n", 1e6 / iops);
		pr_close_object();
		fflush(stdout);
	}
	pr_close_array();
	pr_close_object();
	dev_del(&nl, BENCH_DEV);
}

/* The commands; each prints one table, or with -j one JSON object. */
static const struct bench_command {
	const char *name;
	int min_args, max_args;	/* operands after the name */
	uint64_t max_n;		/* for [MAX_N]: its largest value; 0 = none */
	uint64_t default_n;
} bench_commands[] = {
	{ "share", 0, 1, 256, 64 },
	{ "sync", 0, 0, 0, 0 },
	{ "qd", 1, 1, 0, 0 },
	{ "latency", 0, 0, 0, 0 },
	{ "iops", 1, 8, 0, 0 },
	{ "cost", 0, 1, 4096, 4096 },
};

static const struct cli_term command_terms[] = {
	{ "share [MAX_N]", "aggregate and per-user rates against f(n)*B/n "
	  "for n = 1, 2, 4, ... up to MAX_N users (64; at most 256)" },
	{ "sync", "one synchronous writer against f(1)*B: the selftests' "
	  "writer and fio psync, 4KiB to 1MiB, store memory and none" },
	{ "qd PATH|fnblk", "the rate of a QD16 writer over a QD1 writer beside "
	  "it, on PATH or on a fnblk device; 64KiB and 1MiB, own writers and "
	  "fio" },
	{ "latency", "p50 and p99 of the time of QD1 4KiB writes against the "
	  "configured latency" },
	{ "iops PATH|fnblk...", "unthrottled 4KiB random-write IOPS, the "
	  "devices taking turns of 50 writes (for --iops-time), from the 10th "
	  "percentile of the time per write (at most 8 devices); fnblk's "
	  "device has a 1s grace, so its user stays active between its turns" },
	{ "cost [MAX_N]", "time per 4KiB write while N = 1, 4, 16, ... up to "
	  "MAX_N users are active (4096, the most)" },
	{ NULL, NULL },
};

static const char *const usage[] = { "[-j] COMMAND [ARGS]...", NULL };

static const struct cli_option options[] = {
	{ .name = "iops-time", .arg = "DUR", .type = CLI_DURATION,
	  .var = &iops_ns, .min = 1000000000ULL, .max = 3600000000000ULL,
	  .dflt = "12s",
	  .help = "how long the devices of iops take turns (1s to 1h); "
		  "scripts/bench-ab runs 5s per module load" },
	{ .name = NULL },
};

static const struct cli_group groups[] = {
	{ .title = "Commands", .terms = command_terms },
	{ .title = "Options", .options = options },
	{ .title = NULL },
};

static bool json;

static const struct cli_program prog = {
	.name = "fnblk-bench",
	.usage = usage,
	.about = "Measure the figures behind Documentation/benchmarks.rst on "
		 "fnblk devices, and brd and null_blk beside them, inside the "
		 "test VM (scripts/bench runs every command). It loads the "
		 "module if needed and drives devices as the selftests do. "
		 "Benchmarks print figures; they fail only if something could "
		 "not run.",
	.groups = groups,
	.json = &json,
	.json_help = "print each table as one JSON object (rates in bytes per "
		     "second, times in ns)",
};

int main(int argc, char **argv)
{
	const struct bench_command *c = NULL;
	int first, nargs, ret = cli_parse(&prog, argc, argv, &first);
	uint64_t max_n = 0;
	const char *why;
	size_t i;

	if (ret != CLI_CONTINUE)
		return ret;
	if (first == argc)
		return cli_usage_error(&prog, "no COMMAND (share, sync, qd, latency, iops or cost)");
	for (i = 0; i < sizeof(bench_commands) / sizeof(bench_commands[0]); i++)
		if (!strcmp(argv[first], bench_commands[i].name))
			c = &bench_commands[i];
	if (!c)
		return cli_usage_error(&prog, "unknown command '%s' (expected share, sync, qd, latency, iops or cost)",
				       argv[first]);
	nargs = argc - first - 1;
	if (nargs < c->min_args || nargs > c->max_args)
		return cli_usage_error(&prog, "%s: %s", c->name,
				       nargs < c->min_args ? "missing PATH" :
				       "too many arguments");
	/* Everything checked before the module is loaded. */
	max_n = c->default_n;
	if (c->max_n && nargs &&
	    fnblk_parse_uint(argv[first + 1], 1, c->max_n, &max_n, &why))
		return cli_usage_error(&prog, "%s: MAX_N '%s': %s (expected 1 to %llu)",
				       c->name, argv[first + 1], why,
				       (unsigned long long)c->max_n);
	if (fnblk_load() || fnl_open(&nl))
		die("fnblk module or netlink family missing");
	pr_init(json);
	if (c->max_n && !strcmp(c->name, "share"))
		bench_share((int)max_n);
	else if (!strcmp(c->name, "sync"))
		bench_sync();
	else if (!strcmp(c->name, "qd"))
		bench_qd(argv[first + 1]);
	else if (!strcmp(c->name, "latency"))
		bench_latency();
	else if (!strcmp(c->name, "iops"))
		bench_iops(nargs, argv + first + 1);
	else
		bench_cost((int)max_n);
	fnl_close(&nl);
	if (pr_end())
		die("writing the results");
	return 0;
}
