// SPDX-License-Identifier: GPL-2.0
/*
 * TAP tests of the text/JSON printer: one description of the output gives
 * human units in text and raw numbers under keys in JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "print.h"

static int nr_tests, nr_failed;

/* Everything the printer wrote to stdout while fn ran. */
static char *capture(void (*fn)(void))
{
	static char buf[4096];
	char path[] = "/tmp/test_print.XXXXXX";
	int fd = mkstemp(path), saved = dup(1);
	FILE *f;
	size_t n;

	fflush(stdout);
	dup2(fd, 1);
	fn();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	f = fdopen(fd, "r");
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	return buf;
}

static void expect(const char *name, const char *got, const char *want)
{
	nr_tests++;
	if (strcmp(got, want)) {
		nr_failed++;
		printf("not ok %d - %s\n#   got  \"%s\"\n#   want \"%s\"\n",
		       nr_tests, name, got, want);
	} else {
		printf("ok %d - %s\n", nr_tests, name);
	}
}

/* A device-like record, described once. */
static void describe(void)
{
	pr_open_object(NULL);
	pr_str("name", "%s:", "fnblk0");
	pr_u64("nr_active", " n %llu", 3);
	pr_u64(NULL, " (text only %llu)", 7);
	pr_size("size", " size %s", 64ULL << 20);
	pr_rate("bw", " bw %s", 20ULL << 20);
	pr_duration("latency_ns", " latency %s", 1500000);
	pr_bool("kthread", " kthread %s", false);
	pr_double("mean_n", " mean %.2f", 0.5);
	pr_text("\n");
	pr_open_array("hist");
	pr_u64(NULL, NULL, 1);
	pr_u64(NULL, NULL, 2);
	pr_close_array();
	pr_open_object("summary");
	pr_u64("peak_n", "peak %llu\n", 4);
	pr_close_object();
	pr_close_object();
	pr_end();
}

static void two_lines(void)
{
	for (int i = 0; i < 2; i++) {
		pr_open_object(NULL);
		pr_u64("seq", NULL, (unsigned long long)i);
		pr_close_object();
		pr_end();
	}
}

int main(void)
{
	printf("TAP version 13\n");
	pr_init(false);
	expect("text: human units, text-only values, no JSON",
	       capture(describe),
	       "fnblk0: n 3 (text only 7) size 64MiB bw 20MiB/s latency 1.5ms "
	       "kthread no mean 0.50\npeak 4\n");

	pr_init(true);
	pr_set_compact(true);
	expect("JSON: raw numbers under keys, text-only values left out",
	       capture(describe),
	       "{\"name\":\"fnblk0\",\"nr_active\":3,\"size\":67108864,"
	       "\"bw\":20971520,\"latency_ns\":1500000,\"kthread\":false,"
	       "\"mean_n\":0.5,\"hist\":[1,2],\"summary\":{\"peak_n\":4}}\n");
	expect("JSON: one document per pr_end (JSON lines)",
	       capture(two_lines), "{\"seq\":0}\n{\"seq\":1}\n");
	pr_set_compact(false);
	expect("JSON: indented unless compact", capture(two_lines),
	       "{\n  \"seq\": 0\n}\n{\n  \"seq\": 1\n}\n");

	printf("1..%d\n", nr_tests);
	return nr_failed ? 1 : 0;
}
