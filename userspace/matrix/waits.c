// SPDX-License-Identifier: GPL-2.0
/* Thread states and wait sites from /proc (see waits.h). */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "waits.h"

/*
 * A stack's class: the first rule any of whose frames appears in it, in
 * this order (the more specific first).
 */
static const struct {
	const char *cls;
	const char *frames[8];
} rules[] = {
	{ "mmap_lock", { "rwsem_down_read_slowpath", "rwsem_down_write_slowpath",
			 "lock_mm_and_find_vma", NULL } },
	{ "reclaim", { "try_to_free_mem_cgroup_pages", "mem_cgroup_handle_over_high",
		       "shrink_node", "try_to_free_pages", "out_of_memory", NULL } },
	{ "dirty_throttle", { "balance_dirty_pages", NULL } },
	{ "writeback_wait", { "folio_wait_writeback", "wait_on_page_writeback",
			      "__filemap_fdatawait_range", "filemap_fdatawait",
			      "file_write_and_wait_range", NULL } },
	{ "page_io", { "folio_wait_bit_common", "__folio_lock", "__lock_page",
		       "wait_on_page_bit_common", "folio_wait_locked",
		       "filemap_fault", "filemap_read", NULL } },
	{ "direct_io", { "__blkdev_direct_IO", "blkdev_direct_IO", "iomap_dio_rw",
			 "__iomap_dio_rw", "submit_bio_wait", NULL } },
	{ "flush", { "blkdev_issue_flush", "submit_bio_wait", "jbd2", NULL } },
	{ "futex", { "futex_wait", "futex_wait_queue", "do_futex", NULL } },
	{ "uffd", { "handle_userfault", "userfaultfd", NULL } },
	{ "io_uring", { "io_uring", "io_cqring_wait", NULL } },
	{ "poll", { "do_sys_poll", "do_select", "ep_poll", "pipe_read", NULL } },
	{ "sleep", { "do_nanosleep", "hrtimer_nanosleep", NULL } },
	{ "other", { NULL } },
};
#define NR_CLASSES	(sizeof(rules) / sizeof(rules[0]))

/* Frames that only say "the thread sleeps": the site is below them. */
static const char *const scheduler_frames[] = {
	"__schedule", "schedule", "io_schedule", "schedule_timeout",
	"io_schedule_timeout", "schedule_preempt_disabled", "schedule_hrtimeout",
	"schedule_hrtimeout_range", "schedule_hrtimeout_range_clock",
	"rwsem_down_read_slowpath", "rwsem_down_write_slowpath", "down_read",
	"down_write", "down_read_killable", "__down_read_common", NULL
};

const char *mx_wait_class_name(unsigned int i)
{
	return i < NR_CLASSES ? rules[i].cls : NULL;
}

unsigned int mx_wait_nr_classes(void)
{
	return NR_CLASSES;
}

void mx_waits_init(struct mx_waits *w)
{
	memset(w, 0, sizeof(*w));
}

