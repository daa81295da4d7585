// SPDX-License-Identifier: GPL-2.0
/* Processes forked ahead of need (see spare.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* SOCK_CLOEXEC */
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "interrupt.h"
#include "spare.h"

int spare_pool_init(struct spare_pool *p, unsigned int cap, size_t msg_size,
		    const struct spare_ops *ops, void *ctx)
{
	*p = (struct spare_pool) {
		.ops = ops, .ctx = ctx, .msg_size = msg_size,
		.cap = cap ? cap : 1,
	};
	p->s = calloc(p->cap, sizeof(*p->s));
	return p->s ? 0 : -ENOMEM;
}

/*
 * The child's wait for its assignment: its size in bytes, 0 at the end of
 * the run (the parent closed the socket), or -1. The parent closes its
 * end as soon as it has sent the assignment; if this spare's "ready" byte
 * was still unread there, AF_UNIX reports ECONNRESET once to the next
 * recv(), ahead of the assignment queued behind it (the error is cleared
 * as it is reported): read again. Taken for the end, the attempt was
 * neither run nor reported.
 */
static ssize_t spare_recv_assignment(int sock, void *msg, size_t size)
{
	unsigned int resets = 0;
	ssize_t n;

	do {
		n = recv(sock, msg, size, 0);
	} while (n < 0 && (errno == EINTR ||
			   (errno == ECONNRESET && ++resets <= 2)));
	return n;
}

/* The child: prepare, wait for one assignment, run it. Never returns. */
static void spare_child(struct spare_pool *p, int sock)
{
	char *msg = malloc(p->msg_size);
	void *prepared;
	ssize_t n;
	unsigned int i;

	fnblk_interrupt_child();
	/* The other spares' sockets: theirs to end, not ours to hold open. */
	for (i = 0; i < p->nr; i++)
		close(p->s[i].sock);
	prepared = p->ops->prepare(p->ctx);
	/* Ready: the parent prefers us to spares still preparing. */
	send(sock, "r", 1, MSG_NOSIGNAL);
	n = msg ? spare_recv_assignment(sock, msg, p->msg_size) : -1;
	/* The end of the run (or of the parent): nothing to do. */
	if (n != (ssize_t)p->msg_size)
		_exit(0);
	close(sock);
	_exit(p->ops->run(p->ctx, prepared, msg));
}

static int spare_spawn(struct spare_pool *p)
{
	int sv[2];
	pid_t pid;

	/* Datagrams keep the assignment whole; send() can refuse SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (!pid) {
		close(sv[0]);
		spare_child(p, sv[1]);
	}
	close(sv[1]);
	p->s[p->nr++] = (struct spare) { .pid = pid, .sock = sv[0] };
	return 0;
}

int spare_add(struct spare_pool *p)
{
	int ret;

	if (p->nr >= p->cap)
		return 0;
	ret = spare_spawn(p);
	return ret ? ret : 1;
}

int spare_fill(struct spare_pool *p)
{
	int ret;

	while ((ret = spare_add(p)) > 0)
		;
	return ret;
}

/* Has spare s said it is ready? With wait, until it does (or dies). */
static void check_ready(struct spare *s, bool wait)
{
	char c;
	ssize_t n;

	if (s->ready)
		return;
	do {
		n = recv(s->sock, &c, 1, wait ? 0 : MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	/* A spare that died counts as ready: send() will tell. */
	s->ready = n != -1 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

int spare_wait_ready(struct spare_pool *p)
{
	unsigned int i;

	for (i = 0; i < p->nr; i++)
		check_ready(&p->s[i], true);
	return 0;
}

pid_t spare_start(struct spare_pool *p, const void *msg)
{
	for (;;) {
		bool fresh = !p->nr;
		unsigned int i;
		struct spare s;
		ssize_t n;
		int ret;

		if (fresh && (ret = spare_spawn(p)))
			return ret;
		/* The first that is ready; else the oldest, the likeliest soon. */
		for (i = 0; i < p->nr; i++) {
			check_ready(&p->s[i], false);
			if (p->s[i].ready)
				break;
		}
		if (i == p->nr) {
			i = 0;
			p->waited++;
		}
		s = p->s[i];
		memmove(p->s + i, p->s + i + 1, (--p->nr - i) * sizeof(*p->s));
		do {
			n = send(s.sock, msg, p->msg_size, MSG_NOSIGNAL);
		} while (n < 0 && errno == EINTR);
		close(s.sock);
		if (n == (ssize_t)p->msg_size)
			return s.pid;
		/* It died waiting (its exit is reaped as a stranger's): next. */
		if (fresh)
			return -ECHILD;
	}
}

void spare_pool_close(struct spare_pool *p)
{
	unsigned int i;

	for (i = 0; i < p->nr; i++)
		close(p->s[i].sock);
	p->nr = 0;
	free(p->s);
	p->s = NULL;
}
