// SPDX-License-Identifier: GPL-2.0
/*
 * libfnblk request side: connect, resolve the family, send one request
 * and collect its reply or dump, turning the kernel's NLMSG_ERROR (with
 * its extended ack) into an errno and a message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "nl_internal.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct nla_policy fnblk_attr_policy[FNBLK_A_MAX + 1] = {
	[FNBLK_A_DEV_ID]	= { .type = NLA_U32 },
	[FNBLK_A_DEV_NAME]	= { .type = NLA_STRING },
	[FNBLK_A_SIZE]		= { .type = NLA_U64 },
	[FNBLK_A_BW]		= { .type = NLA_U64 },
	[FNBLK_A_FN]		= { .type = NLA_STRING },
	[FNBLK_A_FN_TABLE]	= { .type = NLA_UNSPEC },
	[FNBLK_A_LATENCY_NS]	= { .type = NLA_U64 },
	[FNBLK_A_OVERHEAD]	= { .type = NLA_U64 },
	[FNBLK_A_KEY]		= { .type = NLA_U8 },
	[FNBLK_A_POLICY]	= { .type = NLA_U8 },
	[FNBLK_A_USERS]		= { .type = NLA_U8 },
	[FNBLK_A_GRACE_NS]	= { .type = NLA_U64 },
	[FNBLK_A_STORE]		= { .type = NLA_U8 },
	[FNBLK_A_STATS]		= { .type = NLA_NESTED },
	[FNBLK_A_USER]		= { .type = NLA_NESTED },
	[FNBLK_A_EVT_TIME_NS]	= { .type = NLA_U64 },
	[FNBLK_A_EVT_USER_KEY]	= { .type = NLA_U64 },
	[FNBLK_A_EVT_NR_ACTIVE]	= { .type = NLA_U32 },
	[FNBLK_A_EVT_SEQ]	= { .type = NLA_U64 },
	[FNBLK_A_EVT_KTHREAD]	= { .type = NLA_FLAG },
	[FNBLK_A_NR_ACTIVE]	= { .type = NLA_U32 },
	[FNBLK_A_MAX_USERS]	= { .type = NLA_U32 },
	[FNBLK_A_EVT_OVERFLOW]	= { .type = NLA_FLAG },
	[FNBLK_A_CACHE]		= { .type = NLA_U8 },
	[FNBLK_A_FAULT]		= { .type = NLA_NESTED },
};

int fnblk_fail(struct fnblk *h, int err, const char *fmt, ...)
{
	va_list ap;

	h->err = err;
	h->extack = false;
	va_start(ap, fmt);
	vsnprintf(h->msg, sizeof(h->msg), fmt, ap);
	va_end(ap);
	return -err;
}

const char *fnblk_errmsg(const struct fnblk *h)
{
	return h->msg;
}

bool fnblk_errmsg_is_kernel(const struct fnblk *h)
{
	return h->extack;
}

static void set_sockopt_flag(struct nl_sock *sk, int opt)
{
	int one = 1;

	/* Older kernels lack these; errors then just carry no text. */
	(void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, opt, &one,
			 sizeof(one));
}

struct fnblk *fnblk_open(void)
{
	struct fnblk *h = calloc(1, sizeof(*h));
	int err;

	if (!h)
		return NULL;
	h->sk = nl_socket_alloc();
	if (!h->sk) {
		free(h);
		errno = ENOMEM;
		return NULL;
	}
	err = genl_connect(h->sk);
	if (err < 0) {
		err = EPROTONOSUPPORT;
		goto fail;
	}
	/* Dump messages carry histograms and f(n) tables: size by peeking. */
	nl_socket_enable_msg_peek(h->sk);
	set_sockopt_flag(h->sk, NETLINK_EXT_ACK);
	set_sockopt_flag(h->sk, NETLINK_CAP_ACK);
	h->family = genl_ctrl_resolve(h->sk, FNBLK_GENL_NAME);
	if (h->family < 0) {
		err = h->family == -NLE_OBJ_NOTFOUND ? ENOENT : EIO;
		goto fail;
	}
	return h;
fail:
	nl_socket_free(h->sk);
	free(h);
	errno = err;
	return NULL;
}

void fnblk_close(struct fnblk *h)
{
	if (!h)
		return;
	if (h->mon)
		nl_socket_free(h->mon);
	nl_socket_free(h->sk);
	free(h->buf);
	free(h);
}

