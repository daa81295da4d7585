// SPDX-License-Identifier: GPL-2.0
/*
 * Bad arguments are refused with an errno and a sentence, and change
 * nothing: every entry point, the runtime's configuration and its
 * environment variables, and a mapping used by a child after fork().
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "fnmap_test.h"

static void refused(bool failed, int want, const char *what)
{
	int e = errno;

	ok(failed && e == want, "%s: refused with %s", what, strerror(want));
	if (!failed || e != want)
		diag("failed %d, errno %d (%s)", failed, e, strerror(e));
	else if (!strlen(fnmap_errmsg()))
		diag("no message");
}

/* Settings fnmap_init() refuses, one field wrong each. */
static void no_channels(struct fnmap_config *c) { c->channels = 0; }
static void many_channels(struct fnmap_config *c) { c->channels = 65; }
static void deep(struct fnmap_config *c) { c->queue_depth = 257; }
static void odd_request(struct fnmap_config *c) { c->max_request = 5000; }
static void tiny_budget(struct fnmap_config *c) { c->budget = 1 << 20; }
static void bad_flag(struct fnmap_config *c) { c->flags = 1u << 30; }

static const struct {
	void (*set)(struct fnmap_config *c);
	const char *what;
} bad_configs[] = {
	{ no_channels, "0 channels" },
	{ many_channels, "65 channels" },
	{ deep, "queue depth 257" },
	{ odd_request, "largest request 5000 bytes" },
	{ tiny_budget, "budget 1 MiB" },
	{ bad_flag, "unknown runtime flag" },
};

static struct fnmap_options opt(uint64_t bs, int advice, unsigned int flags)
{
	return (struct fnmap_options){ .block_size = bs, .advice = advice,
				       .flags = flags };
}

