// SPDX-License-Identifier: GPL-2.0
/* From a job record to the operations it replays as (see replay.h). */
#include <math.h>
#include <stdlib.h>

#include "replay.h"

const char *const replay_phase_names[REPLAY_NR_PHASES] = {
	[REPLAY_STAGEIN] = "stagein",
	[REPLAY_PAYLOAD] = "payload",
	[REPLAY_STAGEOUT] = "stageout",
};

const char *const replay_stagein_names[] = {
	[REPLAY_STAGEIN_RECORDED] = "recorded",
	[REPLAY_STAGEIN_DIRECT] = "direct",
	[REPLAY_STAGEIN_COPY] = "copy",
	NULL,
};

void replay_config_default(struct replay_config *c)
{
	*c = (struct replay_config) {
		.time_scale = 3600,
		.byte_scale = 1000,
		.stagein = REPLAY_STAGEIN_RECORDED,
		.max_chunks = 16,
		.fail_from_records = true,
		.max_attempts = 3,
		.backoff_ns = 100000000,
		.seed = 1,
	};
}

int replay_config_check(const struct replay_config *c, const char **why)
{
	unsigned int i;

	if (!(c->time_scale > 0) || !isfinite(c->time_scale)) {
		*why = "the time scale must be a positive number";
		return -1;
	}
	if (!(c->byte_scale > 0) || !isfinite(c->byte_scale)) {
		*why = "the byte scale must be a positive number";
		return -1;
	}
	if (c->max_chunks < 1 || c->max_chunks > REPLAY_MAX_CHUNKS) {
		*why = "direct reads: between 1 and 1024 pieces";
		return -1;
	}
	if (!c->ckpt_period_ns != !c->ckpt_bytes) {
		*why = "checkpoints need both a period and a size";
		return -1;
	}
	for (i = 0; i < REPLAY_NR_PHASES; i++) {
		if (!(c->fail[i] >= 0 && c->fail[i] <= 1)) {
			*why = "a failure probability is between 0 and 1";
			return -1;
		}
	}
	if (c->max_attempts < 1 || c->max_attempts > 100) {
		*why = "attempts: between 1 and 100";
		return -1;
	}
	return 0;
}

uint64_t replay_bytes(const struct replay_config *c, uint64_t record_bytes)
{
	double b = ceil((double)record_bytes / c->byte_scale / REPLAY_BLOCK);

	if (!record_bytes)
		return 0;
	if (b < 1)
		b = 1;
	/* Nobody replays exabytes; keep the product in range regardless. */
	if (b > (double)(UINT64_MAX / REPLAY_BLOCK / 2))
		b = (double)(UINT64_MAX / REPLAY_BLOCK / 2);
	return (uint64_t)b * REPLAY_BLOCK;
}

uint64_t replay_ns(const struct replay_config *c, double record_s)
{
	double ns = llround(record_s / c->time_scale * 1e9);

	return ns > 0 ? (uint64_t)ns : 0;
}

static int push(struct replay_plan *p, enum replay_op_kind kind,
		enum replay_phase ph, uint64_t amount, const char **why)
{
	struct replay_op *op;

	if (!amount)
		return 0;
	if (p->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;

		if (p->nr >= REPLAY_MAX_OPS) {
			*why = "the plan is longer than 100000 operations (checkpoint period too short?)";
			return -1;
		}
		op = realloc(p->ops, cap * sizeof(*op));
		if (!op) {
			*why = "out of memory";
			return -1;
		}
		p->ops = op;
		p->cap = cap;
	}
	op = &p->ops[p->nr++];
	*op = (struct replay_op) {
		.kind = (uint8_t)kind,
		.phase = (uint8_t)ph,
		.remote = kind == REPLAY_READ && ph == REPLAY_PAYLOAD,
		.amount = amount,
	};
	return 0;
}

/* Compute of ns, a checkpoint each time the period's compute is done. */
static int push_compute(const struct replay_config *c, struct replay_plan *p,
			uint64_t ns, uint64_t *since_ckpt, const char **why)
{
	while (c->ckpt_period_ns && *since_ckpt + ns >= c->ckpt_period_ns) {
		uint64_t step = c->ckpt_period_ns - *since_ckpt;

		if (push(p, REPLAY_COMPUTE, REPLAY_PAYLOAD, step, why) ||
		    push(p, REPLAY_WRITE, REPLAY_PAYLOAD, c->ckpt_bytes, why))
			return -1;
		p->ops[p->nr - 1].checkpoint = true;
		ns -= step;
		*since_ckpt = 0;
	}
	*since_ckpt += ns;
	return push(p, REPLAY_COMPUTE, REPLAY_PAYLOAD, ns, why);
}

int replay_plan_build(const struct replay_config *c, const struct jobrec *r,
		      struct replay_plan *p, const char **why)
{
	uint64_t payload = replay_ns(c, r->cpu_s / r->cores);
	uint64_t blocks, k, i, since_ckpt = 0;

	p->nr = 0;
	p->in_bytes = replay_bytes(c, r->in_bytes);
	p->out_bytes = replay_bytes(c, r->out_bytes);
	switch (c->stagein) {
	case REPLAY_STAGEIN_RECORDED:
		p->direct = r->stagein == JOBREC_STAGEIN_DIRECT;
		break;
	case REPLAY_STAGEIN_DIRECT:
		p->direct = true;
		break;
	case REPLAY_STAGEIN_COPY:
		p->direct = false;
		break;
	}
	blocks = p->in_bytes / REPLAY_BLOCK;
	if (!p->direct || !blocks) {
		if (push(p, REPLAY_READ, REPLAY_STAGEIN, p->in_bytes, why) ||
		    push_compute(c, p, payload, &since_ckpt, why))
			return -1;
	} else {
		k = r->in_files ? r->in_files : 1;
		if (k > c->max_chunks)
			k = c->max_chunks;
		if (k > blocks)
			k = blocks;
		for (i = 0; i < k; i++) {
			uint64_t b = blocks / k + (i < blocks % k);
			uint64_t ns = payload / k + (i < payload % k);

			if (push(p, REPLAY_READ, REPLAY_PAYLOAD, b * REPLAY_BLOCK,
				 why) ||
			    push_compute(c, p, ns, &since_ckpt, why))
				return -1;
		}
	}
	return push(p, REPLAY_WRITE, REPLAY_STAGEOUT, p->out_bytes, why);
}

void replay_plan_free(struct replay_plan *p)
{
	free(p->ops);
	p->ops = NULL;
	p->nr = p->cap = 0;
}

double replay_uniform(uint64_t key)
{
	uint64_t z = key + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) * 0x1.0p-53;
}

bool replay_fails(const struct replay_config *c, const struct jobrec *r,
		  unsigned int attempt, enum replay_phase ph)
{
	uint64_t key;

	/* A job the records show failing failed in its payload. */
	if (c->fail_from_records && r->failed && ph == REPLAY_PAYLOAD)
		return true;
	if (c->fail[ph] <= 0)
		return false;
	key = c->seed * 0x100000001b3ULL ^ r->id;
	key = key * 31 + attempt;
	key = key * 7 + (uint64_t)ph;
	return replay_uniform(key) < c->fail[ph];
}

uint64_t replay_backoff_ns(const struct replay_config *c, unsigned int a)
{
	unsigned int shift = a > 1 ? a - 1 : 0;

	if (shift > 20)
		shift = 20;
	return c->backoff_ns << shift;
}
