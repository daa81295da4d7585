// SPDX-License-Identifier: GPL-2.0
/* Interruption of a tool that runs jobs (see interrupt.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"

static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_SIGNALS	(int)(sizeof(signals) / sizeof(signals[0]))

static volatile sig_atomic_t received;
static sigset_t waitmask;

static void note(int sig)
{
	if (!received)
		received = sig;
}

int fnblk_interrupt_init(void)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = note;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (int i = 0; i < NR_SIGNALS; i++) {
		if (sigaction(signals[i], &sa, NULL))
			return -1;
		sigaddset(&block, signals[i]);
	}
	if (sigprocmask(SIG_BLOCK, &block, &waitmask))
		return -1;
	for (int i = 0; i < NR_SIGNALS; i++)
		sigdelset(&waitmask, signals[i]);
	return 0;
}

int fnblk_interrupted(void)
{
	return received;
}

const sigset_t *fnblk_interrupt_waitmask(void)
{
	return &waitmask;
}

void fnblk_interrupt_child(void)
{
	sigset_t none;

	for (int i = 0; i < NR_SIGNALS; i++)
		signal(signals[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void fnblk_interrupt_reraise(void)
{
	sigset_t one;
	int sig = received;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
}

int fnblk_wait_bytes(int fd, unsigned int n)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned int got = 0;
	char buf[256];

	while (got < n) {
		ssize_t r;

		if (ppoll(&p, 1, NULL, &waitmask) < 0 && errno != EINTR)
			return -1;
		if (received)
			return -1;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (unsigned int)r;
	}
	return 0;
}
