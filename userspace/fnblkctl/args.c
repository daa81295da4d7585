// SPDX-License-Identifier: GPL-2.0
/* Argument parsing of fnblkctl (see args.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "module/fnblk_sched.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The configuration keywords, in the order the man page lists them. */
enum kind { SIZE, RATE, DURATION, BYTES, FN, KEY, POLICY, USERS, STORE,
	    CACHE, COUNT };

struct keyword {
	const char *name;
	int attr;		/* enum fnblk_attr */
	enum kind kind;
	const char *arg;	/* the value's placeholder, for the help */
	const char *help;
};

static const struct keyword keywords[] = {
	{ "size", FNBLK_A_SIZE, SIZE, "SIZE",
	  "Capacity; a positive multiple of 4KiB." },
	{ "bw", FNBLK_A_BW, RATE, "RATE",
	  "B, the total bandwidth at n = 1; 0 or unlimited means "
	  "unthrottled. At most 1TiB/s." },
	{ "fn", FNBLK_A_FN, FN, "SPEC",
	  "f(n): constant, linear:K (f(n) = min(n, K)), power:A (n^A), or "
	  "table:f1,f2,... (beyond the table the last value holds). The "
	  "spec is checked with the module's own parser before it is sent." },
	{ "latency", FNBLK_A_LATENCY_NS, DURATION, "DUR",
	  "Added to every request after its bandwidth share is served." },
	{ "overhead", FNBLK_A_OVERHEAD, BYTES, "SIZE",
	  "Service demand added to every request, in bytes." },
	{ "key", FNBLK_A_KEY, KEY, "MODE",
	  "Who counts as one user: tgid (process, the default), pid "
	  "(thread), cgroup, or single (everyone is one user)." },
	{ "policy", FNBLK_A_POLICY, POLICY, "P",
	  "anon (equal split), fifo (one request at a time, f(1)*B) or "
	  "weighted (split by per-user weight, see fnblkctl weight)." },
	{ "users", FNBLK_A_USERS, USERS, "U",
	  "Which requests count in n: all, or writes only." },
	{ "grace", FNBLK_A_GRACE_NS, DURATION, "DUR",
	  "How long a user with nothing in flight still counts in n, from its last completion." },
	{ "store", FNBLK_A_STORE, STORE, "S",
	  "memory (pages allocated on first write) or none (writes "
	  "discarded, reads return zeros)." },
	{ "cache", FNBLK_A_CACHE, CACHE, "C",
	  "durable (a completed write is durable, the default) or volatile "
	  "(durable once a flush or FUA write made it so; fnblkctl dev crash "
	  "loses the rest). Both advertise a write cache, so file systems "
	  "send flushes. Changes only while the device is closed." },
	{ "max-users", FNBLK_A_MAX_USERS, COUNT, "N",
	  "How many users the device tells apart, 1 to 1048576 (16384). "
	  "Beyond that, new users share one overflow user until idle ones "
	  "are freed (see fnblkctl users)." },
};

const struct cli_term *args_setting_terms(void)
{
	static struct cli_term terms[ARRAY_SIZE(keywords) + 1];
	static char words[ARRAY_SIZE(keywords)][32];

	if (terms[0].term)
		return terms;
	for (size_t i = 0; i < ARRAY_SIZE(keywords); i++) {
		snprintf(words[i], sizeof(words[i]), "%s %s", keywords[i].name,
			 keywords[i].arg);
		terms[i] = (struct cli_term){ words[i], keywords[i].help };
	}
	return terms;
}

static const char keyword_list[] =
	"size, bw, fn, latency, overhead, key, policy, users, grace, store, "
	"cache, max-users";

static const struct keyword *find_keyword(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(keywords); i++)
		if (!strcmp(keywords[i].name, s))
			return &keywords[i];
	return NULL;
}

int args_check_dev(const char *s, char *err, size_t errlen)
{
	const char *digits = s;

	if (!strncmp(s, "fnblk", 5))
		digits = s + 5;
	if (!*digits || strspn(digits, "0123456789") != strlen(digits) ||
	    strlen(digits) > 9) {
		snprintf(err, errlen,
			 "device '%s': expected fnblkN or a device number N",
			 s);
		return -1;
	}
	return 0;
}

