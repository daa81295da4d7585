/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fnblk device a fleet writes to, and its settings as the device
 * reports them over netlink (libfnblk), in fnblk-sim's option names, so
 * "fnblk-sim compare" re-simulates the device the run really had: one
 * made or changed over netlink after load included, which module
 * parameters do not show.
 */
#ifndef FLEET_DEVICE_H
#define FLEET_DEVICE_H

#include <stdbool.h>

#include "../lib/fnblk.h"

struct fleet_device {
	char name[FNBLK_NAME_LEN];	/* "" when the target is not on fnblk */
	bool known;			/* info was read */
	char why[160];			/* why it was not */
	struct fnblk_dev_info info;
};

/*
 * The fnblk device under path (a block device, or a file or directory on
 * a file system) and its settings. Returns 0 when path is on fnblk (with
 * d->known, or d->why saying why its settings could not be read), 1 when
 * it is not.
 */
int fleet_device_read(const char *path, struct fleet_device *d);

/* emit(arg, name, value): device and its settings (or device_settings=why). */
void fleet_device_params(const struct fleet_device *d,
			 void (*emit)(void *arg, const char *name,
				      const char *value),
			 void *arg);

/* The settings that differ between a and b, as "bw, fn"; "" if none. */
void fleet_device_diff(const struct fleet_device *a,
		       const struct fleet_device *b, char *buf, size_t len);

#endif /* FLEET_DEVICE_H */
