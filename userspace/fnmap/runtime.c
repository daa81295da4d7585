// SPDX-License-Identifier: GPL-2.0
/*
 * The process-wide runtime: configuration, start and stop, what happens at
 * exit and fork, errors, statistics.
 *
 * One runtime serves every mapping of the process (one userfaultfd, one
 * queue, one cache and budget). It starts with the first fnmap_open() (or
 * fnmap_init()) and runs until fnmap_shutdown() or exit. At normal exit
 * (exit(), return from main) every mapping is written back. A child of
 * fork() has none of the runtime's threads: it starts with no runtime and
 * no mappings (the regions are not inherited), and may open its own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fnmap_internal.h"
#include "pressure.h"
#include "units.h"

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fnmap_runtime *_Atomic the_rt;
static _Thread_local char errmsg[FNMAP_ERRLEN];
static int debug = -1;

/* ---- Errors and logging ---------------------------------------------- */

int rt_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	if (err && errlen)
		snprintf(err, errlen, "%s", errmsg);
	errno = e;
	return -1;
}

const char *fnmap_errmsg(void)
{
	return errmsg[0] ? errmsg : "no error";
}

void rt_log(const char *fmt, ...)
{
	va_list ap;

	if (debug < 0) {
		const char *d = getenv("FNMAP_DEBUG");

		debug = d && *d && strcmp(d, "0");
	}
	if (!debug)
		return;
	va_start(ap, fmt);
	fputs("fnmap: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

uint64_t rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- Raw system calls ------------------------------------------------- */

void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

int sys_munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}

int sys_madvise(void *addr, size_t len, int advice)
{
	return (int)syscall(SYS_madvise, addr, len, advice);
}

int sys_mprotect(void *addr, size_t len, int prot)
{
	return (int)syscall(SYS_mprotect, addr, len, prot);
}

/* ---- Configuration -------------------------------------------------- */

static const struct {
	const char *name;
	unsigned int flag;
} flag_names[] = {
	{ "no-coalesce", FNMAP_CFG_NO_COALESCE },
	{ "simple-cache", FNMAP_CFG_SIMPLE_CACHE },
	{ "no-growth", FNMAP_CFG_NO_GROWTH },
	{ "no-pressure", FNMAP_CFG_NO_PRESSURE },
	{ "no-prefetch", FNMAP_CFG_NO_PREFETCH },
	{ "psync", FNMAP_CFG_PSYNC },
	{ "direct", FNMAP_CFG_DIRECT },
	{ "continue", FNMAP_CFG_CONTINUE },
	{ "handoff", FNMAP_CFG_HANDOFF },
	{ "no-twins", FNMAP_CFG_NO_TWINS },
	{ "no-write-alloc", FNMAP_CFG_NO_WRITE_ALLOC },
	{ "fixed-depth", FNMAP_CFG_FIXED_DEPTH },
};

int rt_parse_size_env(const char *name, const char *value, uint64_t *v)
{
	const char *why;

	if (fnblk_parse_size(value, v, &why))
		return rt_fail(NULL, 0, EINVAL, "%s=%s: %s", name, value, why);
	return 0;
}

static int parse_uint_env(const char *name, uint64_t max, unsigned int *v)
{
	const char *s = getenv(name), *why;
	uint64_t x;

	if (!s || !*s)
		return 0;
	if (fnblk_parse_uint(s, 1, max, &x, &why))
		return rt_fail(NULL, 0, EINVAL, "%s=%s: %s (1..%llu)", name,
				  s, why, (unsigned long long)max);
	*v = (unsigned int)x;
	return 0;
}

/* "no-coalesce,psync" into FNMAP_CFG_* bits. */
int fnmap_parse_flags(const char *s, unsigned int *flags)
{
	char buf[256], *tok, *save;
	unsigned int f = 0, i;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
			if (!strcmp(tok, flag_names[i].name))
				break;
		if (i == sizeof(flag_names) / sizeof(flag_names[0]))
			return rt_fail(NULL, 0, EINVAL, "unknown runtime flag "
					  "'%s' (no-coalesce, simple-cache, "
					  "no-growth, no-pressure, no-prefetch, "
					  "psync, direct, continue, handoff, "
					  "no-twins, no-write-alloc, fixed-depth)",
					  tok);
		f |= flag_names[i].flag;
	}
	*flags = f;
	return 0;
}

