// SPDX-License-Identifier: GPL-2.0
/*
 * A spare receives its assignment even when the parent closed its end
 * with the spare's "ready" byte unread. The parent sends an attempt to a
 * spare still preparing (none is ready) and closes its socket at once; if
 * the spare's byte arrived in between, AF_UNIX reports ECONNRESET to the
 * spare's next recv() (a close with unread data), before the assignment
 * queued behind it. The spare took that for the end of the run and exited
 * without running or reporting the attempt (replay_test.sh on the debug
 * kernel: "1 died unreported"). Here the parent's side is played out in
 * that order on a socket pair, deterministically. TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../spare.c"

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, what);
	failed |= !cond;
}

int main(void)
{
	const char sent[24] = "attempt 7 at site A";
	char got[sizeof(sent)] = "";
	ssize_t r;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	/* The spare has prepared and says so; the parent has not read it. */
	ok(send(sv[1], "r", 1, MSG_NOSIGNAL) == 1, "the spare says it is ready");
	/* The parent sends the assignment and closes its end at once. */
	ok(send(sv[0], sent, sizeof(sent), MSG_NOSIGNAL) == sizeof(sent),
	   "the parent sends the assignment");
	close(sv[0]);
	r = spare_recv_assignment(sv[1], got, sizeof(got));
	ok(r == (ssize_t)sizeof(sent) && !memcmp(got, sent, sizeof(sent)),
	   "the spare receives the whole assignment");
	if (r < 0)
		printf("# recv: %s\n", strerror(errno));
	/* And then the end: the parent is gone, nothing more comes. */
	ok(spare_recv_assignment(sv[1], got, sizeof(got)) == 0,
	   "after it, the end of the socket");
	close(sv[1]);
	printf("1..%d\n", n);
	return failed;
}
