/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checkpoint writers: one job's way of putting S bytes on storage and
 * making them durable, through one of the paths of ckpt_paths (--path), to
 * a region of a device (or regular file) or to files of its own in a
 * directory. A new path is one entry of that table: its name, what it
 * does, its open flags, whether it is O_DIRECT and queued, and its write.
 */
#ifndef FLEET_CKPT_H
#define FLEET_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ckpt_writer;

/* One way to write a checkpoint (--path NAME). */
struct ckpt_path {
	const char *name;
	const char *help;	/* what it does, for --help and the man page */
	int open_flags;		/* O_WRONLY | O_DIRECT, ... */
	bool direct;		/* O_DIRECT: sizes round up to 4 KiB */
	bool queued;		/* --engine and --qd apply */
	bool flushes;		/* durable on a device with a volatile cache */
	/* bytes at off, durable as the path defines it. */
	int (*write)(struct ckpt_writer *w, uint64_t off, uint64_t bytes,
		     char *err, size_t errlen);
};

/* Every path, the default first; the name and help of path i, NULL past the last. */
const struct ckpt_path *ckpt_path_at(unsigned int i);
const char *ckpt_path_name(unsigned int i);
const char *ckpt_path_help(unsigned int i);

/* How a queued path submits: --engine NAME. */
enum ckpt_engine {
	CKPT_ENGINE_URING,
	CKPT_ENGINE_PSYNC,
};

const char *ckpt_engine_name(unsigned int e);	/* NULL past the last */
const char *ckpt_engine_help(unsigned int e);

struct ckpt_opts {
	unsigned int path;		/* index into the paths */
	unsigned int engine;		/* enum ckpt_engine, queued paths */
	unsigned int qd;		/* io_uring queue depth */
	uint64_t bs;			/* bytes per write call; 0 = all at once */
	const char *target;		/* device or file; NULL with dir */
	const char *dir;		/* one file per job in here */
	bool rotate;			/* dir: a new file every cycle */
	/*
	 * --part I/N: the jobs' regions lie in the I-th of N equal slices of
	 * the target, so that N fleets sharing it (the hosts of a cluster)
	 * never write the same bytes. part_count 0: the whole target.
	 */
	unsigned int part_index, part_count;
	uint64_t base;			/* job 0's region; ckpt_prepare sets it */
};

/* Bytes a write of size actually puts down (O_DIRECT rounds up to 4 KiB). */
uint64_t ckpt_write_size(const struct ckpt_opts *o, uint64_t size);

/*
 * Check the target can hold jobs regions of region bytes (raw target; in
 * its part with part_count) and grow a regular file that is too small
 * (without part_count: a part is a share of the size it has). Sets
 * o->base. 0, or -1 with err.
 */
int ckpt_prepare(struct ckpt_opts *o, unsigned int jobs,
		 uint64_t region, char *err, size_t errlen);

/*
 * Open job's writer: raw targets write at base + job * region; dir
 * targets use their own file. 0, or -1 with err.
 */
int ckpt_open(struct ckpt_writer **w, const struct ckpt_opts *o,
	      unsigned int job, uint64_t region, char *err, size_t errlen);
/*
 * Write one checkpoint of bytes (from ckpt_write_size) durably; every
 * whole 4 KiB block of it starts with a stamp of its job and cycle.
 */
int ckpt_write(struct ckpt_writer *w, uint64_t bytes, uint64_t cycle,
	       char *err, size_t errlen);
void ckpt_close(struct ckpt_writer *w);

#endif /* FLEET_CKPT_H */
