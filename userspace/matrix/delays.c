// SPDX-License-Identifier: GPL-2.0
/* Per-thread delay accounting through taskstats (see delays.h). */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/taskstats.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "delays.h"

#define DELAYACCT_SYSCTL "/proc/sys/kernel/task_delayacct"

int mx_delayacct_enabled(void)
{
	FILE *f = fopen(DELAYACCT_SYSCTL, "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

struct reply {
	struct mx_delays *d;
	bool got;
};

/* Fields past the kernel's struct size stay zero: older kernels. */
static void take(struct mx_delays *d, const void *data, size_t len)
{
	struct taskstats ts;

	memset(&ts, 0, sizeof(ts));
	memcpy(&ts, data, len < sizeof(ts) ? len : sizeof(ts));
	d->blkio_ns = ts.blkio_delay_total;
	d->blkio_count = ts.blkio_count;
	d->swapin_ns = ts.swapin_delay_total;
	d->reclaim_ns = ts.freepages_delay_total;
	d->thrashing_ns = ts.thrashing_delay_total;
	d->read_bytes = ts.read_bytes;
	d->write_bytes = ts.write_bytes;
	d->valid = true;
}

static int on_reply(struct nl_msg *msg, void *arg)
{
	struct reply *r = arg;
	struct nlattr *tb[TASKSTATS_TYPE_MAX + 1], *in[TASKSTATS_TYPE_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, TASKSTATS_TYPE_MAX, NULL) ||
	    !tb[TASKSTATS_TYPE_AGGR_PID] ||
	    nla_parse_nested(in, TASKSTATS_TYPE_MAX, tb[TASKSTATS_TYPE_AGGR_PID], NULL) ||
	    !in[TASKSTATS_TYPE_STATS])
		return NL_SKIP;
	take(r->d, nla_data(in[TASKSTATS_TYPE_STATS]),
	     (size_t)nla_len(in[TASKSTATS_TYPE_STATS]));
	r->got = true;
	return NL_OK;
}

/* Exact CPU and run-queue time of the calling thread. */
static int schedstat(struct mx_delays *d)
{
	unsigned long long run, wait;
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	int ret = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%llu %llu", &run, &wait) == 2) {
		d->run_ns = run;
		d->runq_ns = wait;
		ret = 0;
	}
	fclose(f);
	return ret;
}

int mx_delays_self(struct mx_delays *d)
{
	struct reply r = { .d = d };
	struct nl_sock *sk;
	struct nl_msg *msg = NULL;
	int family, ret = -1;

	memset(d, 0, sizeof(*d));
	sk = nl_socket_alloc();
	if (!sk)
		return -1;
	if (genl_connect(sk))
		goto out;
	family = genl_ctrl_resolve(sk, TASKSTATS_GENL_NAME);
	if (family < 0)
		goto out;
	msg = nlmsg_alloc();
	if (!msg ||
	    !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
			 TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION) ||
	    nla_put_u32(msg, TASKSTATS_CMD_ATTR_PID, (uint32_t)syscall(SYS_gettid)))
		goto out;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_reply, &r);
	if (nl_send_auto(sk, msg) < 0 || nl_recvmsgs_default(sk) < 0 || !r.got ||
	    schedstat(d))
		goto out;
	ret = 0;
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	if (ret)
		memset(d, 0, sizeof(*d));
	return ret;
}

#define FIELDS(X) \
	X(span_ns) X(run_ns) X(runq_ns) X(blkio_ns) X(blkio_count) X(reclaim_ns) \
	X(thrashing_ns) X(swapin_ns) X(read_bytes) X(write_bytes)

void mx_delays_sub(struct mx_delays *out, const struct mx_delays *after,
		   const struct mx_delays *before, uint64_t span_ns,
		   bool *implausible)
{
	/* Clocks and ticks differ a little: allow 5% and 10 ms. */
	uint64_t limit = span_ns + span_ns / 20 + 10000000;

	memset(out, 0, sizeof(*out));
	*implausible = false;
	if (!after->valid || !before->valid)
		return;
#define SUB(f) out->f = after->f - before->f;
	FIELDS(SUB)
#undef SUB
	out->span_ns = span_ns;
	if (out->run_ns > limit || out->runq_ns > limit || out->blkio_ns > limit ||
	    out->reclaim_ns > limit || out->thrashing_ns > limit ||
	    out->swapin_ns > limit) {
		*implausible = true;
		return;
	}
	out->valid = true;
}

void mx_delays_add(struct mx_delays *into, const struct mx_delays *d)
{
	if (!d->valid)
		return;
	into->valid = true;
#define ADD(f) into->f += d->f;
	FIELDS(ADD)
#undef ADD
}

json_t *mx_delays_json(const struct mx_delays *d)
{
	json_t *o;

	if (!d->valid)
		return json_null();
	o = json_object();
#define PUT(f) json_object_set_new(o, #f, json_integer((json_int_t)d->f));
	FIELDS(PUT)
#undef PUT
	return o;
}

int mx_delays_from_json(struct mx_delays *d, const json_t *j)
{
	memset(d, 0, sizeof(*d));
	if (json_is_null(j) || !j)
		return 0;
	if (!json_is_object(j))
		return -1;
#define GET(f) d->f = (uint64_t)json_integer_value(json_object_get(j, #f));
	FIELDS(GET)
#undef GET
	d->valid = true;
	return 0;
}