/* One request in flight: how to parse replies and where it stands. */
struct transaction {
	struct fnblk *h;
	int (*parse)(struct nlattr **tb, void *arg);
	void *arg;
	bool done;
	int err;		/* positive errno */
	int stop;		/* the caller's callback asked to stop */
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct transaction *t = arg;
	struct nlattr *tb[FNBLK_A_MAX + 1];
	int ret;

	if (t->stop || t->err || !t->parse)
		return NL_OK;	/* keep draining the dump */
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, FNBLK_A_MAX,
			  fnblk_attr_policy) < 0) {
		t->err = EPROTO;
		fnblk_fail(t->h, EPROTO, "malformed reply from the kernel");
		return NL_OK;
	}
	ret = t->parse(tb, t->arg);
	if (ret < 0) {
		t->err = -ret;
	} else if (ret > 0) {
		t->stop = ret;
	}
	return NL_OK;
}

/*
 * Extended-ack attributes start at offset off of nlh's payload; take the
 * message text if there is one. A refusal by the policy names no
 * attribute in its text ("integer out of range"), so the attribute it
 * points at and the range it broke are added: "integer out of range: KEY
 * must be 0 to 3".
 */
static void read_extack(struct fnblk *h, const struct nlmsghdr *nlh,
			size_t off)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t len = nlh->nlmsg_len - NLMSG_HDRLEN;
	char where[160];

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)NLMSG_DATA(nlh) + off),
		      (int)(len - off), NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG] && nla_len(tb[NLMSGERR_ATTR_MSG]) > 0) {
		nla_strlcpy(h->msg, tb[NLMSGERR_ATTR_MSG], sizeof(h->msg));
		h->extack = true;
	}
	if (!tb[NLMSGERR_ATTR_OFFS] || nla_len(tb[NLMSGERR_ATTR_OFFS]) < 4 ||
	    fnblk_extack_where(where, sizeof(where), h->req,
			       nla_get_u32(tb[NLMSGERR_ATTR_OFFS]),
			       tb[NLMSGERR_ATTR_POLICY]))
		return;
	if (h->extack) {
		size_t n = strlen(h->msg);

		snprintf(h->msg + n, sizeof(h->msg) - n, ": %s", where);
	} else {
		snprintf(h->msg, sizeof(h->msg), "%s: %s", strerror(h->err),
			 where);
		h->extack = true;
	}
}

/* The end of a dump; a failed dump says why in the NLMSG_DONE payload. */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct transaction *t = arg;
	int err;

	t->done = true;
	if (nlmsg_datalen(nlh) >= (int)sizeof(int)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0) {
			t->err = -err;
			fnblk_fail(t->h, t->err, "%s", strerror(t->err));
			read_extack(t->h, nlh, sizeof(int));
		}
	}
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct transaction *t = arg;

	(void)msg;
	t->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	const struct nlmsghdr *nlh = (const void *)((char *)e - NLMSG_HDRLEN);
	struct transaction *t = arg;
	size_t off = sizeof(*e);

	(void)nla;
	t->done = true;
	t->err = e->error < 0 ? -e->error : EIO;
	fnblk_fail(t->h, t->err, "%s", strerror(t->err));
	/* Uncapped, the request itself sits between the error and the TLVs. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	read_extack(t->h, nlh, off);
	return NL_STOP;
}

/*
 * Send msg (consumed) and process replies until the ack or the end of
 * the dump. parse sees each reply's attributes.
 */
static int transact(struct fnblk *h, struct nl_msg *msg,
		    int (*parse)(struct nlattr **tb, void *arg), void *arg)
{
	struct transaction t = { .h = h, .parse = parse, .arg = arg };
	struct nl_cb *cb;
	int ret;

	h->err = 0;
	h->extack = false;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return fnblk_fail(h, ENOMEM, "%s", strerror(ENOMEM));
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &t);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &t);

	ret = nl_send_auto(h->sk, msg);
	if (ret < 0) {
		nlmsg_free(msg);
		nl_cb_put(cb);
		return fnblk_fail(h, EIO, "send: %s", nl_geterror(ret));
	}
	/* Kept until the answer: an extack may point into it. */
	h->req = nlmsg_hdr(msg);
	while (!t.done) {
		ret = nl_recvmsgs(h->sk, cb);
		if (ret < 0 && !t.done) {
			h->req = NULL;
			nlmsg_free(msg);
			nl_cb_put(cb);
			return fnblk_fail(h, EIO, "receive: %s",
					  nl_geterror(ret));
		}
	}
	h->req = NULL;
	nlmsg_free(msg);
	nl_cb_put(cb);
	if (t.err) {
		/* on_error or a parser already filled the message. */
		if (h->err != t.err)
			fnblk_fail(h, t.err, "%s", strerror(t.err));
		return -t.err;
	}
	return t.stop;
}

