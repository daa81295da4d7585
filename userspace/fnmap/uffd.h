/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Getting a userfaultfd however this kernel and user allow it, and the
 * ioctls the runtime issues on it.
 */
#ifndef FNMAP_UFFD_H
#define FNMAP_UFFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uffd {
	int fd;
	uint64_t supported;	/* features the kernel offers */
	uint64_t features;	/* features enabled on fd */
	const char *source;	/* "syscall", "/dev/userfaultfd", "user-mode-only" */
	bool wp;		/* write protection of anonymous memory */
	bool poison;		/* UFFDIO_POISON */
	bool minor_shmem;	/* minor faults on shmem, UFFDIO_CONTINUE */
};

/*
 * Open a userfaultfd (non-blocking, close-on-exec) with the features the
 * runtime needs: the system call, then /dev/userfaultfd (where the
 * syscall is restricted to privileged users), then the system call for
 * user-mode faults only. -1 with errno and a sentence in err.
 */
int uffd_open(struct uffd *u, char *err, size_t errlen);
void uffd_close(struct uffd *u);

/* Register [addr, addr + len) for missing faults and, if wp, write faults
 * on protected pages; if minor (shmem), faults on pages the page cache
 * holds but the range does not map. */
int uffd_register(const struct uffd *u, void *addr, size_t len, bool wp,
		  bool minor);
int uffd_unregister(const struct uffd *u, void *addr, size_t len);

/*
 * Map len bytes from src at dst (both page-aligned), write-protected if
 * wp. Pages already present are left alone, unmapped ones skipped. The
 * threads waiting there are not woken: the caller publishes the block's
 * new state first, then calls uffd_wake(), so that a thread which faults
 * again at once finds the state that goes with the pages. 0, or -1 with
 * errno.
 */
int uffd_copy(const struct uffd *u, void *dst, const void *src, size_t len,
	      bool wp);
/* Write-protect (protect) or unprotect [addr, addr + len); unprotecting
 * wakes writers waiting there. */
int uffd_protect(const struct uffd *u, void *addr, size_t len, bool protect);
int uffd_wake(const struct uffd *u, void *addr, size_t len);
/* Map at [addr, addr + len) (a minor-registered shmem range) the pages its
 * file already holds, not writable (the ranges are read-only). Pages
 * mapped already or unmapped are skipped; no wake, as for uffd_copy(). */
int uffd_continue(const struct uffd *u, void *addr, size_t len);
/* Mark [addr, addr + len) poisoned: an access gets SIGBUS (6.6+). No
 * wake, as for uffd_copy(). */
int uffd_poison(const struct uffd *u, void *addr, size_t len);

#endif /* FNMAP_UFFD_H */
