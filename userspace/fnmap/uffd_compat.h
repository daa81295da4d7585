/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userfaultfd and pagemap ABI that Debian 12's linux-libc-dev (6.1) lacks
 * but newer kernels offer. Values are the kernel's uapi; the runtime only
 * uses what the running kernel reports in UFFDIO_API.
 */
#ifndef FNMAP_UFFD_COMPAT_H
#define FNMAP_UFFD_COMPAT_H

#include <linux/types.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>

#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED	(1 << 13)	/* 6.4 */
#endif
#ifndef UFFD_FEATURE_POISON
#define UFFD_FEATURE_POISON		(1 << 14)	/* 6.6 */
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC		(1 << 15)	/* 6.7 */
#endif
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE		(1 << 16)	/* 6.8 */
#endif

#ifndef _UFFDIO_POISON
#define _UFFDIO_POISON			(0x08)
struct uffdio_poison {
	struct uffdio_range range;
#define UFFDIO_POISON_MODE_DONTWAKE	((__u64)1 << 0)
	__u64 mode;
	__s64 updated;
};
#define UFFDIO_POISON	_IOWR(UFFDIO, _UFFDIO_POISON, struct uffdio_poison)
#endif

#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC		0xAA
#define USERFAULTFD_IOC_NEW	_IO(USERFAULTFD_IOC, 0x00)
#endif

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY	1
#endif

#endif /* FNMAP_UFFD_COMPAT_H */