/* An enum value by name, with the valid names in the message. */
static int parse_enum(const struct keyword *kw, const char *v, uint8_t *out,
		      char *err, size_t errlen)
{
	const char *(*name_of)(unsigned int) = NULL;
	int (*value_of)(const char *) = NULL;
	char names[128] = "";
	int x;

	switch (kw->kind) {
	case KEY:
		name_of = fnblk_key_name;
		value_of = fnblk_key_value;
		break;
	case POLICY:
		name_of = fnblk_policy_name;
		value_of = fnblk_policy_value;
		break;
	case USERS:
		name_of = fnblk_users_name;
		value_of = fnblk_users_value;
		break;
	case CACHE:
		name_of = fnblk_cache_name;
		value_of = fnblk_cache_value;
		break;
	default:
		name_of = fnblk_store_name;
		value_of = fnblk_store_value;
		break;
	}
	x = value_of(v);
	if (x >= 0) {
		*out = (uint8_t)x;
		return 0;
	}
	for (unsigned int i = 0; name_of(i); i++) {
		if (i)
			strncat(names, name_of(i + 1) ? ", " : " or ",
				sizeof(names) - strlen(names) - 1);
		strncat(names, name_of(i), sizeof(names) - strlen(names) - 1);
	}
	snprintf(err, errlen, "%s '%s': expected %s", kw->name, v, names);
	return -1;
}

static int parse_fn(const char *v, struct fnblk_dev_config *cfg, char *err,
		    size_t errlen)
{
	static struct fnblk_fn fn;
	const char *why = NULL;

	if (strlen(v) >= sizeof(cfg->fn)) {
		snprintf(err, errlen, "fn: spec longer than %d characters",
			 FNBLK_FN_SPEC_LEN - 1);
		return -1;
	}
	/* The module's own parser: the kernel would say the same, later. */
	if (fnblk_fn_parse(v, &fn, &why)) {
		snprintf(err, errlen, "fn '%s': %s", v,
			 why ? why : "invalid f(n) spec");
		return -1;
	}
	strcpy(cfg->fn, v);
	return 0;
}

static int parse_value(const struct keyword *kw, const char *v,
		       struct fnblk_dev_config *cfg, char *err, size_t errlen)
{
	const char *why = "";
	uint64_t x = 0;
	int ret = 0;
	char buf[FNBLK_UNIT_BUFLEN];

	switch (kw->kind) {
	case SIZE:
	case BYTES:
		ret = fnblk_parse_size(v, &x, &why);
		break;
	case RATE:
		ret = fnblk_parse_rate(v, &x, &why);
		break;
	case DURATION:
		ret = fnblk_parse_duration(v, &x, &why);
		break;
	case FN:
		return parse_fn(v, cfg, err, errlen);
	case KEY:
		return parse_enum(kw, v, &cfg->key, err, errlen);
	case POLICY:
		return parse_enum(kw, v, &cfg->policy, err, errlen);
	case USERS:
		return parse_enum(kw, v, &cfg->users, err, errlen);
	case STORE:
		return parse_enum(kw, v, &cfg->store, err, errlen);
	case CACHE:
		return parse_enum(kw, v, &cfg->cache, err, errlen);
	case COUNT:
		if (args_parse_count(kw->name, v, 1, FNBLK_MAX_USERS_LIMIT, &x,
				     err, errlen))
			return -1;
		cfg->max_users = (uint32_t)x;
		return 0;
	}
	if (ret) {
		snprintf(err, errlen, "%s '%s': %s", kw->name, v, why);
		return -1;
	}
	switch (kw->attr) {
	case FNBLK_A_SIZE:
		if (!x || x % 4096) {
			snprintf(err, errlen,
				 "size '%s': must be a positive multiple of 4KiB",
				 v);
			return -1;
		}
		cfg->size = x;
		break;
	case FNBLK_A_BW:
		if (x > FNBLK_BW_MAX) {
			snprintf(err, errlen, "bw '%s': above the maximum of %s",
				 v, fnblk_format_rate(FNBLK_BW_MAX, buf,
						      sizeof(buf)));
			return -1;
		}
		cfg->bw = x;
		break;
	case FNBLK_A_OVERHEAD:
		cfg->overhead = x;
		break;
	case FNBLK_A_LATENCY_NS:
		cfg->latency_ns = x;
		break;
	case FNBLK_A_GRACE_NS:
		cfg->grace_ns = x;
		break;
	}
	return 0;
}

int args_parse_config(int argc, char **argv, const char **name,
		      struct fnblk_dev_config *cfg, char *err, size_t errlen)
{
	int i = 0;

