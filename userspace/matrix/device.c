// SPDX-License-Identifier: GPL-2.0
/* The device under a matrix and its fnblk counters (see device.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device.h"

static long read_long(const char *dir, const char *file)
{
	char path[PATH_MAX];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* The major number /proc/devices gives fnblk's block devices, or -1. */
static long fnblk_major(void)
{
	char line[128], name[64];
	bool block = false;
	long major = -1, m;
	FILE *f = fopen("/proc/devices", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Block devices:", 14))
			block = true;
		else if (block && sscanf(line, "%ld %63s", &m, name) == 2 &&
			 !strcmp(name, "fnblk"))
			major = m;
	}
	fclose(f);
	return major;
}

void mx_device_probe(const char *path, struct mx_device *d)
{
	char sys[PATH_MAX], real[PATH_MAX], part[PATH_MAX + 16];
	struct stat st;
	dev_t dev;
	char *base;

	memset(d, 0, sizeof(*d));
	d->read_ahead_kb = d->max_sectors_kb = d->logical_block_size = -1;
	if (stat(path, &st))
		return;
	dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(sys, real))
		return;
	/* A partition: its queue is its disk's. */
	snprintf(part, sizeof(part), "%s/partition", real);
	if (!access(part, F_OK)) {
		base = strrchr(real, '/');
		if (base)
			*base = '\0';
	}
	base = strrchr(real, '/');
	if (snprintf(d->name, sizeof(d->name), "%s", base ? base + 1 : real) >=
	    (int)sizeof(d->name))
		return;	/* no disk has such a name */
	d->found = true;
	d->major = major(dev);
	d->minor = minor(dev);
	strncat(real, "/queue", sizeof(real) - strlen(real) - 1);
	d->read_ahead_kb = read_long(real, "read_ahead_kb");
	d->max_sectors_kb = read_long(real, "max_sectors_kb");
	d->logical_block_size = read_long(real, "logical_block_size");
	d->is_fnblk = fnblk_major() == (long)d->major;
	if (!d->is_fnblk)
		return;
	d->nl = fnblk_open();
	if (!d->nl) {
		snprintf(d->nl_error, sizeof(d->nl_error), "netlink: %s",
			 errno == ENOENT ? "the fnblk family is not registered" :
			 strerror(errno));
		return;
	}
	if (fnblk_dev_get(d->nl, d->name, &d->info) < 0)
		snprintf(d->nl_error, sizeof(d->nl_error), "%s", fnblk_errmsg(d->nl));
}

void mx_device_snapshot(struct mx_device *d, bool after)
{
	struct fnblk_stats *st = after ? &d->after : &d->before;
	bool *have = after ? &d->have_after : &d->have_before;

	if (!d->nl)
		return;
	*have = fnblk_stats_get(d->nl, d->name, st) >= 0;
	if (!*have)
		snprintf(d->nl_error, sizeof(d->nl_error), "%s", fnblk_errmsg(d->nl));
}

static json_t *config_json(const struct fnblk_dev_config *c)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:s, s:s?, s:s?}",
			 "size", (json_int_t)c->size,
			 "bw", (json_int_t)c->bw,
			 "latency_ns", (json_int_t)c->latency_ns,
			 "overhead", (json_int_t)c->overhead,
			 "fn", c->fn,
			 "store", fnblk_store_name(c->store),
			 "key", fnblk_key_name(c->key));
}

static uint64_t delta(const struct mx_device *d, unsigned int stat)
{
	return d->after.val[stat] - d->before.val[stat];
}

/* Requests per size during the run: [{"bytes": low, "requests": n}, ...]. */
static json_t *sizes_json(const uint64_t *after, const uint64_t *before)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < FNBLK_RSIZE_BINS; i++) {
		uint64_t n = after[i] - before[i];

		if (n)
			json_array_append_new(a, json_pack("{s:I, s:I}",
					"bytes", (json_int_t)fnblk_rsize_bin_low(i),
					"requests", (json_int_t)n));
	}
	return a;
}

static json_t *io_json(const struct mx_device *d)
{
	json_t *o = json_object();
	uint64_t rops = delta(d, FNBLK_STAT_READ_OPS);
	uint64_t wops = delta(d, FNBLK_STAT_WRITE_OPS);

	json_object_set_new(o, "read_ops", json_integer((json_int_t)rops));
	json_object_set_new(o, "read_bytes",
			    json_integer((json_int_t)delta(d, FNBLK_STAT_READ_BYTES)));
	json_object_set_new(o, "write_ops", json_integer((json_int_t)wops));
	json_object_set_new(o, "write_bytes",
			    json_integer((json_int_t)delta(d, FNBLK_STAT_WRITE_BYTES)));
	json_object_set_new(o, "flush_ops",
			    json_integer((json_int_t)delta(d, FNBLK_STAT_FLUSH_OPS)));
	json_object_set_new(o, "mean_read_bytes", rops ?
			    json_real((double)delta(d, FNBLK_STAT_READ_BYTES) / (double)rops) :
			    json_null());
	json_object_set_new(o, "mean_write_bytes", wops ?
			    json_real((double)delta(d, FNBLK_STAT_WRITE_BYTES) / (double)wops) :
			    json_null());
	/* A module without the histograms sends none: no sizes, not zeros. */
	if (d->after.present & FNBLK_BIT(FNBLK_STAT_READ_SIZE_HIST)) {
		json_object_set_new(o, "read_sizes", sizes_json(d->after.read_size_hist,
								d->before.read_size_hist));
		json_object_set_new(o, "write_sizes", sizes_json(d->after.write_size_hist,
								 d->before.write_size_hist));
	}
	return o;
}

json_t *mx_device_json(const struct mx_device *d)
{
	json_t *o;

	if (!d->found)
		return json_null();
	o = json_object();
	json_object_set_new(o, "name", json_string(d->name));
	json_object_set_new(o, "major", json_integer(d->major));
	json_object_set_new(o, "minor", json_integer(d->minor));
	json_object_set_new(o, "read_ahead_kb", d->read_ahead_kb < 0 ? json_null() :
			    json_integer(d->read_ahead_kb));
	json_object_set_new(o, "max_sectors_kb", d->max_sectors_kb < 0 ? json_null() :
			    json_integer(d->max_sectors_kb));
	json_object_set_new(o, "logical_block_size", d->logical_block_size < 0 ?
			    json_null() : json_integer(d->logical_block_size));
	json_object_set_new(o, "fnblk", json_boolean(d->is_fnblk));
	if (!d->is_fnblk)
		return o;
	if (d->info.name[0])
		json_object_set_new(o, "config", config_json(&d->info.cfg));
	if (d->have_before && d->have_after)
		json_object_set_new(o, "io", io_json(d));
	if (d->nl_error[0])
		json_object_set_new(o, "error", json_string(d->nl_error));
	return o;
}

void mx_device_close(struct mx_device *d)
{
	fnblk_close(d->nl);
	d->nl = NULL;
}
