/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP for host unit tests: each check prints "ok N - name" or
 * "not ok N - name" with what was expected and what was seen.
 */
#ifndef FLEET_TESTS_TAP_H
#define FLEET_TESTS_TAP_H

#include <math.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline void tap_result(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++tap_n, name);
	if (!ok)
		tap_failed++;
}

#define TAP_OK(cond, name) do {						\
	int ok_ = !!(cond);						\
	if (!ok_)							\
		printf("# %s:%d: %s is false\n", __FILE__, __LINE__, #cond);\
	tap_result(ok_, name);						\
} while (0)

#define TAP_EQ_U(seen, want, name) do {					\
	unsigned long long s_ = (seen), w_ = (want);			\
	if (s_ != w_)							\
		printf("# %s:%d: expected %llu, saw %llu\n", __FILE__,	\
		       __LINE__, w_, s_);				\
	tap_result(s_ == w_, name);					\
} while (0)

/* |seen - want| <= tol */
#define TAP_NEAR(seen, want, tol, name) do {				\
	double s_ = (seen), w_ = (want);				\
	int ok_ = fabs(s_ - w_) <= (tol);				\
	if (!ok_)							\
		printf("# %s:%d: expected %.12g (+-%g), saw %.12g\n",	\
		       __FILE__, __LINE__, w_, (double)(tol), s_);	\
	tap_result(ok_, name);						\
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* FLEET_TESTS_TAP_H */
