// SPDX-License-Identifier: GPL-2.0
/*
 * wakeprobe SECONDS PERIOD_US [LATENESS_FILE]: how late a task blocked on
 * a timer runs again on this machine (the turnaround a synchronous writer
 * adds after each completion is at least this): it sleeps PERIOD_US at a
 * time for SECONDS. Prints percentiles and the share of wake-ups later
 * than 0.5, 1, 2, 5, 10, 20 ms; LATENESS_FILE gets every lateness in ns,
 * one a line (qd1sim's input). Timer slack 1 ns, so the figure is the
 * wake-up's own lateness. Documentation/benchmarks.rst, "The grace for
 * synchronous writers on a loaded machine".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static uint64_t now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const double lim[] = { 0.5, 1, 2, 5, 10, 20 };
	size_t cap = 1 << 22, n = 0, i;
	uint64_t period, end, *late;
	double secs;

	if (argc < 3 || argc > 4 || (secs = atof(argv[1])) <= 0 ||
	    atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: wakeprobe SECONDS PERIOD_US [LATENESS_FILE]\n");
		return 2;
	}
	period = atoi(argv[2]) * 1000ULL;
	late = malloc(cap * sizeof(*late));
	if (!late) {
		perror("wakeprobe");
		return 1;
	}
	prctl(PR_SET_TIMERSLACK, 1UL);
	end = now() + (uint64_t)(secs * 1e9);
	while (n < cap && now() < end) {
		uint64_t t0 = now(), want = t0 + period;
		struct timespec ts = { want / 1000000000ULL, want % 1000000000ULL };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		late[n++] = now() - want;
	}
	if (argc > 3) {
		FILE *f = fopen(argv[3], "w");

		for (i = 0; f && i < n; i++)
			fprintf(f, "%llu\n", (unsigned long long)late[i]);
		if (!f || fclose(f)) {
			perror(argv[3]);
			return 1;
		}
	}
	qsort(late, n, sizeof(*late), cmp);
	printf("wakeups %zu p50 %.1f us p99 %.1f us p99.9 %.1f us max %.2f ms\n", n,
	       late[n / 2] / 1e3, late[n * 99 / 100] / 1e3,
	       late[n * 999 / 1000] / 1e3, late[n - 1] / 1e6);
	for (unsigned int k = 0; k < sizeof(lim) / sizeof(lim[0]); k++) {
		size_t c = 0;

		for (i = 0; i < n; i++)
			c += late[i] > lim[k] * 1e6;
		printf("  later than %4.1f ms: %zu (%.3f %%)\n", lim[k], c, 100.0 * c / n);
	}
	free(late);
	return 0;
}
