/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Message generator of the fnblk netlink fuzzer. From a policy read from
 * the controller (fuzz_nl.h) it builds requests that are mostly valid, so
 * they reach the handlers, with chosen faults: values at and beyond the
 * declared bounds, wrong lengths and types, strings without terminator or
 * too long, nests with garbage or too deep, unknown and duplicate
 * attributes, huge tables, then byte-level mutations of the whole message.
 * Values seen in replies (device ids, names, user keys) are reused, so
 * requests name things that exist. Deterministic for a seed.
 */
#ifndef FUZZ_GEN_H
#define FUZZ_GEN_H

#include "fuzz_nl.h"

/* ---- random numbers: splitmix64, the same on every libc ---- */

struct fz_rng {
	uint64_t s;
};

static inline uint64_t fz_rand(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t fz_below(struct fz_rng *r, uint64_t n)
{
	return n ? fz_rand(r) % n : 0;
}

/* True with probability pct percent. */
static inline int fz_chance(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

/* ---- values seen in replies ---- */

#define FZ_POOL_VALS	16
#define FZ_POOL_LEN	64

/* Recent distinct payloads of one attribute, by (parent nest, type). */
struct fz_pool {
	int nr, next;
	uint16_t len[FZ_POOL_VALS];
	uint8_t val[FZ_POOL_VALS][FZ_POOL_LEN];
};

struct fz_pools {
	/* [0][type]: top level; [1 + parent][type]: inside nest "parent". */
	struct fz_pool p[FZ_MAX_TYPE + 2][FZ_MAX_TYPE + 1];
};

static inline struct fz_pool *fz_pool_of(struct fz_pools *ps, int parent,
					 int type)
{
	if (parent < -1 || parent > FZ_MAX_TYPE || type < 0 || type > FZ_MAX_TYPE)
		return NULL;
	return &ps->p[parent + 1][type];
}

static inline void fz_pool_add(struct fz_pools *ps, int parent,
			       const struct nlattr *a)
{
	struct fz_pool *p = fz_pool_of(ps, parent, FZ_NLA_TYPE(a));
	int len = FZ_NLA_LEN(a), i;

	if (!p || len <= 0 || len > FZ_POOL_LEN)
		return;
	for (i = 0; i < p->nr; i++)
		if (p->len[i] == len && !memcmp(p->val[i], FZ_NLA_DATA(a), len))
			return;
	i = p->nr < FZ_POOL_VALS ? p->nr++ : p->next++ % FZ_POOL_VALS;
	p->len[i] = (uint16_t)len;
	memcpy(p->val[i], FZ_NLA_DATA(a), len);
}

/* Remember the attributes of a reply (and of its nests, one level). */
static inline void fz_harvest(struct fz_pools *ps, const uint8_t *msg,
			      int msglen)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)msg;
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	int len = msglen - NLMSG_HDRLEN - GENL_HDRLEN;
	const struct nlattr *a, *in;
	int rem, r2;

	fz_for_each_attr(a, p, len, rem) {
		fz_pool_add(ps, -1, a);
		if (a->nla_type & NLA_F_NESTED || FZ_NLA_LEN(a) > FZ_POOL_LEN)
			fz_for_each_attr(in, FZ_NLA_DATA(a), FZ_NLA_LEN(a), r2)
				fz_pool_add(ps, FZ_NLA_TYPE(a), in);
	}
}

/* ---- the generator ---- */

struct fz_gen {
	struct fz_rng rng;
	const struct fz_policy *pols;	/* the current command's policies */
	struct fz_pools *pools;
	/*
	 * A top-level attribute almost every request carries (the one that
	 * names the object acted on), 0 for none: without it few requests
	 * would reach past the lookup.
	 */
	int favoured;
};

