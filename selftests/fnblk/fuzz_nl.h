/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink for the fnblk netlink fuzzer: send any bytes, collect
 * every answer to them (the ack or error with its extack message, reply
 * messages, the end of a dump), and learn what the family declares from the
 * genetlink controller: its commands (CTRL_CMD_GETFAMILY) and each one's
 * attribute policy (CTRL_CMD_GETPOLICY). Nothing about fnblk is listed
 * here, so commands and attributes added later are found the same way.
 */
#ifndef FUZZ_NL_H
#define FUZZ_NL_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define FZ_BUF		(256 * 1024)
#define FZ_MAX_OPS	256
#define FZ_MAX_POLS	8	/* policies one command refers to */
#define FZ_MAX_TYPE	255	/* highest attribute type tracked */
#define FZ_MAX_REPLIES	4	/* reply messages kept per answer */

/* An attribute's payload and header, aligned, in a byte buffer. */
#define FZ_NLA(p)	((struct nlattr *)(p))
#define FZ_NLA_DATA(a)	((uint8_t *)(a) + NLA_HDRLEN)
#define FZ_NLA_LEN(a)	((int)(a)->nla_len - NLA_HDRLEN)
#define FZ_NLA_TYPE(a)	((a)->nla_type & NLA_TYPE_MASK)

/* Walk the attributes in [p, p + len), stopping at a malformed one. */
#define fz_for_each_attr(a, p, len, rem)				\
	for ((a) = FZ_NLA(p), (rem) = (int)(len);			\
	     (rem) >= NLA_HDRLEN && (a)->nla_len >= NLA_HDRLEN &&	\
	     (a)->nla_len <= (rem);					\
	     (rem) -= NLA_ALIGN((a)->nla_len),				\
	     (a) = FZ_NLA((uint8_t *)(a) + NLA_ALIGN((a)->nla_len)))

/* ---- what the family declares ---- */

/* One attribute of a policy, as the controller describes it. */
struct fz_attr {
	uint32_t type;		/* NL_ATTR_TYPE_*; NL_ATTR_TYPE_INVALID: none */
	int has_u, has_s, has_minlen, has_maxlen, has_mask;
	uint64_t umin, umax, mask;
	int64_t smin, smax;
	uint32_t minlen, maxlen;
	int sub;		/* nested policy index, -1 if none */
	uint32_t sub_maxtype;
};

struct fz_policy {
	int known;
	uint32_t maxtype;
	struct fz_attr a[FZ_MAX_TYPE + 1];
};

/*
 * A command and its policies. Each command's policies are read in a dump
 * of their own (CTRL_ATTR_OP): policy indexes are local to one dump, and
 * some kernels (6.12) label a dump-only command's entry in a whole-family
 * dump with command 0.
 */
struct fz_op {
	uint8_t cmd;
	uint32_t flags;		/* GENL_ADMIN_PERM, GENL_CMD_CAP_DO/DUMP... */
	int do_pol, dump_pol;	/* indexes into pols, -1 if none */
	struct fz_policy *pols;	/* FZ_MAX_POLS of them */
};

struct fz_family {
	uint16_t id;
	uint32_t version, hdrsize, maxattr;
	int nr_ops;
	struct fz_op ops[FZ_MAX_OPS];
};

/* ---- one exchange ---- */

struct fz_answer {
	int got;		/* an ack, error or end of dump arrived */
	int error;		/* its errno (<= 0) */
	int intr;		/* a dump message carried NLM_F_DUMP_INTR */
	char msg[256];		/* extack message, "" if none */
	int nr_replies;		/* data messages, all counted */
	/* The first data messages, whole, for echo checks and harvesting. */
	int reply_len[FZ_MAX_REPLIES];
	uint8_t *reply[FZ_MAX_REPLIES];
};

struct fz_sock {
	int fd;
	uint32_t seq;
	uint8_t *rx;
};

static inline int fz_sock_open(struct fz_sock *s, int timeout_s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = timeout_s };
	int one = 1, bufsz = 4 * FZ_BUF;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) ||
	    setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		close(s->fd);
		return -errno;
	}
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	s->rx = malloc(FZ_BUF);
	s->seq = 1;
	return s->rx ? 0 : -ENOMEM;
}

static inline void fz_sock_close(struct fz_sock *s)
{
	close(s->fd);
	free(s->rx);
	s->rx = NULL;
}

static inline void fz_answer_free(struct fz_answer *a)
{
	int i;

	for (i = 0; i < FZ_MAX_REPLIES; i++) {
		free(a->reply[i]);
		a->reply[i] = NULL;
	}
	a->nr_replies = 0;
}