static struct nl_msg *new_request(struct fnblk *h, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, h->family, 0, flags,
			 cmd, FNBLK_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* "N" names a device by id, anything else by name. */
static int put_dev(struct fnblk *h, struct nl_msg *msg, const char *dev)
{
	if (!dev)
		return 0;
	if (all_digits(dev)) {
		char *end;
		unsigned long id = strtoul(dev, &end, 10);

		if (id > UINT32_MAX)
			return fnblk_fail(h, EINVAL, "device id %s too large",
					  dev);
		return nla_put_u32(msg, FNBLK_A_DEV_ID, (uint32_t)id) ?
			fnblk_fail(h, EMSGSIZE, "request too large") : 0;
	}
	if (strlen(dev) >= FNBLK_NAME_LEN)
		return fnblk_fail(h, EINVAL, "device name too long: %s", dev);
	return nla_put_string(msg, FNBLK_A_DEV_NAME, dev) ?
		fnblk_fail(h, EMSGSIZE, "request too large") : 0;
}

static int put_config(struct fnblk *h, struct nl_msg *msg,
		      const struct fnblk_dev_config *c)
{
	int err = 0;

#define HAS(a) (c->present & FNBLK_BIT(a))
	if (HAS(FNBLK_A_SIZE))
		err |= nla_put_u64(msg, FNBLK_A_SIZE, c->size);
	if (HAS(FNBLK_A_BW))
		err |= nla_put_u64(msg, FNBLK_A_BW, c->bw);
	if (HAS(FNBLK_A_FN))
		err |= nla_put_string(msg, FNBLK_A_FN, c->fn);
	if (HAS(FNBLK_A_LATENCY_NS))
		err |= nla_put_u64(msg, FNBLK_A_LATENCY_NS, c->latency_ns);
	if (HAS(FNBLK_A_OVERHEAD))
		err |= nla_put_u64(msg, FNBLK_A_OVERHEAD, c->overhead);
	if (HAS(FNBLK_A_KEY))
		err |= nla_put_u8(msg, FNBLK_A_KEY, c->key);
	if (HAS(FNBLK_A_POLICY))
		err |= nla_put_u8(msg, FNBLK_A_POLICY, c->policy);
	if (HAS(FNBLK_A_USERS))
		err |= nla_put_u8(msg, FNBLK_A_USERS, c->users);
	if (HAS(FNBLK_A_GRACE_NS))
		err |= nla_put_u64(msg, FNBLK_A_GRACE_NS, c->grace_ns);
	if (HAS(FNBLK_A_STORE))
		err |= nla_put_u8(msg, FNBLK_A_STORE, c->store);
	if (HAS(FNBLK_A_MAX_USERS))
		err |= nla_put_u32(msg, FNBLK_A_MAX_USERS, c->max_users);
	if (HAS(FNBLK_A_CACHE))
		err |= nla_put_u8(msg, FNBLK_A_CACHE, c->cache);
#undef HAS
	return err ? fnblk_fail(h, EMSGSIZE, "request too large") : 0;
}

static void get_name(char *dst, struct nlattr *a)
{
	dst[0] = '\0';
	if (a)
		nla_strlcpy(dst, a, FNBLK_NAME_LEN);
}

static int parse_dev(struct nlattr **tb, void *arg)
{
	struct fnblk_dev_info *d = arg;
	struct fnblk_dev_config *c = &d->cfg;

	memset(d, 0, sizeof(*d));
	if (tb[FNBLK_A_DEV_ID])
		d->id = nla_get_u32(tb[FNBLK_A_DEV_ID]);
	get_name(d->name, tb[FNBLK_A_DEV_NAME]);
	if (tb[FNBLK_A_NR_ACTIVE])
		d->nr_active = nla_get_u32(tb[FNBLK_A_NR_ACTIVE]);

#define U64(a, f) if (tb[a]) { c->f = nla_get_u64(tb[a]); c->present |= FNBLK_BIT(a); }
#define U8(a, f) if (tb[a]) { c->f = nla_get_u8(tb[a]); c->present |= FNBLK_BIT(a); }
#define U32(a, f) if (tb[a]) { c->f = nla_get_u32(tb[a]); c->present |= FNBLK_BIT(a); }
	U64(FNBLK_A_SIZE, size)
	U64(FNBLK_A_BW, bw)
	U64(FNBLK_A_LATENCY_NS, latency_ns)
	U64(FNBLK_A_OVERHEAD, overhead)
	U64(FNBLK_A_GRACE_NS, grace_ns)
	U8(FNBLK_A_KEY, key)
	U8(FNBLK_A_POLICY, policy)
	U8(FNBLK_A_USERS, users)
	U8(FNBLK_A_STORE, store)
	U32(FNBLK_A_MAX_USERS, max_users)
	U8(FNBLK_A_CACHE, cache)
#undef U64
#undef U8
#undef U32
	if (tb[FNBLK_A_FN]) {
		nla_strlcpy(c->fn, tb[FNBLK_A_FN], sizeof(c->fn));
		c->present |= FNBLK_BIT(FNBLK_A_FN);
	}
	if (tb[FNBLK_A_FN_TABLE]) {
		size_t n = (size_t)nla_len(tb[FNBLK_A_FN_TABLE]) /
			   sizeof(uint32_t);

		if (n > FNBLK_FN_MAX)
			n = FNBLK_FN_MAX;
		memcpy(d->fn_table, nla_data(tb[FNBLK_A_FN_TABLE]),
		       n * sizeof(uint32_t));
		d->fn_nr = (uint32_t)n;
	}
	return 0;
}

/* Scalars of a nest by attribute type: u8/u32/u64 by length, flags as 1. */
static void read_scalars(struct nlattr *nest, int max, uint64_t *val,
			 uint64_t *present, uint64_t skip)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		int type = nla_type(a);

		if (type <= 0 || type > max || (skip & FNBLK_BIT(type)))
			continue;
		switch (nla_len(a)) {
		case 0:
			val[type] = 1;
			break;
		case 1:
			val[type] = nla_get_u8(a);
			break;
		case 4:
			val[type] = nla_get_u32(a);
			break;
		case 8:
			val[type] = nla_get_u64(a);
			break;
		default:
			continue;
		}
		*present |= FNBLK_BIT(type);
	}
}

