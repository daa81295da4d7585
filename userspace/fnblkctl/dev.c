// SPDX-License-Identifier: GPL-2.0
/* fnblkctl dev add|set|del|show. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fnblkctl.h"
#include "print.h"

static int dev_usage(void)
{
	printf(
"usage: fnblkctl dev add [NAME] [SETTING VALUE]...\n"
"       fnblkctl dev set NAME SETTING VALUE...\n"
"       fnblkctl dev del NAME\n"
"       fnblkctl dev show [NAME]\n"
"\n"
"settings:\n"
"  size SIZE        capacity, a multiple of 4KiB (1G, 64MiB, 4096)\n"
"  bw RATE          B, total bandwidth at n = 1 (64MiB/s; 0 = unthrottled)\n"
"  fn SPEC          f(n): constant, linear:K, power:A, table:f1,f2,...\n"
"  latency DUR      added to every request after service (200us)\n"
"  overhead SIZE    service demand added to every request (4k)\n"
"  key MODE         who is a user: tgid, pid, cgroup or single\n"
"  policy P         anon, fifo or weighted\n"
"  users U          who counts in n: all or writes\n"
"  grace DUR        idle time before a user leaves n (1ms)\n"
"  store S          memory or none\n");
	return 0;
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
	pr_str("store", " store %s\n", fnblk_store_name(c->store));
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

static int dev_del(int argc, char **argv)
{
	struct fnblk *h;
	char err[256];

	if (argc != 1)
		return usage_error(argc ? "dev del: too many arguments" :
				   "dev del: missing device name");
	if (args_check_dev(argv[0], err, sizeof(err)))
		return usage_error("dev del: %s", err);
	h = ctl_handle();
	if (fnblk_dev_del(h, argv[0]) < 0)
		return nl_error(h, "dev del");
	return 0;
}

int do_dev(int argc, char **argv)
{
	static const struct {
		const char *verb;
		int (*run)(int argc, char **argv);
	} verbs[] = {
		{ "add", dev_add }, { "set", dev_set }, { "del", dev_del },
		{ "delete", dev_del }, { "show", dev_show }, { "list", dev_show },
	};

	if (argc < 2)
		return dev_show(0, NULL);
	for (int i = 1; i < argc; i++)
		if (is_help(argv[i]))
			return dev_usage();
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].verb, argv[1]))
			return verbs[i].run(argc - 2, argv + 2);
	return usage_error("dev: unknown command '%s' (expected add, set, del "
			   "or show)", argv[1]);
}
