// SPDX-License-Identifier: GPL-2.0
/*
 * Unit parsing and printing for sizes, rates and durations; the rules are
 * in units.h. Numbers are parsed exactly (integer mantissa and a count of
 * decimals) so "1.5k" is 1536 and "0.1k" is refused rather than rounded.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

#define MAX_DECIMALS	18

struct unit {
	const char *name;
	uint64_t mult;
};

static const struct unit size_units[] = {
	{ "", 1 }, { "B", 1 },
	{ "k", 1ULL << 10 }, { "K", 1ULL << 10 }, { "KiB", 1ULL << 10 },
	{ "m", 1ULL << 20 }, { "M", 1ULL << 20 }, { "MiB", 1ULL << 20 },
	{ "g", 1ULL << 30 }, { "G", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	{ "t", 1ULL << 40 }, { "T", 1ULL << 40 }, { "TiB", 1ULL << 40 },
	{ "kiB", 1ULL << 10 }, { "miB", 1ULL << 20 }, { "giB", 1ULL << 30 },
	{ "tiB", 1ULL << 40 },
	{ "kB", 1000ULL }, { "KB", 1000ULL },
	{ "MB", 1000000ULL }, { "GB", 1000000000ULL },
	{ "TB", 1000000000000ULL },
	{ NULL, 0 }
};

static const struct unit duration_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 },
	{ "ms", 1000000 }, { "s", 1000000000 },
	{ NULL, 0 }
};

static const char size_unit_help[] =
	"unknown unit (sizes take B, K/KiB, M/MiB, G/GiB, T/TiB for powers "
	"of 1024 or kB, MB, GB, TB for powers of 1000)";

/* A decimal number: mantissa and how many of its digits are decimals. */
struct number {
	unsigned __int128 mant;
	unsigned int decimals;
};

/* Parse the leading number of s; *rest points past it. */
static int parse_number(const char *s, struct number *n, const char **rest,
			const char **why)
{
	const unsigned __int128 limit = (unsigned __int128)1 << 100;
	const char *p = s;

	n->mant = 0;
	n->decimals = 0;
	if (!*p) {
		*why = "empty value";
		return -EINVAL;
	}
	if (*p == '-') {
		*why = "negative values are not allowed";
		return -EINVAL;
	}
	if (*p < '0' || *p > '9') {
		*why = "not a number";
		return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		n->mant = n->mant * 10 + (unsigned)(*p - '0');
		if (n->mant > limit) {
			*why = "too large";
			return -ERANGE;
		}
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9') {
			*why = "a decimal point must be followed by digits";
			return -EINVAL;
		}
		for (; *p >= '0' && *p <= '9'; p++) {
			if (++n->decimals > MAX_DECIMALS) {
				*why = "too many decimals";
				return -EINVAL;
			}
			n->mant = n->mant * 10 + (unsigned)(*p - '0');
			if (n->mant > limit) {
				*why = "too large";
				return -ERANGE;
			}
		}
	}
	*rest = p;
	return 0;
}

/* n times mult as an exact whole number. */
static int scale(const struct number *n, uint64_t mult, uint64_t *out,
		 const char *fraction_why, const char **why)
{
	unsigned __int128 div = 1, v;
	unsigned int i;

	for (i = 0; i < n->decimals; i++)
		div *= 10;
	/* mant < 2^100 and mult < 2^41: the product fits in 128 bits. */
	v = n->mant * mult;
	if (v % div) {
		*why = fraction_why;
		return -EINVAL;
	}
	v /= div;
	if (v > UINT64_MAX) {
		*why = "too large";
		return -ERANGE;
	}
	*out = (uint64_t)v;
	return 0;
}

static const struct unit *find_unit(const struct unit *table, const char *s,
				    size_t len)
{
	for (; table->name; table++)
		if (strlen(table->name) == len && !memcmp(table->name, s, len))
			return table;
	return NULL;
}

/* A bit suffix ("Mb", "Mbit", "kbps") people confuse with bytes. */
static int looks_like_bits(const char *s, size_t len)
{
	return len >= 1 && memchr(s, 'b', len) != NULL;
}

static int parse_size_len(const char *s, size_t len, uint64_t *bytes,
			  const char **why)
{
	char tmp[64];
	const struct unit *u;
	const char *rest;
	struct number n;
	int err;

	if (len >= sizeof(tmp)) {
		*why = "value too long";
		return -EINVAL;
	}
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	err = parse_number(tmp, &n, &rest, why);
	if (err)
		return err;
	u = find_unit(size_units, rest, strlen(rest));
	if (!u) {
		*why = looks_like_bits(rest, strlen(rest)) ?
			"bits are not accepted; write bytes (B, KiB, MB, ...)" :
			size_unit_help;
		return -EINVAL;
	}
	return scale(&n, u->mult, bytes, "not a whole number of bytes", why);
}

int fnblk_parse_size(const char *s, uint64_t *bytes, const char **why)
{
	return parse_size_len(s, strlen(s), bytes, why);
}

int fnblk_parse_rate(const char *s, uint64_t *bytes_per_s, const char **why)
{
	size_t len = strlen(s);

	if (!strcmp(s, "unlimited")) {
		*bytes_per_s = 0;
		return 0;
	}
	if (len >= 2 && !strcmp(s + len - 2, "/s"))
		len -= 2;
	else if (len > 0 && strchr(s, '/')) {
		*why = "rates are per second: write SIZE/s (e.g. 64MiB/s)";
		return -EINVAL;
	}
	return parse_size_len(s, len, bytes_per_s, why);
}