/* "[<0>] folio_wait_bit_common+0x13f/0x350" -> "folio_wait_bit_common" */
static void frame_name(const char *line, char *out, size_t len)
{
	const char *p = strchr(line, ']');
	size_t n;

	p = p ? p + 1 : line;
	while (*p == ' ')
		p++;
	n = strcspn(p, "+ \n");
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

static void copy_name(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

static bool frame_matches(const char *frame, const char *pattern)
{
	return strstr(frame, pattern) != NULL;
}

/* TASK/file into buf (NUL-terminated); false if gone or empty. */
static bool read_task_file(const char *task, const char *file, char *buf,
			   size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", task, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* Classify a stack and name its wait site; false if unreadable. */
static bool read_stack(const char *task, unsigned int *cls, char *site,
		       size_t len)
{
	char buf[4096], frame[64];
	char frames[32][64];
	unsigned int nr = 0;

	if (!read_task_file(task, "stack", buf, sizeof(buf)))
		return false;
	for (char *line = strtok(buf, "\n"); line && nr < 32; line = strtok(NULL, "\n")) {
		frame_name(line, frame, sizeof(frame));
		if (frame[0])
			strcpy(frames[nr++], frame);
	}
	*cls = NR_CLASSES - 1;
	for (unsigned int r = 0; r + 1 < NR_CLASSES && *cls == NR_CLASSES - 1; r++)
		for (unsigned int f = 0; f < nr && *cls == NR_CLASSES - 1; f++)
			for (unsigned int p = 0; rules[r].frames[p]; p++)
				if (frame_matches(frames[f], rules[r].frames[p])) {
					*cls = r;
					break;
				}
	copy_name(site, len, nr ? frames[0] : "?");
	for (unsigned int f = 0; f < nr; f++) {
		if (!in_list(frames[f], scheduler_frames)) {
			copy_name(site, len, frames[f]);
			break;
		}
	}
	return true;
}

static void count_site(struct mx_waits *w, const char *name, unsigned int cls)
{
	for (unsigned int i = 0; i < w->nr_sites; i++) {
		if (!strcmp(w->site[i].name, name) && w->site[i].cls == rules[cls].cls) {
			w->site[i].samples++;
			return;
		}
	}
	if (w->nr_sites == MX_WAIT_SITES) {
		w->other_sites++;
		return;
	}
	copy_name(w->site[w->nr_sites].name, sizeof(w->site[0].name), name);
	w->site[w->nr_sites].cls = rules[cls].cls;
	w->site[w->nr_sites++].samples = 1;
}

/* State and name of a thread from its stat line; false if gone. */
static bool thread_stat(const char *task, char *state, char *comm, size_t len)
{
	char buf[512], *open_p, *close_p;
	size_t c;

	if (!read_task_file(task, "stat", buf, sizeof(buf)))
		return false;
	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')');
	if (!open_p || !close_p || close_p[1] != ' ')
		return false;
	c = (size_t)(close_p - open_p - 1);
	if (c >= len)
		c = len - 1;
	memcpy(comm, open_p + 1, c);
	comm[c] = '\0';
	*state = close_p[2];
	return true;
}

static void sample_task(struct mx_waits *w, const char *task)
{
	char state, comm[32], site[64];
	enum mx_thread_group g;
	enum mx_state s;
	unsigned int cls;

	if (!thread_stat(task, &state, comm, sizeof(comm)))
		return;
	g = strncmp(comm, "mx-worker-", 10) ? MX_OTHERS : MX_WORKERS;
	s = state == 'R' ? MX_RUNNING : state == 'D' ? MX_DISK : MX_SLEEPING;
	w->state[g][s]++;
	if (g == MX_WORKERS)
		w->now[s]++;
	if (s == MX_RUNNING || !read_stack(task, &cls, site, sizeof(site)))
		return;
	w->stacks = true;
	w->cls[g][cls]++;
	if (g == MX_WORKERS)
		count_site(w, site, cls);
}

void mx_waits_tick(struct mx_waits *w, const pid_t *pids, unsigned int n)
{
	char dir[32], task[64];
	struct dirent *de;

	memset(w->now, 0, sizeof(w->now));
	w->samples++;
	for (unsigned int p = 0; p < n; p++) {
		DIR *d;

		if (pids[p] <= 0)
			continue;
		snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pids[p]);
		d = opendir(dir);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			/* The job's main thread only waits for its workers. */
			if (atoi(de->d_name) == pids[p])
				continue;
			if (snprintf(task, sizeof(task), "%s/%s", dir, de->d_name) >=
			    (int)sizeof(task))
				continue;
			sample_task(w, task);
		}
		closedir(d);
	}
}

static json_t *group_json(const struct mx_waits *w, enum mx_thread_group g)
{
	static const char *const names[MX_NR_STATES] = {
		[MX_RUNNING] = "running", [MX_DISK] = "uninterruptible",
		[MX_SLEEPING] = "sleeping",
	};
	json_t *o = json_object(), *c = json_object();
	uint64_t total = 0;

	for (unsigned int s = 0; s < MX_NR_STATES; s++)
		total += w->state[g][s];
	json_object_set_new(o, "thread_samples", json_integer((json_int_t)total));
	for (unsigned int s = 0; s < MX_NR_STATES; s++)
		json_object_set_new(o, names[s], total ?
				    json_real((double)w->state[g][s] / (double)total) :
				    json_null());
	for (unsigned int k = 0; k < NR_CLASSES; k++)
		if (w->cls[g][k])
			json_object_set_new(c, rules[k].cls, json_real(total ?
					(double)w->cls[g][k] / (double)total : 0));
	json_object_set_new(o, "waiting_in", c);
	return o;
}

static int by_samples(const void *a, const void *b)
{
	const struct mx_wait_site *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

json_t *mx_waits_json(const struct mx_waits *w)
{
	struct mx_wait_site sorted[MX_WAIT_SITES];
	json_t *o = json_object(), *sites = json_array();

	json_object_set_new(o, "samples", json_integer((json_int_t)w->samples));
	json_object_set_new(o, "stacks", json_boolean(w->stacks));
	json_object_set_new(o, "workers", group_json(w, MX_WORKERS));
	json_object_set_new(o, "others", group_json(w, MX_OTHERS));
	memcpy(sorted, w->site, sizeof(sorted));
	qsort(sorted, w->nr_sites, sizeof(sorted[0]), by_samples);
	for (unsigned int i = 0; i < w->nr_sites; i++)
		json_array_append_new(sites, json_pack("{s:s, s:s, s:I}",
				"site", sorted[i].name, "class", sorted[i].cls,
				"samples", (json_int_t)sorted[i].samples));
	json_object_set_new(o, "worker_sites", sites);
	return o;
}
