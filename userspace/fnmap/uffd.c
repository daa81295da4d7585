// SPDX-License-Identifier: GPL-2.0
/*
 * userfaultfd access. The features the runtime cannot do without are
 * THREAD_ID (which thread faulted: the cache keeps a thread's blocks) and
 * PAGEFAULT_FLAG_WP (dirty tracking); both exist since 4.14/5.7, so 6.1
 * and 6.12 have them. POISON (6.6) is used when present.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "fnmap_internal.h"
#include "uffd.h"
#include "uffd_compat.h"

#define NEEDED_FEATURES	(UFFD_FEATURE_THREAD_ID | \
			 UFFD_FEATURE_PAGEFAULT_FLAG_WP)
#define WANTED_FEATURES	(NEEDED_FEATURES | UFFD_FEATURE_POISON | \
			 UFFD_FEATURE_MINOR_SHMEM)

static int uffd_syscall(int flags)
{
#ifdef SYS_userfaultfd
	return (int)syscall(SYS_userfaultfd, flags);
#else
	(void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

static int uffd_from_dev(int flags)
{
	int dev, fd, saved;

	dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	fd = ioctl(dev, USERFAULTFD_IOC_NEW, flags);
	saved = errno;
	close(dev);
	errno = saved;
	return fd;
}

/* UFFDIO_API may be issued once per descriptor: probe on a spare one. */
static int uffd_api(int fd, uint64_t features, uint64_t *got)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };

	if (ioctl(fd, UFFDIO_API, &api))
		return -1;
	*got = api.features;
	return 0;
}

static const char *sysctl_hint(void)
{
	uint64_t v;

	if (!fnblk_cgroup_read_u64("/proc/sys/vm", "unprivileged_userfaultfd",
				   &v) && !v)
		return " (vm.unprivileged_userfaultfd is 0 and this user may "
		       "not open /dev/userfaultfd)";
	return "";
}

int uffd_open(struct uffd *u, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		int dev;
		int flags;
	} ways[] = {
		{ "syscall", 0, 0 },
		{ "/dev/userfaultfd", 1, 0 },
		{ "user-mode-only", 0, UFFD_USER_MODE_ONLY },
	};
	int first_errno = 0;
	unsigned int i;

	memset(u, 0, sizeof(*u));
	u->fd = -1;
	for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		int flags = ways[i].flags | O_CLOEXEC | O_NONBLOCK;
		int probe, fd;
		uint64_t sup;

		probe = ways[i].dev ? uffd_from_dev(flags) : uffd_syscall(flags);
		if (probe < 0) {
			if (!first_errno)
				first_errno = errno;
			continue;
		}
		if (uffd_api(probe, 0, &sup)) {
			int e = errno;

			close(probe);
			return rt_fail(err, errlen, e,
					  "userfaultfd: UFFDIO_API refused: %s",
					  strerror(e));
		}
		close(probe);
		if ((sup & NEEDED_FEATURES) != NEEDED_FEATURES)
			return rt_fail(err, errlen, EOPNOTSUPP,
					  "userfaultfd lacks thread ids or write "
					  "protection (features %#llx): kernel "
					  "too old",
					  (unsigned long long)sup);
		fd = ways[i].dev ? uffd_from_dev(flags) : uffd_syscall(flags);
		if (fd < 0)
			return rt_fail(err, errlen, errno,
					  "userfaultfd: %s", strerror(errno));
		if (uffd_api(fd, sup & WANTED_FEATURES, &u->features)) {
			int e = errno;

			close(fd);
			return rt_fail(err, errlen, e,
					  "userfaultfd: enabling features: %s",
					  strerror(e));
		}
		u->fd = fd;
		u->supported = sup;
		u->source = ways[i].name;
		u->wp = true;
		u->poison = sup & UFFD_FEATURE_POISON;
		u->minor_shmem = sup & UFFD_FEATURE_MINOR_SHMEM;
		return 0;
	}
	if (first_errno == ENOSYS)
		return rt_fail(err, errlen, ENOSYS,
				  "userfaultfd is not available: this kernel "
				  "was built without CONFIG_USERFAULTFD");
	return rt_fail(err, errlen, first_errno ? first_errno : EPERM,
			  "userfaultfd is not available to this process: "
			  "%s%s", strerror(first_errno ? first_errno : EPERM),
			  sysctl_hint());
}

