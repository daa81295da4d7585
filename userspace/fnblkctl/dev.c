// SPDX-License-Identifier: GPL-2.0
/* fnblkctl dev add|set|del|show. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fnblkctl.h"
#include "print.h"

static const char *const dev_usage[] = {
	"add [NAME] [SETTING VALUE]...", "set NAME SETTING VALUE...",
	"del NAME", "show [NAME]", "crash NAME", NULL
};

static const struct cli_term dev_commands[] = {
	{ "dev add [NAME] [SETTING VALUE]...",
	  "Create a device, as NAME if given, else with a free number the "
	  "kernel chooses, and print its name (with -j, the whole device as "
	  "dev show prints it). Settings not given take the module's "
	  "defaults." },
	{ "dev set NAME SETTING VALUE...",
	  "Change settings of a live device. I/O in flight keeps its place; "
	  "the new rate applies from now. The kernel may refuse a change of "
	  "policy or users while requests are in flight." },
	{ "dev del NAME", "Remove a device." },
	{ "dev crash NAME",
	  "Power loss: every write not yet durable is lost (with cache "
	  "volatile, what no flush or FUA write made durable; the pages go "
	  "back to what the last flush left). A device in use stays down, "
	  "every I/O and open failing, until its last opener closes it (a "
	  "file system is unmounted); it then comes back, ready to be "
	  "mounted and checked. fnblkctl stats shows how much was lost." },
	{ "dev show [NAME]",
	  "Print every device (also without a command), or one: settings, n "
	  "now, and the head of the f(n) table (all of it in JSON, as real "
	  "numbers, key fn_table)." },
	{ NULL, NULL },
};

static int dev_args(int *argc, char ***argv)
{
	const struct cli_group groups[] = {
		{ .title = "Commands", .terms = dev_commands },
		{ .title = "Settings", .terms = args_setting_terms() },
		{ .title = "Options" },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblkctl dev", .usage = dev_usage,
		.about = "Create, change, remove and list fnblk devices. A "
			 "device NAME is written fnblkN or just its number N.",
		.groups = groups, .json = &ctl_json,
		.json_help = "print the devices as JSON",
	};

	return object_args(&prog, argc, argv);
}

/* One device, as "dev show" and "dev add -j" print it. */
static void print_dev(const struct fnblk_dev_info *d)
{
	const struct fnblk_dev_config *c = &d->cfg;
	char fbuf[32];

	pr_open_object(NULL);
	pr_u64("id", NULL, d->id);
	pr_str("name", "%s:", d->name);
	pr_u64("nr_active", " n %llu\n", d->nr_active);
	pr_text("    ");
	pr_size_exact("size", "size %s", c->size);
	/* bw 0 means unthrottled; JSON keeps the number. */
	pr_size_exact("bw", c->bw ? " bw %s/s" : " bw unlimited", c->bw);
	pr_str("fn", " fn %s", c->fn);
	pr_duration_exact("latency_ns", " latency %s", c->latency_ns);
	pr_size_exact("overhead", " overhead %s", c->overhead);
	pr_duration_exact("grace_ns", " grace %s\n", c->grace_ns);
	pr_str("key", "    key %s", fnblk_key_name(c->key));
	pr_str("policy", " policy %s", fnblk_policy_name(c->policy));
	pr_str("users", " users %s", fnblk_users_name(c->users));
	pr_str("store", " store %s", fnblk_store_name(c->store));
	pr_str("cache", " cache %s", fnblk_cache_name(c->cache));
	pr_u64("max_users", " max-users %llu\n", c->max_users);
	if (d->fn_nr) {
		/* Text shows the head of the table; JSON all of it. */
		pr_text("    f(n) n=1..%u:", d->fn_nr);
		pr_open_array("fn_table");
		for (uint32_t i = 0; i < d->fn_nr; i++) {
			double f = (double)d->fn_table[i] / FNBLK_FN_ONE;

			if (pr_json()) {
				pr_double(NULL, NULL, f);
			} else if (i < 8) {
				snprintf(fbuf, sizeof(fbuf), " %.4g", f);
				pr_text("%s", fbuf);
			}
		}
		pr_close_array();
		pr_text("%s\n", d->fn_nr > 8 ? " ..." : "");
	}
	pr_close_object();
}

