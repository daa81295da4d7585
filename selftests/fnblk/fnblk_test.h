/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of the fnblk selftests: loading the module, adding a device
 * with a given configuration, and fleets of writer processes that start
 * together and report what they did.
 */
#ifndef FNBLK_TEST_H
#define FNBLK_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_DIRECT */
#endif

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fnblk_nl.h"

#define MiB (1ULL << 20)
#define UNSET UINT64_MAX

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Whether rates and durations mean something on this kernel. Under lockdep
 * or kmemleak (the debug kernel of "make check-debug") every lock and
 * allocation costs many times more, so tests still run their workload and
 * check what it did, but not how fast: their timing assertions are skipped
 * and the test says why. FNBLK_TIMING=strict or relaxed overrides the
 * guess. Returns NULL when timing is checked, else the reason it is not.
 */
static inline const char *timing_unchecked(void)
{
	const char *e = getenv("FNBLK_TIMING");

	if (e && !strcmp(e, "strict"))
		return NULL;
	if (e && !strcmp(e, "relaxed"))
		return "FNBLK_TIMING=relaxed";
	if (!access("/proc/lockdep", F_OK))
		return "a lockdep kernel";
	if (!access("/sys/kernel/debug/kmemleak", F_OK))
		return "a kmemleak kernel";
	return NULL;
}

/*
 * The harness gives each test a deadline (30 s unless TEST_F_TIMEOUT says
 * otherwise) sized for the normal kernels. On a lockdep or kmemleak kernel
 * everything takes about ten times longer, so every deadline is multiplied
 * by FNBLK_TIMEOUT_SCALE (default 10 there, 1 elsewhere) before the tests
 * run: the macro below wraps the harness's test_harness_run(), which
 * TEST_HARNESS_MAIN calls (in a test built on kselftest_harness.h).
 */
#ifdef TEST_HARNESS_MAIN
static inline void scale_test_timeouts(void)
{
	const char *e = getenv("FNBLK_TIMEOUT_SCALE");
	int k = e && *e ? atoi(e) :
		(!access("/proc/lockdep", F_OK) ||
		 !access("/sys/kernel/debug/kmemleak", F_OK)) ? 10 : 1;
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	if (k <= 1)
		return;
	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout *= k;
}
#define test_harness_run(argc, argv) \
	(scale_test_timeouts(), test_harness_run(argc, argv))
#endif

/*
 * A timing assertion: checked only where timing means something, else
 * logged as not checked. Takes a trailing TH_LOG() like EXPECT_TRUE().
 */
#define EXPECT_TIMING(cond)						\
	if (timing_unchecked())						\
		TH_LOG("not checked on %s: %s", timing_unchecked(), #cond); \
	else								\
		EXPECT_TRUE(cond)

/*
 * At the end of a test whose remaining assertions were about timing: on a
 * kernel where they were not checked, the test reports SKIP with the
 * reason (unless something else failed).
 */
#define SKIP_IF_TIMING_UNCHECKED() do {					\
	const char *why_ = timing_unchecked();				\
									\
	if (why_ && _metadata->passed)					\
		SKIP(return, "timing not checked on %s", why_);		\
} while (0)

/*
 * Load fnblk with no default device unless it is loaded already: from
 * $FNBLK_KO if set, else by modprobe (the test VM installs it in extra/).
 */
static inline int fnblk_load(void)
{
	const char *ko = getenv("FNBLK_KO");
	char cmd[512];

	if (!access("/sys/module/fnblk", F_OK))
		return 0;
	if (ko)
		snprintf(cmd, sizeof(cmd), "insmod %s nr_devices=0", ko);
	else
		snprintf(cmd, sizeof(cmd), "modprobe fnblk nr_devices=0");
	return system(cmd) ? -1 : 0;
}

/* Unload fnblk if loaded, then load it with params ("" for none). */
static inline int module_reload(const char *params)
{
	const char *ko = getenv("FNBLK_KO");
	char cmd[512];

	if (!access("/sys/module/fnblk", F_OK) && system("rmmod fnblk"))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s %s %s", ko ? "insmod" : "modprobe",
		 ko ? ko : "fnblk", params);
	return system(cmd) ? -1 : 0;
}

/* Write text to a file such as a sysfs or cgroupfs attribute. */
static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* Write a writable module parameter of the loaded module. */
static inline int write_param(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/fnblk/parameters/%s", name);
	return write_file(path, val);
}

/* ---- cgroups (cgroup2, mounted by the test VM's init) ---- */

#define CG_ROOT "/sys/fs/cgroup"