/* The extack message of an error, if the kernel sent one. */
static inline void fz_extack(const struct nlmsghdr *nlh, struct fz_answer *a)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	const uint8_t *p = (const uint8_t *)e + sizeof(*e);
	const struct nlattr *at;
	int len, rem;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nlh->nlmsg_type == NLMSG_ERROR &&
	    !(nlh->nlmsg_flags & NLM_F_CAPPED))
		p += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (nlh->nlmsg_type == NLMSG_DONE)
		p = (const uint8_t *)NLMSG_DATA(nlh) + sizeof(int);
	len = (int)((const uint8_t *)nlh + nlh->nlmsg_len - p);
	fz_for_each_attr(at, p, len, rem)
		if (FZ_NLA_TYPE(at) == NLMSGERR_ATTR_MSG && FZ_NLA_LEN(at) > 0)
			snprintf(a->msg, sizeof(a->msg), "%.*s",
				 FZ_NLA_LEN(at), (const char *)FZ_NLA_DATA(at));
}

/*
 * Read every answer to the request with sequence number seq until its ack,
 * error or end of dump. Returns 0, or -ETIMEDOUT if nothing more came
 * within the socket's timeout (a request the kernel dropped unanswered).
 */
static inline int fz_collect(struct fz_sock *s, uint32_t seq,
			     struct fz_answer *a)
{
	memset(a, 0, sizeof(*a));
	while (!a->got) {
		ssize_t n = recv(s->fd, s->rx, FZ_BUF, 0);
		struct nlmsghdr *nlh;
		int len;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		len = (int)n;
		for (nlh = (struct nlmsghdr *)s->rx; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != seq)
				continue;	/* a late answer to an older one */
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				a->intr = 1;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				a->got = 1;
				a->error = ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
				fz_extack(nlh, a);
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				a->got = 1;
				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					a->error = *(int *)NLMSG_DATA(nlh);
				fz_extack(nlh, a);
			} else if (nlh->nlmsg_type >= NLMSG_MIN_TYPE) {
				int i = a->nr_replies++;

				if (i < FZ_MAX_REPLIES) {
					a->reply[i] = malloc(nlh->nlmsg_len);
					if (a->reply[i]) {
						memcpy(a->reply[i], nlh, nlh->nlmsg_len);
						a->reply_len[i] = (int)nlh->nlmsg_len;
					}
				}
			}
		}
	}
	return 0;
}

