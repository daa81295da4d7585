// SPDX-License-Identifier: GPL-2.0
/* TAP tests of unit parsing and printing (units.c) and enum names. */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fnblk.h"
#include "module/fnblk_sched.h"

static int nr_tests, nr_failed;

static void report(int ok, const char *fmt, const char *what, const char *detail)
{
	nr_tests++;
	if (!ok)
		nr_failed++;
	printf("%sok %d - ", ok ? "" : "not ", nr_tests);
	printf(fmt, what);
	putchar('\n');
	if (!ok)
		printf("#   %s\n", detail);
}

typedef int (*parse_fn)(const char *, uint64_t *, const char **);

/* s parses to want. */
static void parses(const char *kind, parse_fn fn, const char *s, uint64_t want)
{
	char name[96], detail[160];
	const char *why = "";
	uint64_t v = 0;
	int err = fn(s, &v, &why);

	snprintf(name, sizeof(name), "%s \"%s\" = %" PRIu64, kind, s, want);
	snprintf(detail, sizeof(detail), "got err %d (%s), value %" PRIu64,
		 err, why, v);
	report(!err && v == want, "%s", name, detail);
}

/* s is refused with errno want_err and a message containing want_why. */
static void refuses(const char *kind, parse_fn fn, const char *s, int want_err,
		    const char *want_why)
{
	char name[128], detail[200];
	const char *why = "";
	uint64_t v = 0;
	int err = fn(s, &v, &why);

	snprintf(name, sizeof(name), "%s \"%s\" refused: %s", kind, s,
		 want_why);
	snprintf(detail, sizeof(detail), "got err %d, why \"%s\", value %" PRIu64,
		 err, why, v);
	report(err == -want_err && strstr(why, want_why), "%s", name, detail);
}

static void formats(const char *kind, const char *got, const char *want)
{
	char name[96], detail[96];

	snprintf(name, sizeof(name), "%s prints \"%s\"", kind, want);
	snprintf(detail, sizeof(detail), "got \"%s\"", got);
	report(!strcmp(got, want), "%s", name, detail);
}

static int parse_weight(const char *s, uint64_t *v, const char **why)
{
	return fnblk_parse_uint(s, 1, FNBLK_WEIGHT_MAX, v, why);
}