static void read_array(struct nlattr *nest, int type, uint64_t *arr,
		       size_t nr, uint64_t *present)
{
	struct nlattr *a = nla_find(nla_data(nest), nla_len(nest), type);
	size_t len;

	if (!a)
		return;
	len = (size_t)nla_len(a);
	if (len > nr * sizeof(uint64_t))
		len = nr * sizeof(uint64_t);
	memcpy(arr, nla_data(a), len);
	*present |= FNBLK_BIT(type);
}

static int parse_stats(struct nlattr **tb, void *arg)
{
	const uint64_t arrays = FNBLK_BIT(FNBLK_STAT_N_HIST) |
				FNBLK_BIT(FNBLK_STAT_LAT_HIST) |
				FNBLK_BIT(FNBLK_STAT_QUEUE_HIST) |
				FNBLK_BIT(FNBLK_STAT_READ_SIZE_HIST) |
				FNBLK_BIT(FNBLK_STAT_WRITE_SIZE_HIST);
	struct fnblk_stats *st = arg;

	memset(st, 0, sizeof(*st));
	if (tb[FNBLK_A_DEV_ID])
		st->dev_id = nla_get_u32(tb[FNBLK_A_DEV_ID]);
	get_name(st->dev_name, tb[FNBLK_A_DEV_NAME]);
	if (!tb[FNBLK_A_STATS])
		return 0;
	read_scalars(tb[FNBLK_A_STATS], FNBLK_STAT_MAX, st->val, &st->present,
		     arrays);
	read_array(tb[FNBLK_A_STATS], FNBLK_STAT_N_HIST, st->n_hist,
		   FNBLK_NHIST_BINS, &st->present);
	read_array(tb[FNBLK_A_STATS], FNBLK_STAT_LAT_HIST, st->lat_hist,
		   FNBLK_LHIST_BINS, &st->present);
	read_array(tb[FNBLK_A_STATS], FNBLK_STAT_QUEUE_HIST, st->queue_hist,
		   FNBLK_LHIST_BINS, &st->present);
	read_array(tb[FNBLK_A_STATS], FNBLK_STAT_READ_SIZE_HIST,
		   st->read_size_hist, FNBLK_RSIZE_BINS, &st->present);
	read_array(tb[FNBLK_A_STATS], FNBLK_STAT_WRITE_SIZE_HIST,
		   st->write_size_hist, FNBLK_RSIZE_BINS, &st->present);
	return 0;
}

