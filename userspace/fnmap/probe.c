// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-fnmap [-j] [PATH]: what this kernel and user allow fnmap's
 * runtime to do (fnblk-fnmap(1)).
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "cli.h"
#include "fnmap_internal.h"
#include "print.h"
#include "pressure.h"
#include "uffd_compat.h"

static const struct {
	uint64_t bit;
	const char *name;
} features[] = {
	{ UFFD_FEATURE_PAGEFAULT_FLAG_WP, "wp" },
	{ UFFD_FEATURE_EVENT_FORK, "event-fork" },
	{ UFFD_FEATURE_EVENT_REMAP, "event-remap" },
	{ UFFD_FEATURE_EVENT_REMOVE, "event-remove" },
	{ UFFD_FEATURE_MISSING_SHMEM, "missing-shmem" },
	{ UFFD_FEATURE_EVENT_UNMAP, "event-unmap" },
	{ UFFD_FEATURE_SIGBUS, "sigbus" },
	{ UFFD_FEATURE_THREAD_ID, "thread-id" },
	{ UFFD_FEATURE_MINOR_SHMEM, "minor-shmem" },
	{ UFFD_FEATURE_EXACT_ADDRESS, "exact-address" },
	{ UFFD_FEATURE_WP_HUGETLBFS_SHMEM, "wp-shmem" },
	{ UFFD_FEATURE_WP_UNPOPULATED, "wp-unpopulated" },
	{ UFFD_FEATURE_POISON, "poison" },
	{ UFFD_FEATURE_WP_ASYNC, "wp-async" },
	{ UFFD_FEATURE_MOVE, "move" },
};

static bool json;
static const char *const usage[] = { "[OPTIONS] [PATH]", NULL };
static const struct cli_program prog = {
	.name = "fnblk-fnmap",
	.usage = usage,
	.about =
	"What the runtime of fnmap(3) can use here: how a userfaultfd is "
	"obtained (the system call; /dev/userfaultfd where the call is "
	"restricted to privileged users; user-mode faults only otherwise), "
	"the userfaultfd features this kernel offers, whether io_uring "
	"works, which cgroup limits the memory of this process and how much "
	"it has left. With PATH (a file, or a directory to create one in), "
	"whether it takes O_DIRECT.\n\n"
	"Exit status 0 if fnmap can run here, 1 if not (the reason is "
	"printed), 2 for a usage error.",
	.json = &json,
	.json_help = "print the findings as JSON",
};

/* Would PATH (a file, or a new file in a directory) take O_DIRECT? */
static bool takes_direct(const char *path)
{
	int fd = open(path, O_RDWR | O_TMPFILE | O_DIRECT, 0600);

	if (fd < 0 && errno != EISDIR && errno != EOPNOTSUPP)
		fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int main(int argc, char **argv)
{
	char err[FNMAP_ERRLEN] = "", buf[64];
	struct io_uring ring;
	struct pressure *p;
	const char *path;
	struct uffd u;
	uint64_t unpriv;
	bool uffd_ok;
	int first, ret, uring_err;
	unsigned int i;

	ret = cli_parse(&prog, argc, argv, &first);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argc - first > 1)
		return cli_usage_error(&prog, "one PATH at most");
	path = first < argc ? argv[first] : NULL;

	uffd_ok = !uffd_open(&u, err, sizeof(err));
	uring_err = io_uring_queue_init(2, &ring, 0);
	if (!uring_err)
		io_uring_queue_exit(&ring);
	p = pressure_open();

	pr_init(json);
	pr_open_object(NULL);
	pr_bool("userfaultfd", NULL, uffd_ok);
	pr_str("source", "userfaultfd:      %s\n", uffd_ok ? u.source : err);
	pr_int("unprivileged_userfaultfd", NULL,
	       fnblk_cgroup_read_u64("/proc/sys/vm", "unprivileged_userfaultfd",
				     &unpriv) ? -1 : (int64_t)unpriv);
	pr_bool("dev_userfaultfd", NULL, !access("/dev/userfaultfd", F_OK));
	pr_text("features:        ");
	pr_open_array("features");
	for (i = 0; uffd_ok && i < sizeof(features) / sizeof(features[0]); i++)
		if (u.supported & features[i].bit)
			pr_str(NULL, " %s", features[i].name);
	pr_close_array();
	pr_text("\n");
	pr_bool("io_uring", NULL, !uring_err);
	pr_str("io_uring_status", "io_uring:         %s\n",
	       uring_err ? strerror(-uring_err) : "yes");
	pr_str("memory_cgroup", "memory limit:     %s\n",
	       p && pressure_cgroup(p)[0] ? pressure_cgroup(p) :
	       json ? "" : "none (MemAvailable counts)");
	pr_size("memory_available", "memory available: %s\n",
		pressure_available(p));
	if (path) {
		bool direct = takes_direct(path);

		pr_str("path", NULL, path);
		snprintf(buf, sizeof(buf), "O_DIRECT on %%s: %s\n",
			 direct ? "yes" : "no (buffered I/O)");
		pr_str(NULL, buf, path);
		pr_bool("o_direct", NULL, direct);
	}
	pr_close_object();
	if (pr_end())
		ret = CLI_EXIT_FAILURE;
	else
		ret = uffd_ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
	pressure_close(p);
	if (uffd_ok)
		uffd_close(&u);
	return ret;
}
