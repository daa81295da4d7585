// SPDX-License-Identifier: GPL-2.0
/* One job: its process, workers, final sync and durability (see job.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../lib/diag.h"
#include "../lib/interrupt.h"
#include "job.h"
#include "worker.h"

#define DIO_BLOCK	4096u

struct job {
	const struct mx_job_spec *s;
	pthread_t churn;
	bool churning;
	uint64_t churn_maps;
	struct mx_target tgt;
	struct mx_mode_run run;
	struct mx_work work;
	struct mx_worker *w;
	unsigned int started;
	struct mx_mode_thread main_mt;	/* the final sync's */
	bool main_mt_ready;
	uint64_t final_sync_ns;
	uint64_t durable_checked, durable_lost;
	struct mx_element_ref lost_at[MX_WRONG_KEPT];
	char error[512];
};

/* /proc/self/io: what the whole process read from and wrote to storage. */
static json_t *proc_io(void)
{
	static const char *const keys[] = {
		"rchar", "wchar", "read_bytes", "write_bytes",
		"cancelled_write_bytes",
	};
	unsigned long long v[5] = { 0 };
	char key[64];
	unsigned long long x;
	json_t *o;
	FILE *f = fopen("/proc/self/io", "re");

	if (!f)
		return json_null();
	while (fscanf(f, "%63[^:]: %llu\n", key, &x) == 2)
		for (unsigned int i = 0; i < 5; i++)
			if (!strcmp(key, keys[i]))
				v[i] = x;
	fclose(f);
	o = json_object();
	for (unsigned int i = 0; i < 5; i++)
		json_object_set_new(o, keys[i], json_integer((json_int_t)v[i]));
	return o;
}

static void json_io_delta(json_t *after, const json_t *before)
{
	const char *key;
	json_t *v;

	if (!json_is_object(after) || !json_is_object(before))
		return;
	json_object_foreach(after, key, v)
		json_integer_set(v, json_integer_value(v) -
				 json_integer_value(json_object_get(before, key)));
}