static int parse_user(struct nlattr **tb, void *arg)
{
	struct fnblk_user_info *u = arg;

	memset(u, 0, sizeof(*u));
	if (tb[FNBLK_A_DEV_ID])
		u->dev_id = nla_get_u32(tb[FNBLK_A_DEV_ID]);
	if (tb[FNBLK_A_USER])
		read_scalars(tb[FNBLK_A_USER], FNBLK_USER_MAX, u->val,
			     &u->present, 0);
	return 0;
}

/* Dumps parse each reply into one buffer and hand it to the caller. */
struct dump {
	void *obj;
	union {
		fnblk_dev_cb dev;
		fnblk_stats_cb stats;
		fnblk_user_cb user;
		fnblk_fault_cb fault;
	} cb;
	void *arg;
};

static int deliver_dev(struct nlattr **tb, void *arg)
{
	struct dump *d = arg;
	int ret = parse_dev(tb, d->obj);

	return ret ? ret : d->cb.dev(d->obj, d->arg);
}

static int deliver_stats(struct nlattr **tb, void *arg)
{
	struct dump *d = arg;
	int ret = parse_stats(tb, d->obj);

	return ret ? ret : d->cb.stats(d->obj, d->arg);
}

static int deliver_user(struct nlattr **tb, void *arg)
{
	struct dump *d = arg;
	int ret = parse_user(tb, d->obj);

	return ret ? ret : d->cb.user(d->obj, d->arg);
}

static int request(struct fnblk *h, uint8_t cmd, int flags, const char *dev,
		   const struct fnblk_dev_config *cfg,
		   int (*parse)(struct nlattr **tb, void *arg), void *arg)
{
	struct nl_msg *msg = new_request(h, cmd, flags);
	int err;

	if (!msg)
		return fnblk_fail(h, ENOMEM, "%s", strerror(ENOMEM));
	err = put_dev(h, msg, dev);
	if (!err && cfg)
		err = put_config(h, msg, cfg);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return transact(h, msg, parse, arg);
}

int fnblk_dev_del(struct fnblk *h, const char *dev)
{
	return request(h, FNBLK_CMD_DEV_DEL, NLM_F_ACK, dev, NULL, NULL, NULL);
}

int fnblk_dev_crash(struct fnblk *h, const char *dev)
{
	return request(h, FNBLK_CMD_DEV_CRASH, NLM_F_ACK, dev, NULL, NULL,
		       NULL);
}

int fnblk_dev_set(struct fnblk *h, const char *dev,
		  const struct fnblk_dev_config *cfg)
{
	return request(h, FNBLK_CMD_DEV_SET, NLM_F_ACK, dev, cfg, NULL, NULL);
}

/* A do request whose reply never came is an error, not a zeroed record. */
struct one_reply {
	int (*parse)(struct nlattr **tb, void *arg);
	void *obj;
	bool seen;
};

static int parse_one(struct nlattr **tb, void *arg)
{
	struct one_reply *one = arg;

	one->seen = true;
	return one->parse(tb, one->obj);
}

static int get_one(struct fnblk *h, uint8_t cmd, const char *dev,
		   const struct fnblk_dev_config *cfg,
		   int (*parse)(struct nlattr **tb, void *arg), void *obj)
{
	struct one_reply one = { .parse = parse, .obj = obj };
	int ret;

	ret = request(h, cmd, NLM_F_ACK, dev, cfg, parse_one, &one);
	if (!ret && !one.seen)
		return fnblk_fail(h, EPROTO, "the kernel sent no reply");
	return ret;
}

int fnblk_dev_add(struct fnblk *h, const char *dev,
		  const struct fnblk_dev_config *cfg,
		  struct fnblk_dev_info *out)
{
	struct fnblk_dev_info *tmp = out;
	int ret;