int main(void)
{
	char buf[FNBLK_UNIT_BUFLEN];

	printf("TAP version 13\n");
	/* Sizes: binary single letters and iB, decimal B forms. */
	parses("size", fnblk_parse_size, "4096", 4096);
	parses("size", fnblk_parse_size, "4k", 4096);
	parses("size", fnblk_parse_size, "4K", 4096);
	parses("size", fnblk_parse_size, "1G", 1ULL << 30);
	parses("size", fnblk_parse_size, "64MiB", 64ULL << 20);
	parses("size", fnblk_parse_size, "1.5k", 1536);
	parses("size", fnblk_parse_size, "2T", 2ULL << 40);
	parses("size", fnblk_parse_size, "1MB", 1000000);
	parses("size", fnblk_parse_size, "3kB", 3000);
	parses("size", fnblk_parse_size, "512B", 512);
	parses("size", fnblk_parse_size, "0", 0);
	refuses("size", fnblk_parse_size, "0.1k", EINVAL,
		"not a whole number of bytes");
	refuses("size", fnblk_parse_size, "12Q", EINVAL, "unknown unit");
	refuses("size", fnblk_parse_size, "1Mb", EINVAL, "bits are not accepted");
	refuses("size", fnblk_parse_size, "", EINVAL, "empty value");
	refuses("size", fnblk_parse_size, "-4k", EINVAL,
		"negative values are not allowed");
	refuses("size", fnblk_parse_size, "abc", EINVAL, "not a number");
	refuses("size", fnblk_parse_size, "1.k", EINVAL,
		"decimal point must be followed by digits");
	refuses("size", fnblk_parse_size, "16777216T", ERANGE, "too large");
	refuses("size", fnblk_parse_size, "18446744073709551616", ERANGE,
		"too large");
	parses("size", fnblk_parse_size, "18446744073709551615",
	       UINT64_MAX);
	refuses("size", fnblk_parse_size, " 4k", EINVAL, "not a number");
	refuses("size", fnblk_parse_size, "4 k", EINVAL, "unknown unit");

	/* Rates. */
	parses("rate", fnblk_parse_rate, "64MiB/s", 64ULL << 20);
	parses("rate", fnblk_parse_rate, "64M/s", 64ULL << 20);
	parses("rate", fnblk_parse_rate, "10MB/s", 10000000);
	parses("rate", fnblk_parse_rate, "1G", 1ULL << 30);
	parses("rate", fnblk_parse_rate, "unlimited", 0);
	parses("rate", fnblk_parse_rate, "0", 0);
	refuses("rate", fnblk_parse_rate, "64MiB/min", EINVAL,
		"rates are per second");
	refuses("rate", fnblk_parse_rate, "100Mbit/s", EINVAL,
		"bits are not accepted");
	refuses("rate", fnblk_parse_rate, "/s", EINVAL, "empty value");

	/* Durations. */
	parses("duration", fnblk_parse_duration, "200us", 200000);
	parses("duration", fnblk_parse_duration, "1.5ms", 1500000);
	parses("duration", fnblk_parse_duration, "2s", 2000000000);
	parses("duration", fnblk_parse_duration, "750ns", 750);
	parses("duration", fnblk_parse_duration, "3\xc2\xb5s", 3000);
	parses("duration", fnblk_parse_duration, "0", 0);
	refuses("duration", fnblk_parse_duration, "200", EINVAL,
		"missing unit (ns, us, ms or s)");
	refuses("duration", fnblk_parse_duration, "5min", EINVAL,
		"unknown unit (durations take ns, us, ms or s)");
	refuses("duration", fnblk_parse_duration, "1.5ns", EINVAL,
		"not a whole number of nanoseconds");
	refuses("duration", fnblk_parse_duration, "99999999999s", ERANGE,
		"too large");

	/* Plain integers with a range. */
	parses("weight", parse_weight, "1", 1);
	parses("weight", parse_weight, "1000000", 1000000);
	refuses("weight", parse_weight, "0", ERANGE, "too small");
	refuses("weight", parse_weight, "1000001", ERANGE, "too large");
	refuses("weight", parse_weight, "2.5", EINVAL, "not a whole number");
	refuses("weight", parse_weight, "3x", EINVAL, "not a whole number");

	/* Printing. */
	formats("size", fnblk_format_size(64ULL << 20, buf, sizeof(buf)),
		"64MiB");
	formats("size", fnblk_format_size(1536, buf, sizeof(buf)), "1.5KiB");
	formats("size", fnblk_format_size(1267015680ULL, buf, sizeof(buf)),
		"1.18GiB");
	formats("size", fnblk_format_size(100, buf, sizeof(buf)), "100B");
	formats("size", fnblk_format_size(0, buf, sizeof(buf)), "0B");
	formats("exact size",
		fnblk_format_size_exact((1ULL << 30) + 4096, buf, sizeof(buf)),
		"1048580KiB");
	formats("rate", fnblk_format_rate(64ULL << 20, buf, sizeof(buf)),
		"64MiB/s");
	formats("rate", fnblk_format_rate(0, buf, sizeof(buf)), "0B/s");
	formats("rate", fnblk_format_rate(20971519, buf, sizeof(buf)),
		"20MiB/s");
	formats("duration", fnblk_format_duration(200000, buf, sizeof(buf)),
		"200us");
	formats("duration", fnblk_format_duration(1500000, buf, sizeof(buf)),
		"1.5ms");
	formats("duration", fnblk_format_duration(1234567, buf, sizeof(buf)),
		"1.235ms");
	formats("duration", fnblk_format_duration(176513715, buf, sizeof(buf)),
		"176.514ms");
	formats("exact duration",
		fnblk_format_duration_exact(1234567, buf, sizeof(buf)),
		"1234.567us");
	formats("exact duration",
		fnblk_format_duration_exact(1500000, buf, sizeof(buf)),
		"1.5ms");
	formats("duration", fnblk_format_duration(999, buf, sizeof(buf)),
		"999ns");
	formats("duration", fnblk_format_duration(0, buf, sizeof(buf)), "0ns");

	/* Round trip: what we print, we parse back to the same value. */
	{
		static const uint64_t sizes[] = { 4096, 1ULL << 30, 3ULL << 40,
						  (1ULL << 30) + 4096, 1536 };
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			parses("size round trip", fnblk_parse_size,
			       fnblk_format_size_exact(sizes[i], buf,
						       sizeof(buf)), sizes[i]);
		parses("duration round trip", fnblk_parse_duration,
		       fnblk_format_duration_exact(1234567, buf, sizeof(buf)),
		       1234567);
	}

	/* Enum names both ways. */
	report(fnblk_policy_value("weighted") == FNBLK_POLICY_WEIGHTED &&
	       !strcmp(fnblk_policy_name(FNBLK_POLICY_FIFO), "fifo"),
	       "%s", "policy names", "mismatch");
	report(fnblk_key_value("cgroup") == FNBLK_KEY_CGROUP &&
	       fnblk_key_value("uid") == -1 && !fnblk_key_name(99),
	       "%s", "key names and unknowns", "mismatch");
	report(fnblk_nhist_bin_low(63) == 63 && fnblk_nhist_bin_low(64) == 64 &&
	       fnblk_nhist_bin_high(64) == 127 &&
	       fnblk_nhist_bin_low(65) == 128 &&
	       fnblk_nhist_bin_high(FNBLK_NHIST_BINS - 1) == UINT32_MAX,
	       "%s", "n histogram bin bounds", "mismatch");

	/* Our bin bounds agree with the module's own bin function. */
	{
		bool same = true;

		for (unsigned int b = 0; b < FNBLK_NHIST_BINS; b++) {
			uint32_t hi = fnblk_nhist_bin_high(b);

			if (fnblk_nhist_bin(fnblk_nhist_bin_low(b)) != b ||
			    fnblk_nhist_bin(hi) != b ||
			    (hi != UINT32_MAX && fnblk_nhist_bin(hi + 1) != b + 1))
				same = false;
		}
		report(same, "%s", "bin bounds agree with fnblk_nhist_bin()",
		       "mismatch");
	}

	printf("1..%d\n", nr_tests);
	return nr_failed ? 1 : 0;
}
