/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for host tests: "ok N - name" / "not ok N - name",
 * a diagnostic saying what was expected and what was seen on failure, the
 * plan at the end, and a non-zero exit status if anything failed.
 */
#ifndef FNBLK_TAP_H
#define FNBLK_TAP_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_count, tap_failures;

static inline bool tap_result(bool pass, const char *fmt, va_list ap)
{
	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	if (!pass)
		tap_failures++;
	return pass;
}

__attribute__((format(printf, 2, 3)))
static inline bool ok(bool pass, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_result(pass, fmt, ap);
	va_end(ap);
	return r;
}

__attribute__((format(printf, 1, 2)))
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

__attribute__((format(printf, 3, 4)))
static inline bool is_u64(uint64_t got, uint64_t want, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_result(got == want, fmt, ap);
	va_end(ap);
	if (!r)
		diag("expected %" PRIu64 ", got %" PRIu64, want, got);
	return r;
}

/* |got - want| <= tol: for results rounded to the core's ns clock. */
__attribute__((format(printf, 4, 5)))
static inline bool near(double got, double want, double tol,
			const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_result(fabs(got - want) <= tol, fmt, ap);
	va_end(ap);
	if (!r)
		diag("expected %.12g (within %.3g), got %.12g", want, tol, got);
	return r;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}

/* got is want, or at most slack ns later (the clock rounds ends up). */
static inline bool at(uint64_t got, uint64_t want, uint64_t slack,
		      const char *what)
{
	bool pass = got >= want && got <= want + slack;

	ok(pass, "%s", what);
	if (!pass)
		diag("expected %llu ns (+%llu), got %llu ns",
		     (unsigned long long)want, (unsigned long long)slack,
		     (unsigned long long)got);
	return pass;
}

#endif /* FNBLK_TAP_H */
