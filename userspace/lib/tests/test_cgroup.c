// SPDX-License-Identifier: GPL-2.0
/*
 * TAP tests of what cgroup.c reads back (memory.events, keyed files,
 * pressure totals, single values) from files laid out as the kernel
 * writes them, and of how a job's end is described: an OOM kill only
 * when SIGKILL came with a rise of oom_kill.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "../../../tests/sched/tap.h"

static char dir[] = "/tmp/test_cgroup.XXXXXX";

static void put(const char *file, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	static const char *const keys[] = { "file", "anon", "pgmajfault" };
	struct fnblk_memory_events before = { 0 }, after;
	struct fnblk_pressure p;
	uint64_t vals[3] = { 7, 7, 7 }, v;
	char buf[256];
	bool oom;

	if (!mkdtemp(dir))
		return 1;
	put("memory.events", "low 0\nhigh 3\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n");
	put("memory.stat", "anon 8192\nfile 1048576\nkernel 4096\npgmajfault 42\n");
	put("io.pressure", "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\n"
			   "full avg10=0.50 avg60=0.20 avg300=0.05 total=65432\n");
	put("memory.current", "9437184\n");
	put("memory.max", "max\n");

	ok(!fnblk_cgroup_memory_events(dir, &after), "memory.events reads");
	is_u64(after.max, 12, "... max");
	is_u64(after.oom_kill, 1, "... oom_kill");
	is_u64(fnblk_cgroup_read_keyed(dir, "memory.stat", keys, vals, 3), 3,
	       "memory.stat: three keys found");
	is_u64(vals[0], 1048576, "... file");
	is_u64(vals[2], 42, "... pgmajfault (not confused with other keys)");
	ok(!fnblk_cgroup_pressure(dir, "io", &p) && p.some_us == 123456 &&
	   p.full_us == 65432, "io.pressure: some and full totals");
	ok(fnblk_cgroup_pressure(dir, "memory", &p), "a missing pressure file fails");
	ok(!fnblk_cgroup_read_u64(dir, "memory.current", &v) && v == 9437184,
	   "memory.current");
	ok(!fnblk_cgroup_read_u64(dir, "memory.max", &v) && v == UINT64_MAX,
	   "memory.max 'max' reads as no limit");

	fnblk_describe_exit(SIGKILL, &before, &after, &oom, buf, sizeof(buf));
	ok(oom && strstr(buf, "killed by the OOM killer") && strstr(buf, "oom_kill 1"),
	   "SIGKILL with oom_kill up: the OOM killer (%s)", buf);
	fnblk_describe_exit(SIGKILL, &after, &after, &oom, buf, sizeof(buf));
	ok(!oom && strstr(buf, "killed by signal 9"),
	   "SIGKILL with oom_kill unchanged: a plain kill (%s)", buf);
	fnblk_describe_exit(SIGKILL, NULL, NULL, &oom, buf, sizeof(buf));
	ok(!oom && strstr(buf, "no cgroup to tell"), "no cgroup: says it cannot tell (%s)", buf);
	fnblk_describe_exit(SIGTERM, &before, &after, &oom, buf, sizeof(buf));
	ok(!oom && strstr(buf, "signal 15"), "SIGTERM is not an OOM kill (%s)", buf);
	fnblk_describe_exit(3 << 8, &before, &after, &oom, buf, sizeof(buf));
	ok(!oom && !strcmp(buf, "exit status 3"), "an exit status (%s)", buf);

	{
		struct fnblk_cgroup_set s = { .dir = "" };

		is_u64(fnblk_cgroup_remove(&s), 0, "removing a set never made is a no-op");
	}
	snprintf(buf, sizeof(buf), "rm -rf %s", dir);
	if (system(buf))
		diag("could not remove %s", dir);
	return tap_done();
}