static int show_one(const struct fnblk_dev_info *d, void *arg)
{
	(void)arg;
	print_dev(d);
	return 0;
}

static int dev_show(int argc, char **argv)
{
	struct fnblk *h;
	char err[256];
	int ret;

	if (argc > 1)
		return usage_error("dev show: unexpected argument '%s'",
				   argv[1]);
	if (argc == 1 && args_check_dev(argv[0], err, sizeof(err)))
		return usage_error("dev show: %s", err);
	h = ctl_handle();
	pr_open_array(NULL);
	if (argc == 1) {
		struct fnblk_dev_info *d = malloc(sizeof(*d));

		if (!d)
			return runtime_error("out of memory");
		ret = fnblk_dev_get(h, argv[0], d);
		if (!ret)
			print_dev(d);
		free(d);
	} else {
		ret = fnblk_dev_dump(h, show_one, NULL);
	}
	pr_close_array();
	if (ret < 0)
		return nl_error(h, "dev show");
	pr_end();
	return 0;
}

static int dev_add(int argc, char **argv)
{
	struct fnblk_dev_config cfg;
	struct fnblk_dev_info *d;
	const char *name;
	struct fnblk *h;
	char err[512];
	int ret;

	if (args_parse_config(argc, argv, &name, &cfg, err, sizeof(err)))
		return usage_error("dev add: %s", err);
	h = ctl_handle();
	d = malloc(sizeof(*d));
	if (!d)
		return runtime_error("out of memory");
	ret = fnblk_dev_add(h, name, &cfg, d);
	if (ret < 0) {
		free(d);
		return nl_error(h, "dev add");
	}
	if (pr_json()) {
		print_dev(d);
		pr_end();
	} else {
		printf("%s\n", d->name);
	}
	free(d);
	return 0;
}

static int dev_set(int argc, char **argv)
{
	struct fnblk_dev_config cfg;
	struct fnblk *h;
	char err[512];

	if (argc < 1)
		return usage_error("dev set: missing device name");
	if (args_check_dev(argv[0], err, sizeof(err)))
		return usage_error("dev set: %s", err);
	if (args_parse_config(argc - 1, argv + 1, NULL, &cfg, err,
			      sizeof(err)))
		return usage_error("dev set: %s", err);
	if (!cfg.present)
		return usage_error("dev set: nothing to change");
	h = ctl_handle();
	if (fnblk_dev_set(h, argv[0], &cfg) < 0)
		return nl_error(h, "dev set");
	return 0;
}

/* dev del, dev crash: a command on one device. */
static int dev_one(const char *verb, int (*fn)(struct fnblk *, const char *),
		   int argc, char **argv)
{
	struct fnblk *h;
	char err[256];

	if (argc != 1)
		return usage_error("dev %s: %s", verb, argc ?
				   "too many arguments" :
				   "missing device name");
	if (args_check_dev(argv[0], err, sizeof(err)))
		return usage_error("dev %s: %s", verb, err);
	h = ctl_handle();
	if (fn(h, argv[0]) < 0) {
		snprintf(err, sizeof(err), "dev %s", verb);
		return nl_error(h, err);
	}
	return 0;
}

static int dev_del(int argc, char **argv)
{
	return dev_one("del", fnblk_dev_del, argc, argv);
}

static int dev_crash(int argc, char **argv)
{
	return dev_one("crash", fnblk_dev_crash, argc, argv);
}

int do_dev(int argc, char **argv)
{
	static const struct {
		const char *verb;
		int (*run)(int argc, char **argv);
	} verbs[] = {
		{ "add", dev_add }, { "set", dev_set }, { "del", dev_del },
		{ "delete", dev_del }, { "show", dev_show }, { "list", dev_show },
		{ "crash", dev_crash },
	};

	int ret = dev_args(&argc, &argv);

	if (ret != CLI_CONTINUE)
		return ret;
	if (argc < 2)
		return dev_show(0, NULL);
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].verb, argv[1]))
			return verbs[i].run(argc - 2, argv + 2);
	return usage_error("dev: unknown command '%s' (expected add, set, del, "
			   "show or crash)", argv[1]);
}
