/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small generic netlink client for the fnblk selftests, on libnl-3, so the
 * tests depend on nothing but the uapi header and can live in a kernel tree.
 * Requests return 0 or -errno; a refusal leaves the kernel's extack message
 * in fnl.err.
 */
#ifndef FNBLK_NL_H
#define FNBLK_NL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/fnblk.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct fnl {
	struct nl_sock *sk;
	int family;
	int error;		/* -errno of the last request */
	char err[256];		/* extack message of the last request */
	/* Where a policy refusal pointed: byte offset of the attribute in
	 * the request (-1: none), and the range it states (if has_range). */
	int err_offs;
	int has_range;
	uint64_t range_min, range_max;
};

/* Called for every reply message with its parsed top-level attributes. */
typedef void (*fnl_reply_fn)(struct nlattr **tb, void *arg);

struct fnl_call {
	struct fnl *c;
	fnl_reply_fn fn;
	void *arg;
	int done;		/* the ack, error or end of dump arrived */
};

static inline int fnl_open(struct fnl *c)
{
	int one = 1;

	memset(c, 0, sizeof(*c));
	c->sk = nl_socket_alloc();
	if (!c->sk)
		return -ENOMEM;
	if (genl_connect(c->sk))
		return -ECONNREFUSED;
	setsockopt(nl_socket_get_fd(c->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(c->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	c->family = genl_ctrl_resolve(c->sk, FNBLK_GENL_NAME);
	return c->family < 0 ? -ENOENT : 0;
}

static inline void fnl_close(struct fnl *c)
{
	nl_socket_free(c->sk);
	c->sk = NULL;
}

static inline struct nl_msg *fnl_msg(struct fnl *c, uint8_t cmd, int flags)
{
	struct nl_msg *m = nlmsg_alloc_size(65536);

	if (m)
		genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, flags,
			    cmd, FNBLK_GENL_VERSION);
	return m;
}

static inline int fnl_on_valid(struct nl_msg *m, void *arg)
{
	struct fnl_call *call = arg;
	struct nlattr *tb[FNBLK_A_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(m), 0, tb, FNBLK_A_MAX, NULL))
		return NL_SKIP;
	if (call->fn)
		call->fn(tb, call->arg);
	return NL_OK;
}

static inline int fnl_on_error(struct sockaddr_nl *nla, struct nlmsgerr *e,
			       void *arg)
{
	struct fnl_call *call = arg;
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);
	int len;

	struct nlattr *pol[NL_POLICY_TYPE_ATTR_MAX + 1];

	(void)nla;
	call->done = 1;
	call->c->error = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	/* The TLVs follow the request, unless the kernel capped it. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)(nlh->nlmsg_len - NLMSG_HDRLEN - off);
	if (len <= 0 ||
	    nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      len, NULL))
		return NL_STOP;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(call->c->err, sizeof(call->c->err), "%s",
			 (char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_OFFS])
		call->c->err_offs = (int)nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
	if (tb[NLMSGERR_ATTR_POLICY] &&
	    !nla_parse_nested(pol, NL_POLICY_TYPE_ATTR_MAX,
			      tb[NLMSGERR_ATTR_POLICY], NULL) &&
	    pol[NL_POLICY_TYPE_ATTR_MIN_VALUE_U] &&
	    pol[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]) {
		call->c->has_range = 1;
		call->c->range_min =
			nla_get_u64(pol[NL_POLICY_TYPE_ATTR_MIN_VALUE_U]);
		call->c->range_max =
			nla_get_u64(pol[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]);
	}
	return NL_STOP;
}

static inline int fnl_on_ack(struct nl_msg *m, void *arg)
{
	struct fnl_call *call = arg;

	(void)m;
	call->done = 1;
	return NL_STOP;
}

/* A dump ends with NLMSG_DONE, whose payload is the dump's errno. */
static inline int fnl_on_finish(struct nl_msg *m, void *arg)
{
	struct fnl_call *call = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(m);

	call->done = 1;
	if (nlmsg_datalen(nlh) >= (int)sizeof(int) &&
	    *(int *)nlmsg_data(nlh) < 0)
		call->c->error = *(int *)nlmsg_data(nlh);
	return NL_STOP;
}

/* Send m (consumed), hand every reply to fn, wait for the ack or error. */
static inline int fnl_send(struct fnl *c, struct nl_msg *m, fnl_reply_fn fn,
			   void *arg)
{
	struct fnl_call call = { .c = c, .fn = fn, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	c->error = 0;
	c->err[0] = '\0';
	c->err_offs = -1;
	c->has_range = 0;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, fnl_on_valid, &call);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, fnl_on_ack, &call);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, fnl_on_finish, &call);
	nl_cb_err(cb, NL_CB_CUSTOM, fnl_on_error, &call);
	nlmsg_hdr(m)->nlmsg_flags |= NLM_F_ACK;
	ret = nl_send_auto(c->sk, m);
	nlmsg_free(m);
	if (ret < 0) {
		nl_cb_put(cb);
		return c->error = -EIO;
	}
	/* A reply and its ack come in separate datagrams. */
	do {
		ret = nl_recvmsgs(c->sk, cb);
	} while (!call.done && ret >= 0);
	nl_cb_put(cb);
	if (!c->error && !call.done)
		c->error = -EIO;
	return c->error;
}