/* Characters and pieces a configuration string is made of. */
static const char *const fz_tokens[] = {
	"0", "1", "2", "3", "7", "10", "64", "255", "256", "1000", "1024",
	"4096", "65535", "65536", "4294967295", "4294967296",
	"18446744073709551615", "18446744073709551616", "99999999999999999999",
	"-1", "-0", "+1", "0.5", "0.00002", "1e9", "1e308", "1e-308", "nan",
	"inf", ".", ",", ":", ";", " ", "x", "fnblk", "table", "linear",
	"power", "constant", "anon", "fifo", "weighted", "tgid", "pid",
	"cgroup", "single", "memory", "none", "all", "writes", "%s%n",
	"\xff", "\xc3\xa9", "table:", "linear:", "power:",
};

#define FZ_NTOKENS (sizeof(fz_tokens) / sizeof(fz_tokens[0]))

/* A string of up to max bytes (no terminator) into out; its length. */
static inline size_t fz_gen_string(struct fz_gen *g, int parent, int type,
				   char *out, size_t max)
{
	struct fz_pool *p = fz_pool_of(g->pools, parent, type);
	size_t n = 0, t;
	unsigned int mode = (unsigned int)fz_below(&g->rng, 10);

	if (mode < 3 && p && p->nr) {		/* seen in a reply */
		int i = (int)fz_below(&g->rng, (uint64_t)p->nr);

		n = strnlen((const char *)p->val[i], p->len[i]);
		n = n > max ? max : n;
		memcpy(out, p->val[i], n);
		/* Sometimes with a twist at the end. */
		if (n && fz_chance(&g->rng, 30))
			out[n - 1] = (char)('0' + fz_below(&g->rng, 10));
		return n;
	}
	if (mode < 8) {				/* tokens */
		size_t k = 1 + fz_below(&g->rng, fz_chance(&g->rng, 10) ? 400 : 6);

		while (k-- && n < max) {
			const char *s = fz_tokens[fz_below(&g->rng, FZ_NTOKENS)];

			t = strlen(s);
			t = t > max - n ? max - n : t;
			memcpy(out + n, s, t);
			n += t;
		}
		return n;
	}
	/* Random bytes, printable or not, up to the limit. */
	n = fz_chance(&g->rng, 30) ? max : fz_below(&g->rng, max + 1);
	for (t = 0; t < n; t++)
		out[t] = (char)(mode == 8 ? 32 + fz_below(&g->rng, 95) :
				fz_below(&g->rng, 256));
	return n;
}

/* An unsigned value for [lo, hi]: bounds, near them, powers of two, pool. */
static inline uint64_t fz_gen_uint(struct fz_gen *g, int parent, int type,
				   uint64_t lo, uint64_t hi, int width)
{
	struct fz_pool *p = fz_pool_of(g->pools, parent, type);
	uint64_t v;

	switch (fz_below(&g->rng, 9)) {
	case 0: v = lo; break;
	case 1: v = hi; break;
	case 2: v = lo + fz_below(&g->rng, 4); break;
	case 3: v = hi - fz_below(&g->rng, 4); break;
	case 4: {
		int k = (int)fz_below(&g->rng, 64);

		v = (1ULL << k) + fz_below(&g->rng, 3) - 1;
		break;
	}
	case 5:
		if (p && p->nr) {
			int i = (int)fz_below(&g->rng, (uint64_t)p->nr);

			v = 0;
			memcpy(&v, p->val[i], p->len[i] < 8 ? p->len[i] : 8);
			break;
		}
		/* fall through */
	case 6: v = fz_below(&g->rng, 1000); break;
	case 7: v = fz_below(&g->rng, 1ULL << 40) * 4096; break;
	default: v = fz_rand(&g->rng); break;
	}
	if (width < 8)
		v &= (1ULL << (8 * width)) - 1;
	/* Kept inside the bounds (a span of 0 is the whole range). */
	if (v < lo || v > hi)
		v = hi - lo + 1 ? lo + v % (hi - lo + 1) : v;
	return v;
}

