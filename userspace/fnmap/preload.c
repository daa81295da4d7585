// SPDX-License-Identifier: GPL-2.0
/*
 * fnmap-preload.so: fnmap for programs that only know mmap().
 *
 *   LD_PRELOAD=fnmap-preload.so FNMAP_PATHS=/mnt/data program ...
 *
 * mmap() of a regular file or block device whose path lies under one of
 * the FNMAP_PATHS (colon-separated directories or files) becomes an
 * fnmap mapping: MAP_SHARED as fnmap_open_fd(), MAP_PRIVATE with
 * FNMAP_PRIVATE (writes stay in memory). msync(), madvise(), munmap()
 * and mprotect() on such a region are translated; mremap() is refused.
 * _exit() and _Exit() write back first, as exit() does: with the
 * kernel's mmap a process's writes outlive it, and programs such as fio
 * end their forked workers with _exit().
 * Everything else goes to the C library. What differs from the kernel's
 * mmap is in fnmap(3), LD_PRELOAD SHIM.
 *
 * Settings: FNMAP_PATHS (nothing is redirected without it),
 * FNMAP_MIN_SIZE (smaller mappings stay kernel mappings; default 64 KiB),
 * FNMAP_REQUIRE=1 (fail mmap() where fnmap cannot serve it, instead of
 * falling back to the kernel's mmap with one warning), and the runtime's
 * FNMAP_* variables.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnmap_internal.h"

static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static int (*real_msync)(void *, size_t, int);
static int (*real_madvise)(void *, size_t, int);
static int (*real_mprotect)(void *, size_t, int);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
typedef void (*exit_fn)(int) __attribute__((noreturn));
static exit_fn real__exit, real__Exit;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char **prefixes;
static size_t nprefixes;
static uint64_t min_size = 64 << 10;
static bool require;

static void warn_once(const char *what)
{
	static _Atomic bool warned;

	if (!atomic_exchange(&warned, true))
		fprintf(stderr, "fnmap-preload: %s: %s; using the kernel's "
			"mmap\n", what, fnmap_errmsg());
}

static void setup(void)
{
	const char *paths = getenv("FNMAP_PATHS"), *s;
	char *copy, *tok, *save;

	real_mmap = dlsym(RTLD_NEXT, "mmap");
	real_munmap = dlsym(RTLD_NEXT, "munmap");
	real_msync = dlsym(RTLD_NEXT, "msync");
	real_madvise = dlsym(RTLD_NEXT, "madvise");
	real_mprotect = dlsym(RTLD_NEXT, "mprotect");
	real_mremap = dlsym(RTLD_NEXT, "mremap");
	real__exit = (exit_fn)dlsym(RTLD_NEXT, "_exit");
	real__Exit = (exit_fn)dlsym(RTLD_NEXT, "_Exit");
	s = getenv("FNMAP_REQUIRE");
	require = s && *s && strcmp(s, "0");
	s = getenv("FNMAP_MIN_SIZE");
	if (s && *s && rt_parse_size_env("FNMAP_MIN_SIZE", s, &min_size))
		fprintf(stderr, "fnmap-preload: %s\n", fnmap_errmsg());
	if (!paths || !*paths)
		return;
	copy = strdup(paths);
	prefixes = calloc(strlen(paths) / 2 + 2, sizeof(*prefixes));
	if (!copy || !prefixes)
		return;
	for (tok = strtok_r(copy, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		char real[PATH_MAX];

		/* Compare resolved paths: the program may use other names. */
		if (realpath(tok, real))
			prefixes[nprefixes++] = strdup(real);
		else
			fprintf(stderr, "fnmap-preload: FNMAP_PATHS: %s: %s\n",
				tok, strerror(errno));
	}
	free(copy);
}

static void init(void)
{
	pthread_once(&once, setup);
}