/* Request naming a device by name. */
static inline struct nl_msg *fnl_dev_msg(struct fnl *c, uint8_t cmd,
					 int flags, const char *name)
{
	struct nl_msg *m = fnl_msg(c, cmd, flags);

	if (m && name)
		nla_put_string(m, FNBLK_A_DEV_NAME, name);
	return m;
}

static inline int fnl_simple(struct fnl *c, uint8_t cmd, const char *name)
{
	return fnl_send(c, fnl_dev_msg(c, cmd, 0, name), NULL, NULL);
}

/* Counters of one device, parsed from a STATS_GET reply. */
struct fnl_stats {
	uint64_t v[FNBLK_STAT_MAX + 1];
	uint64_t n_hist[FNBLK_NHIST_BINS];
	uint64_t lat_hist[FNBLK_LHIST_BINS];
	uint64_t size_hist[2][FNBLK_RSIZE_BINS];	/* reads, writes */
	int got;
};

static inline void fnl_stats_reply(struct nlattr **tb, void *arg)
{
	struct fnl_stats *s = arg;
	struct nlattr *st[FNBLK_STAT_MAX + 1];
	int i;

	if (!tb[FNBLK_A_STATS] ||
	    nla_parse_nested(st, FNBLK_STAT_MAX, tb[FNBLK_A_STATS], NULL))
		return;
	for (i = 0; i <= FNBLK_STAT_MAX; i++) {
		if (!st[i])
			continue;
		if (nla_len(st[i]) == 8)
			s->v[i] = nla_get_u64(st[i]);
		else if (nla_len(st[i]) == 4)
			s->v[i] = nla_get_u32(st[i]);
	}
	if (st[FNBLK_STAT_N_HIST])
		memcpy(s->n_hist, nla_data(st[FNBLK_STAT_N_HIST]),
		       sizeof(s->n_hist));
	if (st[FNBLK_STAT_LAT_HIST])
		memcpy(s->lat_hist, nla_data(st[FNBLK_STAT_LAT_HIST]),
		       sizeof(s->lat_hist));
	if (st[FNBLK_STAT_READ_SIZE_HIST])
		memcpy(s->size_hist[0], nla_data(st[FNBLK_STAT_READ_SIZE_HIST]),
		       sizeof(s->size_hist[0]));
	if (st[FNBLK_STAT_WRITE_SIZE_HIST])
		memcpy(s->size_hist[1], nla_data(st[FNBLK_STAT_WRITE_SIZE_HIST]),
		       sizeof(s->size_hist[1]));
	s->got++;
}

static inline int fnl_stats(struct fnl *c, const char *name,
			    struct fnl_stats *s)
{
	memset(s, 0, sizeof(*s));
	return fnl_send(c, fnl_dev_msg(c, FNBLK_CMD_STATS_GET, 0, name),
			fnl_stats_reply, s);
}

/* Per-user records from a USER_GET dump; bucket: enum fnblk_user_bucket. */
struct fnl_user {
	uint64_t key, write_bytes, read_bytes, write_ops, read_ops;
	uint64_t active_ns, wait_ns, activations, count;
	uint32_t weight;
	int kthread, active, bucket;
};

struct fnl_users {
	struct fnl_user *u;
	size_t nr, cap;
};

static inline void fnl_user_reply(struct nlattr **tb, void *arg)
{
	struct fnl_users *us = arg;
	struct nlattr *a[FNBLK_USER_MAX + 1];
	struct fnl_user *u;

	if (!tb[FNBLK_A_USER] ||
	    nla_parse_nested(a, FNBLK_USER_MAX, tb[FNBLK_A_USER], NULL) ||
	    us->nr == us->cap)
		return;
	u = &us->u[us->nr++];
	memset(u, 0, sizeof(*u));
#define GET64(f, attr) (u->f = a[attr] ? nla_get_u64(a[attr]) : 0)
	GET64(key, FNBLK_USER_KEY);
	GET64(write_bytes, FNBLK_USER_WRITE_BYTES);
	GET64(read_bytes, FNBLK_USER_READ_BYTES);
	GET64(write_ops, FNBLK_USER_WRITE_OPS);
	GET64(read_ops, FNBLK_USER_READ_OPS);
	GET64(active_ns, FNBLK_USER_ACTIVE_NS);
	GET64(wait_ns, FNBLK_USER_WAIT_NS);
	GET64(activations, FNBLK_USER_ACTIVATIONS);
	GET64(count, FNBLK_USER_COUNT);
#undef GET64
	u->bucket = a[FNBLK_USER_BUCKET] ? nla_get_u8(a[FNBLK_USER_BUCKET]) : 0;
	u->weight = a[FNBLK_USER_WEIGHT] ? nla_get_u32(a[FNBLK_USER_WEIGHT]) : 0;
	u->kthread = !!a[FNBLK_USER_KTHREAD];
	u->active = !!a[FNBLK_USER_ACTIVE];
}

static inline int fnl_users(struct fnl *c, const char *name,
			    struct fnl_users *us)
{
	us->nr = 0;
	return fnl_send(c, fnl_dev_msg(c, FNBLK_CMD_USER_GET, NLM_F_DUMP,
				       name), fnl_user_reply, us);
}

#endif /* FNBLK_NL_H */
