// SPDX-License-Identifier: GPL-2.0
/*
 * fnblkctl: control and observe fnblk devices, in the object/verb style
 * of ip(8). Global options come first, then the object, which takes its
 * own (libfnblk's command-line convention, Documentation/cli.rst):
 *   fnblkctl [-j] OBJECT [COMMAND] [ARGS...]
 * Exit status: 0 ok, 1 runtime error, 2 usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fnblkctl.h"
#include "print.h"

static struct fnblk *handle;
static const char *current_object = "";
bool ctl_json;

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("fnblkctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fnblkctl %s%s--help'.\n", current_object,
		*current_object ? " " : "");
	return CLI_EXIT_USAGE;
}

int runtime_error(const char *fmt, ...)
{
	va_list ap;

	fputs("fnblkctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_FAILURE;
}

int nl_error(struct fnblk *h, const char *what)
{
	if (fnblk_errmsg_is_kernel(h))
		return runtime_error("kernel: %s", fnblk_errmsg(h));
	return runtime_error("%s: %s", what, fnblk_errmsg(h));
}

struct fnblk *ctl_handle(void)
{
	if (handle)
		return handle;
	handle = fnblk_open();
	if (!handle) {
		if (errno == ENOENT)
			runtime_error("no generic netlink family \"%s\": is the "
				      "fnblk module loaded?", FNBLK_GENL_NAME);
		else
			runtime_error("cannot open netlink: %s",
				      strerror(errno));
		exit(CLI_EXIT_FAILURE);
	}
	return handle;
}

int object_args(const struct cli_program *p, int *argc, char ***argv)
{
	int first, ret = cli_parse(p, *argc, *argv, &first);

	if (ret != CLI_CONTINUE)
		return ret;
	(*argv)[first - 1] = (*argv)[0];
	*argv += first - 1;
	*argc -= first - 1;
	pr_init(ctl_json);
	return CLI_CONTINUE;
}

static const struct object {
	const char *name;
	int (*run)(int argc, char **argv);
} objects[] = {
	{ "dev", do_dev },
	{ "stats", do_stats },
	{ "users", do_users },
	{ "weight", do_weight },
	{ "monitor", do_monitor },
	{ "top", do_top },
	{ "json", do_json },
	{ "fault", do_fault },
};

static const struct cli_term object_terms[] = {
	{ "dev", "create, change, remove and list devices" },
	{ "stats", "counters, the histogram of n and its summary; reset them" },
	{ "users", "the users a device knows, with their counters" },
	{ "weight", "a user's weight under policy weighted" },
	{ "monitor", "events as they happen: users becoming active or idle "
		     "(with the new n), devices added, changed or removed" },
	{ "top", "a live view of a device" },
	{ "json", "check that standard input is JSON and print a value of it "
		  "(for scripts without jq)" },
	{ "fault", "inject I/O errors, timeouts and delays into a device" },
	{ NULL, NULL },
};

static const char *const usage[] = { "[-j] OBJECT [COMMAND] [ARGS]...", NULL };

static const struct cli_group groups[] = {
	{ .title = "Objects", .terms = object_terms },
	{ .title = "Options" },
	{ .title = NULL },
};

static const struct cli_program prog = {
	.name = "fnblkctl",
	.usage = usage,
	.about = "Configure and observe fnblk devices, block devices that "
		 "share their bandwidth anonymously, over the fnblk generic "
		 "netlink family, in the object/verb style of ip(8). Reads "
		 "need no privilege; changes need CAP_NET_ADMIN. "
		 "'fnblkctl OBJECT --help' describes an object and its "
		 "commands.",
	.groups = groups,
	.json = &ctl_json,
	.json_help = "print JSON (every read command; also after the object)",
	.stop_at_operand = true,
};

int main(int argc, char **argv)
{
	int first, ret;

	/*
	 * jansson seeds its hash from /dev/urandom on first use, which blocks
	 * for seconds in a fresh VM; fnblkctl parses only its own and the
	 * kernel's data, so a fixed seed is enough.
	 */
	json_object_seed(0x666e626c);
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret != CLI_CONTINUE)
		return ret;
	if (first == argc)
		return cli_usage_error(&prog, "no OBJECT (dev, stats, users, "
				       "weight, monitor, top or json)");
	pr_init(ctl_json);
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		if (strcmp(objects[i].name, argv[first]))
			continue;
		current_object = objects[i].name;
		ret = objects[i].run(argc - first, argv + first);
		fnblk_close(handle);
		return ret;
	}
	return cli_usage_error(&prog, "unknown object '%s' (expected dev, "
			       "stats, users, weight, monitor, top, json or "
			       "fault)",
			       argv[first]);
}
