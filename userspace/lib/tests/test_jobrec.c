// SPDX-License-Identifier: GPL-2.0
/* TAP tests of the job-record reader and writer (jobrec.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobrec.h"
#include "tests/sched/tap.h"

#define SHARED_RECORDS "/work/shared/data/panda-jobs-bnl-2025-01.csv"

static const char header[] =
	"pandaid,creationtime,starttime,endtime,jobstatus,jobname,"
	"cpuconsumptiontime,computingsite,transfertype,corecount,"
	"ninputdatafiles,inputfilebytes,noutputdatafiles,outputfilebytes,"
	"piloterrorcode,exeerrorcode,extra\n";

static int read_text(const char *text, struct jobrecs *t, char *err,
		     size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f) {
		snprintf(err, len, "fmemopen failed");
		return -1;
	}
	ret = jobrecs_read_stream(f, "t.csv", t, err, len);
	fclose(f);
	return ret;
}

/* The test header, then body. */
static int read_body(const char *body, struct jobrecs *t, char *err,
		     size_t len)
{
	char text[2048];

	snprintf(text, sizeof(text), "%s%s", header, body);
	return read_text(text, t, err, len);
}

/* text is refused with a message that contains want. */
static void refuses(const char *what, const char *body, const char *want)
{
	char err[256] = "";
	struct jobrecs t;
	int ret;

	jobrecs_init(&t);
	ret = read_body(body, &t, err, sizeof(err));
	if (!ok(ret == -1 && strstr(err, want), "refuses %s", what))
		diag("ret %d, message '%s', expected it to contain '%s'", ret,
		     err, want);
	jobrecs_free(&t);
}

static void test_good_records(void)
{
	static const char body[] =
		"6486070333,2025-01-20 18:10:40,2025-01-20 18:24:44,2025-01-20 18:29:50,"
		"finished,user.jbroulim.data23_13p6TeV.00454163.physics_Main/.6486070333,"
		"172,BNL,direct,1,10.0,36362410102.0,1,278821,0,0,x\n"
		"6480827241,2025-01-16 15:54:03,,,failed,\"mc23,quoted \"\"name\"\"\","
		"1287.5,BNL,,8,,,2,147664,1137,0,y\r\n"
		"# a comment line\n"
		"\n"
		"6480827242,2025-01-16T15:54:03Z,,,finished,user.aknue.410470.PhPy8EG,"
		"3,CERN,copy,2,1,4096,0,0,,,z\n";
	struct jobrecs t;
	char err[256] = "";
	const struct jobrec *r;

	jobrecs_init(&t);
	if (!ok(!read_body(body, &t, err, sizeof(err)), "three records read"))
		diag("%s", err);
	is_u64(t.nr, 3, "three records");
	if (t.nr != 3)
		goto out;
	r = &t.r[0];
	is_u64(r->id, 6486070333ULL, "pandaid");
	is_u64((uint64_t)r->created_s, 1737396640, "creationtime in UTC");
	is_u64((uint64_t)(r->started_s - r->created_s), 844,
	       "starttime: queue time 844 s as recorded");
	is_u64((uint64_t)(r->ended_s - r->started_s), 306, "endtime");
	is_u64(r->in_bytes, 36362410102ULL, "inputfilebytes written as 36362410102.0");
	is_u64(r->in_files, 10, "ninputdatafiles written as 10.0");
	ok(r->stagein == JOBREC_STAGEIN_DIRECT, "transfertype direct");
	ok(!r->failed, "finished, no error code: not failed");
	ok(!strcmp(r->site, "BNL"), "site");
	ok(!strcmp(r->category, "user.data"), "category user.data (got %s)",
	   r->category);
	r = &t.r[1];
	ok(r->started_s == JOBREC_NO_TIME && r->ended_s == JOBREC_NO_TIME,
	   "empty start and end times are absent");
	ok(!strcmp(r->name, "mc23,quoted \"name\""),
	   "quoted field with comma and doubled quotes (got %s)", r->name);
	ok(!strcmp(r->category, "prod.mc"), "category prod.mc (got %s)",
	   r->category);
	near(r->cpu_s, 1287.5, 0, "fractional CPU time");
	is_u64(r->in_bytes, 0, "empty inputfilebytes is 0");
	ok(r->stagein == JOBREC_STAGEIN_UNSAID, "empty transfertype is unsaid");
	ok(r->failed && r->error[JOBREC_ERR_PILOT] == 1137,
	   "failed status and pilot error code kept");
	r = &t.r[2];
	is_u64((uint64_t)(r->created_s - t.r[1].created_s), 0,
	       "ISO 8601 time with T and Z");
	ok(r->stagein == JOBREC_STAGEIN_COPY, "transfertype copy");
	ok(!strcmp(r->category, "user.mc"),
	   "six-digit dataset number: category user.mc (got %s)", r->category);
	is_u64((uint64_t)t.first_created_s, 1737042843, "earliest creation time");
out:
	jobrecs_free(&t);
}