static inline int fz_send(struct fz_sock *s, const void *buf, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(s->fd, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* ---- building well-formed requests ---- */

struct fz_msg {
	uint8_t *buf;
	size_t len, cap;
};

static inline void fz_put(struct fz_msg *m, const void *p, size_t len)
{
	if (m->len + len > m->cap)
		len = m->len < m->cap ? m->cap - m->len : 0;
	if (len)
		memcpy(m->buf + m->len, p, len);
	m->len += len;
}

static inline void fz_pad(struct fz_msg *m)
{
	static const uint8_t zero[NLA_ALIGNTO];

	fz_put(m, zero, NLA_ALIGN(m->len) - m->len);
}

/* Start a request: nlmsghdr + genlmsghdr; returns its offset. */
static inline size_t fz_msg_start(struct fz_msg *m, uint16_t type,
				  uint16_t flags, uint32_t seq, uint8_t cmd,
				  uint8_t version)
{
	struct nlmsghdr nlh = { .nlmsg_type = type, .nlmsg_flags = flags,
				.nlmsg_seq = seq };
	struct genlmsghdr g = { .cmd = cmd, .version = version };
	size_t at = m->len;

	fz_put(m, &nlh, sizeof(nlh));
	fz_put(m, &g, sizeof(g));
	return at;
}

static inline void fz_msg_end(struct fz_msg *m, size_t at)
{
	((struct nlmsghdr *)(m->buf + at))->nlmsg_len = (uint32_t)(m->len - at);
}

/* An attribute header whose length is fixed by fz_attr_end. */
static inline size_t fz_attr_start(struct fz_msg *m, uint16_t type)
{
	struct nlattr a = { .nla_type = type };
	size_t at = m->len;

	fz_put(m, &a, sizeof(a));
	return at;
}

static inline void fz_attr_end(struct fz_msg *m, size_t at)
{
	FZ_NLA(m->buf + at)->nla_len = (uint16_t)(m->len - at);
	fz_pad(m);
}

static inline void fz_attr_put(struct fz_msg *m, uint16_t type,
			       const void *p, size_t len)
{
	size_t at = fz_attr_start(m, type);

	fz_put(m, p, len);
	fz_attr_end(m, at);
}

/* One request with a proper header; the answer in a (fz_answer_free it). */
static inline int fz_request(struct fz_sock *s, struct fz_msg *m,
			     struct fz_answer *a)
{
	uint32_t seq = ((struct nlmsghdr *)m->buf)->nlmsg_seq;
	int ret = fz_send(s, m->buf, m->len);

	return ret ? ret : fz_collect(s, seq, a);
}

/* ---- the family, from the controller ---- */

/* A controller request naming the family (and a command: op >= 0). */
static inline int fz_ctrl_request(struct fz_sock *s, uint8_t cmd, int dump,
				  const char *family, int op, struct fz_msg *m)
{
	uint32_t v = (uint32_t)op;
	size_t at;

	m->len = 0;
	at = fz_msg_start(m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK |
			  (dump ? NLM_F_DUMP : 0), s->seq++, cmd, 1);
	fz_attr_put(m, CTRL_ATTR_FAMILY_NAME, family, strlen(family) + 1);
	if (op >= 0)
		fz_attr_put(m, CTRL_ATTR_OP, &v, sizeof(v));
	fz_msg_end(m, at);
	return fz_send(s, m->buf, m->len);
}

static inline uint64_t fz_uint(const struct nlattr *a)
{
	uint64_t v = 0;

	switch (FZ_NLA_LEN(a)) {
	case 1: v = *FZ_NLA_DATA(a); break;
	case 2: v = *(uint16_t *)FZ_NLA_DATA(a); break;
	case 4: v = *(uint32_t *)FZ_NLA_DATA(a); break;
	case 8: memcpy(&v, FZ_NLA_DATA(a), 8); break;
	}
	return v;
}

static inline int64_t fz_sint(const struct nlattr *a)
{
	switch (FZ_NLA_LEN(a)) {
	case 1: return *(int8_t *)FZ_NLA_DATA(a);
	case 2: return *(int16_t *)FZ_NLA_DATA(a);
	case 4: return *(int32_t *)FZ_NLA_DATA(a);
	case 8: { int64_t v; memcpy(&v, FZ_NLA_DATA(a), 8); return v; }
	}
	return 0;
}

/* One attribute description: CTRL_ATTR_POLICY { idx { type { ... } } }. */
static inline void fz_parse_policy_attr(struct fz_op *o, int idx,
					int type, const struct nlattr *desc)
{
	struct fz_policy *p;
	struct fz_attr *d;
	const struct nlattr *a;
	int rem;

	if (idx < 0 || idx >= FZ_MAX_POLS || type < 0 || type > FZ_MAX_TYPE)
		return;
	p = &o->pols[idx];
	p->known = 1;
	d = &p->a[type];
	d->sub = -1;
	if ((uint32_t)type > p->maxtype)
		p->maxtype = (uint32_t)type;
	fz_for_each_attr(a, FZ_NLA_DATA(desc), FZ_NLA_LEN(desc), rem) {
		switch (FZ_NLA_TYPE(a)) {
		case NL_POLICY_TYPE_ATTR_TYPE:
			d->type = (uint32_t)fz_uint(a);
			break;
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
			d->has_u = 1;
			d->umin = fz_uint(a);
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
			d->has_u = 1;
			d->umax = fz_uint(a);
			break;
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
			d->has_s = 1;
			d->smin = fz_sint(a);
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
			d->has_s = 1;
			d->smax = fz_sint(a);
			break;
		case NL_POLICY_TYPE_ATTR_MIN_LENGTH:
			d->has_minlen = 1;
			d->minlen = (uint32_t)fz_uint(a);
			break;
		case NL_POLICY_TYPE_ATTR_MAX_LENGTH:
			d->has_maxlen = 1;
			d->maxlen = (uint32_t)fz_uint(a);
			break;
		case NL_POLICY_TYPE_ATTR_POLICY_IDX:
			d->sub = (int)fz_uint(a);
			break;
		case NL_POLICY_TYPE_ATTR_POLICY_MAXTYPE:
			d->sub_maxtype = (uint32_t)fz_uint(a);
			break;
		case NL_POLICY_TYPE_ATTR_BITFIELD32_MASK:
		case NL_POLICY_TYPE_ATTR_MASK:
			d->has_mask = 1;
			d->mask = fz_uint(a);
			break;
		}
	}
}

static inline struct fz_op *fz_op_find(struct fz_family *f, uint8_t cmd)
{
	int i;

	for (i = 0; i < f->nr_ops; i++)
		if (f->ops[i].cmd == cmd)
			return &f->ops[i];
	return NULL;
}

/*
 * One message of command o's GETPOLICY dump: its policy indexes (whatever
 * command number the entry carries), or one attribute of a policy.
 */
static inline void fz_parse_policy_msg(struct fz_op *o,
				       const struct nlmsghdr *nlh)
{
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	int len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	const struct nlattr *a, *op, *pol, *idx, *type;
	int rem, r2, r3;

	fz_for_each_attr(a, p, len, rem) {
		if (FZ_NLA_TYPE(a) == CTRL_ATTR_OP_POLICY) {
			fz_for_each_attr(op, FZ_NLA_DATA(a), FZ_NLA_LEN(a), r2) {
				fz_for_each_attr(pol, FZ_NLA_DATA(op),
						 FZ_NLA_LEN(op), r3) {
					if (FZ_NLA_TYPE(pol) == CTRL_ATTR_POLICY_DO)
						o->do_pol = (int)fz_uint(pol);
					else if (FZ_NLA_TYPE(pol) == CTRL_ATTR_POLICY_DUMP)
						o->dump_pol = (int)fz_uint(pol);
				}
			}
		} else if (FZ_NLA_TYPE(a) == CTRL_ATTR_POLICY) {
			fz_for_each_attr(idx, FZ_NLA_DATA(a), FZ_NLA_LEN(a), r2)
				fz_for_each_attr(type, FZ_NLA_DATA(idx),
						 FZ_NLA_LEN(idx), r3)
					fz_parse_policy_attr(o, FZ_NLA_TYPE(idx),
							     FZ_NLA_TYPE(type), type);
		}
	}
}

/* GETFAMILY reply: id, version, header size, maxattr, the commands. */
static inline void fz_parse_family(struct fz_family *f,
				   const struct nlmsghdr *nlh)
{
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	int len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	const struct nlattr *a, *op, *oa;
	int rem, r2, r3;

	fz_for_each_attr(a, p, len, rem) {
		switch (FZ_NLA_TYPE(a)) {
		case CTRL_ATTR_FAMILY_ID:
			f->id = (uint16_t)fz_uint(a);
			break;
		case CTRL_ATTR_VERSION:
			f->version = (uint32_t)fz_uint(a);
			break;
		case CTRL_ATTR_HDRSIZE:
			f->hdrsize = (uint32_t)fz_uint(a);
			break;
		case CTRL_ATTR_MAXATTR:
			f->maxattr = (uint32_t)fz_uint(a);
			break;
		case CTRL_ATTR_OPS:
			fz_for_each_attr(op, FZ_NLA_DATA(a), FZ_NLA_LEN(a), r2) {
				struct fz_op o = { .do_pol = -1, .dump_pol = -1 };

				fz_for_each_attr(oa, FZ_NLA_DATA(op),
						 FZ_NLA_LEN(op), r3) {
					if (FZ_NLA_TYPE(oa) == CTRL_ATTR_OP_ID)
						o.cmd = (uint8_t)fz_uint(oa);
					else if (FZ_NLA_TYPE(oa) == CTRL_ATTR_OP_FLAGS)
						o.flags = (uint32_t)fz_uint(oa);
				}
				if (f->nr_ops < FZ_MAX_OPS)
					f->ops[f->nr_ops++] = o;
			}
			break;
		}
	}
}

/*
 * Read the answers to the last controller request: the family (GETFAMILY,
 * o NULL) or command o's policies (GETPOLICY), up to its ack or the end
 * of the dump.
 */
static inline int fz_ctrl_read(struct fz_sock *s, struct fz_family *f,
			       struct fz_op *o)
{
	for (;;) {
		ssize_t n = recv(s->fd, s->rx, FZ_BUF, 0);
		struct nlmsghdr *nlh;
		int len;

		if (n < 0)
			return -errno;
		len = (int)n;
		for (nlh = (struct nlmsghdr *)s->rx; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (o)
				fz_parse_policy_msg(o, nlh);
			else
				fz_parse_family(f, nlh);
		}
	}
}

/* Learn the family's commands and their policies. 0 or -errno. */
static inline int fz_family_discover(struct fz_sock *s, const char *name,
				     struct fz_family *f)
{
	uint8_t buf[256];
	struct fz_msg m = { .buf = buf, .cap = sizeof(buf) };
	int ret, i;

	memset(f, 0, sizeof(*f));
	ret = fz_ctrl_request(s, CTRL_CMD_GETFAMILY, 0, name, -1, &m);
	if (!ret)
		ret = fz_ctrl_read(s, f, NULL);
	if (ret)
		return ret;
	if (!f->id)
		return -ENOENT;
	for (i = 0; i < f->nr_ops; i++) {
		struct fz_op *o = &f->ops[i];

		o->pols = calloc(FZ_MAX_POLS, sizeof(*o->pols));
		if (!o->pols)
			return -ENOMEM;
		/* A command without a policy is simply not in the dump. */
		ret = fz_ctrl_request(s, CTRL_CMD_GETPOLICY, 1, name, o->cmd, &m);
		if (!ret)
			ret = fz_ctrl_read(s, f, o);
		if (ret)
			return ret;
	}
	return 0;
}

static inline void fz_family_free(struct fz_family *f)
{
	int i;

	for (i = 0; i < f->nr_ops; i++) {
		free(f->ops[i].pols);
		f->ops[i].pols = NULL;
	}
}

#endif /* FUZZ_NL_H */