int fnblk_parse_duration(const char *s, uint64_t *ns, const char **why)
{
	const struct unit *u;
	const char *rest;
	struct number n;
	int err;

	err = parse_number(s, &n, &rest, why);
	if (err)
		return err;
	if (!*rest) {
		if (n.mant == 0) {
			*ns = 0;
			return 0;
		}
		*why = "missing unit (ns, us, ms or s)";
		return -EINVAL;
	}
	u = find_unit(duration_units, rest, strlen(rest));
	if (!u) {
		*why = "unknown unit (durations take ns, us, ms or s)";
		return -EINVAL;
	}
	return scale(&n, u->mult, ns, "not a whole number of nanoseconds",
		     why);
}

int fnblk_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v,
		     const char **why)
{
	const char *rest;
	struct number n;
	int err;

	err = parse_number(s, &n, &rest, why);
	if (err)
		return err;
	if (*rest || n.decimals) {
		*why = "not a whole number";
		return -EINVAL;
	}
	if (n.mant < min || n.mant > max) {
		*why = n.mant < min ? "too small" : "too large";
		return -ERANGE;
	}
	*v = (uint64_t)n.mant;
	return 0;
}

/*
 * v / unit with up to three decimals, trailing zeros dropped; exact when
 * unit divides v.
 */
static const char *format_scaled(uint64_t v, uint64_t unit, const char *name,
				 const char *suffix, char *buf, size_t len)
{
	uint64_t whole = v / unit, rem = v % unit;
	/* Round to thousandths; carry into the whole part. */
	unsigned __int128 milli = ((unsigned __int128)rem * 1000 + unit / 2) /
				  unit;
	char frac[8] = "";

	if (milli >= 1000) {
		whole++;
		milli = 0;
	}
	if (milli) {
		snprintf(frac, sizeof(frac), ".%03u", (unsigned int)milli);
		for (size_t i = strlen(frac) - 1; frac[i] == '0'; i--)
			frac[i] = '\0';
	}
	snprintf(buf, len, "%llu%s%s%s", (unsigned long long)whole, frac, name,
		 suffix);
	return buf;
}

static const char *format_size_suffix(uint64_t bytes, bool exact,
				      const char *suffix, char *buf,
				      size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB",
					     "PiB", "EiB" };
	unsigned int i = 0;

	/* The largest unit not above the value ... */
	while (i + 1 < sizeof(names) / sizeof(names[0]) &&
	       bytes >= 1ULL << (10 * (i + 1)))
		i++;
	/* ... or, for an exact form, the largest that divides it. */
	while (exact && i > 0 && bytes % (1ULL << (10 * i)))
		i--;
	return format_scaled(bytes, 1ULL << (10 * i), names[i], suffix, buf,
			     len);
}

const char *fnblk_format_size(uint64_t bytes, char *buf, size_t len)
{
	return format_size_suffix(bytes, false, "", buf, len);
}

const char *fnblk_format_size_exact(uint64_t bytes, char *buf, size_t len)
{
	return format_size_suffix(bytes, true, "", buf, len);
}

const char *fnblk_format_rate(uint64_t bytes_per_s, char *buf, size_t len)
{
	return format_size_suffix(bytes_per_s, false, "/s", buf, len);
}

static const struct unit print_duration_units[] = {
	{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL },
	{ "ns", 1 },
};

const char *fnblk_format_duration(uint64_t ns, char *buf, size_t len)
{
	const struct unit *u = print_duration_units;

	while (u->mult > 1 && ns < u->mult)
		u++;
	return format_scaled(ns, u->mult, u->name, "", buf, len);
}

const char *fnblk_format_duration_exact(uint64_t ns, char *buf, size_t len)
{
	/* The largest unit that shows the value exactly in three decimals. */
	for (const struct unit *u = print_duration_units; u->mult > 1; u++)
		if (ns >= u->mult && ns < UINT64_MAX / 1000 &&
		    (ns * 1000) % u->mult == 0)
			return format_scaled(ns, u->mult, u->name, "", buf,
					     len);
	return format_scaled(ns, 1, "ns", "", buf, len);
}

int fnblk_parse_real(const char *s, bool percent, double *v, const char **why)
{
	const char *rest;
	struct number n;
	double x;
	int err;

	err = parse_number(s, &n, &rest, why);
	if (err)
		return err;
	x = (double)n.mant;
	if (n.decimals)
		x /= pow(10, n.decimals);
	if (percent && !strcmp(rest, "%")) {
		x /= 100;
		rest++;
	}
	if (*rest) {
		*why = percent ? "not a number (write 0.05 or 5%)" :
				 "not a number";
		return -EINVAL;
	}
	*v = x;
	return 0;
}

int fnblk_parse_uint_range(const char *s, uint64_t min, uint64_t max,
			   uint64_t *lo, uint64_t *hi, const char **why)
{
	const char *dash = strchr(s, '-');
	char first[32];
	int err;

	if (!dash) {
		err = fnblk_parse_uint(s, min, max, lo, why);
		if (!err)
			*hi = *lo;
		return err;
	}
	if ((size_t)(dash - s) >= sizeof(first)) {
		*why = "too large";
		return -ERANGE;
	}
	memcpy(first, s, dash - s);
	first[dash - s] = '\0';
	err = fnblk_parse_uint(first, min, max, lo, why);
	if (!err)
		err = fnblk_parse_uint(dash + 1, min, max, hi, why);
	if (!err && *hi < *lo) {
		*why = "the range ends before it starts";
		err = -EINVAL;
	}
	return err;
}
