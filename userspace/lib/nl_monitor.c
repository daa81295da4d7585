// SPDX-License-Identifier: GPL-2.0
/*
 * libfnblk event side: a socket of its own in the "events" multicast
 * group. It is read with plain recv() rather than nl_recvmsgs() so an
 * overrun surfaces as ENOBUFS (libnl folds it into NLE_NOMEM), which the
 * caller must see to resync.
 */
#include <errno.h>
#include <poll.h>
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

#define MONITOR_BUFLEN	(64 * 1024)

int fnblk_monitor_open(struct fnblk *h, int rcvbuf)
{
	int grp, err, fd;

	if (h->mon)
		return 0;
	grp = genl_ctrl_resolve_grp(h->sk, FNBLK_GENL_NAME, FNBLK_MCGRP_EVENTS);
	if (grp < 0)
		return fnblk_fail(h, ENOENT, "no multicast group \"%s\": %s",
				  FNBLK_MCGRP_EVENTS, nl_geterror(grp));
	h->buf = malloc(MONITOR_BUFLEN);
	h->mon = nl_socket_alloc();
	if (!h->buf || !h->mon)
		goto nomem;
	nl_socket_disable_seq_check(h->mon);
	err = nl_connect(h->mon, NETLINK_GENERIC);
	if (err < 0)
		goto nlerr;
	fd = nl_socket_get_fd(h->mon);
	/* FORCE lifts the rmem_max cap for root; plain works for small ones. */
	if (rcvbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) {
		err = errno;
		fnblk_fail(h, err, "receive buffer of %d bytes: %s", rcvbuf,
			   strerror(err));
		goto undo;
	}
	/* Events name users (pids, cgroups): the kernel asks for privilege. */
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
		       sizeof(grp))) {
		err = errno;
		if (err == EPERM)
			fnblk_fail(h, err, "subscribing to fnblk events needs "
				   "CAP_NET_ADMIN");
		else
			fnblk_fail(h, err, "subscribing to fnblk events: %s",
				   strerror(err));
		goto undo;
	}
	h->buflen = MONITOR_BUFLEN;
	h->len = h->off = 0;
	return 0;
nomem:
	fnblk_fail(h, ENOMEM, "%s", strerror(ENOMEM));
	goto undo;
nlerr:
	fnblk_fail(h, EIO, "event socket: %s", nl_geterror(err));
undo:
	if (h->mon)
		nl_socket_free(h->mon);
	h->mon = NULL;
	free(h->buf);
	h->buf = NULL;
	return -h->err;
}

int fnblk_monitor_no_enobufs(struct fnblk *h)
{
	int one = 1;

	if (!h->mon)
		return fnblk_fail(h, EBADF, "not subscribed to events");
	if (setsockopt(nl_socket_get_fd(h->mon), SOL_NETLINK,
		       NETLINK_NO_ENOBUFS, &one, sizeof(one)))
		return fnblk_fail(h, errno, "NETLINK_NO_ENOBUFS: %s",
				  strerror(errno));
	return 0;
}

int fnblk_monitor_fd(const struct fnblk *h)
{
	return h->mon ? nl_socket_get_fd(h->mon) : -1;
}

static int parse_event(struct fnblk *h, struct nlmsghdr *nlh,
		       struct fnblk_dev_event *ev)
{
	struct nlattr *tb[FNBLK_A_MAX + 1];
	struct genlmsghdr *g;

	if (nlh->nlmsg_type != h->family ||
	    !genlmsg_valid_hdr(nlh, 0))
		return 0;
	g = nlmsg_data(nlh);
	if (g->cmd < FNBLK_CMD_EVT_USER_ACTIVE ||
	    g->cmd > FNBLK_CMD_EVT_DEV_CHANGED)
		return 0;
	if (genlmsg_parse(nlh, 0, tb, FNBLK_A_MAX, fnblk_attr_policy) < 0)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->cmd = g->cmd;
	if (tb[FNBLK_A_DEV_ID])
		ev->dev_id = nla_get_u32(tb[FNBLK_A_DEV_ID]);
	if (tb[FNBLK_A_DEV_NAME])
		nla_strlcpy(ev->dev_name, tb[FNBLK_A_DEV_NAME],
			    sizeof(ev->dev_name));
	if (tb[FNBLK_A_EVT_TIME_NS])
		ev->time_ns = nla_get_u64(tb[FNBLK_A_EVT_TIME_NS]);
	if (tb[FNBLK_A_EVT_SEQ]) {
		ev->seq = nla_get_u64(tb[FNBLK_A_EVT_SEQ]);
		ev->has_seq = true;
	}
	if (tb[FNBLK_A_EVT_USER_KEY])
		ev->user_key = nla_get_u64(tb[FNBLK_A_EVT_USER_KEY]);
	if (tb[FNBLK_A_EVT_NR_ACTIVE]) {
		ev->nr_active = nla_get_u32(tb[FNBLK_A_EVT_NR_ACTIVE]);
		ev->has_nr_active = true;
	}
	ev->kthread = tb[FNBLK_A_EVT_KTHREAD] != NULL;
	ev->overflow = tb[FNBLK_A_EVT_OVERFLOW] != NULL;
	return 1;
}

int fnblk_monitor_next(struct fnblk *h, struct fnblk_dev_event *ev,
		       int timeout_ms)
{
	int fd = fnblk_monitor_fd(h);

	if (fd < 0)
		return fnblk_fail(h, EBADF, "not subscribed to events");
	for (;;) {
		/* Messages left over from the last datagram come first. */
		while (h->off < h->len) {
			struct nlmsghdr *nlh = (void *)(h->buf + h->off);
			size_t left = h->len - h->off;

			if (left < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) ||
			    nlh->nlmsg_len > left) {
				h->off = h->len;
				break;
			}
			h->off += NLMSG_ALIGN(nlh->nlmsg_len);
			if (parse_event(h, nlh, ev))
				return 1;
		}

		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int ret = poll(&pfd, 1, timeout_ms);

		if (ret < 0)
			return fnblk_fail(h, errno, "poll: %s", strerror(errno));
		if (ret == 0)
			return 0;
		ssize_t n = recv(fd, h->buf, h->buflen, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				fnblk_fail(h, ENOBUFS, "events lost: %s",
					   strerror(ENOBUFS));
				return -ENOBUFS;
			}
			return fnblk_fail(h, errno, "receive: %s",
					  strerror(errno));
		}
		h->len = (size_t)n;
		h->off = 0;
	}
}