	if (!tmp) {
		tmp = malloc(sizeof(*tmp));
		if (!tmp)
			return fnblk_fail(h, ENOMEM, "%s", strerror(ENOMEM));
	}
	/* The reply describes the new device, as DEV_GET would. */
	ret = get_one(h, FNBLK_CMD_DEV_ADD, dev, cfg, parse_dev, tmp);
	if (tmp != out)
		free(tmp);
	return ret;
}

int fnblk_dev_get(struct fnblk *h, const char *dev,
		  struct fnblk_dev_info *out)
{
	return get_one(h, FNBLK_CMD_DEV_GET, dev, NULL, parse_dev, out);
}

int fnblk_stats_get(struct fnblk *h, const char *dev,
		    struct fnblk_stats *out)
{
	return get_one(h, FNBLK_CMD_STATS_GET, dev, NULL, parse_stats, out);
}

int fnblk_stats_reset(struct fnblk *h, const char *dev)
{
	return request(h, FNBLK_CMD_STATS_RESET, NLM_F_ACK, dev, NULL, NULL,
		       NULL);
}

int fnblk_dev_dump(struct fnblk *h, fnblk_dev_cb cb, void *arg)
{
	struct fnblk_dev_info *d = malloc(sizeof(*d));
	int ret;
	struct dump dd = { .obj = d, .cb.dev = cb, .arg = arg };

	if (!d)
		return fnblk_fail(h, ENOMEM, "%s", strerror(ENOMEM));
	ret = request(h, FNBLK_CMD_DEV_GET, NLM_F_DUMP, NULL, NULL,
		      deliver_dev, &dd);
	free(d);
	return ret;
}

int fnblk_stats_dump(struct fnblk *h, fnblk_stats_cb cb, void *arg)
{
	struct fnblk_stats st;
	struct dump d = { .obj = &st, .cb.stats = cb, .arg = arg };

	return request(h, FNBLK_CMD_STATS_GET, NLM_F_DUMP, NULL, NULL,
		       deliver_stats, &d);
}

int fnblk_users_dump(struct fnblk *h, const char *dev, fnblk_user_cb cb,
		     void *arg)
{
	struct fnblk_user_info u;
	struct dump d = { .obj = &u, .cb.user = cb, .arg = arg };

	return request(h, FNBLK_CMD_USER_GET, NLM_F_DUMP, dev, NULL,
		       deliver_user, &d);
}

int fnblk_user_set_weight(struct fnblk *h, const char *dev, uint64_t key,
			  uint32_t weight)
{
	struct nl_msg *msg = new_request(h, FNBLK_CMD_USER_SET, NLM_F_ACK);
	struct nlattr *nest;
	int err;

	if (!msg)
		return fnblk_fail(h, ENOMEM, "%s", strerror(ENOMEM));
	err = put_dev(h, msg, dev);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	nest = nla_nest_start(msg, FNBLK_A_USER);
	if (!nest || nla_put_u64(msg, FNBLK_USER_KEY, key) ||
	    nla_put_u32(msg, FNBLK_USER_WEIGHT, weight)) {
		nlmsg_free(msg);
		return fnblk_fail(h, EMSGSIZE, "request too large");
	}
	nla_nest_end(msg, nest);
	return transact(h, msg, NULL, NULL);
}

static int parse_fault(struct nlattr **tb, void *arg)
{
	struct fnblk_fault_info *f = arg;
	uint64_t val[__FNBLK_FAULT_ATTR_MAX] = { 0 };

	memset(f, 0, sizeof(*f));
	if (tb[FNBLK_A_DEV_ID])
		f->dev_id = nla_get_u32(tb[FNBLK_A_DEV_ID]);
	if (!tb[FNBLK_A_FAULT])
		return 0;
	read_scalars(tb[FNBLK_A_FAULT], FNBLK_FAULT_ATTR_MAX, val, &f->present,
		     0);
	f->id = (uint32_t)val[FNBLK_FAULT_ID];
	f->op = (uint8_t)val[FNBLK_FAULT_OP];
	f->error = (uint8_t)val[FNBLK_FAULT_ERROR];
	f->prob = (uint32_t)val[FNBLK_FAULT_PROB];
	f->every = (uint32_t)val[FNBLK_FAULT_EVERY];
	f->times = val[FNBLK_FAULT_TIMES];
	f->start = val[FNBLK_FAULT_START];
	f->len = val[FNBLK_FAULT_LEN];
	f->delay_ns = val[FNBLK_FAULT_DELAY_NS];
	f->matched = val[FNBLK_FAULT_MATCHED];
	f->injected = val[FNBLK_FAULT_INJECTED];
	return 0;
}

