// SPDX-License-Identifier: GPL-2.0
/* TAP tests of fnblkctl's argument parsing and its error messages. */
#include <stdio.h>
#include <string.h>

#include "args.h"

static int nr_tests, nr_failed;

static void ok(int cond, const char *name, const char *detail)
{
	nr_tests++;
	if (!cond)
		nr_failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", nr_tests, name);
	if (!cond)
		printf("#   %s\n", detail);
}

/* Split a command line on spaces into argv (at most 32 words). */
static int split(char *line, char **argv)
{
	int argc = 0;

	for (char *w = strtok(line, " "); w && argc < 32; w = strtok(NULL, " "))
		argv[argc++] = w;
	return argc;
}

/* "dev add" arguments that must be refused with exactly this message. */
static void refused(const char *args, const char *want)
{
	struct fnblk_dev_config cfg;
	char line[512], err[512] = "", name[600], detail[1200];
	const char *dev;
	char *argv[32];
	int ret;

	snprintf(line, sizeof(line), "%s", args);
	ret = args_parse_config(split(line, argv), argv, &dev, &cfg, err,
				sizeof(err));
	snprintf(name, sizeof(name), "dev add %s: \"%s\"", args, want);
	snprintf(detail, sizeof(detail), "returned %d with \"%s\"", ret, err);
	ok(ret == -1 && !strcmp(err, want), name, detail);
}

static void full_config(void)
{
	char line[] = "fnblk3 size 1G bw 64MiB/s fn linear:2 latency 200us "
		      "overhead 4k key pid policy weighted users writes "
		      "grace 1.5ms store none";
	struct fnblk_dev_config c;
	char err[256] = "";
	const char *dev;
	char *argv[32];
	int ret = args_parse_config(split(line, argv), argv, &dev, &c, err,
				    sizeof(err));
	uint64_t all = FNBLK_BIT(FNBLK_A_SIZE) | FNBLK_BIT(FNBLK_A_BW) |
		       FNBLK_BIT(FNBLK_A_FN) | FNBLK_BIT(FNBLK_A_LATENCY_NS) |
		       FNBLK_BIT(FNBLK_A_OVERHEAD) | FNBLK_BIT(FNBLK_A_KEY) |
		       FNBLK_BIT(FNBLK_A_POLICY) | FNBLK_BIT(FNBLK_A_USERS) |
		       FNBLK_BIT(FNBLK_A_GRACE_NS) | FNBLK_BIT(FNBLK_A_STORE);

	ok(ret == 0, "every setting parses", err);
	ok(dev && !strcmp(dev, "fnblk3"), "leading name taken as the device",
	   dev ? dev : "(null)");
	ok(c.present == all, "every setting marked present", "present mask");
	ok(c.size == 1ULL << 30 && c.bw == 64ULL << 20 &&
	   c.latency_ns == 200000 && c.overhead == 4096 &&
	   c.grace_ns == 1500000, "sizes, rate and durations converted",
	   "value mismatch");
	ok(c.key == FNBLK_KEY_PID && c.policy == FNBLK_POLICY_WEIGHTED &&
	   c.users == FNBLK_USERS_WRITES && c.store == FNBLK_STORE_NONE &&
	   !strcmp(c.fn, "linear:2"), "enums and fn spec", "value mismatch");
}

static void partial_config(void)
{
	char line[] = "bw 0";
	struct fnblk_dev_config c;
	char err[256] = "";
	const char *dev = "x";
	char *argv[32];
	int ret = args_parse_config(split(line, argv), argv, &dev, &c, err,
				    sizeof(err));

	ok(ret == 0 && dev == NULL && c.present == FNBLK_BIT(FNBLK_A_BW) &&
	   c.bw == 0, "no name, bw 0 (unthrottled) only", err);

	char line2[] = "fnblk0 size 4k";

	ret = args_parse_config(split(line2, argv), argv, NULL, &c, err,
				sizeof(err));
	ok(ret == -1 && !strncmp(err, "unknown argument 'fnblk0'", 25),
	   "dev set takes no name among the settings", err);
}

