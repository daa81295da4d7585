// SPDX-License-Identifier: GPL-2.0
/*
 * The LD_PRELOAD shim's documented limits (fnmap(3), LD_PRELOAD SHIM),
 * checked from an ordinary mmap() program run under the shim; TAP.
 *
 *   helper_limits DIR        the checks, on files it creates in DIR
 *   helper_limits -w FILE    write 'W' over the first page and return from
 *                            main without msync or munmap
 *   helper_limits -W FILE    the same, then leave with _exit(), as fio's
 *                            forked workers do
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIZE	(4 << 20)

static int n, failed;

static void ok(int pass, const char *what)
{
	printf("%sok %d - %s\n", pass ? "" : "not ", ++n, what);
	failed += !pass;
}

static unsigned char pat(size_t i)
{
	return (unsigned char)(i * 7 + i / 4096);
}

static char *make(const char *dir, const char *name)
{
	static char path[8][4096];
	static int k;
	char *p = path[k++ % 8];
	unsigned char *buf = malloc(SIZE);
	size_t i;
	int fd;

	snprintf(p, 4096, "%s/%s", dir, name);
	for (i = 0; i < SIZE; i++)
		buf[i] = pat(i);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, SIZE) != SIZE)
		exit(1);
	close(fd);
	free(buf);
	return p;
}

static char *map(const char *path, int oflags, int prot, int flags, int *fdp)
{
	int fd = open(path, oflags);
	char *p = mmap(NULL, SIZE, prot, flags, fd, 0);

	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static int same(const char *p, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if ((unsigned char)p[i] != pat(i))
			return 0;
	return 1;
}

static int anon(const void *p)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	int a = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    (unsigned long)p >= lo && (unsigned long)p < hi)
			/* Anonymous, or zero-copy's memfd (continue). */
			a = !strchr(line, '/') || strstr(line, "/memfd:fnmap");
	if (f)
		fclose(f);
	return a;
}

static char *sig_map;
static volatile sig_atomic_t sig_runs, sig_bad;

static void on_alarm(int sig)
{
	static size_t at = 12345;

	(void)sig;
	at = (at * 1103515245 + 12345) % SIZE;
	if ((unsigned char)sig_map[at] != pat(at))
		sig_bad++;
	sig_runs++;
}

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

