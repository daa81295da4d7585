/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block device under a matrix (the device itself, or the one holding
 * the file system of a file), its queue settings that shape page-cache
 * I/O (readahead, largest request), and, when it is an fnblk device, its
 * configuration and what it served during the run: counters read over
 * netlink through libfnblk before and after.
 */
#ifndef MATRIX_DEVICE_H
#define MATRIX_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "fnblk.h"

struct mx_device {
	bool found;
	char name[64];			/* disk name: fnblk0, vda */
	unsigned int major, minor;
	long read_ahead_kb;		/* -1: unknown */
	long max_sectors_kb;
	long logical_block_size;
	bool is_fnblk;
	/* fnblk only: */
	struct fnblk *nl;		/* NULL: netlink unavailable */
	char nl_error[128];
	struct fnblk_dev_info info;
	struct fnblk_stats before, after;
	bool have_before, have_after;
};

/* Find the device under path; d->found false if none (e.g. tmpfs). */
void mx_device_probe(const char *path, struct mx_device *d);
/* Snapshot the fnblk counters (no-op for other devices). */
void mx_device_snapshot(struct mx_device *d, bool after);
/* Settings, fnblk configuration and the counters' difference. */
json_t *mx_device_json(const struct mx_device *d);
void mx_device_close(struct mx_device *d);

#endif /* MATRIX_DEVICE_H */
