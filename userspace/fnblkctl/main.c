// SPDX-License-Identifier: GPL-2.0
/*
 * fnblkctl: control and observe fnblk devices, in the object/verb style
 * of ip(8). Global options come first, then the object:
 *   fnblkctl [-j] [-p] OBJECT [ARGS...]
 * Exit status: 0 ok, 1 runtime error, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fnblkctl.h"
#include "print.h"

static struct fnblk *handle;
static const char *current_object = "";

static void usage(FILE *f)
{
	fprintf(f,
"usage: fnblkctl [-j] OBJECT COMMAND...\n"
"\n"
"  dev add [NAME] [size SIZE] [bw RATE] [fn SPEC] [latency DUR]\n"
"          [overhead SIZE] [key tgid|pid|cgroup|single]\n"
"          [policy anon|fifo|weighted] [users all|writes] [grace DUR]\n"
"          [store memory|none]\n"
"  dev set NAME [same settings as add]\n"
"  dev del NAME\n"
"  dev show [NAME]\n"
"  stats [NAME]               counters, n histogram and summary\n"
"  stats reset NAME\n"
"  users NAME                 per-user table\n"
"  weight NAME USER W         weight of one user (policy weighted)\n"
"  monitor [NAME] [--csv] [--rcvbuf BYTES] [--duration DUR]\n"
"  top NAME [INTERVAL] [--once] [-n COUNT]\n"
"  json [PATH]                check JSON on stdin, print a value\n"
"\n"
"  -j, --json   JSON output (read commands)\n"
"  -h, --help   this text; 'fnblkctl OBJECT -h' for one object\n"
"\n"
"NAME is fnblkN or N. SIZE 4k, 64MiB, 1G, 1MB; RATE 64MiB/s; DUR 200us,\n"
"1.5ms, 2s. See fnblkctl(8).\n");
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("fnblkctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fnblkctl %s%s-h' for more information.\n",
		current_object, *current_object ? " " : "");
	return EXIT_USAGE;
}

int runtime_error(const char *fmt, ...)
{
	va_list ap;

	fputs("fnblkctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_RUNTIME;
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
		exit(EXIT_RUNTIME);
	}
	return handle;
}

bool is_help(const char *s)
{
	return !strcmp(s, "-h") || !strcmp(s, "--help");
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
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	int c, ret;

	/*
	 * jansson seeds its hash from /dev/urandom on first use, which blocks
	 * for seconds in a fresh VM; fnblkctl parses only its own and the
	 * kernel's data, so a fixed seed is enough.
	 */
	json_object_seed(0x666e626c);
	/* "+": stop at the object, whose own options follow it. */
	while ((c = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* -j is global but also accepted after the object, as people type it. */
	{
		int out = optind;

		for (int in = optind; in < argc; in++) {
			if (!strcmp(argv[in], "-j") || !strcmp(argv[in], "--json"))
				json = true;
			else
				argv[out++] = argv[in];
		}
		argc = out;
	}
	pr_init(json);
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		if (strcmp(objects[i].name, argv[optind]))
			continue;
		current_object = objects[i].name;
		ret = objects[i].run(argc - optind, argv + optind);
		fnblk_close(handle);
		return ret;
	}
	return usage_error("unknown object '%s' (expected dev, stats, users, "
			   "weight, monitor, top or json)", argv[optind]);
}
