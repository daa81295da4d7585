/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of libfnmap's host tests: files whose every 8-byte word is
 * a known function of its offset, a skip when userfaultfd is not usable
 * here, and runtime set-up per case.
 */
#ifndef FNMAP_TEST_H
#define FNMAP_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnmap.h"
#include "tap.h"

/* The word at byte offset off (a multiple of 8) of a file made with seed. */
static inline uint64_t word_at(uint64_t off, uint64_t seed)
{
	uint64_t x = (off / 8 + 1) * 0x9E3779B97F4A7C15ULL ^ seed;

	x ^= x >> 29;
	return x * 0xBF58476D1CE4E5B9ULL;
}

/* Create path with size bytes of the pattern; exits on failure. */
static inline void make_file(const char *path, uint64_t size, uint64_t seed)
{
	static uint64_t buf[8192];
	uint64_t off = 0;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	while (off < size) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);
		size_t i;

		for (i = 0; i < (n + 7) / 8; i++)
			buf[i] = word_at(off + i * 8, seed);
		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n) {
			perror("pwrite");
			exit(1);
		}
		off += n;
	}
	close(fd);
}

/* Byte off of a pattern file (for unaligned ends). */
static inline uint8_t byte_at(uint64_t off, uint64_t seed)
{
	uint64_t w = word_at(off & ~7ULL, seed);

	return (uint8_t)(w >> (8 * (off & 7)));
}

/* A scratch directory for this test's files: FNMAP_TEST_DIR, else
 * /dev/shm (tmpfs takes O_DIRECT since 6.6; before, the runtime falls
 * back to buffered I/O and says so in its statistics). */
static inline const char *test_dir(void)
{
	static char dir[256];

	if (!dir[0]) {
		const char *t = getenv("FNMAP_TEST_DIR");

		snprintf(dir, sizeof(dir), "%s/fnmap-test.%d",
			 t && *t ? t : "/dev/shm", (int)getpid());
		mkdir(dir, 0755);
	}
	return dir;
}

static inline const char *test_path(const char *name)
{
	static char path[8][320];
	static int n;
	char *p = path[n++ % 8];

	snprintf(p, 320, "%s/%s", test_dir(), name);
	return p;
}

static inline void test_cleanup(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_dir());
	if (system(cmd))
		diag("could not remove %s", test_dir());
}

/* Start the runtime with cfg, or skip the whole test if userfaultfd is
 * not available to this user (exits 0 with a TAP skip). */
static inline void runtime_or_skip(const struct fnmap_config *cfg)
{
	/* Line by line: a test killed by a timeout still shows how far it
	 * got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!fnmap_init(cfg))
		return;
	if (errno == EPERM || errno == ENOSYS || errno == EACCES ||
	    errno == EOPNOTSUPP) {
		printf("1..0 # SKIP userfaultfd unusable here: %s\n",
		       fnmap_errmsg());
		test_cleanup();
		exit(0);
	}
	printf("Bail out! fnmap_init: %s\n", fnmap_errmsg());
	exit(1);
}

/* A runtime with channels/depth/budget/flags for one case. FNMAP_FLAGS
 * in the environment adds its flags to every case's (the whole suite
 * with FNMAP_FLAGS=direct, say). */
static inline void runtime_with(uint64_t budget, unsigned int channels,
				unsigned int depth, unsigned int flags)
{
	struct fnmap_config cfg;

	if (fnmap_config_init(&cfg)) {
		printf("Bail out! %s\n", fnmap_errmsg());
		exit(1);
	}
	cfg.budget = budget;
	cfg.channels = channels;
	cfg.queue_depth = depth;
	cfg.flags |= flags;
	if (fnmap_shutdown()) {
		printf("Bail out! fnmap_shutdown: %s\n", fnmap_errmsg());
		exit(1);
	}
	runtime_or_skip(&cfg);
}

/* Voluntary context switches of this process's threads called comm (the
 * runtime names its own: fnmap-fault, fnmap-io, fnmap-evict; a final '*'
 * matches a prefix: "iou-wrk-*", io_uring's workers): how often they went
 * to sleep, i.e. were woken. */
static inline uint64_t thread_switches(const char *comm)
{
	size_t len = strlen(comm);
	bool prefix = len && comm[len - 1] == '*';
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	uint64_t n = 0;

	while (d && (e = readdir(d))) {
		char path[300], line[128];
		unsigned long long v;
		FILE *f;
		bool ours = false;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status",
			 e->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "Name:\t", 6))
				ours = prefix ? !strncmp(line + 6, comm, len - 1) :
				       !strncmp(line + 6, comm, len) &&
				       line[6 + len] == '\n';
			else if (ours && sscanf(line, "voluntary_ctxt_switches:"
						" %llu", &v) == 1)
				n += v;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* order[0..n) = 0..n-1 in an order made by seed (xorshift, Fisher-Yates). */
static inline void shuffled(uint32_t *order, uint64_t n, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (i = n - 1; i > 0 && n; i--) {
		uint64_t j;
		uint32_t t;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		j = seed % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}

#endif /* FNMAP_TEST_H */
