// SPDX-License-Identifier: GPL-2.0
/* fnblkctl users NAME | weight NAME USER W. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fnblkctl.h"
#include "print.h"

struct user_list {
	struct fnblk_user_info *u;
	size_t nr, cap;
	bool oom;
};

static int collect(const struct fnblk_user_info *u, void *arg)
{
	struct user_list *l = arg;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		void *p = realloc(l->u, cap * sizeof(*l->u));

		if (!p) {
			l->oom = true;
			return 1;	/* stop delivering */
		}
		l->u = p;
		l->cap = cap;
	}
	l->u[l->nr++] = *u;
	return 0;
}

/* Users by key, then the buckets in the kernel's order. */
static int by_key(const void *a, const void *b)
{
	const uint64_t *x = ((const struct fnblk_user_info *)a)->val;
	const uint64_t *y = ((const struct fnblk_user_info *)b)->val;

	if (x[FNBLK_USER_BUCKET] != y[FNBLK_USER_BUCKET])
		return x[FNBLK_USER_BUCKET] < y[FNBLK_USER_BUCKET] ? -1 : 1;
	return x[FNBLK_USER_KEY] < y[FNBLK_USER_KEY] ? -1 :
	       x[FNBLK_USER_KEY] > y[FNBLK_USER_KEY];
}

bool same_user(const struct fnblk_user_info *a,
	       const struct fnblk_user_info *b)
{
	return a->val[FNBLK_USER_BUCKET] == b->val[FNBLK_USER_BUCKET] &&
	       a->val[FNBLK_USER_KEY] == b->val[FNBLK_USER_KEY];
}

void print_user_key(const struct fnblk_user_info *u)
{
	const char *bucket = fnblk_bucket_name(u->val[FNBLK_USER_BUCKET]);
	char label[32];

	if (!bucket) {
		pr_u64("key", "%-12llu", u->val[FNBLK_USER_KEY]);
		return;
	}
	pr_str("bucket", NULL, bucket);
	if (u->present & FNBLK_BIT(FNBLK_USER_COUNT)) {
		pr_u64("count", NULL, u->val[FNBLK_USER_COUNT]);
		snprintf(label, sizeof(label), "%s(%llu)", bucket,
			 (unsigned long long)u->val[FNBLK_USER_COUNT]);
		bucket = label;
	}
	pr_text("%-12s", bucket);
}

static int users_args(int *argc, char ***argv)
{
	static const char *const usage[] = { "NAME", NULL };
	static const struct cli_program prog = {
		.name = "fnblkctl users", .usage = usage,
		.about = "One row per user the device knows: KEY (pid, tgid or "
			 "cgroup id, as the device's key mode says), KT (kernel "
			 "thread), ACT (counted in n now), WEIGHT, operations "
			 "and bytes read and written, ACTIVE (time counted in "
			 "n), WAIT (sum of queueing delays) and ACTS "
			 "(activations, idle to active). Then, once they hold "
			 "something, two rows that are not one user: "
			 "retired(N), the totals of N users freed after idling "
			 "(module parameter user_retain_s), and overflow, the "
			 "user that new users share while the table is full "
			 "(max-users). All rows together add up to the device's "
			 "counters. Needs CAP_NET_ADMIN, as does fnblkctl "
			 "monitor: both tell about other users' processes.",
		.json = &ctl_json, .json_help = "print the users as JSON",
	};

	return object_args(&prog, argc, argv);
}

static int weight_args(int *argc, char ***argv)
{
	static const char *const usage[] = { "NAME USER W", NULL };
	static const struct cli_program prog = {
		.name = "fnblkctl weight", .usage = usage,
		.about = "Give user USER (its key, as fnblkctl users lists it) "
			 "weight W, 1 to 1000000, for policy weighted. A weight "
			 "may be set before the user's first I/O.",
	};

	return object_args(&prog, argc, argv);
}

static void print_user(const struct fnblk_user_info *u)
{
	const uint64_t *v = u->val;

	pr_open_object(NULL);
	print_user_key(u);
	pr_bool("kthread", " %-3s", v[FNBLK_USER_KTHREAD]);
	pr_bool("active", " %-3s", v[FNBLK_USER_ACTIVE]);
	pr_u64("weight", " %7llu", v[FNBLK_USER_WEIGHT]);
	pr_u64("read_ops", " %9llu", v[FNBLK_USER_READ_OPS]);
	pr_size("read_bytes", " %10s", v[FNBLK_USER_READ_BYTES]);
	pr_u64("write_ops", " %9llu", v[FNBLK_USER_WRITE_OPS]);
	pr_size("write_bytes", " %10s", v[FNBLK_USER_WRITE_BYTES]);
	pr_duration("active_ns", " %12s", v[FNBLK_USER_ACTIVE_NS]);
	pr_duration("wait_ns", " %12s", v[FNBLK_USER_WAIT_NS]);
	pr_u64("activations", " %6llu\n", v[FNBLK_USER_ACTIVATIONS]);
	pr_close_object();
}

int do_users(int argc, char **argv)
{
	struct user_list l = { 0 };
	struct fnblk *h;
	char err[256];
	int ret;

	ret = users_args(&argc, &argv);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argc != 2)
		return usage_error(argc < 2 ? "users: missing device name" :
				   "users: too many arguments");
	if (args_check_dev(argv[1], err, sizeof(err)))
		return usage_error("users: %s", err);
	h = ctl_handle();
	ret = fnblk_users_dump(h, argv[1], collect, &l);
	if (ret < 0) {
		free(l.u);
		return nl_error(h, "users");
	}
	if (l.oom) {
		free(l.u);
		return runtime_error("users: out of memory");
	}
	qsort(l.u, l.nr, sizeof(*l.u), by_key);
	pr_text("%-12s %-3s %-3s %7s %9s %10s %9s %10s %12s %12s %6s\n", "KEY",
		"KT", "ACT", "WEIGHT", "READ_OPS", "READ", "WRITE_OPS", "WRITTEN",
		"ACTIVE", "WAIT", "ACTS");
	pr_open_array(NULL);
	for (size_t i = 0; i < l.nr; i++)
		print_user(&l.u[i]);
	pr_close_array();
	pr_end();
	free(l.u);
	return 0;
}

int do_weight(int argc, char **argv)
{
	struct fnblk *h;
	uint32_t weight;
	uint64_t key;
	char err[256];
	int ret = weight_args(&argc, &argv);

	if (ret != CLI_CONTINUE)
		return ret;
	if (argc != 4)
		return usage_error("weight: expected NAME USER W");
	if (args_check_dev(argv[1], err, sizeof(err)) ||
	    args_parse_user_key(argv[2], &key, err, sizeof(err)) ||
	    args_parse_weight(argv[3], &weight, err, sizeof(err)))
		return usage_error("weight: %s", err);
	h = ctl_handle();
	if (fnblk_user_set_weight(h, argv[1], key, weight) < 0)
		return nl_error(h, "weight");
	return 0;
}