	memset(cfg, 0, sizeof(*cfg));
	if (name) {
		*name = NULL;
		if (argc > 0 && !find_keyword(argv[0])) {
			/* Only what looks like a device is taken for one. */
			if (strncmp(argv[0], "fnblk", 5) &&
			    (argv[0][0] < '0' || argv[0][0] > '9')) {
				snprintf(err, errlen, "unknown argument '%s' "
					 "(expected a device name fnblkN or %s)",
					 argv[0], keyword_list);
				return -1;
			}
			if (args_check_dev(argv[0], err, errlen))
				return -1;
			*name = argv[i++];
		}
	}
	for (; i < argc; i += 2) {
		const struct keyword *kw = find_keyword(argv[i]);

		if (!kw) {
			snprintf(err, errlen,
				 "unknown argument '%s' (expected %s)",
				 argv[i], keyword_list);
			return -1;
		}
		if (i + 1 >= argc) {
			snprintf(err, errlen, "%s: missing value", kw->name);
			return -1;
		}
		if (cfg->present & FNBLK_BIT(kw->attr)) {
			snprintf(err, errlen, "%s given twice", kw->name);
			return -1;
		}
		if (parse_value(kw, argv[i + 1], cfg, err, errlen))
			return -1;
		cfg->present |= FNBLK_BIT(kw->attr);
	}
	return 0;
}

int args_parse_user_key(const char *s, uint64_t *key, char *err,
			size_t errlen)
{
	const char *why;

	if (fnblk_parse_uint(s, 0, UINT64_MAX, key, &why)) {
		snprintf(err, errlen, "user '%s': %s (a user key is a number, "
			 "as 'fnblkctl users' lists it)", s, why);
		return -1;
	}
	return 0;
}

int args_parse_weight(const char *s, uint32_t *weight, char *err,
		      size_t errlen)
{
	const char *why;
	uint64_t v;

	if (fnblk_parse_uint(s, 1, FNBLK_WEIGHT_MAX, &v, &why)) {
		snprintf(err, errlen, "weight '%s': %s (expected 1..%d)", s,
			 why, FNBLK_WEIGHT_MAX);
		return -1;
	}
	*weight = (uint32_t)v;
	return 0;
}

int args_parse_interval(const char *what, const char *s, uint64_t *ns,
			char *err, size_t errlen)
{
	const char *why, *v = s;
	/* A bare number is seconds here, as in iostat and top. */
	char buf[64];

	if (strlen(s) < sizeof(buf) - 2 && *s && !s[strspn(s, "0123456789.")]) {
		snprintf(buf, sizeof(buf), "%ss", s);
		v = buf;
	}
	if (fnblk_parse_duration(v, ns, &why)) {
		snprintf(err, errlen, "%s '%s': %s", what, s, why);
		return -1;
	}
	if (!*ns) {
		snprintf(err, errlen, "%s '%s': must be positive", what, s);
		return -1;
	}
	return 0;
}

int args_parse_count(const char *what, const char *s, uint64_t min,
		     uint64_t max, uint64_t *v, char *err, size_t errlen)
{
	const char *why;

	if (fnblk_parse_uint(s, min, max, v, &why)) {
		snprintf(err, errlen, "%s '%s': %s (expected %llu..%llu)", what,
			 s, why, (unsigned long long)min,
			 (unsigned long long)max);
		return -1;
	}
	return 0;
}

/* "0.5%" as parts per million. */
static int parse_prob(const char *s, uint32_t *ppm, char *err, size_t len)
{
	const char *why;
	double v;

	if (!*s || s[strlen(s) - 1] != '%') {
		snprintf(err, len, "prob '%s': a percentage, e.g. 0.5%%", s);
		return -1;
	}
	if (fnblk_parse_real(s, true, &v, &why)) {
		snprintf(err, len, "prob '%s': %s", s, why);
		return -1;
	}
	v = round(v * FNBLK_FAULT_PROB_ONE);
	if (v < 1 || v > FNBLK_FAULT_PROB_ONE) {
		snprintf(err, len, "prob '%s': must be 0.0001%% to 100%%", s);
		return -1;
	}
	*ppm = (uint32_t)v;
	return 0;
}

