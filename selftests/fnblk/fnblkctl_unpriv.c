// SPDX-License-Identifier: GPL-2.0
/*
 * fnblkctl without privilege: device-level reads (dev show, stats, top)
 * work as an unprivileged user; what tells about other users' processes
 * (users, the event stream behind monitor) and every change are refused
 * by the kernel (CAP_NET_ADMIN), and fnblkctl exits 1 saying why. Runs
 * fnblkctl from PATH as uid/gid 65534. Prints TAP.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KSFT_SKIP	4
#define NOBODY		65534

static int nr_tests, nr_failed;

struct result {
	int status;		/* exit status, or -1 */
	char out[4096];
	char err[4096];
};

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	nr_tests++;
	nr_failed += !cond;
	printf("%sok %d - ", cond ? "" : "not ", nr_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void slurp(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t got;

	while (n + 1 < len && (got = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)got;
	buf[n] = '\0';
	/* One-line messages read better in TAP without their newline. */
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	/* Drain the rest so the child never blocks on a full pipe. */
	while (read(fd, (char[256]){ 0 }, 256) > 0)
		;
}

/* Run fnblkctl ARGS, as nobody if unpriv; collect status and output. */
static void run(struct result *r, int unpriv, char *const argv[])
{
	int out[2], err[2], st;
	pid_t pid;

	r->status = -1;
	r->out[0] = r->err[0] = '\0';
	if (pipe(out) || pipe(err))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		if (unpriv && (setgroups(0, NULL) ||
			       setresgid(NOBODY, NOBODY, NOBODY) ||
			       setresuid(NOBODY, NOBODY, NOBODY))) {
			perror("dropping privilege");
			_exit(127);
		}
		execvp("fnblkctl", argv);
		perror("fnblkctl");
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	/* stderr stays small; read stdout first, then stderr. */
	slurp(out[0], r->out, sizeof(r->out));
	slurp(err[0], r->err, sizeof(r->err));
	close(out[0]);
	close(err[0]);
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
}

int main(void)
{
	struct result r;
	char dev[64];

	printf("TAP version 13\n");
	run(&r, 0, (char *[]){ "fnblkctl", "-h", NULL });
	if (r.status != 0 || getuid() != 0) {
		printf("1..0 # SKIP needs root and fnblkctl in PATH\n");
		return KSFT_SKIP;
	}
	if (access("/sys/module/fnblk", F_OK) &&
	    system("modprobe fnblk 2>/dev/null")) {
		printf("1..0 # SKIP cannot load fnblk\n");
		return KSFT_SKIP;
	}
	run(&r, 0, (char *[]){ "fnblkctl", "dev", "add", "size", "4MiB", NULL });
	ok(r.status == 0 && !strncmp(r.out, "fnblk", 5),
	   "root adds a device (%s)", r.status ? r.err : r.out);
	if (r.status)
		goto out;
	snprintf(dev, sizeof(dev), "%.*s", (int)sizeof(dev) - 1, r.out);

	run(&r, 1, (char *[]){ "fnblkctl", "dev", "show", dev, NULL });
	ok(r.status == 0 && strstr(r.out, "size 4MiB"),
	   "unprivileged dev show works");
	run(&r, 1, (char *[]){ "fnblkctl", "-j", "stats", dev, NULL });
	ok(r.status == 0 && strstr(r.out, "\"elapsed_ns\""),
	   "unprivileged stats works");
	run(&r, 1, (char *[]){ "fnblkctl", "top", dev, "--once", NULL });
	ok(r.status == 0 && strstr(r.out, "n now 0") &&
	   strstr(r.out, "per-user rows need CAP_NET_ADMIN"),
	   "unprivileged top shows the device only: %s",
	   r.status ? r.err : "");
	run(&r, 0, (char *[]){ "fnblkctl", "users", dev, NULL });
	ok(r.status == 0 && !strncmp(r.out, "KEY", 3), "root lists users");
	run(&r, 1, (char *[]){ "fnblkctl", "users", dev, NULL });
	ok(r.status == 1 && strstr(r.err, "Operation not permitted") &&
	   !strstr(r.out, "KEY"),
	   "unprivileged users is refused: %s", r.err);
	run(&r, 1, (char *[]){ "fnblkctl", "monitor", dev, "--duration",
			       "100ms", NULL });
	ok(r.status == 1 && strstr(r.err, "needs CAP_NET_ADMIN") &&
	   !strstr(r.out, " start n "),
	   "unprivileged monitor is refused: %s", r.err);
	run(&r, 0, (char *[]){ "fnblkctl", "monitor", dev, "--duration",
			       "100ms", NULL });
	ok(r.status == 0 && strstr(r.out, " start n 0 seq "),
	   "root's monitor subscribes and starts");

	run(&r, 1, (char *[]){ "fnblkctl", "dev", "set", dev, "bw", "1MiB/s",
			       NULL });
	ok(r.status == 1 && strstr(r.err, "Operation not permitted"),
	   "unprivileged dev set is refused: %s", r.err);
	run(&r, 1, (char *[]){ "fnblkctl", "dev", "add", "size", "4MiB", NULL });
	ok(r.status == 1 && strstr(r.err, "Operation not permitted"),
	   "unprivileged dev add is refused");
	run(&r, 1, (char *[]){ "fnblkctl", "stats", "reset", dev, NULL });
	ok(r.status == 1 && strstr(r.err, "Operation not permitted"),
	   "unprivileged stats reset is refused");
	run(&r, 1, (char *[]){ "fnblkctl", "weight", dev, "1", "2", NULL });
	ok(r.status == 1 && strstr(r.err, "Operation not permitted"),
	   "unprivileged weight is refused");
	run(&r, 1, (char *[]){ "fnblkctl", "dev", "del", dev, NULL });
	ok(r.status == 1 && strstr(r.err, "Operation not permitted"),
	   "unprivileged dev del is refused");

	run(&r, 0, (char *[]){ "fnblkctl", "dev", "del", dev, NULL });
	ok(r.status == 0, "root deletes the device");
out:
	printf("1..%d\n", nr_tests);
	return nr_failed ? 1 : 0;
}
