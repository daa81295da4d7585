// SPDX-License-Identifier: GPL-2.0
/* The fnblk device under a fleet's target (see device.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device.h"

/*
 * The whole-disk name of block device dev from sysfs ("fnblk0"; for a
 * partition, its disk). 0, or -1.
 */
static int disk_name(dev_t dev, char *name, size_t len)
{
	char link[64], path[PATH_MAX], part[PATH_MAX + 16], *base;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	if (!realpath(link, path))
		return -1;
	snprintf(part, sizeof(part), "%s/partition", path);
	if (!access(part, F_OK))
		*strrchr(path, '/') = '\0';	/* the disk above it */
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strlen(base) >= len)
		return -1;
	memcpy(name, base, strlen(base) + 1);
	return 0;
}

int fleet_device_read(const char *path, struct fleet_device *d)
{
	struct stat st;
	struct fnblk *h;
	char name[64];
	int ret;

	memset(d, 0, sizeof(*d));
	if (stat(path, &st) ||
	    disk_name(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev, name,
		      sizeof(name)) ||
	    strncmp(name, "fnblk", 5) || strlen(name) >= sizeof(d->name))
		return 1;
	snprintf(d->name, sizeof(d->name), "%s", name);
	h = fnblk_open();
	if (!h) {
		snprintf(d->why, sizeof(d->why), "netlink: %s", strerror(errno));
		return 0;
	}
	ret = fnblk_dev_get(h, d->name, &d->info);
	if (ret)
		snprintf(d->why, sizeof(d->why), "%s", fnblk_errmsg(h));
	else
		d->known = true;
	fnblk_close(h);
	return 0;
}

/* Each setting, named as fnblk-sim takes it, in a text that parses back. */
static void each_setting(const struct fnblk_dev_config *c,
			 void (*fn)(void *arg, const char *name,
				    const char *value),
			 void *arg)
{
	char buf[FNBLK_UNIT_BUFLEN + 4];

	if (c->bw) {
		fnblk_format_size_exact(c->bw, buf, FNBLK_UNIT_BUFLEN);
		strcat(buf, "/s");
	} else {
		snprintf(buf, sizeof(buf), "unlimited");
	}
	fn(arg, "bw", buf);
	fn(arg, "fn", c->fn);
	fn(arg, "latency", fnblk_format_duration_exact(c->latency_ns, buf,
						       sizeof(buf)));
	fn(arg, "overhead", fnblk_format_size_exact(c->overhead, buf,
						    sizeof(buf)));
	fn(arg, "grace", fnblk_format_duration_exact(c->grace_ns, buf,
						     sizeof(buf)));
	fn(arg, "policy", fnblk_policy_name(c->policy));
	fn(arg, "users", fnblk_users_name(c->users));
	fn(arg, "key", fnblk_key_name(c->key));
	fn(arg, "store", fnblk_store_name(c->store));
}

void fleet_device_params(const struct fleet_device *d,
			 void (*emit)(void *arg, const char *name,
				      const char *value),
			 void *arg)
{
	if (!*d->name)
		return;
	emit(arg, "device", d->name);
	if (d->known)
		each_setting(&d->info.cfg, emit, arg);
	else
		emit(arg, "device_settings", d->why);
}

/* The settings of one device, to set beside another's. */
struct settings {
	char name[12][16];
	char value[12][FNBLK_FN_SPEC_LEN];
	unsigned int nr;
};

static void collect(void *arg, const char *name, const char *value)
{
	struct settings *s = arg;

	if (s->nr == 12)
		return;
	snprintf(s->name[s->nr], sizeof(s->name[0]), "%s", name);
	snprintf(s->value[s->nr], sizeof(s->value[0]), "%s", value);
	s->nr++;
}

void fleet_device_diff(const struct fleet_device *a,
		       const struct fleet_device *b, char *buf, size_t len)
{
	struct settings sa = { .nr = 0 }, sb = { .nr = 0 };
	unsigned int i;
	size_t used = 0;

	*buf = '\0';
	if (!a->known || !b->known)
		return;
	each_setting(&a->info.cfg, collect, &sa);
	each_setting(&b->info.cfg, collect, &sb);
	for (i = 0; i < sa.nr && i < sb.nr && used < len; i++) {
		if (!strcmp(sa.value[i], sb.value[i]))
			continue;
		used += snprintf(buf + used, len - used, "%s%s %s -> %s",
				 used ? ", " : "", sa.name[i], sa.value[i],
				 sb.value[i]);
	}
}
