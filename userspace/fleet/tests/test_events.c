// SPDX-License-Identifier: GPL-2.0
/* Host tests of the event file reader and writers (userspace/lib/events.c). */
#include <stdlib.h>
#include <string.h>

#include "../../lib/events.h"
#include "tap.h"

static const struct fnblk_event sample[] = {
	{ 1, 0, 2000, 3500, 4096 },
	{ 0, 0, 1000, 2500, 4096 },
	{ 0, 1, 5000, 5000, 8192 },
	{ 1, 1, 18446744073709551000ULL >> 1, 18446744073709551000ULL >> 1, 1 },
};
#define NR_SAMPLE (sizeof(sample) / sizeof(sample[0]))

static void fill(struct fnblk_events *e)
{
	size_t i;

	fnblk_events_init(e);
	fnblk_events_set_source(e, "sim");
	fnblk_events_set_param(e, "jobs", "2");
	fnblk_events_set_param(e, "compute", "1s,2s");
	fnblk_events_set_param(e, "jobs", "3");	/* replaces */
	for (i = 0; i < NR_SAMPLE; i++)
		fnblk_events_add(e, &sample[i]);
}

static int same_events(const struct fnblk_events *a, const struct fnblk_events *b)
{
	return a->nr == b->nr && !memcmp(a->ev, b->ev, a->nr * sizeof(*a->ev));
}

static int read_text(const char *text, struct fnblk_events *e, char *err,
		     size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret = fnblk_events_read_stream(f, "t", e, err, errlen);

	fclose(f);
	return ret;
}

static void roundtrip(int jsonl)
{
	struct fnblk_events a, b;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *kind = jsonl ? "jsonl" : "csv";
	char name[96];

	fill(&a);
	if (jsonl)
		fnblk_events_write_jsonl(f, &a);
	else
		fnblk_events_write_csv(f, &a);
	fclose(f);
	fnblk_events_init(&b);
	snprintf(name, sizeof(name), "%s: what is written reads back", kind);
	TAP_OK(!read_text(buf, &b, err, sizeof(err)), name);
	snprintf(name, sizeof(name), "%s: same rows", kind);
	TAP_OK(same_events(&a, &b), name);
	snprintf(name, sizeof(name), "%s: source kept", kind);
	TAP_OK(b.source && !strcmp(b.source, "sim"), name);
	snprintf(name, sizeof(name), "%s: params kept, replaced value wins", kind);
	TAP_OK(b.nr_params == 2 && !strcmp(fnblk_events_param(&b, "jobs"), "3") &&
	       !strcmp(fnblk_events_param(&b, "compute"), "1s,2s"), name);
	if (!jsonl) {
		TAP_OK(!strncmp(buf, FNBLK_EVENTS_MAGIC "\n# source=sim\n# param jobs=3\n",
				strlen(FNBLK_EVENTS_MAGIC) + 28),
		       "csv: magic, source, params on top");
		TAP_OK(strstr(buf, "\n" FNBLK_EVENTS_HEADER "\n1,0,2000,3500,4096\n") != NULL,
		       "csv: header then rows as written");
	} else {
		TAP_OK(strstr(buf, "{\"job\":1,\"cycle\":0,\"start_ns\":2000,\"end_ns\":3500,\"bytes\":4096}\n") != NULL,
		       "jsonl: one object per write with the five fields");
	}
	free(buf);
	fnblk_events_free(&a);
	fnblk_events_free(&b);
}

static void bad_input(const char *text, const char *want, const char *name)
{
	struct fnblk_events e;
	char err[256] = "";
	int ret;

	fnblk_events_init(&e);
	ret = read_text(text, &e, err, sizeof(err));
	if (!ret || !strstr(err, want))
		printf("# expected error containing \"%s\", saw \"%s\"\n", want, err);
	TAP_OK(ret && strstr(err, want), name);
	fnblk_events_free(&e);
}