static void test_refusals(void)
{
	char err[256] = "";
	struct jobrecs t;
	int ret;

	refuses("a bad number with line and column",
		"1,2025-01-20 18:10:40,,,finished,a,1x2,BNL,,1,,,,,0,0,x\n",
		"t.csv:2:7 (cpuconsumptiontime): '1x2' is not a non-negative number");
	refuses("a negative CPU time",
		"1,2025-01-20 18:10:40,,,finished,a,-3,BNL,,1,,,,,0,0,x\n",
		"t.csv:2:7 (cpuconsumptiontime)");
	refuses("a CPU time no replay clock can hold",
		"1,2025-01-20 18:10:40,,,finished,a,1e300,BNL,,1,,,,,0,0,x\n",
		"t.csv:2:7 (cpuconsumptiontime): '1e300' is above 1e12 seconds");
	refuses("an empty required value",
		"1,2025-01-20 18:10:40,,,finished,a,,BNL,,1,,,,,0,0,x\n",
		"t.csv:2:7 (cpuconsumptiontime): value required");
	refuses("a date that does not exist",
		"1,2025-02-30 18:10:40,,,finished,a,1,BNL,,1,,,,,0,0,x\n",
		"t.csv:2:2 (creationtime): '2025-02-30 18:10:40' is not a time");
	refuses("a start before the creation",
		"1,2025-01-20 18:10:40,2025-01-20 18:10:39,,finished,a,1,BNL,,1,,,,,0,0,x\n",
		"t.csv:2:3 (starttime): before the creation time");
	refuses("zero cores",
		"1,2025-01-20 18:10:40,,,finished,a,1,BNL,,0,,,,,0,0,x\n",
		"t.csv:2:10 (corecount): must be at least 1");
	refuses("a fractional file count",
		"1,2025-01-20 18:10:40,,,finished,a,1,BNL,,1,2.5,,,,0,0,x\n",
		"t.csv:2:11 (ninputdatafiles): '2.5' is not a whole number");
	refuses("an unknown transfer type",
		"1,2025-01-20 18:10:40,,,finished,a,1,BNL,ftp,1,,,,,0,0,x\n",
		"t.csv:2:9 (transfertype): 'ftp' is not direct, copy or empty");
	refuses("an unknown job status",
		"1,2025-01-20 18:10:40,,,running,a,1,BNL,,1,,,,,0,0,x\n",
		"t.csv:2:5 (jobstatus): 'running' is not finished");
	refuses("a bad error code",
		"1,2025-01-20 18:10:40,,,finished,a,1,BNL,,1,,,,,E1,0,x\n",
		"t.csv:2:15 (piloterrorcode)");
	refuses("a missing field",
		"1,2025-01-20 18:10:40,,,finished,a,1,BNL,,1,,,,,0,0\n",
		"t.csv:2: 16 fields, the header has 17");
	refuses("an unclosed quote",
		"1,2025-01-20 18:10:40,,,finished,\"a,1,BNL,,1,,,,,0,0,x\n",
		"t.csv:2: field 6: quote not closed on its line");
	refuses("a duplicate pandaid",
		"7,2025-01-20 18:10:40,,,finished,a,1,BNL,,1,,,,,0,0,x\n"
		"7,2025-01-20 18:10:41,,,finished,a,1,BNL,,1,,,,,0,0,x\n",
		"t.csv: pandaid 7 appears twice");
	refuses("an empty site",
		"1,2025-01-20 18:10:40,,,finished,a,1,,,1,,,,,0,0,x\n",
		"t.csv:2:8 (computingsite): value required");

	jobrecs_init(&t);
	ret = read_text("pandaid,creationtime,computingsite,corecount\n", &t,
			err, sizeof(err));
	ok(ret == -1 && strstr(err, "t.csv:1: required column 'cpuconsumptiontime' missing"),
	   "refuses a header without a required column");
	if (ret != -1)
		diag("message '%s'", err);
	ret = read_text("pandaid,creationtime,computingsite,corecount,"
			"cpuconsumptiontime,corecount\n", &t, err, sizeof(err));
	ok(ret == -1 && strstr(err, "column 6: 'corecount' named twice (also column 4)"),
	   "refuses a column named twice (%s)", err);
	ret = read_text("", &t, err, sizeof(err));
	ok(ret == -1 && strstr(err, "no header line"), "refuses an empty file");
	jobrecs_free(&t);
}