/* A cgroup's id, as the kernel reports it, is its directory's inode. */
static inline uint64_t cgroup_id_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

/* Create (or find) the child cgroup name of the root; returns its id. */
static inline uint64_t cgroup_make(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), CG_ROOT "/%s", name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return 0;
	return cgroup_id_of(path);
}

static inline int cgroup_enter(const char *name, pid_t pid)
{
	char path[128], text[32];

	snprintf(path, sizeof(path), CG_ROOT "/%s/cgroup.procs", name);
	snprintf(text, sizeof(text), "%d\n", (int)pid);
	return write_file(path, text);
}

static inline void cgroup_remove(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), CG_ROOT "/%s", name);
	rmdir(path);
}

/* ---- the kernel log ---- */

/* Follow the kernel log from now on; -1 if it cannot be read. */
static inline int kmsg_follow(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * Whether the kernel logged a warning, oops or checker report since
 * kmsg_follow(): the first such record goes to rec (len bytes).
 */
static inline bool kmsg_complained(int fd, char *rec, size_t len)
{
	static const char *const marks[] = {
		"WARNING:", "BUG:", "Oops", "general protection",
		"possible circular locking", "inconsistent lock state",
		"lock order", "KASAN:", "UBSAN:", "kmemleak:",
		"soft lockup", "hung task",
	};
	size_t i;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, len - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: read on */
		if (n <= 0)
			return false;
		rec[n] = 0;
		for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
			if (strstr(rec, marks[i]))
				return true;
	}
}

/*
 * A device configuration; fields left UNSET (or NULL) take defaults.
 * DEV_CFG() fills the defaults, then the caller's designated initializers
 * override them, which is what -Woverride-init warns about.
 */
#pragma GCC diagnostic ignored "-Woverride-init"
struct dev_cfg {
	const char *name;
	uint64_t size, bw, latency_ns, overhead, grace_ns;
	const char *fn;
	int key, policy, users, store, cache;	/* -1: default */
	uint32_t max_users;		/* 0: default */
};

#define DEV_CFG(...) ((struct dev_cfg){ .size = UNSET, .bw = UNSET, \
	.latency_ns = UNSET, .overhead = UNSET, .grace_ns = UNSET, \
	.key = -1, .policy = -1, .users = -1, .store = -1, .cache = -1, \
	__VA_ARGS__ })

static inline void dev_cfg_put(struct nl_msg *m, const struct dev_cfg *d)
{
	if (d->name)
		nla_put_string(m, FNBLK_A_DEV_NAME, d->name);
	if (d->size != UNSET)
		nla_put_u64(m, FNBLK_A_SIZE, d->size);
	if (d->bw != UNSET)
		nla_put_u64(m, FNBLK_A_BW, d->bw);
	if (d->fn)
		nla_put_string(m, FNBLK_A_FN, d->fn);
	if (d->latency_ns != UNSET)
		nla_put_u64(m, FNBLK_A_LATENCY_NS, d->latency_ns);
	if (d->overhead != UNSET)
		nla_put_u64(m, FNBLK_A_OVERHEAD, d->overhead);
	if (d->grace_ns != UNSET)
		nla_put_u64(m, FNBLK_A_GRACE_NS, d->grace_ns);
	if (d->key >= 0)
		nla_put_u8(m, FNBLK_A_KEY, d->key);
	if (d->policy >= 0)
		nla_put_u8(m, FNBLK_A_POLICY, d->policy);
	if (d->users >= 0)
		nla_put_u8(m, FNBLK_A_USERS, d->users);
	if (d->store >= 0)
		nla_put_u8(m, FNBLK_A_STORE, d->store);
	if (d->max_users)
		nla_put_u32(m, FNBLK_A_MAX_USERS, d->max_users);
	if (d->cache >= 0)
		nla_put_u8(m, FNBLK_A_CACHE, d->cache);
}

static inline int dev_add(struct fnl *c, const struct dev_cfg *d)
{
	struct nl_msg *m = fnl_msg(c, FNBLK_CMD_DEV_ADD, 0);

	dev_cfg_put(m, d);
	return fnl_send(c, m, NULL, NULL);
}

static inline int dev_set(struct fnl *c, const struct dev_cfg *d)
{
	struct nl_msg *m = fnl_msg(c, FNBLK_CMD_DEV_SET, 0);

	dev_cfg_put(m, d);
	return fnl_send(c, m, NULL, NULL);
}