static void test_errors(void)
{
	bad_input("job,cycle,start_ns,end_ns,bytes\n0,0,10,20\n", "t:2:",
		  "csv: a short row names its line");
	bad_input("0,0,10,x,1\n", "field 4", "csv: a non-number names its field");
	bad_input("0,0,30,20,1\n", "before start_ns", "csv: end before start refused");
	bad_input("0,0,10,20,1x\n", "field 5", "csv: junk after the fifth field refused");
	bad_input("0,-1,10,20,1\n", "field 2", "csv: negative refused");
	bad_input("job,start\n", "column header", "csv: wrong header refused");
	bad_input("# fnblk-events v2\n0,0,1,2,3\n", "unsupported version",
		  "csv: another version refused");
	bad_input("{\"job\":0,\"cycle\":0,\"start_ns\":1}\n", "expected unsigned",
		  "jsonl: missing fields refused");
	bad_input("{\"job\":0,\n", "JSON", "jsonl: broken JSON refused");
}

static void test_sort_and_blank(void)
{
	struct fnblk_events e;
	char err[256];

	fnblk_events_init(&e);
	TAP_OK(!read_text("\n# fnblk-events v1\n# a comment\n\n3,0,50,60,1\n1,0,50,55,1\n0,0,10,20,1\n",
			  &e, err, sizeof(err)), "csv: blank lines, comments, no header");
	fnblk_events_sort(&e);
	TAP_OK(e.nr == 3 && e.ev[0].job == 0 && e.ev[1].job == 1 && e.ev[2].job == 3,
	       "sort: by start, ties by job");
	TAP_OK(e.source == NULL && e.nr_params == 0, "csv: nothing invented");
	fnblk_events_free(&e);
}

/* The reader follows Documentation/events-format.rst to the letter. */
static void test_spec(void)
{
	struct fnblk_events e;
	char err[256];

	bad_input("job,cycle,start_ns,end_ns,bytes\n0,0,10,20,30,99\n",
		  "t:2: more than 5 fields",
		  "csv: a trailing field is an error, not dropped data");
	bad_input("job,cycle,start_ns,end_ns,bytes,extra\n0,0,10,20,30\n",
		  "t:1: unexpected column header",
		  "csv: a header with another column is refused");
	bad_input("# param jobs=2\n0,0,10,20,1\n1,0,10,20,1\n2,0,10,20,1\n",
		  "t:4: job 2 out of range: the file has 2 jobs (param jobs), 0 to 1",
		  "csv: a job beyond the jobs param is reported with its line");
	bad_input("{\"fnblk_events\":1,\"params\":{\"jobs\":\"1\"}}\n"
		  "{\"job\":1,\"cycle\":0,\"start_ns\":1,\"end_ns\":2,\"bytes\":3}\n",
		  "t:2: job 1 out of range",
		  "jsonl: a job beyond the jobs param is reported with its line");
	bad_input("0,0,10,20,1\n0,1,30,40,1\n0,1,50,60,1\n",
		  "t:3: job 0 cycle 1 again (its first row is line 2)",
		  "csv: a cycle of one job twice is reported");
	bad_input("0,0,10,50,1\n1,0,10,50,1\n0,1,40,60,1\n",
		  "t:3: job 0 cycle 1 (40 to 60 ns) overlaps its cycle 0 at line 1 "
		  "(10 to 50 ns): a job writes one checkpoint at a time",
		  "csv: overlapping writes of one job get their own message");
	bad_input("0,1,40,60,1\n0,0,10,50,1\n",
		  "t:2: job 0 cycle 0 (10 to 50 ns) overlaps its cycle 1 at line 1",
		  "csv: overlap found out of order too, at the later line");
	bad_input("{\"job\":0,\"cycle\":0,\"start_ns\":0,\"end_ns\":9,\"bytes\":1}\n"
		  "{\"job\":0,\"cycle\":1,\"start_ns\":5,\"end_ns\":9,\"bytes\":1}\n",
		  "t:2: job 0 cycle 1 (5 to 9 ns) overlaps",
		  "jsonl: overlapping writes of one job get their own message");
	fnblk_events_init(&e);
	TAP_OK(!read_text("# param jobs=2\n0,1,20,30,1\n1,0,5,25,1\n0,0,10,20,1\n"
			  "0,2,30,30,1\n",
			  &e, err, sizeof(err)) && e.nr == 4,
	       "csv: rows in any order, writes that only touch, all accepted");
	fnblk_events_free(&e);
}

int main(void)
{
	roundtrip(0);
	roundtrip(1);
	test_errors();
	test_sort_and_blank();
	test_spec();
	return tap_done();
}