int fnmap_config_init(struct fnmap_config *cfg)
{
	struct fnmap_config c = {
		.channels = 4, .queue_depth = 8, .max_request = 1 << 20,
		.fault_threads = FNMAP_DEFAULT_FAULT_THREADS,
	};
	const char *s;
	int r = 0;

	*cfg = c;
	s = getenv("FNMAP_BUDGET");
	if (s && *s && rt_parse_size_env("FNMAP_BUDGET", s, &c.budget))
		r = -1;
	s = getenv("FNMAP_MAX_REQUEST");
	if (s && *s && rt_parse_size_env("FNMAP_MAX_REQUEST", s,
					    &c.max_request))
		r = -1;
	if (parse_uint_env("FNMAP_CHANNELS", 64, &c.channels) ||
	    parse_uint_env("FNMAP_QUEUE_DEPTH", 256, &c.queue_depth) ||
	    parse_uint_env("FNMAP_FAULT_THREADS", 64, &c.fault_threads))
		r = -1;
	s = getenv("FNMAP_FLAGS");
	if (s && *s && fnmap_parse_flags(s, &c.flags))
		r = -1;
	if (!r)
		*cfg = c;
	return r;
}

static int check_config(const struct fnmap_config *c)
{
	if (c->channels < 1 || c->channels > 64)
		return rt_fail(NULL, 0, EINVAL, "channels %u: want 1..64",
				  c->channels);
	if (c->fault_threads > 64)
		return rt_fail(NULL, 0, EINVAL, "fault threads %u: want 1..64",
				  c->fault_threads);
	if (c->queue_depth < 1 || c->queue_depth > 256)
		return rt_fail(NULL, 0, EINVAL, "queue depth %u: want 1..256",
				  c->queue_depth);
	if (c->max_request && (c->max_request < FNMAP_PAGE_SIZE ||
			       c->max_request > (64ULL << 20) ||
			       c->max_request % FNMAP_PAGE_SIZE))
		return rt_fail(NULL, 0, EINVAL, "largest request %llu: want "
				  "a multiple of 4 KiB up to 64 MiB",
				  (unsigned long long)c->max_request);
	if (c->flags & ~FNMAP_CFG_ALL)
		return rt_fail(NULL, 0, EINVAL, "unknown runtime flags %#x",
				  c->flags & ~FNMAP_CFG_ALL);
	if (c->budget && c->budget < FNMAP_MAX_BLOCK)
		return rt_fail(NULL, 0, EINVAL, "budget %llu: want at least "
				  "2 MiB", (unsigned long long)c->budget);
	return 0;
}

/* ---- Start and stop ---------------------------------------------------- */

static void runtime_free(struct fnmap_runtime *rt)
{
	fault_stop(rt);
	channels_stop(rt);
	cache_stop(rt);
	queue_destroy(rt->queue);
	staging_destroy(rt->staging);
	staging_destroy(rt->twins);
	uffd_close(&rt->uffd);
	pthread_rwlock_destroy(&rt->maps_lock);
	pthread_mutex_destroy(&rt->closed_lock);
	free(rt);
}

void rt_sync_at_exit(void)
{
	struct fnmap_runtime *rt;

	pthread_mutex_lock(&rt_lock);
	rt = the_rt;
	pthread_mutex_unlock(&rt_lock);
	if (rt && rt->pid == getpid())
		map_sync_all(rt);
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&rt_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&rt_lock);
}

static void fork_child(void)
{
	/* The parent's runtime threads do not exist here: forget it. */
	the_rt = NULL;
	pthread_mutex_init(&rt_lock, NULL);
}

static struct fnmap_runtime *runtime_start(const struct fnmap_config *cfg)
{
	static bool hooks;
	struct fnmap_runtime *rt;
	uint64_t staging;
	char err[FNMAP_ERRLEN];

