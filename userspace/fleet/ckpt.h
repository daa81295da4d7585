/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checkpoint writers: one job's way of putting S bytes on storage and
 * making them durable, through one of four paths, to a region of a device
 * (or regular file) or to files of its own in a directory.
 */
#ifndef FLEET_CKPT_H
#define FLEET_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ckpt_path {
	CKPT_DIRECT,	/* O_DIRECT, io_uring or pwrite */
	CKPT_BUFFERED,	/* write, then fsync */
	CKPT_DSYNC,	/* O_DSYNC writes */
	CKPT_MMAP,	/* stores into a shared mapping, then msync */
};

enum ckpt_engine {
	CKPT_ENGINE_URING,
	CKPT_ENGINE_PSYNC,
};

struct ckpt_opts {
	enum ckpt_path path;
	enum ckpt_engine engine;	/* CKPT_DIRECT only */
	unsigned int qd;		/* io_uring queue depth */
	uint64_t bs;			/* bytes per write call */
	const char *target;		/* device or file; NULL with dir */
	const char *dir;		/* one file per job in here */
	bool rotate;			/* dir: a new file every cycle */
};

struct ckpt_writer;

int ckpt_path_parse(const char *s, enum ckpt_path *p);
const char *ckpt_path_name(enum ckpt_path p);
int ckpt_engine_parse(const char *s, enum ckpt_engine *e);
const char *ckpt_engine_name(enum ckpt_engine e);

/* Bytes a write of size actually puts down (O_DIRECT rounds up to 4 KiB). */
uint64_t ckpt_write_size(const struct ckpt_opts *o, uint64_t size);

/*
 * Check the target can hold jobs regions of region bytes (raw target) and
 * grow a regular file that is too small. 0, or -1 with err.
 */
int ckpt_prepare(const struct ckpt_opts *o, unsigned int jobs,
		 uint64_t region, char *err, size_t errlen);

/*
 * Open job's writer: raw targets write at job * region; dir targets use
 * their own file. 0, or -1 with err.
 */
int ckpt_open(struct ckpt_writer **w, const struct ckpt_opts *o,
	      unsigned int job, uint64_t region, char *err, size_t errlen);
/* Write one checkpoint of bytes (from ckpt_write_size) durably. */
int ckpt_write(struct ckpt_writer *w, uint64_t bytes, uint64_t cycle,
	       char *err, size_t errlen);
void ckpt_close(struct ckpt_writer *w);

#endif /* FLEET_CKPT_H */