/* "1MiB+64KiB": a start and a length, both sizes. */
static int parse_range(const char *s, struct fnblk_fault_info *f, char *err,
		       size_t len)
{
	const char *plus = strchr(s, '+'), *why;
	char start[64];

	if (!plus || plus == s || (size_t)(plus - s) >= sizeof(start)) {
		snprintf(err, len, "range '%s': expected START+LEN", s);
		return -1;
	}
	snprintf(start, sizeof(start), "%.*s", (int)(plus - s), s);
	if (fnblk_parse_size(start, &f->start, &why) ||
	    fnblk_parse_size(plus + 1, &f->len, &why)) {
		snprintf(err, len, "range '%s': %s", s, why);
		return -1;
	}
	if (!f->len) {
		snprintf(err, len, "range '%s': the length must be positive",
			 s);
		return -1;
	}
	f->present |= FNBLK_BIT(FNBLK_FAULT_START) | FNBLK_BIT(FNBLK_FAULT_LEN);
	return 0;
}

/* ERROR [DUR]: consumes one or two words; returns how many, or -1. */
static int parse_error(int argc, char **argv, struct fnblk_fault_info *f,
		       char *err, size_t len)
{
	int e = argc ? fnblk_fault_error_value(argv[0]) : -1;
	const char *why;

	if (e <= 0) {
		snprintf(err, len, "error '%s': expected eio, timeout or delay",
			 argc ? argv[0] : "");
		return -1;
	}
	f->error = (uint8_t)e;
	f->present |= FNBLK_BIT(FNBLK_FAULT_ERROR);
	if (e == FNBLK_FAULT_EIO)
		return 1;
	/* A timeout's time is optional, a delay's is not. */
	if (argc < 2 || (e == FNBLK_FAULT_TIMEOUT && fnblk_parse_duration(
				argv[1], &f->delay_ns, &why))) {
		if (e == FNBLK_FAULT_TIMEOUT)
			return 1;
		snprintf(err, len, "delay: missing DUR, e.g. delay 100ms");
		return -1;
	}
	if (fnblk_parse_duration(argv[1], &f->delay_ns, &why)) {
		snprintf(err, len, "delay '%s': %s", argv[1], why);
		return -1;
	}
	if (!f->delay_ns) {
		snprintf(err, len, "%s '%s': must be positive", argv[0],
			 argv[1]);
		return -1;
	}
	f->present |= FNBLK_BIT(FNBLK_FAULT_DELAY_NS);
	return 2;
}

int args_parse_fault(int argc, char **argv, struct fnblk_fault_info *f,
		     char *err, size_t len)
{
	uint64_t v;
	int i = 1, op, n;

	memset(f, 0, sizeof(*f));
	op = argc ? fnblk_fault_op_value(argv[0]) : -1;
	if (op < 0) {
		snprintf(err, len, "'%s': expected read, write or any",
			 argc ? argv[0] : "");
		return -1;
	}
	f->op = (uint8_t)op;
	f->present = FNBLK_BIT(FNBLK_FAULT_OP);
	while (i < argc) {
		const char *k = argv[i];

		if (!strcmp(k, "error")) {
			n = parse_error(argc - i - 1, argv + i + 1, f, err, len);
			if (n < 0)
				return -1;
			i += 1 + n;
			continue;
		}
		if (i + 1 >= argc) {
			snprintf(err, len, "%s: missing value", k);
			return -1;
		}
		if (!strcmp(k, "prob")) {
			if (parse_prob(argv[i + 1], &f->prob, err, len))
				return -1;
			f->present |= FNBLK_BIT(FNBLK_FAULT_PROB);
		} else if (!strcmp(k, "every")) {
			if (args_parse_count("every", argv[i + 1], 1,
					     UINT32_MAX, &v, err, len))
				return -1;
			f->every = (uint32_t)v;
			f->present |= FNBLK_BIT(FNBLK_FAULT_EVERY);
		} else if (!strcmp(k, "times")) {
			if (args_parse_count("times", argv[i + 1], 1,
					     UINT64_MAX, &f->times, err, len))
				return -1;
			f->present |= FNBLK_BIT(FNBLK_FAULT_TIMES);
		} else if (!strcmp(k, "range")) {
			if (parse_range(argv[i + 1], f, err, len))
				return -1;
		} else {
			snprintf(err, len, "unknown argument '%s' (expected "
				 "prob, every, times, range or error)", k);
			return -1;
		}
		i += 2;
	}
	if (!(f->present & FNBLK_BIT(FNBLK_FAULT_ERROR))) {
		snprintf(err, len, "missing error eio|timeout|delay DUR");
		return -1;
	}
	return 0;
}