	if (check_config(cfg))
		return NULL;
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return rt_fail(NULL, 0, ENOMEM, "out of memory"), NULL;
	rt->cfg = *cfg;
	if (!rt->cfg.max_request)
		rt->cfg.max_request = 1 << 20;
	if (!rt->cfg.fault_threads)
		rt->cfg.fault_threads = FNMAP_DEFAULT_FAULT_THREADS;
	rt->pid = getpid();
	rt->fault_wake = -1;
	rt->uffd.fd = -1;
	pthread_rwlock_init(&rt->maps_lock, NULL);
	pthread_mutex_init(&rt->closed_lock, NULL);
	if (uffd_open(&rt->uffd, err, sizeof(err))) {
		int e = errno;

		runtime_free(rt);
		rt_fail(NULL, 0, e, "%s", err);
		return NULL;
	}
	if ((rt->cfg.flags & FNMAP_CFG_CONTINUE) && !rt->uffd.minor_shmem)
		rt_log("continue: this kernel has no minor faults on shmem "
		       "(UFFD_FEATURE_MINOR_SHMEM, 5.13): fills copy");
	if (!rt->cfg.budget) {
		struct pressure *p = pressure_open();
		uint64_t avail = pressure_available(p) / 4;

		pressure_close(p);
		rt->cfg.budget = avail > (16ULL << 20) ? avail : 16ULL << 20;
	}
	/* Read buffers and shadows: an eighth of the budget, enough for
	 * every channel slot to hold a full request, and at least two. */
	staging = (uint64_t)rt->cfg.channels * channel_depth_max(&rt->cfg) *
		  rt->cfg.max_request;
	if (staging > rt->cfg.budget / 8)
		staging = rt->cfg.budget / 8;
	if (staging < 2 * (rt->cfg.max_request > FNMAP_MAX_BLOCK ?
			   rt->cfg.max_request : FNMAP_MAX_BLOCK))
		staging = 2 * (rt->cfg.max_request > FNMAP_MAX_BLOCK ?
			       rt->cfg.max_request : FNMAP_MAX_BLOCK);
	rt->staging = staging_create(staging);
	/* Twins of blocks being written (writeback.c): part of the cache's
	 * resident bytes while in use, at most half the budget. */
	rt->twins = staging_create(rt->cfg.budget / 2);
	rt->queue = queue_create(rt);
	if (!rt->staging || !rt->twins || !rt->queue || cache_start(rt) ||
	    channels_start(rt) || fault_start(rt)) {
		int e = errno ? errno : ENOMEM;

		runtime_free(rt);
		rt_fail(NULL, 0, e, "starting the runtime: %s", strerror(e));
		return NULL;
	}
	if (!hooks) {
		atexit(rt_sync_at_exit);
		pthread_atfork(fork_prepare, fork_parent, fork_child);
		hooks = true;
	}
	return rt;
}

struct fnmap_runtime *runtime_peek(void)
{
	struct fnmap_runtime *rt = atomic_load(&the_rt);

	return rt && rt->pid == getpid() ? rt : NULL;
}

struct fnmap_runtime *runtime_get(bool start)
{
	struct fnmap_runtime *rt;

	pthread_mutex_lock(&rt_lock);
	if (!the_rt && start) {
		struct fnmap_config cfg;

		if (fnmap_config_init(&cfg)) {
			pthread_mutex_unlock(&rt_lock);
			return NULL;
		}
		the_rt = runtime_start(&cfg);
	}
	rt = the_rt;
	pthread_mutex_unlock(&rt_lock);
	return rt;
}

int fnmap_init(const struct fnmap_config *cfg)
{
	struct fnmap_config def;
	int r = 0;

	if (!cfg) {
		if (fnmap_config_init(&def))
			return -1;
		cfg = &def;
	}
	pthread_mutex_lock(&rt_lock);
	if (the_rt) {
		r = rt_fail(NULL, 0, EBUSY, "the runtime is running "
			       "(fnmap_shutdown() first)");
	} else {
		the_rt = runtime_start(cfg);
		r = the_rt ? 0 : -1;
	}
	pthread_mutex_unlock(&rt_lock);
	return r;
}

