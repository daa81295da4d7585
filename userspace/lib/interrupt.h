/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interruption of a tool that runs jobs: SIGINT, SIGTERM and SIGHUP are
 * blocked and only delivered while the parent waits in ppoll() with
 * fnblk_interrupt_waitmask(), so it can never miss one between checking
 * and waiting. The parent then stops its jobs, removes its cgroups and
 * calls fnblk_interrupt_reraise() to die of the signal as the shell
 * expects. Forked jobs call fnblk_interrupt_child() first.
 */
#ifndef FNBLK_INTERRUPT_H
#define FNBLK_INTERRUPT_H

#include <signal.h>

/* Install the handler and block the signals. 0, or -1 with errno. */
int fnblk_interrupt_init(void);
/* The signal that interrupted us, or 0. */
int fnblk_interrupted(void);
/* The mask to wait with (the current mask without those signals). */
const sigset_t *fnblk_interrupt_waitmask(void);
/* In a child: default dispositions and nothing blocked. */
void fnblk_interrupt_child(void);
/* Die of the signal received (if any); returns only if there was none. */
void fnblk_interrupt_reraise(void);
/*
 * Read and discard n bytes from fd (one per job saying it is ready),
 * waiting interruptibly. 0, or -1 if the pipe ended first (a job died) or
 * we were interrupted.
 */
int fnblk_wait_bytes(int fd, unsigned int n);

#endif /* FNBLK_INTERRUPT_H */