/* "fault add NAME <args>" parsed from OP on: ok with f, or refused. */
static void fault_refused(const char *args, const char *want)
{
	struct fnblk_fault_info f;
	char line[512], err[512] = "", name[600], detail[1200];
	char *argv[32];
	int ret;

	snprintf(line, sizeof(line), "%s", args);
	ret = args_parse_fault(split(line, argv), argv, &f, err, sizeof(err));
	snprintf(name, sizeof(name), "fault add %s: \"%s\"", args, want);
	snprintf(detail, sizeof(detail), "returned %d with \"%s\"", ret, err);
	ok(ret == -1 && !strcmp(err, want), name, detail);
}

static void test_fault(void)
{
	struct fnblk_fault_info f;
	char line[256], err[256];
	char *argv[32];

	snprintf(line, sizeof(line),
		 "write prob 0.5%% every 3 times 10 range 1MiB+64KiB error eio");
	ok(!args_parse_fault(split(line, argv), argv, &f, err, sizeof(err)) &&
	   f.op == FNBLK_FAULT_WRITE && f.prob == 5000 && f.every == 3 &&
	   f.times == 10 && f.start == 1048576 && f.len == 65536 &&
	   f.error == FNBLK_FAULT_EIO && !(f.present &
					 FNBLK_BIT(FNBLK_FAULT_DELAY_NS)),
	   "fault add: every condition and error eio", err);
	snprintf(line, sizeof(line), "read error delay 250ms");
	ok(!args_parse_fault(split(line, argv), argv, &f, err, sizeof(err)) &&
	   f.op == FNBLK_FAULT_READ && f.error == FNBLK_FAULT_DELAY &&
	   f.delay_ns == 250000000 && !(f.present &
					FNBLK_BIT(FNBLK_FAULT_PROB)),
	   "fault add: read error delay 250ms", err);
	snprintf(line, sizeof(line), "any error timeout");
	ok(!args_parse_fault(split(line, argv), argv, &f, err, sizeof(err)) &&
	   f.error == FNBLK_FAULT_TIMEOUT &&
	   !(f.present & FNBLK_BIT(FNBLK_FAULT_DELAY_NS)),
	   "fault add: error timeout takes the default time", err);
	snprintf(line, sizeof(line), "any error timeout 2s every 2");
	ok(!args_parse_fault(split(line, argv), argv, &f, err, sizeof(err)) &&
	   f.delay_ns == 2000000000ULL && f.every == 2,
	   "fault add: error timeout 2s, then more conditions", err);
	fault_refused("sideways error eio", "'sideways': expected read, write "
		      "or any");
	fault_refused("write", "missing error eio|timeout|delay DUR");
	fault_refused("write error crash", "error 'crash': expected eio, "
		      "timeout or delay");
	fault_refused("write error delay", "delay: missing DUR, e.g. delay "
		      "100ms");
	fault_refused("write error delay 0", "delay '0': must be positive");
	fault_refused("write prob 0.5 error eio", "prob '0.5': a percentage, "
		      "e.g. 0.5%");
	fault_refused("write prob 150% error eio", "prob '150%': must be "
		      "0.0001% to 100%");
	fault_refused("write every 0 error eio", "every '0': too small "
		      "(expected 1..4294967295)");
	fault_refused("write range 4096 error eio", "range '4096': expected "
		      "START+LEN");
	fault_refused("write range 0+0 error eio", "range '0+0': the length "
		      "must be positive");
	fault_refused("write colour red error eio", "unknown argument 'colour' "
		      "(expected prob, every, times, range or error)");
}