int main(int argc, char **argv)
{
	char *p, *q, *path;
	int fd, status;
	pid_t pid;

	if (argc == 3 && (!strcmp(argv[1], "-w") || !strcmp(argv[1], "-W"))) {
		p = map(argv[2], O_RDWR, PROT_READ | PROT_WRITE, MAP_SHARED,
			NULL);
		if (!p)
			return 1;
		memset(p, 'W', 4096);
		if (argv[1][1] == 'W')
			_exit(0);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: helper_limits DIR | -w FILE | -W FILE\n");
		return 2;
	}

	path = make(argv[1], "limits.dat");
	p = map(path, O_RDWR, PROT_READ | PROT_WRITE, MAP_SHARED, NULL);
	ok(p && anon(p), "a shared mapping under FNMAP_PATHS is fnmap's");
	ok(p && same(p, 0, SIZE), "it reads the file");

	/* fork: the child has no such region. */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		volatile char c = p[100];

		(void)c;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	   "fork: a child touching the region gets SIGSEGV");
	ok(same(p, 0, SIZE), "fork: the parent's mapping is untouched");

	/* mremap is refused; the mapping stays. */
	q = mremap(p, SIZE, 2 * SIZE, MREMAP_MAYMOVE);
	ok(q == MAP_FAILED && errno == EINVAL, "mremap: refused with EINVAL");
	ok(same(p, 0, SIZE), "mremap: the mapping still reads the file");

	/* mprotect: write protection is kept across it. */
	ok(!mprotect(p, SIZE, PROT_READ), "mprotect: read-only");
	ok(!mprotect(p, SIZE, PROT_READ | PROT_WRITE), "mprotect: writable again");
	p[8192] = 'M';
	ok(!msync(p, SIZE, MS_SYNC), "mprotect: msync after writing");
	fd = open(path, O_RDONLY);
	{
		char c = 0;

		ok(pread(fd, &c, 1, 8192) == 1 && c == 'M',
		   "mprotect: the write after it reached the file");
	}
	close(fd);
	p[8192] = (char)pat(8192);
	msync(p, SIZE, MS_SYNC);
	q = map(path, O_RDONLY, PROT_READ, MAP_SHARED, NULL);
	ok(q && anon(q) && mprotect(q, SIZE, PROT_READ | PROT_WRITE) == -1 &&
	   errno == EACCES,
	   "mprotect: writable shared mapping of a read-only file: EACCES");
	munmap(q, SIZE);

	/* Signals: a handler that reads the region while the main thread
	 * faults through it. */
	sig_map = p;
	signal(SIGALRM, on_alarm);
	{
		struct itimerval it = { { 0, 500 }, { 0, 500 } };
		size_t i, round;
		unsigned long sum = 0;

		madvise(p, SIZE, MADV_DONTNEED);
		setitimer(ITIMER_REAL, &it, NULL);
		for (round = 0; round < 20; round++) {
			for (i = 0; i < SIZE; i += 4096)
				sum += (unsigned char)p[i];
			madvise(p, SIZE, MADV_DONTNEED);
		}
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		ok(sig_runs > 0 && !sig_bad && sum,
		   "signals: a handler reading the region while the thread "
		   "faults reads the file");
	}
	signal(SIGALRM, SIG_DFL);

	/* Changed underneath: seen after msync(MS_INVALIDATE). */
	fd = open(path, O_RDWR);
	{
		char c = 'U';
		volatile char before = p[20000];

		(void)before;
		if (pwrite(fd, &c, 1, 20000) != 1)
			return 1;
		ok((unsigned char)p[20000] == pat(20000),
		   "underneath: a cached page keeps what it read");
		ok(!msync(p, SIZE, MS_INVALIDATE) && p[20000] == 'U',
		   "underneath: msync(MS_INVALIDATE) shows the change");
		c = (char)pat(20000);
		if (pwrite(fd, &c, 1, 20000) != 1)
			return 1;
	}
	/* Truncated underneath: zeros past the new end, no SIGBUS. */
	madvise(p, SIZE, MADV_DONTNEED);
	if (ftruncate(fd, SIZE / 2))
		return 1;
	signal(SIGBUS, on_bus);
	if (!sigsetjmp(bus_jmp, 1))
		ok(p[SIZE - 1] == 0 && same(p, 0, SIZE / 2),
		   "truncated: zeros past the new end (the kernel would "
		   "raise SIGBUS), the rest as before");
	else
		ok(0, "truncated: SIGBUS");
	signal(SIGBUS, SIG_DFL);
	if (ftruncate(fd, SIZE))
		return 1;
	close(fd);
	munmap(p, SIZE);

	/* Partial munmap. */
	path = make(argv[1], "partial.dat");
	p = map(path, O_RDWR, PROT_READ | PROT_WRITE, MAP_SHARED, NULL);
	p[SIZE - 1] = 'E';
	ok(!munmap(p + SIZE / 4, SIZE / 2), "partial munmap: the middle half");
	ok(same(p, 0, SIZE / 4) && same(p, SIZE - 4096, SIZE - 1),
	   "partial munmap: both ends still read the file");
	ok(!msync(p + SIZE - SIZE / 4, SIZE / 4, MS_SYNC),
	   "partial munmap: msync of what is left");
	ok(!munmap(p, SIZE / 4) && !munmap(p + SIZE - SIZE / 4, SIZE / 4),
	   "partial munmap: the rest");
	fd = open(path, O_RDONLY);
	{
		char c = 0;

		ok(pread(fd, &c, 1, SIZE - 1) == 1 && c == 'E',
		   "partial munmap: a write in a remaining part reached the file");
	}
	close(fd);

	/* MAP_PRIVATE: writes stay in memory. */
	path = make(argv[1], "private.dat");
	p = map(path, O_RDONLY, PROT_READ | PROT_WRITE, MAP_PRIVATE, NULL);
	ok(p && anon(p), "private: fnmap's");
	p[0] = 'P';
	ok(!msync(p, SIZE, MS_SYNC) && p[0] == 'P', "private: the write stays");
	fd = open(path, O_RDONLY);
	{
		char c = 0;

		ok(pread(fd, &c, 1, 0) == 1 && (unsigned char)c == pat(0),
		   "private: the file is unchanged");
	}
	close(fd);
	munmap(p, SIZE);

	/* MADV_DONTNEED on a shared mapping keeps written data. */
	path = make(argv[1], "dontneed.dat");
	p = map(path, O_RDWR, PROT_READ | PROT_WRITE, MAP_SHARED, NULL);
	p[4096] = 'D';
	ok(!madvise(p, SIZE, MADV_DONTNEED) && p[4096] == 'D',
	   "MADV_DONTNEED: the write is written back, not lost");
	munmap(p, SIZE);

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
