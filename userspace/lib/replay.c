// SPDX-License-Identifier: GPL-2.0
/* From a job record to the operations it replays as (see replay.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay_locality.h"
#include "units.h"

const char *const replay_phase_names[REPLAY_NR_PHASES] = {
	[REPLAY_STAGEIN] = "stagein",
	[REPLAY_PAYLOAD] = "payload",
	[REPLAY_STAGEOUT] = "stageout",
};

const char *const replay_assign_names[] = {
	[REPLAY_ASSIGN_RECORDED] = "recorded",
	[REPLAY_ASSIGN_RANDOM] = "random",
	[REPLAY_ASSIGN_LEAST_LOADED] = "least-loaded",
	[REPLAY_ASSIGN_DATA_LOCAL] = "data-local",
	NULL,
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
		      bool local, struct replay_plan *p, const char **why)
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
		if (push(p, REPLAY_READ, REPLAY_STAGEIN, p->in_bytes, why))
			return -1;
		if (p->nr)
			p->ops[p->nr - 1].remote = !local;
		if (push_compute(c, p, payload, &since_ckpt, why))
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

bool replay_fails(const struct replay_config *c, const double *site_fail,
		  const struct jobrec *r, unsigned int attempt,
		  enum replay_phase ph)
{
	double p = site_fail && site_fail[ph] >= 0 ? site_fail[ph] : c->fail[ph];
	uint64_t key;

	/* A job the records show failing failed in its payload. */
	if (c->fail_from_records && r->failed && ph == REPLAY_PAYLOAD)
		return true;
	if (p <= 0)
		return false;
	key = c->seed * 0x100000001b3ULL ^ r->id;
	key = key * 31 + attempt;
	key = key * 7 + (uint64_t)ph;
	return replay_uniform(key) < p;
}

int replay_site_fail_set(double *fail, const char *key, const char *value,
			 const char **why)
{
	unsigned int ph;
	double p;

	if (strncmp(key, "fail-", 5))
		return 1;
	for (ph = 0; ph < REPLAY_NR_PHASES; ph++)
		if (!strcmp(key + 5, replay_phase_names[ph]))
			break;
	if (ph == REPLAY_NR_PHASES)
		return 1;
	if (fnblk_parse_real(value, true, &p, why))
		return -1;
	if (p > 1) {
		*why = "a probability is at most 1 (100%)";
		return -1;
	}
	fail[ph] = p;
	return 0;
}

uint64_t replay_backoff_ns(const struct replay_config *c, unsigned int a)
{
	unsigned int shift = a > 1 ? a - 1 : 0;

	if (shift > 20)
		shift = 20;
	return c->backoff_ns << shift;
}

/* Is a less loaded than b: (running + queued) / slots, compared exactly. */
static bool lighter(const struct replay_site_load *a,
		    const struct replay_site_load *b)
{
	return (uint64_t)(a->running + a->queued) * b->slots <
	       (uint64_t)(b->running + b->queued) * a->slots;
}

uint32_t replay_assign_site(enum replay_assign how,
			    const struct replay_config *c,
			    const struct jobrec *r, unsigned int attempt,
			    const struct replay_site_load *sites, uint32_t nr,
			    uint32_t recorded, const struct replay_locality *loc)
{
	const struct replay_locality_entry *data;
	uint32_t s, best = 0;
	uint64_t key;
	size_t k;

	switch (how) {
	case REPLAY_ASSIGN_DATA_LOCAL:
		data = replay_locality_of(loc, r->category);
		if (!data)
			return replay_assign_site(REPLAY_ASSIGN_LEAST_LOADED, c, r,
						  attempt, sites, nr, recorded, loc);
		best = data->sites[0];
		for (k = 1; k < data->nr; k++)
			if (lighter(&sites[data->sites[k]], &sites[best]))
				best = data->sites[k];
		return best;
	case REPLAY_ASSIGN_RANDOM:
		key = (c->seed * 0x100000001b3ULL ^ r->id) * 31 + attempt;
		return (uint32_t)(replay_uniform(key ^ 0x5173) * nr);
	case REPLAY_ASSIGN_LEAST_LOADED:
		for (s = 1; s < nr; s++)
			if (lighter(&sites[s], &sites[best]))
				best = s;
		return best;
	default:
		return recorded;
	}
}

const char *replay_site_param(char *buf, size_t len, unsigned int slots,
			      const double *fail, uint64_t bw,
			      uint64_t latency_ns, uint64_t overhead,
			      uint64_t grace_ns, const char *policy,
			      const char *users, const char *fn)
{
	char rate[FNBLK_UNIT_BUFLEN + 2], lat[FNBLK_UNIT_BUFLEN];
	char ovh[FNBLK_UNIT_BUFLEN], gr[FNBLK_UNIT_BUFLEN];
	size_t n = (size_t)snprintf(buf, len, "slots=%u", slots);
	unsigned int ph;

	for (ph = 0; fail && ph < REPLAY_NR_PHASES && n < len; ph++)
		if (fail[ph] >= 0)
			n += (size_t)snprintf(buf + n, len - n, ",fail-%s=%.9f",
					      replay_phase_names[ph], fail[ph]);
	if (!policy || n >= len)
		return buf;
	if (bw) {
		fnblk_format_size_exact(bw, rate, sizeof(rate) - 2);
		strcat(rate, "/s");
	} else {
		snprintf(rate, sizeof(rate), "unlimited");
	}
	snprintf(buf + n, len - n,
		 ",bw=%s,latency=%s,overhead=%s,grace=%s,policy=%s,users=%s,fn=%s",
		 rate, fnblk_format_duration_exact(latency_ns, lat, sizeof(lat)),
		 fnblk_format_size_exact(overhead, ovh, sizeof(ovh)),
		 fnblk_format_duration_exact(grace_ns, gr, sizeof(gr)), policy,
		 users, fn);
	return buf;
}