/* Is fd's file under one of the prefixes (at a path component)? */
static bool wanted(int fd)
{
	char link[64], path[PATH_MAX];
	struct stat st;
	ssize_t n;
	size_t i;

	if (!nprefixes || fstat(fd, &st) ||
	    (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)))
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return false;
	path[n] = 0;
	for (i = 0; i < nprefixes; i++) {
		size_t len = strlen(prefixes[i]);

		if (!strncmp(path, prefixes[i], len) &&
		    (path[len] == '/' || !path[len] ||
		     !strcmp(prefixes[i], "/")))
			return true;
	}
	return false;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	int type = flags & MAP_TYPE;
	struct fnmap_options o = { 0 };
	struct fnmap *m;

	init();
	if ((flags & MAP_ANONYMOUS) || fd < 0 || len < min_size ||
	    (type != MAP_SHARED && type != MAP_SHARED_VALIDATE &&
	     type != MAP_PRIVATE) || (flags & MAP_FIXED_NOREPLACE) ||
	    !wanted(fd))
		return real_mmap(addr, len, prot, flags, fd, off);
	if (type == MAP_PRIVATE)
		o.flags |= FNMAP_PRIVATE;
	m = fnmap_open_fd(fd, off, len, prot, addr, !!(flags & MAP_FIXED), &o);
	if (m)
		return fnmap_addr(m);
	/* Refusals a kernel mmap would make too are the program's. */
	if (errno == EACCES || errno == EINVAL || errno == EBADF ||
	    errno == ENODEV || require)
		return MAP_FAILED;
	warn_once("fnmap cannot map this file");
	return real_mmap(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

/* The fnmap mapping overlapping [addr, addr + len), and the overlap. */
struct hit {
	struct fnmap *m;
	char *start;
	size_t len;
};

static bool overlap(void *addr, size_t len, struct hit *h)
{
	char *a = addr, *e;

	init();
	h->m = runtime_peek() ? map_overlapping(addr, len) : NULL;
	if (!h->m)
		return false;
	h->start = a > h->m->base ? a : h->m->base;
	e = a + len < h->m->base + h->m->length ? a + len :
	    h->m->base + h->m->length;
	h->len = (size_t)(e - h->start);
	return true;
}

int munmap(void *addr, size_t len)
{
	char *a = addr, *end = a + len;
	struct hit h;
	int r = 0;

	init();
	if ((uintptr_t)addr % FNMAP_PAGE_SIZE || !len) {
		errno = EINVAL;
		return -1;
	}
	/* fnmap regions in the range leave through fnmap, the gaps between
	 * them through the kernel. */
	while (a < end && overlap(a, (size_t)(end - a), &h)) {
		if (h.start > a && real_munmap(a, (size_t)(h.start - a)))
			r = -1;
		if (map_unmap_range(h.m, h.start, h.len))
			r = -1;
		a = h.start + h.len;
	}
	if (a < end && real_munmap(a, (size_t)(end - a)))
		r = -1;
	return r;
}

int msync(void *addr, size_t len, int flags)
{
	struct hit h;

	if (!overlap(addr, len, &h))
		return real_msync(addr, len, flags);
	if ((uintptr_t)addr % FNMAP_PAGE_SIZE ||
	    (flags & ~(MS_ASYNC | MS_SYNC | MS_INVALIDATE)) ||
	    ((flags & MS_ASYNC) && (flags & MS_SYNC))) {
		errno = EINVAL;
		return -1;
	}
	return fnmap_sync(h.m, h.start, h.len,
			  ((flags & MS_ASYNC) ? FNMAP_SYNC_ASYNC : 0) |
			  ((flags & MS_INVALIDATE) ? FNMAP_SYNC_INVALIDATE : 0));
}

int madvise(void *addr, size_t len, int advice)
{
	struct hit h;

	if (!overlap(addr, len, &h))
		return real_madvise(addr, len, advice);
	switch (advice) {
	case MADV_NORMAL:
		return fnmap_advise(h.m, h.start, h.len, FNMAP_ADV_NORMAL);
	case MADV_RANDOM:
		return fnmap_advise(h.m, h.start, h.len, FNMAP_ADV_RANDOM);
	case MADV_SEQUENTIAL:
		return fnmap_advise(h.m, h.start, h.len, FNMAP_ADV_SEQUENTIAL);
	case MADV_WILLNEED:
		return fnmap_advise(h.m, h.start, h.len, FNMAP_ADV_WILLNEED);
	case MADV_DONTNEED:
	case MADV_PAGEOUT:
		return fnmap_advise(h.m, h.start, h.len, FNMAP_ADV_DONTNEED);
	case MADV_FREE:
	case MADV_REMOVE:
		/* Freeing or punching the file's storage: not through
		 * fnmap (MADV_FREE is for anonymous memory anyway). */
		errno = EINVAL;
		return -1;
	case MADV_DONTDUMP:
	case MADV_DODUMP:
		return real_madvise(addr, len, advice);
	default:
		/* Huge pages, merging, fork inheritance, cold: the region
		 * stays as fnmap set it up. */
		return 0;
	}
}

/* glibc's posix_madvise() calls the system call itself. */
int posix_madvise(void *addr, size_t len, int advice)
{
	struct hit h;

	if (!overlap(addr, len, &h)) {
		if (advice == POSIX_MADV_DONTNEED)
			return 0;	/* what glibc does */
		return real_madvise(addr, len, advice) ? errno : 0;
	}
	if (advice == POSIX_MADV_DONTNEED)
		return 0;
	return madvise(addr, len, advice) ? errno : 0;
}

int mprotect(void *addr, size_t len, int prot)
{
	struct hit h;

	/* As with the kernel: no writable shared mapping of a file opened
	 * read-only. Write protection set by fnmap survives mprotect(). */
	if (overlap(addr, len, &h) && (prot & PROT_WRITE) && !h.m->wp) {
		errno = EACCES;
		return -1;
	}
	return real_mprotect(addr, len, prot);
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	struct hit h;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	if (overlap(old, old_len ? old_len : 1, &h)) {
		/* The runtime serves the region where it is. */
		errno = EINVAL;
		return MAP_FAILED;
	}
	return real_mremap(old, old_len, new_len, flags, new_addr);
}

/*
 * _exit() skips exit()'s handlers, and with them the write-back a kernel
 * mapping would not need: do it here. (A process killed by a signal, or
 * one calling the exit_group system call directly, still loses what it
 * had not synced: fnmap(3), CRASHES AND EXIT.)
 */
void _exit(int status)
{
	pthread_once(&once, setup);
	rt_sync_at_exit();
	real__exit(status);
}

void _Exit(int status)
{
	pthread_once(&once, setup);
	rt_sync_at_exit();
	real__Exit(status);
}
