// SPDX-License-Identifier: GPL-2.0
/* fnblkctl fault add|del|show: fault injection rules of a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fnblkctl.h"
#include "print.h"

static const char *const fault_usage[] = {
	"add NAME read|write|any [prob P%] [every N] [times N] "
	"[range START+LEN] error eio|timeout [DUR]|delay DUR",
	"del NAME [ID]", "show NAME", NULL
};

static const struct cli_term fault_commands[] = {
	{ "fault add NAME OP [CONDITION VALUE]... error ERROR",
	  "Add a rule to device NAME and print its ID. OP is read, write "
	  "(everything but reads: writes, flushes, discards) or any. A "
	  "request matches when its op does and it overlaps the range; a "
	  "rule fires on every Nth match (every), each time with probability "
	  "P (prob), at most N times (times); the first rule that fires "
	  "decides. ERROR is eio (the request fails with EIO when it "
	  "completes, having moved no data), timeout (it fails with ETIMEDOUT "
	  "DUR after its submission, 30s by default as the block layer's "
	  "request timeout; no data moved) or delay DUR (it completes DUR "
	  "late). A faulty request still takes its share of the device; "
	  "nothing else is affected. At most 16 rules per device." },
	{ "fault del NAME [ID]", "Remove rule ID, or every rule." },
	{ "fault show NAME",
	  "The rules: what each matches, its error, how many requests it "
	  "matched and how many it hit. fnblkctl stats counts the hits by "
	  "error." },
	{ NULL, NULL },
};

static const struct cli_term fault_conditions[] = {
	{ "prob P%", "probability that a matching request is hit, 0.0001% "
		     "to 100% (default)" },
	{ "every N", "only every Nth matching request (default 1)" },
	{ "times N", "at most N hits (default: no limit)" },
	{ "range START+LEN", "requests overlapping LEN bytes from START, "
			     "sizes as SIZE (default: the whole device)" },
	{ NULL, NULL },
};

static int fault_args(int *argc, char ***argv)
{
	const struct cli_group groups[] = {
		{ .title = "Commands", .terms = fault_commands },
		{ .title = "Conditions", .terms = fault_conditions },
		{ .title = "Options" },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblkctl fault", .usage = fault_usage,
		.about = "Inject faults into a device's requests, in the spirit "
			 "of the kernel's fault_attr: I/O errors, timeouts and "
			 "delays, chosen by op, range, count and probability.",
		.groups = groups, .json = &ctl_json,
		.json_help = "print the rules as JSON",
	};

	return object_args(&prog, argc, argv);
}

static void print_fault(const struct fnblk_fault_info *f)
{
	char a[FNBLK_UNIT_BUFLEN], b[FNBLK_UNIT_BUFLEN], range[80], err[48];

	if (f->len)
		snprintf(range, sizeof(range), "%s+%s",
			 fnblk_format_size_exact(f->start, a, sizeof(a)),
			 fnblk_format_size_exact(f->len, b, sizeof(b)));
	else
		snprintf(range, sizeof(range), "all");
	snprintf(err, sizeof(err), "%s%s%s", fnblk_fault_error_name(f->error),
		 f->error == FNBLK_FAULT_EIO ? "" : " ",
		 f->error == FNBLK_FAULT_EIO ? "" :
		 fnblk_format_duration_exact(f->delay_ns, a, sizeof(a)));
	pr_open_object(NULL);
	pr_u64("id", "%-4llu", f->id);
	pr_str("op", " %-5s", fnblk_fault_op_name(f->op));
	pr_double("prob", NULL, (double)f->prob / FNBLK_FAULT_PROB_ONE);
	pr_text(" %9.4f%%", 100.0 * f->prob / FNBLK_FAULT_PROB_ONE);
	pr_u64("every", " %6llu", f->every);
	pr_u64("times", NULL, f->times);
	if (f->times)
		pr_text(" %6llu", (unsigned long long)f->times);
	else
		pr_text(" %6s", "-");
	pr_u64("start", NULL, f->start);
	pr_u64("len", NULL, f->len);
	pr_text(" %-20s", range);
	pr_str("error", NULL, fnblk_fault_error_name(f->error));
	pr_u64("delay_ns", NULL, f->delay_ns);
	pr_text(" %-14s", err);
	pr_u64("matched", " %9llu", f->matched);
	pr_u64("injected", " %9llu\n", f->injected);
	pr_close_object();
}

static int show_one(const struct fnblk_fault_info *f, void *arg)
{
	(void)arg;
	print_fault(f);
	return 0;
}

static int fault_add(int argc, char **argv)
{
	struct fnblk_fault_info f, out;
	struct fnblk *h;
	char err[256];

	if (argc < 1)
		return usage_error("fault add: missing device name");
	if (args_check_dev(argv[0], err, sizeof(err)) ||
	    args_parse_fault(argc - 1, argv + 1, &f, err, sizeof(err)))
		return usage_error("fault add: %s", err);
	h = ctl_handle();
	if (fnblk_fault_add(h, argv[0], &f, &out) < 0)
		return nl_error(h, "fault add");
	if (pr_json()) {
		print_fault(&out);
		pr_end();
	} else {
		printf("%u\n", out.id);
	}
	return 0;
}

static int fault_del(int argc, char **argv)
{
	struct fnblk *h;
	char err[256];
	uint64_t id = 0;

	if (argc < 1 || argc > 2)
		return usage_error(argc ? "fault del: too many arguments" :
				   "fault del: missing device name");
	if (args_check_dev(argv[0], err, sizeof(err)) ||
	    (argc == 2 && args_parse_count("id", argv[1], 1, UINT32_MAX, &id,
					   err, sizeof(err))))
		return usage_error("fault del: %s", err);
	h = ctl_handle();
	if (fnblk_fault_del(h, argv[0], (uint32_t)id) < 0)
		return nl_error(h, "fault del");
	return 0;
}

static int fault_show(int argc, char **argv)
{
	struct fnblk *h;
	char err[256];
	int ret;

	if (argc != 1)
		return usage_error(argc ? "fault show: too many arguments" :
				   "fault show: missing device name");
	if (args_check_dev(argv[0], err, sizeof(err)))
		return usage_error("fault show: %s", err);
	h = ctl_handle();
	pr_text("%-4s %-5s %10s %6s %6s %-20s %-14s %9s %9s\n", "ID", "OP",
		"PROB", "EVERY", "TIMES", "RANGE", "ERROR", "MATCHED",
		"INJECTED");
	pr_open_array(NULL);
	ret = fnblk_fault_dump(h, argv[0], show_one, NULL);
	pr_close_array();
	if (ret < 0)
		return nl_error(h, "fault show");
	pr_end();
	return 0;
}

int do_fault(int argc, char **argv)
{
	static const struct {
		const char *verb;
		int (*run)(int argc, char **argv);
	} verbs[] = {
		{ "add", fault_add }, { "del", fault_del },
		{ "delete", fault_del }, { "show", fault_show },
		{ "list", fault_show },
	};
	int ret = fault_args(&argc, &argv);

	if (ret != CLI_CONTINUE)
		return ret;
	if (argc < 2)
		return usage_error("fault: missing command (add, del or show)");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].verb, argv[1]))
			return verbs[i].run(argc - 2, argv + 2);
	return usage_error("fault: unknown command '%s' (expected add, del or "
			   "show)", argv[1]);
}