static void test_category(void)
{
	static const struct {
		const char *name, *want;
	} cases[] = {
		{ "user.jmcgowan.vbstools-ntuple-v04_run1.data18.p6479/.6477", "user.data" },
		{ "user.data1.mc23_13p6TeV.x", "user.mc" },
		{ "user.tuncay.nnpdf31_Tune_0006_DY_13TeV.1/.6496868163", "user.other" },
		{ "group.phys-higgs.mc20_13TeV.345", "group.mc" },
		{ "mc23_13p6TeV.801234.Sherpa.simul", "prod.mc" },
		{ "data24_13p6TeV.00480000.physics_Main", "prod.data" },
		{ "", "prod.other" },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		ok(!strcmp(jobrec_category(cases[i].name, buf, sizeof(buf)),
			   cases[i].want), "category of '%s' is %s (got %s)",
		   cases[i].name, cases[i].want, buf);
}

static bool same_record(const struct jobrec *a, const struct jobrec *b)
{
	return a->id == b->id && a->created_s == b->created_s &&
	       a->started_s == b->started_s && a->ended_s == b->ended_s &&
	       !strcmp(a->site, b->site) && !strcmp(a->name, b->name) &&
	       !strcmp(a->category, b->category) && a->cpu_s == b->cpu_s &&
	       a->cores == b->cores && a->in_bytes == b->in_bytes &&
	       a->out_bytes == b->out_bytes && a->in_files == b->in_files &&
	       a->out_files == b->out_files && a->stagein == b->stagein &&
	       a->failed == b->failed &&
	       !memcmp(a->error, b->error, sizeof(a->error));
}

/* The shared records read, and what the writer writes reads back equal. */
static void test_shared_records_round_trip(void)
{
	struct jobrecs t, back;
	char err[256] = "", *buf = NULL;
	size_t len = 0, i, direct = 0, same = 0;
	FILE *f;

	jobrecs_init(&t);
	jobrecs_init(&back);
	f = fopen(SHARED_RECORDS, "r");
	if (!f) {
		ok(true, "# SKIP %s not on this machine", SHARED_RECORDS);
		return;
	}
	fclose(f);
	if (!ok(!jobrecs_read_file(SHARED_RECORDS, &t, err, sizeof(err)),
		"the shared PanDA records read"))
		diag("%s", err);
	is_u64(t.nr, 100, "100 records");
	for (i = 0; i < t.nr; i++)
		direct += t.r[i].stagein == JOBREC_STAGEIN_DIRECT;
	is_u64(direct, 84, "84 of them direct");
	f = open_memstream(&buf, &len);
	ok(f && !jobrecs_write_csv(f, &t), "written back");
	if (f)
		fclose(f);
	if (buf && !ok(!read_text(buf, &back, err, sizeof(err)), "read again"))
		diag("%s", err);
	for (i = 0; i < t.nr && i < back.nr; i++)
		same += same_record(&t.r[i], &back.r[i]);
	is_u64(same, t.nr, "every record the same after a round trip");
	free(buf);
	jobrecs_free(&back);
	jobrecs_free(&t);
}

static void test_sort(void)
{
	static const char body[] =
		"3,2025-01-20 18:10:42,,,finished,a,1,BNL,,1,,,,,0,0,x\n"
		"2,2025-01-20 18:10:40,,,finished,a,1,BNL,,1,,,,,0,0,x\n"
		"1,2025-01-20 18:10:42,,,finished,a,1,BNL,,1,,,,,0,0,x\n";
	struct jobrecs t;
	char err[256];

	jobrecs_init(&t);
	read_body(body, &t, err, sizeof(err));
	jobrecs_sort(&t);
	ok(t.nr == 3 && t.r[0].id == 2 && t.r[1].id == 1 && t.r[2].id == 3,
	   "sorted by creation time, ties by id");
	jobrecs_free(&t);
}

int main(void)
{
	test_good_records();
	test_refusals();
	test_category();
	test_shared_records_round_trip();
	test_sort();
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}