/* Delete, retrying while udev-like openers still hold the device. */
static inline int dev_del(struct fnl *c, const char *name)
{
	int i, ret = 0;

	for (i = 0; i < 50; i++) {
		ret = fnl_simple(c, FNBLK_CMD_DEV_DEL, name);
		if (ret != -EBUSY)
			break;
		usleep(100000);
	}
	return ret;
}

/* ---- writer fleets ---- */

/* What one writer process does. */
struct wspec {
	const char *path;
	uint64_t offset;	/* where its region starts */
	uint64_t bytes;		/* total to write (0: until the deadline) */
	uint32_t bs;		/* request size */
	uint32_t qd;		/* threads, each with one request in flight */
	uint8_t fill;		/* byte pattern; 0 = offset-derived */
};

/* What it reports (in shared memory). */
struct wres {
	uint64_t start_ns, end_ns, bytes;
	uint64_t win_bytes;	/* completed inside the measuring window */
	uint64_t win_busy_ns;	/* their time in the kernel, summed */
	uint64_t win_max_ns;	/* and the longest of them */
	double win_part;	/* bytes written inside the window, each
				 * write prorated by its time in it */
	int error;
};

/*
 * The writers' common clock: the end of a timed run and its measuring
 * window, and the start line. Every writer thread opens the device and
 * then counts itself in `ready`; the parent releases them all at once by
 * closing the write end of the `gate` pipe (each blocks reading it), so
 * a timed run starts when every writer can write, however slowly the
 * guest forks and schedules them.
 */
struct wclock {
	volatile uint64_t deadline, win_start, win_end;
	int ready;
	int gate;		/* the pipe's read end */
};

struct wthread {
	const struct wspec *ws;
	struct wclock *clk;
	uint32_t idx;
	uint64_t bytes, win_bytes, win_busy_ns, win_max_ns;
	double win_part;
	int error;
};

/* The byte a pattern writer puts at device offset p: differs per page. */
static inline uint8_t pattern_byte(uint64_t p)
{
	return (uint8_t)(p * 131 + (p >> 12));
}

static inline void pattern_fill(uint8_t *buf, uint32_t len, uint64_t off,
				uint8_t fill)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = fill ? fill : pattern_byte(off + i);
}

static inline uint32_t wspec_threads(const struct wspec *ws)
{
	return ws->qd > 64 ? 64 : ws->qd;
}

/* Held until the parent releases the writers: EOF reaches every reader
 * of the gate at once. */
static inline void wclock_hold(const struct wclock *clk)
{
	char c;

	while (read(clk->gate, &c, 1) < 0 && errno == EINTR)
		;
}

/* A writer thread at the start line: counted, then held until released. */
static inline void wclock_wait(struct wclock *clk)
{
	__atomic_add_fetch(&clk->ready, 1, __ATOMIC_SEQ_CST);
	wclock_hold(clk);
}

/*
 * The part of a write of bs bytes, in flight from sent to done, that falls
 * inside the measuring window: counting whole writes by their completion
 * would make a rate jump by one write (1/62 of a 1 MiB writer's window at
 * 16 MiB/s); prorated, the writes that straddle the window's ends count
 * for what they spent inside it.
 */
static inline double wpart(uint32_t bs, uint64_t sent, uint64_t done,
			   const struct wclock *clk)
{
	uint64_t from = sent > clk->win_start ? sent : clk->win_start;
	uint64_t to = done < clk->win_end ? done : clk->win_end;

	if (to <= from)
		return 0;
	return (double)bs * (double)(to - from) / (double)(done - sent);
}

static inline void *wthread_run(void *arg)
{
	struct wthread *t = arg;
	const struct wspec *ws = t->ws;
	uint64_t chunks = ws->bytes / ws->bs, k, off, sent, done;
	void *buf = NULL;
	int fd;

	fd = open(ws->path, O_WRONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, ws->bs))
		t->error = errno ? errno : ENOMEM;
	wclock_wait(t->clk);
	if (t->error) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	/* A fixed fill is written once: timing tests spend no CPU on it. */
	if (ws->fill)
		pattern_fill(buf, ws->bs, 0, ws->fill);
	/* Thread i writes chunks i, i + qd, ... of the region. */
	for (k = t->idx; !ws->bytes || k < chunks; k += ws->qd) {
		if (!ws->bytes && now_ns() >= t->clk->deadline)
			break;
		off = ws->offset + (ws->bytes ? k * ws->bs :
				    (k % 64) * ws->bs);
		if (!ws->fill)
			pattern_fill(buf, ws->bs, off, 0);
		sent = now_ns();
		if (pwrite(fd, buf, ws->bs, (off_t)off) != (ssize_t)ws->bs) {
			t->error = errno ? errno : EIO;
			break;
		}
		t->bytes += ws->bs;
		done = now_ns();
		if (done >= t->clk->win_start && done < t->clk->win_end) {
			t->win_bytes += ws->bs;
			t->win_busy_ns += done - sent;
			if (done - sent > t->win_max_ns)
				t->win_max_ns = done - sent;
		}
		t->win_part += wpart(ws->bs, sent, done, t->clk);
	}
	free(buf);
	close(fd);
	return NULL;
}