static inline int fz_int_width(uint32_t type)
{
	switch (type) {
	case NL_ATTR_TYPE_U8: case NL_ATTR_TYPE_S8: return 1;
	case NL_ATTR_TYPE_U16: case NL_ATTR_TYPE_S16: return 2;
	case NL_ATTR_TYPE_U32: case NL_ATTR_TYPE_S32: return 4;
	case NL_ATTR_TYPE_U64: case NL_ATTR_TYPE_S64: return 8;
	}
	return 0;
}

static void fz_gen_attrs(struct fz_gen *g, struct fz_msg *m, int pol,
			 int parent, int depth, int bad);

/* One attribute of type t described by d into m; bad: break it. */
static inline void fz_gen_attr(struct fz_gen *g, struct fz_msg *m,
			       const struct fz_attr *d, int parent, int t,
			       int depth, int bad)
{
	uint8_t tmp[4096];
	size_t at, n;
	int w = fz_int_width(d->type), k;
	uint16_t flags = 0;

	if (fz_chance(&g->rng, 1))
		flags |= NLA_F_NET_BYTEORDER;
	if (bad && fz_chance(&g->rng, 25)) {
		/* Any payload at all: wrong length, wrong type. */
		static const size_t lens[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 100 };

		n = lens[fz_below(&g->rng, sizeof(lens) / sizeof(lens[0]))];
		for (k = 0; k < (int)n; k++)
			tmp[k] = (uint8_t)fz_rand(&g->rng);
		fz_attr_put(m, (uint16_t)(t | flags), tmp, n);
		return;
	}
	switch (d->type) {
	case NL_ATTR_TYPE_FLAG:
		fz_attr_put(m, (uint16_t)(t | flags), tmp, 0);
		return;
	case NL_ATTR_TYPE_U8: case NL_ATTR_TYPE_U16:
	case NL_ATTR_TYPE_U32: case NL_ATTR_TYPE_U64:
	case NL_ATTR_TYPE_S8: case NL_ATTR_TYPE_S16:
	case NL_ATTR_TYPE_S32: case NL_ATTR_TYPE_S64: {
		uint64_t lo = 0, hi = w == 8 ? ~0ULL : (1ULL << (8 * w)) - 1, v;

		if (d->has_u) {
			lo = d->umin;
			hi = d->umax;
		} else if (d->has_s && d->smax >= 0) {
			/* Signed: the non-negative part, negatives by chance. */
			lo = d->smin > 0 ? (uint64_t)d->smin : 0;
			hi = (uint64_t)d->smax;
		}
		v = fz_gen_uint(g, parent, t, lo, hi, w);
		if (d->has_s && d->smin < 0 && fz_chance(&g->rng, 30))
			v = (uint64_t)-(int64_t)fz_gen_uint(g, parent, t, 1,
							    (uint64_t)-d->smin, w);
		if (bad) {	/* just outside the bounds, or a type's extreme */
			switch (fz_below(&g->rng, 3)) {
			case 0: v = lo - 1; break;
			case 1: v = hi + 1; break;
			default: v = ~0ULL; break;
			}
		}
		if (d->has_mask && !bad)
			v &= d->mask;
		fz_attr_put(m, (uint16_t)(t | flags), &v, (size_t)w);
		return;
	}
	case NL_ATTR_TYPE_STRING:
	case NL_ATTR_TYPE_NUL_STRING: {
		size_t max = d->has_maxlen ? d->maxlen : 256;

		if (bad)
			max += 1 + fz_below(&g->rng, 64);
		if (max > sizeof(tmp) - 1)	/* room for the terminator */
			max = sizeof(tmp) - 1;
		n = fz_gen_string(g, parent, t, (char *)tmp, max);
		/* No terminator, or an early one, if bad. */
		if (!bad || fz_chance(&g->rng, 50))
			tmp[n++] = '\0';
		else if (n > 1)
			tmp[fz_below(&g->rng, n)] = '\0';
		fz_attr_put(m, (uint16_t)(t | flags), tmp, n);
		return;
	}
	case NL_ATTR_TYPE_NESTED:
	case NL_ATTR_TYPE_NESTED_ARRAY:
		at = fz_attr_start(m, (uint16_t)(t | NLA_F_NESTED));
		if (bad && fz_chance(&g->rng, 30))	/* without NLA_F_NESTED */
			FZ_NLA(m->buf + at)->nla_type &= ~NLA_F_NESTED;
		if (d->type == NL_ATTR_TYPE_NESTED_ARRAY) {
			int i, nr = (int)fz_below(&g->rng, 8);

			for (i = 0; i < nr; i++) {
				size_t in = fz_attr_start(m, (uint16_t)(i | NLA_F_NESTED));

				fz_gen_attrs(g, m, d->sub, t, depth + 1, bad);
				fz_attr_end(m, in);
			}
		} else if (bad && depth < 32 && fz_chance(&g->rng, 20)) {
			/* Nests inside nests, deeper than anyone expects. */
			fz_gen_attr(g, m, d, parent, t, depth + 1, bad);
		} else {
			fz_gen_attrs(g, m, d->sub, t, depth + 1, bad);
		}
		fz_attr_end(m, at);
		return;
	case NL_ATTR_TYPE_BITFIELD32: {
		uint32_t bf[2] = { (uint32_t)fz_rand(&g->rng),
				   (uint32_t)fz_rand(&g->rng) };

		if (!bad && d->has_mask)
			bf[0] &= (uint32_t)d->mask, bf[1] &= (uint32_t)d->mask;
		fz_attr_put(m, (uint16_t)(t | flags), bf, sizeof(bf));
		return;
	}
	default: {	/* binary, or not described: any bytes */
		size_t lo = d->has_minlen ? d->minlen : 0;
		size_t hi = d->has_maxlen ? d->maxlen : 256;
		uint8_t *big;

		if (fz_chance(&g->rng, 3)) {	/* a huge table */
			n = 1000 + fz_below(&g->rng, 60000);
			big = malloc(n);
			for (k = 0; big && k < (int)n; k++)
				big[k] = (uint8_t)fz_rand(&g->rng);
			if (big)
				fz_attr_put(m, (uint16_t)(t | flags), big, n);
			free(big);
			return;
		}
		if (hi > sizeof(tmp))
			hi = sizeof(tmp);
		n = lo + fz_below(&g->rng, hi >= lo ? hi - lo + 1 : 1);
		if (bad)
			n = fz_chance(&g->rng, 50) && lo ? lo - 1 : hi + 1 +
			    fz_below(&g->rng, 16);
		if (n > sizeof(tmp))
			n = sizeof(tmp);
		/* Tables of u32s, sometimes all at a bound. */
		for (k = 0; k < (int)n; k++)
			tmp[k] = fz_chance(&g->rng, 50) ? 0xff :
				 (uint8_t)fz_rand(&g->rng);
		fz_attr_put(m, (uint16_t)(t | flags), tmp, n);
		return;
	}
	}
}

