// SPDX-License-Identifier: GPL-2.0
/*
 * f(n) tables: parsing and printing of the shapes "constant", "linear:K",
 * "power:A" and "table:f1,f2,...". Pure C like fnblk_sched.c, so the kernel,
 * fnblkctl and the simulator accept exactly the same specifications.
 * Values are fixed point (FNBLK_FN_SHIFT fraction bits) and computed with
 * integers only, since the kernel has no floating point.
 */
#include "fnblk_sched.h"

#define Q30		0x40000000ULL
#define DEC_DIGITS	6	/* decimal places printed; exact for Q16 */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool prefix(const char *s, const char *pfx, const char **rest)
{
	while (*pfx)
		if (*s++ != *pfx++)
			return false;
	*rest = s;
	return true;
}

/*
 * Parse a decimal number ("12", "0.75", "-1.5") into fixed point with
 * FNBLK_FN_SHIFT fraction bits, rounded to nearest. Advances *sp.
 */
static int parse_fixed(const char **sp, long long *out)
{
	const char *s = *sp;
	unsigned long long ip = 0, frac = 0, scale = 1;
	bool neg = false, any = false;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	while (is_digit(*s)) {
		ip = ip * 10 + (unsigned long long)(*s++ - '0');
		any = true;
		if (ip > 1000000)
			return -FNBLK_EINVAL;
	}
	if (*s == '.') {
		s++;
		while (is_digit(*s)) {
			if (scale < 1000000000ULL) {
				frac = frac * 10 + (unsigned long long)(*s - '0');
				scale *= 10;
			}
			s++;
			any = true;
		}
	}
	if (!any)
		return -FNBLK_EINVAL;
	*out = (long long)((ip << FNBLK_FN_SHIFT) +
			   ((frac << FNBLK_FN_SHIFT) + scale / 2) / scale);
	if (neg)
		*out = -*out;
	*sp = s;
	return 0;
}