int main(void)
{
	const char *path = test_path("args.dat"), *empty = test_path("empty");
	struct fnmap_config cfg, good;
	struct fnmap_options o;
	struct fnmap *m;
	struct fnmap_stats st;
	unsigned int flags, k;
	int fd, status, hi;
	pid_t pid;

	make_file(path, 1 << 20, 1);
	close(open(empty, O_CREAT | O_WRONLY, 0644));
	runtime_or_skip(NULL);

	refused(!fnmap_open(NULL, O_RDONLY, NULL), EINVAL, "no path");
	refused(!fnmap_open(path, O_WRONLY, NULL), EINVAL, "O_WRONLY");
	refused(!fnmap_open(path, O_RDWR | O_CREAT, NULL), EINVAL, "O_CREAT");
	refused(!fnmap_open(test_path("nonexistent"), O_RDONLY, NULL), ENOENT,
		"a file that does not exist");
	refused(!fnmap_open(test_dir(), O_RDONLY, NULL), ENODEV, "a directory");
	refused(!fnmap_open("/dev/null", O_RDONLY, NULL), ENODEV,
		"a character device");
	refused(!fnmap_open(empty, O_RDONLY, NULL), EINVAL, "an empty file");
	o = opt(4096, 0, 0);
	refused(!fnmap_open(path, O_RDONLY, &o), EINVAL, "block size 4 KiB");
	o = opt(4 << 20, 0, 0);
	refused(!fnmap_open(path, O_RDONLY, &o), EINVAL, "block size 4 MiB");
	o = opt(96 << 10, 0, 0);
	refused(!fnmap_open(path, O_RDONLY, &o), EINVAL, "block size 96 KiB");
	o = opt(0, FNMAP_ADV_WILLNEED, 0);
	refused(!fnmap_open(path, O_RDONLY, &o), EINVAL, "willneed at open");
	o = opt(0, 99, 0);
	refused(!fnmap_open(path, O_RDONLY, &o), EINVAL, "advice 99");
	o = opt(0, 0, 1u << 20);
	refused(!fnmap_open(path, O_RDONLY, &o), EINVAL, "unknown open flag");

	fd = open(path, O_RDONLY);
	refused(!fnmap_open_fd(fd, 100, 4096, PROT_READ, NULL, 0, NULL), EINVAL,
		"an offset that is not a page multiple");
	refused(!fnmap_open_fd(fd, 0, 0, PROT_READ, NULL, 0, NULL), EINVAL,
		"length 0");
	refused(!fnmap_open_fd(fd, 0, 4096, 0x100, NULL, 0, NULL), EINVAL,
		"an unknown protection bit");
	refused(!fnmap_open_fd(fd, 0, 4096, PROT_READ | PROT_WRITE, NULL, 0,
			       NULL), EACCES,
		"shared writable mapping of a read-only descriptor");
	refused(!fnmap_open_fd(fd, 0, 4096, PROT_READ, (void *)4097, 1, NULL),
		EINVAL, "an unaligned fixed address");
	/* A number no other thread is given meanwhile: the runtime's threads
	 * open descriptors of their own (a fault thread's epoll, as it
	 * starts), lowest free number first, and took the one just closed:
	 * ENODEV instead of EBADF, once in a make check. */
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 512);
	close(fd);
	close(hi);
	refused(!fnmap_open_fd(hi, 0, 4096, PROT_READ, NULL, 0, NULL), EBADF,
		"a closed descriptor");
	fd = open(path, O_WRONLY);
	refused(!fnmap_open_fd(fd, 0, 4096, PROT_READ, NULL, 0, NULL), EACCES,
		"a write-only descriptor");
	close(fd);

	m = fnmap_open(path, O_RDWR, NULL);
	if (!m) {
		printf("Bail out! %s\n", fnmap_errmsg());
		return 1;
	}
	refused(fnmap_sync(m, NULL, 0, 1u << 8) < 0, EINVAL, "unknown sync flag");
	refused(fnmap_sync(m, (char *)fnmap_addr(m) + (2 << 20), 4096, 0) < 0,
		EINVAL, "sync outside the mapping");
	refused(fnmap_sync(m, NULL, 4096, 0) < 0, EINVAL,
		"a length without an address");
	refused(fnmap_sync(NULL, NULL, 0, 0) < 0, EINVAL, "sync of no mapping");
	refused(fnmap_advise(m, NULL, 0, 42) < 0, EINVAL, "advice 42");
	refused(fnmap_advise(m, (char *)fnmap_addr(m) - 4096, 4096,
			     FNMAP_ADV_RANDOM) < 0, EINVAL,
		"advice outside the mapping");
	refused(fnmap_stats(m, NULL) < 0, EINVAL, "statistics without a buffer");
	refused(fnmap_shutdown() < 0, EBUSY, "shutdown with a mapping open");
	refused(fnmap_init(NULL) < 0, EBUSY, "init while running");

	/* A child of fork has no runtime and no regions. */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		int r = fnmap_sync(m, NULL, 0, 0);

		_exit(r < 0 && errno == EINVAL &&
		      strstr(fnmap_errmsg(), "fork") ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && !WEXITSTATUS(status),
	   "a parent's mapping used in a child: refused (EINVAL, says fork)");

	ok(!fnmap_stats(m, &st) && st.faults == 0,
	   "nothing happened to the mapping meanwhile");
	ok(!fnmap_close(m), "close");
	refused(fnmap_close(NULL) < 0, EINVAL, "close of no mapping");
	ok(!fnmap_shutdown(), "shutdown");

	fnmap_config_init(&good);
	for (k = 0; k < sizeof(bad_configs) / sizeof(bad_configs[0]); k++) {
		cfg = good;
		bad_configs[k].set(&cfg);
		refused(fnmap_init(&cfg) < 0, EINVAL, bad_configs[k].what);
	}
	refused(fnmap_stats(NULL, &st) < 0, EINVAL,
		"statistics with no runtime");

	setenv("FNMAP_CHANNELS", "lots", 1);
	refused(fnmap_config_init(&cfg) < 0, EINVAL, "FNMAP_CHANNELS=lots");
	ok(strstr(fnmap_errmsg(), "FNMAP_CHANNELS") != NULL,
	   "the message names the variable: %s", fnmap_errmsg());
	ok(cfg.channels == good.channels, "the defaults stay");
	unsetenv("FNMAP_CHANNELS");
	setenv("FNMAP_BUDGET", "12 parsecs", 1);
	refused(fnmap_config_init(&cfg) < 0, EINVAL, "FNMAP_BUDGET=12 parsecs");
	unsetenv("FNMAP_BUDGET");
	setenv("FNMAP_BLOCK_SIZE", "3MiB", 1);
	refused(!fnmap_open(path, O_RDONLY, NULL), EINVAL, "FNMAP_BLOCK_SIZE=3MiB");
	unsetenv("FNMAP_BLOCK_SIZE");
	refused(fnmap_parse_flags("psync,bogus", &flags) < 0, EINVAL,
		"runtime flag 'bogus'");
	ok(!fnmap_parse_flags("no-coalesce,psync", &flags) &&
	   flags == (FNMAP_CFG_NO_COALESCE | FNMAP_CFG_PSYNC),
	   "known runtime flags parse");
	fnmap_shutdown();
	test_cleanup();
	return tap_done();
}