void uffd_close(struct uffd *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

int uffd_register(const struct uffd *u, void *addr, size_t len, bool wp,
		  bool minor)
{
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING |
			(wp ? UFFDIO_REGISTER_MODE_WP : 0) |
			(minor ? UFFDIO_REGISTER_MODE_MINOR : 0),
	};

	if (ioctl(u->fd, UFFDIO_REGISTER, &reg))
		return -1;
	if (!(reg.ioctls & (1ULL << _UFFDIO_COPY)) ||
	    (wp && !(reg.ioctls & (1ULL << _UFFDIO_WRITEPROTECT))) ||
	    (minor && !(reg.ioctls & (1ULL << _UFFDIO_CONTINUE)))) {
		uffd_unregister(u, addr, len);
		errno = EOPNOTSUPP;
		return -1;
	}
	return 0;
}

int uffd_unregister(const struct uffd *u, void *addr, size_t len)
{
	struct uffdio_range r = { .start = (uintptr_t)addr, .len = len };

	return ioctl(u->fd, UFFDIO_UNREGISTER, &r);
}

/* One UFFDIO_COPY; how many bytes went in (partial copies happen when a
 * page exists or the range is partly unmapped). */
static long copy_once(const struct uffd *u, char *dst, const char *src,
		      size_t len, bool wp)
{
	struct uffdio_copy c = {
		.dst = (uintptr_t)dst, .src = (uintptr_t)src, .len = len,
		.mode = UFFDIO_COPY_MODE_DONTWAKE |
			(wp ? UFFDIO_COPY_MODE_WP : 0),
	};

	if (!ioctl(u->fd, UFFDIO_COPY, &c))
		return (long)len;
	if (c.copy > 0)
		return c.copy;
	return c.copy ? c.copy : -errno;
}

/* One UFFDIO_CONTINUE, as copy_once(). */
static long continue_once(const struct uffd *u, char *addr, size_t len)
{
	struct uffdio_continue c = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = UFFDIO_CONTINUE_MODE_DONTWAKE,
	};

	if (!ioctl(u->fd, UFFDIO_CONTINUE, &c))
		return (long)len;
	if (c.mapped > 0)
		return c.mapped;
	return c.mapped ? c.mapped : -errno;
}

/* Map [dst, dst + len): copied from src, or (src NULL) the pages the
 * shmem file behind dst holds. */
static int fill(const struct uffd *u, char *dst, const char *src,
		size_t len, bool wp)
{
	size_t page = FNMAP_PAGE_SIZE, done = 0;
	int tries = 0;

	while (done < len) {
		long n = src ? copy_once(u, dst + done, src + done, len - done,
					 wp) :
			 continue_once(u, dst + done, len - done);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		/* mmap_changing: an mremap or fork is under way, retry. */
		if (n == -EAGAIN && ++tries < 1000) {
			sched_yield();
			continue;
		}
		/* A page that is there already or is no longer mapped
		 * (partly unmapped region): skip it. */
		if (n == -EEXIST || n == -ENOENT) {
			done += page;
			continue;
		}
		errno = (int)-n;
		return -1;
	}
	return 0;
}

int uffd_copy(const struct uffd *u, void *dst, const void *src, size_t len,
	      bool wp)
{
	return fill(u, dst, src, len, wp);
}

int uffd_continue(const struct uffd *u, void *addr, size_t len)
{
	return fill(u, addr, NULL, len, false);
}

int uffd_protect(const struct uffd *u, void *addr, size_t len, bool protect)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = protect ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};
	int tries = 0;

	while (ioctl(u->fd, UFFDIO_WRITEPROTECT, &wp)) {
		if (errno != EAGAIN || ++tries >= 1000)
			return -1;
		sched_yield();
	}
	return 0;
}

int uffd_wake(const struct uffd *u, void *addr, size_t len)
{
	struct uffdio_range r = { .start = (uintptr_t)addr, .len = len };

	return ioctl(u->fd, UFFDIO_WAKE, &r);
}

int uffd_poison(const struct uffd *u, void *addr, size_t len)
{
	struct uffdio_poison p = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = UFFDIO_POISON_MODE_DONTWAKE,
	};

	if (!u->poison) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return ioctl(u->fd, UFFDIO_POISON, &p);
}