static u64 isqrt(u64 x)
{
	u64 r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* log2(n) for n >= 1, Q30. */
static long long log2_q30(u32 n)
{
	unsigned int k = 31 - __builtin_clz(n), i;
	long long res = (long long)k << 30;
	u64 x = ((u64)n << 31) >> k;	/* mantissa in [1, 2), Q31 */

	for (i = 1; i <= 30; i++) {
		x = (x * x) >> 31;
		if (x >= (2ULL << 31)) {
			x >>= 1;
			res += 1LL << (30 - i);
		}
	}
	return res;
}

/* 2^(p / 2^30) in Q30, p may be negative; saturates. */
static u64 exp2_q30(long long p)
{
	long long ip = p >> 30;		/* floor */
	u64 frac = (u64)(p - (ip << 30)), y = Q30, c = 2 * Q30;
	int i;

	/* 2^frac = product of 2^(2^-i) over the set bits of frac. */
	for (i = 1; i <= 30; i++) {
		c = isqrt(c << 30);	/* 2^(2^-i), Q30 */
		if (frac & (1ULL << (30 - i)))
			y = (y * c) >> 30;
	}
	if (ip >= 20)
		return ~0ULL;
	if (ip >= 0)
		return y << ip;
	return ip <= -62 ? 0 : y >> -ip;
}

static int fill_power(struct fnblk_fn *fn, long long a, const char **err)
{
	u32 n;
	u64 v;

	if (a < -(8LL << FNBLK_FN_SHIFT) || a > (8LL << FNBLK_FN_SHIFT)) {
		*err = "power exponent must be in [-8, 8]";
		return -FNBLK_EINVAL;
	}
	fn->nr = FNBLK_FN_MAX;
	for (n = 1; n <= FNBLK_FN_MAX; n++) {
		/* n^a = 2^(a log2 n); a is Q16, log2 Q30, product Q46. */
		v = exp2_q30((a * log2_q30(n)) >> FNBLK_FN_SHIFT);
		v = (v + (1ULL << (29 - FNBLK_FN_SHIFT))) >> (30 - FNBLK_FN_SHIFT);
		if (v > FNBLK_FN_VAL_MAX)
			v = FNBLK_FN_VAL_MAX;
		fn->val[n - 1] = v ? (u32)v : 1;
	}
	return 0;
}

static int fill_table(struct fnblk_fn *fn, const char *s, const char **err)
{
	long long v;

	fn->nr = 0;
	for (;;) {
		if (fn->nr == FNBLK_FN_MAX) {
			*err = "f(n) table has more than 1024 entries";
			return -FNBLK_EINVAL;
		}
		if (parse_fixed(&s, &v) || (*s && *s != ',')) {
			*err = "f(n) table entries must be decimal numbers separated by commas";
			return -FNBLK_EINVAL;
		}
		if (v <= 0 || v > FNBLK_FN_VAL_MAX) {
			*err = "f(n) table entries must be in (0, 1024]";
			return -FNBLK_EINVAL;
		}
		fn->val[fn->nr++] = (u32)v;
		if (!*s)
			return 0;
		s++;
	}
}

int fnblk_fn_parse(const char *spec, struct fnblk_fn *fn, const char **err)
{
	const char *s;
	long long v;
	u32 i;

	if (!spec || !*spec || !__builtin_strcmp(spec, "constant")) {
		fn->nr = 1;
		fn->val[0] = FNBLK_FN_ONE;
		return 0;
	}
	if (prefix(spec, "linear:", &s)) {
		if (parse_fixed(&s, &v) || *s || v < (long long)FNBLK_FN_ONE ||
		    v > ((long long)FNBLK_FN_MAX << FNBLK_FN_SHIFT) ||
		    (v & (FNBLK_FN_ONE - 1))) {
			*err = "linear:K needs a whole K from 1 to 1024";
			return -FNBLK_EINVAL;
		}
		fn->nr = (u32)(v >> FNBLK_FN_SHIFT);
		for (i = 0; i < fn->nr; i++)
			fn->val[i] = (i + 1) << FNBLK_FN_SHIFT;
		return 0;
	}
	if (prefix(spec, "power:", &s)) {
		if (parse_fixed(&s, &v) || *s) {
			*err = "power:A needs a decimal exponent, e.g. power:0.5";
			return -FNBLK_EINVAL;
		}
		return fill_power(fn, v, err);
	}
	if (prefix(spec, "table:", &s))
		return fill_table(fn, s, err);
	*err = "unknown f(n) shape: use constant, linear:K, power:A or table:f1,f2,...";
	return -FNBLK_EINVAL;
}

/* Append text to buf, always NUL-terminating; returns the new length. */
static unsigned int put_str(char *buf, unsigned int len, unsigned int pos,
			    const char *s)
{
	while (*s) {
		if (pos + 1 < len)
			buf[pos] = *s;
		pos++;
		s++;
	}
	if (len)
		buf[pos < len ? pos : len - 1] = '\0';
	return pos;
}

static unsigned int put_uint(char *buf, unsigned int len, unsigned int pos,
			     unsigned long long v, unsigned int min_digits)
{
	char tmp[24];
	int i = (int)sizeof(tmp) - 1;

	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while ((v || (int)sizeof(tmp) - 1 - i < (int)min_digits) && i > 0);
	return put_str(buf, len, pos, tmp + i);
}

/* A fixed-point value with up to DEC_DIGITS decimals, trailing zeros cut. */
static unsigned int put_fixed(char *buf, unsigned int len, unsigned int pos,
			      u32 v)
{
	unsigned long long scale = 1000000, frac;
	unsigned int digits = DEC_DIGITS;

	frac = ((unsigned long long)(v & (FNBLK_FN_ONE - 1)) * scale +
		FNBLK_FN_ONE / 2) >> FNBLK_FN_SHIFT;
	if (frac == scale) {	/* rounding carried into the integer part */
		v += FNBLK_FN_ONE;
		frac = 0;
	}
	pos = put_uint(buf, len, pos, v >> FNBLK_FN_SHIFT, 1);
	if (!frac)
		return pos;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	pos = put_str(buf, len, pos, ".");
	return put_uint(buf, len, pos, frac, digits);
}

int fnblk_fn_format(const struct fnblk_fn *fn, char *buf, unsigned int len)
{
	unsigned int pos = 0, i;
	bool linear = true;

	for (i = 0; i < fn->nr; i++)
		linear = linear && fn->val[i] == (i + 1) << FNBLK_FN_SHIFT;
	if (linear && fn->nr == 1)
		return (int)put_str(buf, len, 0, "constant");
	if (linear) {
		pos = put_str(buf, len, 0, "linear:");
		return (int)put_uint(buf, len, pos, fn->nr, 1);
	}
	pos = put_str(buf, len, 0, "table:");
	for (i = 0; i < fn->nr; i++) {
		if (i)
			pos = put_str(buf, len, pos, ",");
		pos = put_fixed(buf, len, pos, fn->val[i]);
	}
	return (int)pos;
}
