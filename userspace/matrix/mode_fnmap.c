// SPDX-License-Identifier: GPL-2.0
/*
 * --mode fnmap: the matrix mapped through libfnmap (fnmap(3)), read and
 * written in place like --mode mmap, but misses are filled from cache
 * blocks of --bs bytes (64 KiB to 2 MiB) read by the runtime, coalesced
 * and spread over io_uring channels; its cache has a budget; writes are
 * written back from shadow copies at each sync. --advise becomes the
 * mapping's advice. The runtime's own settings are this mode's options;
 * every job (process) starts a runtime of its own, in its cgroup, so the
 * budget follows the cgroup's limit and pressure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../fnmap/fnmap.h"
#include "../lib/diag.h"
#include "../lib/units.h"
#include "mode.h"

struct fnmap_conf {
	struct fnmap_config cfg;
};

struct fnmap_mode_run {
	struct fnmap *m;
	char *base;
};

static const struct mx_mode_option fnmap_options[] = {
	{ "fnmap-budget", "SIZE", "bytes the runtime's cache may hold "
	  "(at least 2MiB; shrinks under the cgroup's memory pressure)",
	  "a quarter of what the job's cgroup has left" },
	{ "fnmap-channels", "N", "I/O channels: io_uring instances, one "
	  "thread each (1 to 64)", "4" },
	{ "fnmap-qd", "N", "requests in flight per channel (1 to 256) to "
	  "start with; deeper (up to 256) while that raises the store's "
	  "rate, unless fixed-depth", "8" },
	{ "fnmap-fault-threads", "N", "threads serving the faults, reading "
	  "one userfaultfd (1 to 64)", "4" },
	{ "fnmap-max-request", "SIZE", "largest coalesced request (a "
	  "multiple of 4KiB up to 64MiB)", "1MiB" },
	{ "fnmap-flags", "LIST", "runtime switches for ablations, "
	  "comma-separated: no-coalesce, simple-cache, no-growth, "
	  "no-pressure, no-prefetch, psync, handoff, continue, no-twins, "
	  "no-write-alloc, fixed-depth "
	  "(fnmap(3), "
	  "FNMAP_FLAGS)", "none" },
	{ NULL, NULL, NULL, NULL },
};

static int fnmap_option(struct mx_mode_run *r, const char *name,
			const char *arg, char *err, size_t errlen)
{
	struct fnmap_conf *c = r->conf;
	const char *why;
	uint64_t v;

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return fnblk_seterr(err, errlen, "out of memory");
		fnmap_config_init(&c->cfg);
		r->conf = c;
	}
	if (!strcmp(name, "fnmap-budget")) {
		if (fnblk_parse_size(arg, &v, &why))
			return fnblk_seterr(err, errlen, "'%s': %s", arg, why);
		if (v < (2 << 20))
			return fnblk_seterr(err, errlen, "'%s': below 2MiB", arg);
		c->cfg.budget = v;
	} else if (!strcmp(name, "fnmap-channels") ||
		   !strcmp(name, "fnmap-qd")) {
		bool ch = !strcmp(name, "fnmap-channels");

		if (fnblk_parse_uint(arg, 1, ch ? 64 : 256, &v, &why))
			return fnblk_seterr(err, errlen, "'%s': %s (1 to %u)",
					    arg, why, ch ? 64 : 256);
		if (ch)
			c->cfg.channels = (unsigned int)v;
		else
			c->cfg.queue_depth = (unsigned int)v;
	} else if (!strcmp(name, "fnmap-fault-threads")) {
		if (fnblk_parse_uint(arg, 1, 64, &v, &why))
			return fnblk_seterr(err, errlen, "'%s': %s (1 to 64)",
					    arg, why);
		c->cfg.fault_threads = (unsigned int)v;
	} else if (!strcmp(name, "fnmap-max-request")) {
		if (fnblk_parse_size(arg, &v, &why))
			return fnblk_seterr(err, errlen, "'%s': %s", arg, why);
		if (v < 4096 || v > (64 << 20) || v % 4096)
			return fnblk_seterr(err, errlen, "'%s': want a multiple "
					    "of 4KiB up to 64MiB", arg);
		c->cfg.max_request = v;
	} else if (!strcmp(name, "fnmap-flags")) {
		if (strcmp(arg, "none") && fnmap_parse_flags(arg, &c->cfg.flags))
			return fnblk_seterr(err, errlen, "%s", fnmap_errmsg());
	} else {
		return fnblk_seterr(err, errlen, "not an option of --mode fnmap");
	}
	return 0;
}

static int fnmap_mode_open(struct mx_mode_run *r, char *err, size_t errlen)
{
	static const enum fnmap_advice advice[MX_NR_ADVISE] = {
		[MX_ADVISE_NORMAL] = FNMAP_ADV_NORMAL,
		[MX_ADVISE_RANDOM] = FNMAP_ADV_RANDOM,
		[MX_ADVISE_SEQUENTIAL] = FNMAP_ADV_SEQUENTIAL,
	};
	const struct mx_target *t = r->tgt;
	const struct fnmap_conf *c = r->conf;
	struct fnmap_options o = {
		.block_size = r->set->bs,
		.advice = advice[r->set->advise],
	};
	struct fnmap_config cfg;
	struct fnmap_mode_run *f;

	if (c) {
		cfg = c->cfg;
	} else if (fnmap_config_init(&cfg)) {
		return fnblk_seterr(err, errlen, "%s", fnmap_errmsg());
	}
	if (fnmap_init(&cfg))
		return fnblk_seterr(err, errlen, "fnmap: %s", fnmap_errmsg());
	f = calloc(1, sizeof(*f));
	if (!f) {
		fnmap_shutdown();
		return fnblk_seterr(err, errlen, "out of memory");
	}
	f->m = fnmap_open_fd(t->fd, (off_t)t->data_offset, t->data_bytes,
			     PROT_READ | (t->writes ? PROT_WRITE : 0), NULL, 0,
			     &o);
	if (!f->m) {
		fnblk_seterr(err, errlen, "fnmap %s: %s", t->path,
			     fnmap_errmsg());
		free(f);
		fnmap_shutdown();
		return -1;
	}
	f->base = fnmap_addr(f->m);
	r->priv = f;
	return 0;
}

static int fnmap_mode_get(struct mx_mode_thread *t, uint64_t off, size_t len,
			  unsigned int flags, void **p, char *err,
			  size_t errlen)
{
	struct fnmap_mode_run *f = t->run->priv;

	(void)len;
	(void)flags;
	(void)err;
	(void)errlen;
	*p = f->base + off;
	return 0;
}

static int fnmap_mode_sync(struct mx_mode_thread *t, char *err, size_t errlen)
{
	struct fnmap_mode_run *f = t->run->priv;

	if (fnmap_sync(f->m, NULL, 0, 0))
		return fnblk_seterr(err, errlen, "fnmap_sync: %s",
				    fnmap_errmsg());
	return 0;
}

static void fnmap_mode_describe(struct mx_mode_run *r, json_t *s)
{
	struct fnmap_mode_run *f = r->priv;
	struct fnmap_stats st;
	unsigned int flags = r->conf ? ((struct fnmap_conf *)r->conf)->cfg.flags : 0;

	if (fnmap_stats(f->m, &st))
		return;
	json_object_set_new(s, "advise", json_string(mx_advise_name(r->set->advise)));
	json_object_set_new(s, "block_size", json_integer(st.block_size));
	json_object_set_new(s, "budget", json_integer((json_int_t)st.budget));
	json_object_set_new(s, "channels", json_integer(st.channels));
	json_object_set_new(s, "queue_depth", json_integer(st.queue_depth));
	json_object_set_new(s, "fault_threads", json_integer(st.fault_threads));
	json_object_set_new(s, "runtime_flags", json_integer(flags));
	json_object_set_new(s, "direct_io", json_boolean(st.direct_io));
	json_object_set_new(s, "userfaultfd", json_string(st.uffd_source));
	json_object_set_new(s, "io_engine", json_string(st.io_engine));
}

static json_t *hist_json(const uint64_t *h)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < FNMAP_HIST_BUCKETS; i++)
		if (h[i])
			json_array_append_new(a, json_pack("{s:I,s:I}",
				"bytes", (json_int_t)(4096ULL << i),
				"requests", (json_int_t)h[i]));
	return a;
}

static void fnmap_mode_stats(struct mx_mode_run *r, json_t *c)
{
	struct fnmap_mode_run *f = r->priv;
	struct fnmap_stats st;

	if (fnmap_stats(f->m, &st))
		return;
#define PUT(k) json_object_set_new(c, #k, json_integer((json_int_t)st.k))
	PUT(faults);
	PUT(faults_wp);
	PUT(faults_joined);
	PUT(twins);
	PUT(twin_pages);
	PUT(twins_at_fill);
	PUT(fills);
	PUT(fill_bytes);
	PUT(prefetches);
	PUT(prefetch_late);
	PUT(reads);
	PUT(read_bytes);
	PUT(writes);
	PUT(write_bytes);
	PUT(io_errors);
	PUT(queue_wait_ns);
	PUT(queue_wait_max_ns);
	PUT(service_ns);
	PUT(service_max_ns);
	PUT(inflight_max);
	PUT(budget_now);
	PUT(capacity);
	PUT(resident);
	PUT(resident_max);
	PUT(staging);
	PUT(evictions);
	PUT(evictions_dirty);
	PUT(reuse_hits);
	PUT(held_ns);
	PUT(queue_depth_now);
	PUT(queue_depth_max);
	PUT(grows);
	PUT(shrinks);
	PUT(pressure_events);
	PUT(overcommit);
	PUT(syncs);
	PUT(sync_ns);
#undef PUT
	json_object_set_new(c, "mean_read_bytes", st.reads ?
			    json_integer((json_int_t)(st.read_bytes / st.reads)) :
			    json_null());
	json_object_set_new(c, "mean_inflight", st.reads + st.writes ?
			    json_real((double)st.inflight_sum /
				      (double)(st.reads + st.writes)) :
			    json_null());
	json_object_set_new(c, "read_sizes", hist_json(st.read_sizes));
	json_object_set_new(c, "write_sizes", hist_json(st.write_sizes));
}

static void fnmap_mode_close(struct mx_mode_run *r)
{
	struct fnmap_mode_run *f = r->priv;

	if (!f)
		return;
	fnmap_close(f->m);
	fnmap_shutdown();
	free(f);
	r->priv = NULL;
}

const struct mx_mode mx_mode_fnmap = {
	.name = "fnmap",
	.summary = "map the matrix through libfnmap: user-space fills of "
		   "--bs blocks, coalesced, cached, written back at sync",
	.flags = MX_MODE_BS | MX_MODE_ADVISE,
	.options = fnmap_options,
	.option = fnmap_option,
	.open = fnmap_mode_open,
	.get = fnmap_mode_get,
	.sync = fnmap_mode_sync,
	.describe = fnmap_mode_describe,
	.stats = fnmap_mode_stats,
	.close = fnmap_mode_close,
};