int main(void)
{
	char err[256];
	uint64_t v;
	uint32_t w;

	printf("TAP version 13\n");
	full_config();
	partial_config();
	test_fault();

	refused("size 3Q", "size '3Q': unknown unit (sizes take B, K/KiB, "
		"M/MiB, G/GiB, T/TiB for powers of 1024 or kB, MB, GB, TB for "
		"powers of 1000)");
	refused("size 1000", "size '1000': must be a positive multiple of 4KiB");
	refused("size 0", "size '0': must be a positive multiple of 4KiB");
	refused("size 0.1k", "size '0.1k': not a whole number of bytes");
	refused("bw 2TiB/s", "bw '2TiB/s': above the maximum of 1TiB/s");
	refused("bw 100Mbit/s", "bw '100Mbit/s': bits are not accepted; write "
		"bytes (B, KiB, MB, ...)");
	refused("bw 5MiB/h", "bw '5MiB/h': rates are per second: write SIZE/s "
		"(e.g. 64MiB/s)");
	refused("latency 200", "latency '200': missing unit (ns, us, ms or s)");
	refused("grace 3min", "grace '3min': unknown unit (durations take ns, "
		"us, ms or s)");
	refused("latency -1ms", "latency '-1ms': negative values are not "
		"allowed");
	refused("overhead 99999999999999999999", "overhead "
		"'99999999999999999999': too large");
	refused("key uid", "key 'uid': expected tgid, pid, cgroup or single");
	refused("policy rr", "policy 'rr': expected anon, fifo or weighted");
	refused("users reads", "users 'reads': expected all or writes");
	refused("store disk", "store 'disk': expected memory or none");
	refused("cache writeback", "cache 'writeback': expected durable or "
		"volatile");
	refused("size 4k colour blue", "unknown argument 'colour' (expected "
		"size, bw, fn, latency, overhead, key, policy, users, grace, "
		"store, cache, max-users)");
	refused("size", "size: missing value");
	refused("size 4k size 8k", "size given twice");
	refused("mydisk size 4k", "unknown argument 'mydisk' (expected a device "
		"name fnblkN or size, bw, fn, latency, overhead, key, policy, "
		"users, grace, store, cache, max-users)");
	refused("max-users 0", "max-users '0': too small (expected "
		"1..1048576)");
	refused("fnblkx size 4k", "device 'fnblkx': expected fnblkN or a device "
		"number N");
	refused("fnblk size 4k", "device 'fnblk': expected fnblkN or a device "
		"number N");

	{
		/* The reason is the module parser's; only our prefix is ours. */
		char line[] = "fn linear:0";
		struct fnblk_dev_config c;
		char *argv[4];

		ok(args_parse_config(split(line, argv), argv, NULL, &c, err,
				     sizeof(err)) == -1 &&
		   !strncmp(err, "fn 'linear:0': ", 15) && strlen(err) > 15,
		   "bad f(n) spec refused with the parser's reason", err);
	}
	ok(!args_check_dev("fnblk12", err, sizeof(err)) &&
	   !args_check_dev("7", err, sizeof(err)), "fnblk12 and 7 are devices",
	   err);
	ok(args_check_dev("fnblk1x", err, sizeof(err)) == -1 &&
	   !strcmp(err, "device 'fnblk1x': expected fnblkN or a device number N"),
	   "fnblk1x is not a device", err);

	ok(!args_parse_weight("250", &w, err, sizeof(err)) && w == 250,
	   "weight 250", err);
	ok(args_parse_weight("0", &w, err, sizeof(err)) == -1 &&
	   !strcmp(err, "weight '0': too small (expected 1..1000000)"),
	   "weight 0 refused", err);
	ok(args_parse_weight("1000001", &w, err, sizeof(err)) == -1 &&
	   !strcmp(err, "weight '1000001': too large (expected 1..1000000)"),
	   "weight above the maximum refused", err);
	ok(!args_parse_user_key("4242", &v, err, sizeof(err)) && v == 4242,
	   "user key 4242", err);
	ok(args_parse_user_key("bob", &v, err, sizeof(err)) == -1 &&
	   !strcmp(err, "user 'bob': not a number (a user key is a number, as "
		   "'fnblkctl users' lists it)"), "user key must be a number",
	   err);
	ok(!args_parse_interval("interval", "2", &v, err, sizeof(err)) &&
	   v == 2000000000ULL, "bare interval is seconds", err);
	ok(!args_parse_interval("interval", "250ms", &v, err, sizeof(err)) &&
	   v == 250000000ULL, "interval 250ms", err);
	ok(args_parse_interval("interval", "0", &v, err, sizeof(err)) == -1 &&
	   !strcmp(err, "interval '0': must be positive"),
	   "interval 0 refused", err);
	ok(args_parse_interval("interval", "fast", &v, err, sizeof(err)) == -1 &&
	   !strcmp(err, "interval 'fast': not a number"),
	   "interval 'fast' refused with its own spelling", err);
	ok(args_parse_count("-n", "0", 1, 10, &v, err, sizeof(err)) == -1 &&
	   !strcmp(err, "-n '0': too small (expected 1..10)"),
	   "count below range refused", err);

	printf("1..%d\n", nr_tests);
	return nr_failed ? 1 : 0;
}