int fnmap_shutdown(void)
{
	struct fnmap_runtime *rt;

	pthread_mutex_lock(&rt_lock);
	rt = the_rt;
	if (rt && rt->nmaps) {
		pthread_mutex_unlock(&rt_lock);
		return rt_fail(NULL, 0, EBUSY, "%u mappings are open",
				  rt->nmaps);
	}
	the_rt = NULL;
	pthread_mutex_unlock(&rt_lock);
	if (rt)
		runtime_free(rt);
	return 0;
}

/* ---- Statistics ------------------------------------------------------- */

void rt_counters_add(struct fnmap_counters *to,
			const struct fnmap_counters *from)
{
	const _Atomic uint64_t *f = (const _Atomic uint64_t *)from;
	_Atomic uint64_t *t = (_Atomic uint64_t *)to;
	size_t i, n = sizeof(*from) / sizeof(uint64_t);

	for (i = 0; i < n; i++) {
		/* Maxima are maxima, the rest are sums. */
		if (&t[i] == &to->queue_wait_max_ns ||
		    &t[i] == &to->service_max_ns || &t[i] == &to->inflight_max)
			counter_max(&t[i], atomic_load(&f[i]));
		else
			counter_add(&t[i], atomic_load(&f[i]));
	}
}

static void copy_counters(struct fnmap_stats *st, const struct fnmap_counters *c)
{
	unsigned int i;

	st->faults = c->faults;
	st->faults_wp = c->faults_wp;
	st->faults_joined = c->faults_joined;
	st->twins = c->twins;
	st->twin_pages = c->twin_pages;
	st->twins_at_fill = c->twins_at_fill;
	st->fills = c->fills;
	st->fill_bytes = c->fill_bytes;
	st->prefetches = c->prefetches;
	st->prefetch_late = c->prefetch_late;
	st->reads = c->reads;
	st->read_bytes = c->read_bytes;
	st->writes = c->writes;
	st->write_bytes = c->write_bytes;
	st->io_errors = c->io_errors;
	for (i = 0; i < FNMAP_HIST_BUCKETS; i++) {
		st->read_sizes[i] = c->read_sizes[i];
		st->write_sizes[i] = c->write_sizes[i];
	}
	st->queue_wait_ns = c->queue_wait_ns;
	st->queue_wait_max_ns = c->queue_wait_max_ns;
	st->service_ns = c->service_ns;
	st->service_max_ns = c->service_max_ns;
	st->inflight_max = c->inflight_max;
	st->inflight_sum = c->inflight_sum;
	st->syncs = c->syncs;
	st->sync_ns = c->sync_ns;
}

int fnmap_stats(const struct fnmap *m, struct fnmap_stats *st)
{
	struct fnmap_runtime *rt = runtime_get(false);
	struct fnmap_counters sum;
	unsigned int i;

	if (!st)
		return rt_fail(NULL, 0, EINVAL, "no statistics buffer");
	if (!rt)
		return rt_fail(NULL, 0, EINVAL, "the runtime is not running");
	if (m && m->pid != getpid())
		return rt_fail(NULL, 0, EINVAL, "mapping of another process");
	memset(st, 0, sizeof(*st));
	memset(&sum, 0, sizeof(sum));
	if (m) {
		rt_counters_add(&sum, &m->c);
		st->block_size = (unsigned int)m->bs;
		st->direct_io = m->direct;
		st->fill_method = m->zero_copy ? "continue" : "copy";
	} else {
		pthread_rwlock_rdlock(&rt->maps_lock);
		for (i = 0; i < FNMAP_MAX_MAPS; i++)
			if (rt->maps[i])
				rt_counters_add(&sum, &rt->maps[i]->c);
		pthread_rwlock_unlock(&rt->maps_lock);
		pthread_mutex_lock(&rt->closed_lock);
		rt_counters_add(&sum, &rt->closed);
		pthread_mutex_unlock(&rt->closed_lock);
	}
	copy_counters(st, &sum);
	cache_stats(rt, st);
	st->channels = rt->nchannels;
	st->queue_depth = rt->cfg.queue_depth;
	st->queue_depth_now = atomic_load(&rt->depth_now);
	st->queue_depth_max = channel_depth_max(&rt->cfg);
	st->fault_threads = fault_threads(rt);
	st->uffd_source = rt->uffd.source;
	st->io_engine = channels_engine(rt);
	return 0;
}