/*
 * The attributes of policy pol into m: each declared one with a chance
 * that differs per message, some of them twice, sometimes types the policy
 * does not know. bad: one of them (or more, deep down) is made invalid.
 */
static void fz_gen_attrs(struct fz_gen *g, struct fz_msg *m, int pol,
			 int parent, int depth, int bad)
{
	static const struct fz_attr unknown = { .type = NL_ATTR_TYPE_BINARY,
						.sub = -1 };
	const struct fz_policy *p = g->pols && pol >= 0 && pol < FZ_MAX_POLS &&
		g->pols[pol].known ? &g->pols[pol] : NULL;
	uint32_t maxtype = p ? p->maxtype : 8, t, order[FZ_MAX_TYPE + 1];
	/*
	 * How full the message is: in a third of them one or two attributes
	 * (a request that changes one thing, more likely valid as a whole),
	 * else up to most of what the policy declares.
	 */
	unsigned int pct = fz_chance(&g->rng, 33) ?
		2 + (unsigned int)fz_below(&g->rng, 6) :
		10 + (unsigned int)fz_below(&g->rng, 70);
	int i, nr = 0, bad_one = -1;

	if (depth > 40)
		return;
	/* Declared attributes (all of them if the policy is unknown). */
	for (t = 1; t <= maxtype; t++)
		if ((!p || p->a[t].type) &&
		    fz_chance(&g->rng, depth == 0 && (int)t == g->favoured ? 90 : pct))
			order[nr++] = t;
	/* Shuffled: handlers must not depend on the order. */
	for (i = nr - 1; i > 0; i--) {
		int j = (int)fz_below(&g->rng, (uint64_t)i + 1);

		t = order[i], order[i] = order[j], order[j] = t;
	}
	if (bad && nr)
		bad_one = (int)fz_below(&g->rng, (uint64_t)nr);
	for (i = 0; i < nr; i++) {
		const struct fz_attr *d = p && p->a[order[i]].type ?
			&p->a[order[i]] : &unknown;
		int rep = fz_chance(&g->rng, 4) ? 2 : 1;

		while (rep--)
			fz_gen_attr(g, m, d, parent, (int)order[i], depth,
				    i == bad_one);
	}
	/* Attribute types the policy does not declare: 0, one it leaves
	 * out, one beyond its last.
	 */
	if (fz_chance(&g->rng, bad ? 20 : 2)) {
		t = (uint32_t)fz_below(&g->rng, maxtype + 5);
		fz_gen_attr(g, m, &unknown, parent, (int)(t & NLA_TYPE_MASK),
			    depth, 0);
	}
	/* Many small attributes: tables of thousands of entries. */
	if (fz_chance(&g->rng, 1) && nr) {
		const struct fz_attr *d = p && p->a[order[0]].type ?
			&p->a[order[0]] : &unknown;
		int n = 100 + (int)fz_below(&g->rng, 3000);

		while (n-- && m->len + 64 < m->cap)
			fz_gen_attr(g, m, d, parent, (int)order[0], depth, 0);
	}
}