/* Body of one writer process. */
static inline void writer_main(const struct wspec *ws, struct wres *res,
			       struct wclock *clk)
{
	pthread_t tid[64];
	struct wthread t[64];
	uint32_t i, qd = wspec_threads(ws);

	for (i = 0; i < qd; i++) {
		t[i] = (struct wthread){ .ws = ws, .clk = clk, .idx = i };
		pthread_create(&tid[i], NULL, wthread_run, &t[i]);
	}
	wclock_hold(clk);		/* released with its threads */
	res->start_ns = now_ns();
	for (i = 0; i < qd; i++) {
		pthread_join(tid[i], NULL);
		res->bytes += t[i].bytes;
		res->win_bytes += t[i].win_bytes;
		res->win_busy_ns += t[i].win_busy_ns;
		if (t[i].win_max_ns > res->win_max_ns)
			res->win_max_ns = t[i].win_max_ns;
		res->win_part += t[i].win_part;
		if (t[i].error)
			res->error = t[i].error;
	}
	res->end_ns = now_ns();
}

/*
 * Run n writers as separate processes (separate users under key tgid),
 * released together; duration_ns bounds writers whose bytes is 0. hook, if
 * any, runs with the writers' pids just before their release. res must
 * hold n entries. Returns 0 when every writer succeeded.
 */
typedef void (*before_go_fn)(const pid_t *pids, int n, void *arg);

static inline int run_writers_hook(const struct wspec *ws, int n,
				   struct wres *res, uint64_t duration_ns,
				   before_go_fn hook, void *arg)
{
	struct shared {
		struct wclock clk;
		struct wres res[];
	} *sh;
	size_t size = sizeof(*sh) + (size_t)n * sizeof(struct wres);
	int i, status, gate[2], threads = 0, ret = 0;
	pid_t pid[256];

	if (n > 256)
		return -1;
	sh = mmap(NULL, size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return -1;
	memset(sh, 0, size);
	if (pipe(gate)) {
		munmap(sh, size);
		return -1;
	}
	sh->clk.gate = gate[0];
	for (i = 0; i < n; i++) {
		threads += (int)wspec_threads(&ws[i]);
		pid[i] = fork();
		if (!pid[i]) {
			close(gate[1]);
			writer_main(&ws[i], &sh->res[i], &sh->clk);
			_exit(0);
		}
	}
	close(gate[0]);
	/* Every writer thread has opened the device (or failed): 60 s at
	 * most, then the run goes on and a missing writer shows as such. */
	for (i = 0; i < 60000 &&
	     __atomic_load_n(&sh->clk.ready, __ATOMIC_SEQ_CST) < threads; i++)
		usleep(1000);
	if (hook)
		hook(pid, n, arg);
	/* Timed runs measure from a quarter in to a tenth before the end. */
	sh->clk.win_start = now_ns() + duration_ns / 4;
	sh->clk.win_end = sh->clk.win_start + duration_ns * 13 / 20;
	sh->clk.deadline = now_ns() + duration_ns;
	close(gate[1]);		/* go */
	for (i = 0; i < n; i++) {
		waitpid(pid[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) ||
		    sh->res[i].error)
			ret = -1;
	}
	memcpy(res, sh->res, (size_t)n * sizeof(struct wres));
	munmap(sh, size);
	return ret;
}

static inline int run_writers(const struct wspec *ws, int n, struct wres *res,
			      uint64_t duration_ns)
{
	return run_writers_hook(ws, n, res, duration_ns, NULL, NULL);
}

/* The sum of n counters (a histogram's bins). */
static inline uint64_t sum_u64(const uint64_t *v, int n)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

static inline double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static inline double wres_rate(const struct wres *r)
{
	return (double)r->bytes / secs(r->end_ns - r->start_ns);
}

/* Rate inside the measuring window of a timed run of duration_ns. */
static inline double wres_win_rate(const struct wres *r, uint64_t duration_ns)
{
	return r->win_part / secs(duration_ns * 13 / 20);
}

#endif /* FNBLK_TEST_H */
