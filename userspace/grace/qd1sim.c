// SPDX-License-Identifier: GPL-2.0
/*
 * qd1sim BS GRACE_US LATENESS_FILE [QD16]: a QD1 writer of BS-byte writes
 * on the module's own scheduler core (module/fnblk_sched.c), B = 32 MiB/s,
 * f = constant, for 20 s of simulated time. After each delivered
 * completion the writer submits its next write after BASE (10 us) plus a
 * lateness drawn at random from LATENESS_FILE (ns, one a line: wakeprobe's
 * output), all of which counts against its grace. With QD16 = 1 a second
 * user keeps 16 writes in flight beside it. Prints the QD1 writer's rate
 * against f(1)B (alone) or the QD16/QD1 rate ratio, and its activity
 * periods (activations). Documentation/benchmarks.rst, "The grace for
 * synchronous writers on a loaded machine".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/fnblk_sched.h"

#define BASE_NS	10000ULL
#define DUR_NS	20000000000ULL
#define NEVER	FNBLK_NEVER

struct slot {
	struct fnblk_req rq;
	int user;
	uint64_t next;		/* submit time, NEVER while in flight */
};

static uint64_t *late;
static size_t nlate;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t bytes_done[2];
static struct slot slots[17];

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct slot *sl = (struct slot *)rq;

	(void)s;
	if (rq->done_ns < DUR_NS)
		bytes_done[sl->user] += rq->bytes;
	sl->next = rq->done_ns + (sl->user == 0 ? BASE_NS + late[rnd() % nlate] : BASE_NS);
}

static const struct fnblk_sched_ops ops = { .complete = complete };

int main(int argc, char **argv)
{
	struct fnblk_params p;
	struct fnblk_sched s;
	struct fnblk_user u[2];
	uint64_t bs, t, cap = 1 << 20;
	int nslots, i, best;
	const char *why;
	FILE *f;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: qd1sim BS GRACE_US LATENESS_FILE [QD16]\n");
		return 2;
	}
	bs = strtoull(argv[1], NULL, 0);
	if (bs < 512 || bs > 64ULL << 20) {
		fprintf(stderr, "qd1sim: BS '%s': 512 to 64 MiB bytes\n", argv[1]);
		return 2;
	}
	f = fopen(argv[3], "r");
	late = malloc(cap * sizeof(*late));
	if (!f || !late) {
		perror(argv[3]);
		return 1;
	}
	while (nlate < cap) {
		unsigned long long x;

		if (fscanf(f, "%llu", &x) != 1)
			break;
		late[nlate++] = x;
	}
	fclose(f);
	if (!nlate) {
		fprintf(stderr, "qd1sim: %s: no lateness in ns\n", argv[3]);
		return 1;
	}
	nslots = argc > 4 && atoi(argv[4]) ? 17 : 1;
	memset(&p, 0, sizeof(p));
	fnblk_params_default(&p);
	p.bw = 32ULL << 20;
	p.grace_ns = strtoull(argv[2], NULL, 0) * 1000ULL;
	p.latency_ns = 0;
	p.overhead = 0;
	p.policy = FNBLK_POLICY_ANON;
	if (fnblk_fn_parse("constant", &p.fn, &why)) {
		fprintf(stderr, "qd1sim: f constant: %s\n", why);
		return 1;
	}
	fnblk_sched_init(&s, &p, &ops, NULL, 0);
	fnblk_user_init(&u[0], 1);
	fnblk_user_init(&u[1], 2);
	for (i = 0; i < nslots; i++) {
		slots[i].user = i == 0 ? 0 : 1;
		slots[i].next = 0;
	}
	for (;;) {
		uint64_t ev = fnblk_sched_next_event(&s), sub = NEVER;

		best = -1;
		for (i = 0; i < nslots; i++)
			if (slots[i].next < sub) {
				sub = slots[i].next;
				best = i;
			}
		if (ev == NEVER && sub >= DUR_NS)
			break;
		if (ev <= sub) {
			fnblk_sched_run(&s, ev);
			continue;
		}
		if (sub >= DUR_NS) {
			slots[best].next = NEVER;
			continue;
		}
		t = sub;
		memset(&slots[best].rq, 0, sizeof(slots[best].rq));
		slots[best].rq.bytes = bs;
		slots[best].rq.write = true;
		slots[best].next = NEVER;
		fnblk_sched_submit(&s, &u[slots[best].user], &slots[best].rq, t);
	}
	if (nslots == 1)
		printf("bs %llu grace %s us: QD1 alone %.2f %% of f(1)B, %llu activations\n",
		       (unsigned long long)bs, argv[2],
		       100.0 * bytes_done[0] / (DUR_NS / 1e9) / p.bw,
		       (unsigned long long)u[0].activations);
	else
		printf("bs %llu grace %s us: QD16/QD1 %.3f (QD1 %.2f, QD16 %.2f MiB/s), QD1 activations %llu\n",
		       (unsigned long long)bs, argv[2],
		       (double)bytes_done[1] / bytes_done[0],
		       bytes_done[0] / (DUR_NS / 1e9) / (1 << 20),
		       bytes_done[1] / (DUR_NS / 1e9) / (1 << 20),
		       (unsigned long long)u[0].activations);
	return 0;
}