static int open_target(struct job *jb)
{
	const struct mx_member *m = jb->s->member;
	bool writes = jb->s->write_fraction > 0;
	int fd = open(m->path, (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC);

	if (fd < 0)
		return fnblk_seterr(jb->error, sizeof(jb->error), "%s: %s", m->path,
				    strerror(errno));
	jb->tgt = (struct mx_target){
		.path = m->path,
		.fd = fd,
		.data_offset = m->offset + MX_HEADER_SIZE,
		.data_bytes = mx_data_bytes(m->h.rows, m->h.cols),
		.span = mx_member_span(m),
		.blockdev = m->blockdev,
		.writes = writes,
	};
	return 0;
}

static int start_workers(struct job *jb)
{
	const struct mx_job_spec *s = jb->s;
	unsigned int n = s->set.threads;

	jb->work = (struct mx_work){
		.h = &s->member->h,
		.shape = { .rows = s->member->h.rows, .cols = s->member->h.cols,
			   .pattern = s->pattern, .block = s->block,
			   .seed = s->seed, .block_cols = s->block_cols },
		.mode = &jb->run,
		.version = s->version,
		.write_fraction = s->write_fraction,
		.sync_every = s->sync_every,
		.verify = s->verify,
		.limit = s->accesses,
	};
	pthread_mutex_init(&jb->work.lock, NULL);
	pthread_cond_init(&jb->work.cond, NULL);
	jb->w = calloc(n, sizeof(*jb->w));
	if (!jb->w)
		return fnblk_seterr(jb->error, sizeof(jb->error), "out of memory");
	for (unsigned int i = 0; i < n; i++) {
		jb->w[i].work = &jb->work;
		jb->w[i].mt = (struct mx_mode_thread){ .run = &jb->run, .id = i };
		if (pthread_create(&jb->w[i].thread, NULL, mx_worker_main, &jb->w[i]))
			return fnblk_seterr(jb->error, sizeof(jb->error),
					    "starting worker %u: %s", i, strerror(errno));
		jb->started++;
	}
	return 0;
}

#define CHURN_BYTES	(1u << 20)

/*
 * --mmap-churn: map, touch and unmap anonymous memory every period until
 * the workers are done; each mmap and munmap takes the mmap lock for
 * writing, so page faults that need it for reading wait behind it.
 */
static void *churn_main(void *arg)
{
	struct job *jb = arg;
	struct timespec ts = {
		.tv_sec = (time_t)(jb->s->churn_ns / 1000000000),
		.tv_nsec = (long)(jb->s->churn_ns % 1000000000),
	};

	pthread_setname_np(pthread_self(), "mx-churn");
	while (!atomic_load(&jb->work.stop) && !atomic_load(&jb->work.done)) {
		char *p = mmap(NULL, CHURN_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED) {
			p[0] = p[CHURN_BYTES - 1] = 1;
			munmap(p, CHURN_BYTES);
			jb->churn_maps++;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Read back the last updates of every worker from the device itself. */
static void check_durable(struct job *jb)
{
	const struct mx_member *m = jb->s->member;
	char *buf = NULL;
	int fd;

	fd = open(m->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		/* No O_DIRECT here: drop the cached copy and read through. */
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || posix_fadvise(fd, (off_t)m->offset, (off_t)m->h.stride,
					    POSIX_FADV_DONTNEED)) {
			fnblk_seterr(jb->error, sizeof(jb->error), "durability check: %s: %s",
				     m->path, strerror(errno));
			goto out;
		}
	}
	if (posix_memalign((void **)&buf, DIO_BLOCK, DIO_BLOCK))
		goto out;
	for (unsigned int t = 0; t < jb->started; t++) {
		const struct mx_worker *w = &jb->w[t];
		unsigned int n = w->nr_recent < MX_RECENT_UPDATES ? w->nr_recent :
				 MX_RECENT_UPDATES;

		for (unsigned int k = 0; k < n; k++) {
			const struct mx_element_ref *r = &w->recent[k];
			uint64_t at = jb->tgt.data_offset +
				      (r->j * m->h.rows + r->i) * MX_ELEM;
			uint64_t blk = at / DIO_BLOCK * DIO_BLOCK;
			uint32_t version = 0;
			double x;

			if (pread(fd, buf, DIO_BLOCK, (off_t)blk) != DIO_BLOCK) {
				fnblk_seterr(jb->error, sizeof(jb->error),
					     "durability check: reading %s at %" PRIu64 ": %s",
					     m->path, blk, strerror(errno));
				goto out;
			}
			memcpy(&x, buf + (at - blk), sizeof(x));
			jb->durable_checked++;
			if (mx_check(&m->h, r->i, r->j, x, &version) &&
			    version == jb->s->version)
				continue;
			if (jb->durable_lost < MX_WRONG_KEPT)
				jb->lost_at[jb->durable_lost] =
					(struct mx_element_ref){ r->i, r->j, x };
			jb->durable_lost++;
		}
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
}

static uint64_t updates(const struct job *jb)
{
	uint64_t n = 0;

	for (unsigned int t = 0; t < jb->started; t++)
		n += jb->w[t].updates;
	return n;
}

/* After the workers: one sync of everything, timed; then the check. */
static void finish_writes(struct job *jb)
{
	const struct mx_mode *m = jb->run.mode;
	uint64_t t;

	if (!updates(jb))
		return;
	jb->main_mt = (struct mx_mode_thread){ .run = &jb->run,
					       .id = jb->s->set.threads };
	if (m->thread_init && m->thread_init(&jb->main_mt, jb->error, sizeof(jb->error)))
		return;
	jb->main_mt_ready = true;
	t = mx_now_ns();
	if (m->sync(&jb->main_mt, jb->error, sizeof(jb->error)))
		return;
	jb->final_sync_ns = mx_now_ns() - t;
	if (jb->s->verify)
		check_durable(jb);
}

static json_t *results(struct job *jb, json_t *io0)
{
	const struct mx_job_spec *s = jb->s;
	json_t *o = json_object(), *threads = json_array(), *mode = json_object();
	json_t *settings = json_object(), *counters = json_object(), *io;
	uint64_t start = UINT64_MAX, end = 0;
	struct rusage ru;

	json_object_set_new(o, "job", json_integer(s->job));
	json_object_set_new(o, "pid", json_integer(getpid()));
	json_object_set_new(o, "path", json_string(s->member->path));
	json_object_set_new(o, "offset", json_integer((json_int_t)s->member->offset));
	json_object_set_new(o, "version", json_integer(s->version));
	for (unsigned int t = 0; t < jb->started; t++) {
		const struct mx_worker *w = &jb->w[t];

		if (w->start_ns && w->start_ns < start)
			start = w->start_ns;
		if (w->end_ns > end)
			end = w->end_ns;
		json_array_append_new(threads, mx_worker_json(w));
		if (w->error[0] && !jb->error[0])
			fnblk_seterr(jb->error, sizeof(jb->error), "worker %u: %s", t, w->error);
	}
	json_object_set_new(o, "elapsed_ns", json_integer(end > start ?
							  (json_int_t)(end - start) : 0));
	json_object_set_new(o, "threads", threads);
	json_object_set_new(o, "final_sync_ns", json_integer((json_int_t)jb->final_sync_ns));
	if (s->churn_ns)
		json_object_set_new(o, "mmap_churn_maps", json_integer((json_int_t)jb->churn_maps));
	if (jb->durable_checked || jb->durable_lost) {
		json_t *lost = json_array();

		for (unsigned int k = 0; k < jb->durable_lost && k < MX_WRONG_KEPT; k++)
			json_array_append_new(lost, json_pack("{s:I, s:I, s:f}",
					"i", (json_int_t)jb->lost_at[k].i,
					"j", (json_int_t)jb->lost_at[k].j,
					"found", jb->lost_at[k].found));
		json_object_set_new(o, "durability", json_pack("{s:I, s:I, s:o}",
				"checked", (json_int_t)jb->durable_checked,
				"lost", (json_int_t)jb->durable_lost, "lost_at", lost));
	}
	json_object_set_new(mode, "name", json_string(jb->run.mode->name));
	if (jb->run.priv && jb->run.mode->describe)
		jb->run.mode->describe(&jb->run, settings);
	if (jb->run.priv && jb->run.mode->stats)
		jb->run.mode->stats(&jb->run, counters);
	json_object_set_new(mode, "settings", settings);
	json_object_set_new(mode, "counters", counters);
	json_object_set_new(o, "mode", mode);
	if (!getrusage(RUSAGE_SELF, &ru))
		json_object_set_new(o, "rusage", json_pack("{s:I, s:I, s:I}",
				"minflt", (json_int_t)ru.ru_minflt,
				"majflt", (json_int_t)ru.ru_majflt,
				"maxrss_kb", (json_int_t)ru.ru_maxrss));
	io = proc_io();
	json_io_delta(io, io0);
	json_object_set_new(o, "proc_io", io);
	if (jb->error[0])
		json_object_set_new(o, "error", json_string(jb->error));
	return o;
}

static void send_results(struct job *jb, json_t *io0, int fd)
{
	json_t *o = results(jb, io0);

	if (json_dumpfd(o, fd, JSON_COMPACT))
		fprintf(stderr, "fnblk-matrix: job %u: sending results: %s\n",
			jb->s->job, strerror(errno));
	json_decref(o);
	close(fd);
}

void mx_job_main(const struct mx_job_spec *s, int ready_fd, int go_fd,
		 int result_fd)
{
	struct job jb = { .s = s };
	uint64_t t0 = 0;
	json_t *io0;
	bool ok;

	fnblk_interrupt_child();
	if (s->cg && fnblk_cgroup_enter(s->cg, s->job, jb.error, sizeof(jb.error)))
		goto report;
	io0 = proc_io();
	jb.run = (struct mx_mode_run){ .mode = s->mode, .tgt = &jb.tgt,
				       .set = &s->set, .conf = s->mode_conf };
	ok = !open_target(&jb) &&
	     !s->mode->open(&jb.run, jb.error, sizeof(jb.error));
	if (!ok)
		jb.run.priv = NULL;
	if (ok && start_workers(&jb))
		atomic_store(&jb.work.stop, true);
	if (jb.started)
		mx_work_wait_ready(&jb.work, jb.started);
	/* Ready even when failing: the parent learns why from the results. */
	if (write(ready_fd, "", 1) != 1 ||
	    read(go_fd, &t0, sizeof(t0)) != sizeof(t0))
		atomic_store(&jb.work.stop, true);	/* the parent gave up */
	close(ready_fd);
	close(go_fd);
	if (s->duration_ns)
		jb.work.deadline_ns = t0 + s->duration_ns;
	if (jb.started < s->set.threads)
		atomic_store(&jb.work.stop, true);
	if (jb.started)
		mx_work_go(&jb.work);
	if (jb.started && s->churn_ns)
		jb.churning = !pthread_create(&jb.churn, NULL, churn_main, &jb);
	for (unsigned int t = 0; t < jb.started; t++)
		pthread_join(jb.w[t].thread, NULL);
	atomic_store(&jb.work.done, true);
	if (jb.churning)
		pthread_join(jb.churn, NULL);
	if (ok && !jb.error[0])
		finish_writes(&jb);
	send_results(&jb, io0, result_fd);
	json_decref(io0);
	if (jb.main_mt_ready && s->mode->thread_exit)
		s->mode->thread_exit(&jb.main_mt);
	if (jb.run.priv)
		s->mode->close(&jb.run);
	for (unsigned int t = 0; t < jb.started; t++)
		mx_gram_free(&jb.w[t].gram);
	_exit(jb.error[0] ? 1 : 0);
report:
	fnblk_interrupt_child();
	{
		json_t *o = json_pack("{s:i, s:s}", "job", s->job, "error", jb.error);

		if (write(ready_fd, "", 1) < 0) {
			/* the parent sees EOF instead */
		}
		json_dumpfd(o, result_fd, JSON_COMPACT);
		json_decref(o);
	}
	_exit(1);
}