/* ---- byte-level damage to a finished message ---- */

/*
 * Flip, overwrite, insert or cut bytes after the headers, or rewrite an
 * attribute's length. The nlmsghdr length is kept true to what is sent.
 */
static inline void fz_mutate(struct fz_gen *g, struct fz_msg *m)
{
	size_t hdr = NLMSG_HDRLEN + GENL_HDRLEN, at, n;
	int k = 1 + (int)fz_below(&g->rng, 4);

	while (k--) {
		if (m->len <= hdr)
			break;
		at = hdr + fz_below(&g->rng, m->len - hdr);
		switch (fz_below(&g->rng, 6)) {
		case 0:
			m->buf[at] ^= (uint8_t)(1 << fz_below(&g->rng, 8));
			break;
		case 1:
			m->buf[at] = (uint8_t)fz_rand(&g->rng);
			break;
		case 2:		/* cut the tail */
			m->len = at;
			break;
		case 3:		/* insert a few bytes */
			n = 1 + fz_below(&g->rng, 8);
			if (m->len + n <= m->cap) {
				size_t i;

				memmove(m->buf + at + n, m->buf + at, m->len - at);
				for (i = 0; i < n; i++)
					m->buf[at + i] = (uint8_t)fz_rand(&g->rng);
				m->len += n;
			}
			break;
		case 4: {	/* the first attribute's length field */
			uint16_t v = (uint16_t)fz_rand(&g->rng);

			if (m->len >= hdr + 2)
				memcpy(m->buf + hdr, &v, 2);
			break;
		}
		default:	/* a 16-bit field somewhere: a length or a type */
			if (at + 2 <= m->len) {
				uint16_t v = (uint16_t)fz_below(&g->rng, 70000);

				memcpy(m->buf + at, &v, 2);
			}
			break;
		}
	}
	((struct nlmsghdr *)m->buf)->nlmsg_len = (uint32_t)m->len;
}

#endif /* FUZZ_GEN_H */