/* A request for one device with a FAULT nest holding what put added. */
static struct nl_msg *fault_request(struct fnblk *h, uint8_t cmd,
				    const char *dev,
				    const struct fnblk_fault_info *f)
{
	struct nl_msg *msg = new_request(h, cmd, NLM_F_ACK);
	struct nlattr *nest;
	int err;

	if (!msg) {
		fnblk_fail(h, ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (put_dev(h, msg, dev))
		goto free;
	nest = nla_nest_start(msg, FNBLK_A_FAULT);
	if (!nest)
		goto toolarge;
#define HAS(a) (f->present & FNBLK_BIT(a))
	err = 0;
	if (HAS(FNBLK_FAULT_ID))
		err |= nla_put_u32(msg, FNBLK_FAULT_ID, f->id);
	if (HAS(FNBLK_FAULT_OP))
		err |= nla_put_u8(msg, FNBLK_FAULT_OP, f->op);
	if (HAS(FNBLK_FAULT_ERROR))
		err |= nla_put_u8(msg, FNBLK_FAULT_ERROR, f->error);
	if (HAS(FNBLK_FAULT_PROB))
		err |= nla_put_u32(msg, FNBLK_FAULT_PROB, f->prob);
	if (HAS(FNBLK_FAULT_EVERY))
		err |= nla_put_u32(msg, FNBLK_FAULT_EVERY, f->every);
	if (HAS(FNBLK_FAULT_TIMES))
		err |= nla_put_u64(msg, FNBLK_FAULT_TIMES, f->times);
	if (HAS(FNBLK_FAULT_START))
		err |= nla_put_u64(msg, FNBLK_FAULT_START, f->start);
	if (HAS(FNBLK_FAULT_LEN))
		err |= nla_put_u64(msg, FNBLK_FAULT_LEN, f->len);
	if (HAS(FNBLK_FAULT_DELAY_NS))
		err |= nla_put_u64(msg, FNBLK_FAULT_DELAY_NS, f->delay_ns);
#undef HAS
	if (err)
		goto toolarge;
	nla_nest_end(msg, nest);
	return msg;
toolarge:
	fnblk_fail(h, EMSGSIZE, "request too large");
free:
	nlmsg_free(msg);
	return NULL;
}

int fnblk_fault_add(struct fnblk *h, const char *dev,
		    const struct fnblk_fault_info *rule,
		    struct fnblk_fault_info *out)
{
	struct fnblk_fault_info tmp;
	struct one_reply one = { .parse = parse_fault, .obj = out ? out : &tmp };
	struct nl_msg *msg = fault_request(h, FNBLK_CMD_FAULT_ADD, dev, rule);
	int ret;

	if (!msg)
		return -h->err;
	ret = transact(h, msg, parse_one, &one);
	if (!ret && !one.seen)
		return fnblk_fail(h, EPROTO, "the kernel sent no reply");
	return ret;
}

int fnblk_fault_del(struct fnblk *h, const char *dev, uint32_t id)
{
	struct fnblk_fault_info f = { .id = id };
	struct nl_msg *msg;

	if (id)
		f.present = FNBLK_BIT(FNBLK_FAULT_ID);
	msg = fault_request(h, FNBLK_CMD_FAULT_DEL, dev, &f);
	return msg ? transact(h, msg, NULL, NULL) : -h->err;
}

static int deliver_fault(struct nlattr **tb, void *arg)
{
	struct dump *d = arg;
	int ret = parse_fault(tb, d->obj);

	return ret ? ret : d->cb.fault(d->obj, d->arg);
}

int fnblk_fault_dump(struct fnblk *h, const char *dev, fnblk_fault_cb cb,
		     void *arg)
{
	struct fnblk_fault_info f;
	struct dump d = { .obj = &f, .cb.fault = cb, .arg = arg };

	return request(h, FNBLK_CMD_FAULT_GET, NLM_F_DUMP, dev, NULL,
		       deliver_fault, &d);
}
