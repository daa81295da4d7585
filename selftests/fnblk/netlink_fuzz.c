// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink fuzzer: 10^5 random and mutated requests over every command and
 * attribute the fnblk family declares, read from the genetlink controller
 * (so commands added later are covered without listing them here), while
 * one device serves verified I/O. Every request must be refused with an
 * extack message (or by the netlink core for reasons it states by errno
 * alone: unknown command, missing privilege) or accepted consistently:
 * replies echo what was asked, accepted changes show in later reads, the
 * device list matches what was added and deleted and what the block layer
 * shows, every dump ends. No kernel warning may appear, the module must
 * unload and load again, and an unprivileged user changes nothing. Where
 * the kernel has failslab (the debug kernel), requests also run with their
 * allocations failing: every error path must leave things as they were.
 * Documentation/build.rst describes the checks.
 *
 * Deterministic for a seed. Environment:
 *   FNBLK_FUZZ_SEED   seed (default: from the clock; always printed)
 *   FNBLK_FUZZ_COUNT  requests (default 100000, 20000 on a lockdep or
 *                     kmemleak kernel; the unprivileged and the
 *                     failing-allocation runs do a tenth)
 *   FNBLK_FUZZ_IO=0   no live I/O: the run then repeats bit for bit
 *   FNBLK_FUZZ_HANG_S seconds without progress that count as a hang (120)
 */
#define _GNU_SOURCE	/* O_DIRECT, setresuid */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "fnblk_test.h"
#include "fuzz_gen.h"

#define LIVE_ID		1023	/* the device under I/O */
#define LIVE_NAME	"fnblk1023"
#define STOP_FILE	"/tmp/netlink_fuzz.stop"
#define MAX_IDS		65536
#define MAX_FINDINGS	40
#define CHECK_EVERY	2000

/* Kernel log lines that mean something went wrong in the kernel. */
static const char *const kernel_trouble[] = {
	"BUG:", "WARNING:", "UBSAN:", "KASAN", "Oops", "general protection",
	"ODEBUG", "blocked for more than", "soft lockup", "rcu_preempt detected",
	"Kernel panic",
};

struct fuzz {
	struct fz_sock s;
	struct fz_family fam;
	struct fz_gen g;
	struct fz_msg m;
	uint64_t seed;
	long count, i;
	const char *test;	/* the TEST_F running, for the reproducer */
	long div;		/* this run sends FNBLK_FUZZ_COUNT / div requests */
	int io;			/* live I/O runs on LIVE_ID */
	int unpriv;
	int failslab;		/* allocations of the request may fail */
	int fail_fd;		/* this task's make-it-fail, opened before */
	long lost;		/* requests whose answer could not be sent */
	int kmsg;
	uint8_t shadow[MAX_IDS];	/* device ids that must exist */
	int nr_findings;
	char findings[MAX_FINDINGS][512];
	long sent[256], accepted[256];	/* by command */
	pid_t io_pid;
};

static struct fuzz *cur;		/* for the hang watchdog */
static volatile long progress;

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static void hexdump(FILE *f, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < 512; i++)
		fprintf(f, "%s%02x", i % 32 ? "" : "\n#   ", p[i]);
	fprintf(f, "%s\n", len > 512 ? " ..." : "");
}

/* Record a finding with the request that led to it. */
static void __attribute__((format(printf, 2, 3)))
finding(struct fuzz *z, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	printf("# FINDING at request %ld (seed %llu%s): %s", z->i,
	       (unsigned long long)z->seed, z->unpriv ? ", unprivileged" : "",
	       what);
	hexdump(stdout, z->m.buf, z->m.len);
	/* The run up to this request, again: the same seed, cut after it. */
	printf("# reproduce: FNBLK_FUZZ_SEED=%llu FNBLK_FUZZ_COUNT=%ld%s ./netlink_fuzz -t %s%s\n",
	       (unsigned long long)z->seed, (z->i + 1) * (z->div ? z->div : 1),
	       z->io ? "" : " FNBLK_FUZZ_IO=0", z->test ? z->test : "?",
	       z->failslab ? " (failing allocations are random: may differ)" :
	       z->io ? " (add FNBLK_FUZZ_IO=0 for a run without live I/O's timing)" : "");
	fflush(stdout);
	if (z->nr_findings < MAX_FINDINGS)
		snprintf(z->findings[z->nr_findings], sizeof(z->findings[0]),
			 "request %ld: %s", z->i, what);
	z->nr_findings++;
}

/* ---- the kernel log ---- */

static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Every new kernel line that reports trouble is a finding. */
static void kmsg_check(struct fuzz *z)
{
	char rec[2048], *text;
	ssize_t n;
	size_t k;

	if (z->kmsg < 0)
		return;
	while ((n = read(z->kmsg, rec, sizeof(rec) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;	/* overwritten records: go on */
		rec[n] = '\0';
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		for (k = 0; k < sizeof(kernel_trouble) / sizeof(kernel_trouble[0]); k++)
			if (strstr(text, kernel_trouble[k])) {
				text[strcspn(text, "\n")] = '\0';
				finding(z, "kernel: %s\n", text);
				break;
			}
	}
}

/* ---- reading replies ---- */

/* The top-level attribute of type t in a genl message (the last one). */
static const struct nlattr *msg_attr(const uint8_t *msg, int len, int t)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)msg;
	const struct nlattr *a, *found = NULL;
	int rem;

	if (len < (int)(NLMSG_HDRLEN + GENL_HDRLEN) || (int)nlh->nlmsg_len > len)
		return NULL;
	fz_for_each_attr(a, (const uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN,
			 (int)nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, rem)
		if (FZ_NLA_TYPE(a) == t)
			found = a;
	return found;
}

static int same_payload(const struct nlattr *a, const struct nlattr *b)
{
	return FZ_NLA_LEN(a) == FZ_NLA_LEN(b) &&
	       !memcmp(FZ_NLA_DATA(a), FZ_NLA_DATA(b), (size_t)FZ_NLA_LEN(a));
}

/* The last attribute of type t inside a nest, or NULL. */
static const struct nlattr *nest_attr(const struct nlattr *nest, int t)
{
	const struct nlattr *a, *found = NULL;
	int rem;

	fz_for_each_attr(a, FZ_NLA_DATA(nest), FZ_NLA_LEN(nest), rem)
		if (FZ_NLA_TYPE(a) == t)
			found = a;
	return found;
}

/*
 * Does a reply attribute say what the request's did? Equal payloads, the
 * same string up to its terminator, or, for nests, the same answer for
 * every attribute inside that both carry (the reply adds what the kernel
 * fills in, as a fault rule's id and counters).
 */
static int echoes(const struct nlattr *req, const struct nlattr *rep, int depth)
{
	const struct nlattr *a;
	int rem;

	if (same_payload(req, rep))
		return 1;
	if (FZ_NLA_LEN(req) > 0 && FZ_NLA_LEN(rep) > 0 &&
	    memchr(FZ_NLA_DATA(req), 0, (size_t)FZ_NLA_LEN(req)) &&
	    memchr(FZ_NLA_DATA(rep), 0, (size_t)FZ_NLA_LEN(rep)) &&
	    !strcmp((char *)FZ_NLA_DATA(req), (char *)FZ_NLA_DATA(rep)))
		return 1;
	if (!(req->nla_type & NLA_F_NESTED) || !(rep->nla_type & NLA_F_NESTED) ||
	    depth > 8)
		return 0;
	fz_for_each_attr(a, FZ_NLA_DATA(req), FZ_NLA_LEN(req), rem) {
		const struct nlattr *r = nest_attr(rep, FZ_NLA_TYPE(a));

		if (r && a == nest_attr(req, FZ_NLA_TYPE(a)) &&
		    !echoes(a, r, depth + 1))
			return 0;
	}
	return 1;
}

/* The device a request names: its id, or -1. Follows the module's rule. */
static int named_id(const uint8_t *msg, int len)
{
	const struct nlattr *a = msg_attr(msg, len, FNBLK_A_DEV_ID);
	unsigned int id;

	if (a && FZ_NLA_LEN(a) == 4)
		return (int)fz_uint(a);
	a = msg_attr(msg, len, FNBLK_A_DEV_NAME);
	if (a && FZ_NLA_LEN(a) > 0 &&
	    sscanf((const char *)FZ_NLA_DATA(a), "fnblk%u", &id) == 1)
		return (int)id;
	return -1;
}

/* A simple request to the family: DEV_ID given, extra attrs none. */
static int ask(struct fuzz *z, uint8_t cmd, int dump, int id,
	       struct fz_answer *a)
{
	uint8_t buf[64];
	struct fz_msg m = { .buf = buf, .cap = sizeof(buf) };
	size_t at;
	uint32_t v = (uint32_t)id;

	at = fz_msg_start(&m, z->fam.id, NLM_F_REQUEST | NLM_F_ACK |
			  (dump ? NLM_F_DUMP : 0), z->s.seq++, cmd,
			  (uint8_t)z->fam.version);
	if (id >= 0)
		fz_attr_put(&m, FNBLK_A_DEV_ID, &v, sizeof(v));
	fz_msg_end(&m, at);
	return fz_request(&z->s, &m, a);
}

/*
 * A dump, bounded: every reply message handed to fn. Fails (a finding)
 * if it does not end within max messages or carries NLM_F_DUMP_INTR
 * although nothing changed meanwhile.
 */
typedef void (*dump_fn)(struct fuzz *z, const uint8_t *msg, int len, void *arg);

static int bounded_dump(struct fuzz *z, uint8_t cmd, int id, long max,
			dump_fn fn, void *arg)
{
	uint8_t buf[64];
	struct fz_msg m = { .buf = buf, .cap = sizeof(buf) };
	uint32_t seq = z->s.seq++, v = (uint32_t)id;
	long nr = 0;
	size_t at;

	at = fz_msg_start(&m, z->fam.id, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP,
			  seq, cmd, (uint8_t)z->fam.version);
	if (id >= 0)
		fz_attr_put(&m, FNBLK_A_DEV_ID, &v, sizeof(v));
	fz_msg_end(&m, at);
	if (fz_send(&z->s, m.buf, m.len))
		return -EIO;
	for (;;) {
		ssize_t n = recv(z->s.fd, z->s.rx, FZ_BUF, 0);
		struct nlmsghdr *nlh;
		int len;

		if (n < 0) {
			finding(z, "dump of command %u (device %d) stalled: %s\n",
				cmd, id, strerror(errno));
			return -ETIMEDOUT;
		}
		len = (int)n;
		for (nlh = (struct nlmsghdr *)z->s.rx; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) ?
				       *(int *)NLMSG_DATA(nlh) : 0;
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				finding(z, "dump of command %u interrupted with nothing changing\n",
					cmd);
			if (++nr > max) {
				finding(z, "dump of command %u (device %d) does not end: over %ld messages\n",
					cmd, id, max);
				/* Drop the socket: the dump may never end. */
				fz_sock_close(&z->s);
				fz_sock_open(&z->s, 60);
				return -ELOOP;
			}
			if (fn)
				fn(z, (uint8_t *)nlh, (int)nlh->nlmsg_len, arg);
		}
	}
}

/* ---- consistency checks ---- */

struct dev_list {
	int nr;
	int id[1024];
	uint8_t *msg[1024];
	int len[1024];
};

static void collect_dev(struct fuzz *z, const uint8_t *msg, int len, void *arg)
{
	struct dev_list *l = arg;
	const struct nlattr *a = msg_attr(msg, len, FNBLK_A_DEV_ID);

	if (!a || l->nr == 1024)
		return;
	if (l->nr && (int)fz_uint(a) <= l->id[l->nr - 1])
		finding(z, "device dump out of order: %d after %d\n",
			(int)fz_uint(a), l->id[l->nr - 1]);
	l->id[l->nr] = (int)fz_uint(a);
	l->msg[l->nr] = malloc((size_t)len);
	if (l->msg[l->nr])
		memcpy(l->msg[l->nr], msg, (size_t)len);
	l->len[l->nr++] = len;
}

static void dev_list_free(struct dev_list *l)
{
	while (l->nr--)
		free(l->msg[l->nr]);
	l->nr = 0;
}

/*
 * Two descriptions of the same device agree on every attribute except n
 * (which moves with the live I/O).
 */
static void same_device(struct fuzz *z, const char *what, const uint8_t *x,
			int xl, const uint8_t *y, int yl)
{
	int t;

	for (t = 1; t <= (int)z->fam.maxattr && t <= FZ_MAX_TYPE; t++) {
		const struct nlattr *a = msg_attr(x, xl, t), *b = msg_attr(y, yl, t);

		if (t == FNBLK_A_NR_ACTIVE || t == FNBLK_A_PAD)
			continue;
		if (!a != !b || (a && !same_payload(a, b))) {
			finding(z, "%s: attribute %d differs\n", what, t);
			return;
		}
	}
}

struct user_walk {
	long nr;
	uint64_t last;
	int want_key_found;
	uint64_t want_key;
	uint32_t want_weight;
	uint32_t got_weight;
};

static void walk_user(struct fuzz *z, const uint8_t *msg, int len, void *arg)
{
	struct user_walk *w = arg;
	const struct nlattr *u = msg_attr(msg, len, FNBLK_A_USER), *a;
	uint64_t key = 0;
	uint32_t weight = 0;
	int rem, have = 0;

	if (!u)
		return;
	fz_for_each_attr(a, FZ_NLA_DATA(u), FZ_NLA_LEN(u), rem) {
		if (FZ_NLA_TYPE(a) == FNBLK_USER_KEY)
			key = fz_uint(a), have = 1;
		else if (FZ_NLA_TYPE(a) == FNBLK_USER_WEIGHT)
			weight = (uint32_t)fz_uint(a);
	}
	if (!have)
		return;
	if (w->nr && key <= w->last)
		finding(z, "user dump not in key order: %llu after %llu\n",
			(unsigned long long)key, (unsigned long long)w->last);
	w->last = key;
	w->nr++;
	if (key == w->want_key) {
		w->want_key_found = 1;
		w->got_weight = weight;
	}
}

static uint64_t stat_of(const uint8_t *msg, int len, int stat)
{
	const struct nlattr *st = msg_attr(msg, len, FNBLK_A_STATS), *a;
	int rem;

	if (st)
		fz_for_each_attr(a, FZ_NLA_DATA(st), FZ_NLA_LEN(st), rem)
			if (FZ_NLA_TYPE(a) == stat)
				return fz_uint(a);
	return ~0ULL;
}

static long long sysfs_sectors(const char *dev)
{
	char path[64];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/size", dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * The device list is what was added and not deleted, each device reads
 * the same by dump, by id and by name, the block layer shows exactly
 * these disks with these sizes, the stats dump covers the same devices,
 * every user dump ends in key order and idle devices count their users.
 */
static void check_state(struct fuzz *z)
{
	struct dev_list l = { 0 }, sl = { 0 };
	struct fz_answer a;
	struct dirent *de;
	int i, id;
	DIR *d;

	if (bounded_dump(z, FNBLK_CMD_DEV_GET, -1, 2048, collect_dev, &l))
		finding(z, "device dump failed\n");
	for (i = 0, id = 0; id < MAX_IDS; id++) {
		int listed = i < l.nr && l.id[i] == id;

		if (listed != z->shadow[id])
			finding(z, "fnblk%d %s\n", id, listed ?
				"is listed but was never added (or was deleted)" :
				"was added but is not listed");
		i += listed;
	}
	for (i = 0; i < l.nr; i++) {
		char name[32];
		long long sectors;
		const struct nlattr *sz;

		snprintf(name, sizeof(name), "fnblk%d", l.id[i]);
		if (!ask(z, FNBLK_CMD_DEV_GET, 0, l.id[i], &a) && !a.error &&
		    a.nr_replies)
			same_device(z, "device by dump and by id", l.msg[i],
				    l.len[i], a.reply[0], a.reply_len[0]);
		else
			finding(z, "%s listed but not readable by id: %d %s\n",
				name, a.error, a.msg);
		fz_answer_free(&a);
		sz = msg_attr(l.msg[i], l.len[i], FNBLK_A_SIZE);
		sectors = sysfs_sectors(name);
		if (sectors < 0)
			finding(z, "%s listed but not in /sys/block\n", name);
		else if (!sz || (uint64_t)sectors * 512 != fz_uint(sz))
			finding(z, "%s: /sys/block size %lld sectors, netlink %llu bytes\n",
				name, sectors, sz ? (unsigned long long)fz_uint(sz) : 0ULL);
	}
	d = opendir("/sys/block");
	while (d && (de = readdir(d))) {
		if (sscanf(de->d_name, "fnblk%d", &id) == 1 &&
		    (id < 0 || id >= MAX_IDS || !z->shadow[id]))
			finding(z, "/sys/block/%s exists but the device is not listed\n",
				de->d_name);
	}
	if (d)
		closedir(d);
	if (bounded_dump(z, FNBLK_CMD_STATS_GET, -1, 2048, collect_dev, &sl))
		finding(z, "stats dump failed\n");
	if (sl.nr != l.nr || memcmp(sl.id, l.id, sizeof(int) * (size_t)l.nr))
		finding(z, "stats dump lists %d devices, device dump %d\n",
			sl.nr, l.nr);
	for (i = 0; i < sl.nr; i++) {
		struct user_walk w = { .want_key = ~0ULL };
		uint64_t nr_users = stat_of(sl.msg[i], sl.len[i], FNBLK_STAT_NR_USERS);

		if (bounded_dump(z, FNBLK_CMD_USER_GET, sl.id[i], 200000, walk_user, &w))
			continue;
		/* The live device gains users while we read. */
		if (sl.id[i] != LIVE_ID && nr_users != (uint64_t)w.nr)
			finding(z, "fnblk%d: stats count %llu users, the dump %ld\n",
				sl.id[i], (unsigned long long)nr_users, w.nr);
	}
	dev_list_free(&l);
	dev_list_free(&sl);
}

/* ---- checks on one request's answer ---- */

struct sent {
	const struct fz_op *op;	/* NULL: not a declared command */
	uint8_t cmd;
	int dump, damaged;	/* damaged: bytes mutated after building */
};

/* An accepted request that changes something is visible afterwards. */
static void check_effect(struct fuzz *z, const struct sent *s,
			 const struct fz_answer *a)
{
	const uint8_t *req = z->m.buf;
	int len = (int)z->m.len, id = named_id(req, len);
	const struct nlattr *ra, *pa;
	struct fz_answer g;
	int t;

	/* Replies describe what was asked for: every attribute both carry. */
	if (a->nr_replies && !s->dump) {
		for (t = 1; t <= (int)z->fam.maxattr && t <= FZ_MAX_TYPE; t++) {
			ra = msg_attr(req, len, t);
			pa = msg_attr(a->reply[0], a->reply_len[0], t);
			if (!ra || !pa || echoes(ra, pa, 0))
				continue;
			finding(z, "command %u accepted, but its reply says otherwise about attribute %d\n",
				s->cmd, t);
		}
	}
	switch (s->cmd) {
	case FNBLK_CMD_DEV_ADD:
		pa = a->nr_replies ? msg_attr(a->reply[0], a->reply_len[0],
					      FNBLK_A_DEV_ID) : NULL;
		if (!pa)
			finding(z, "device added without a reply naming it\n");
		else if (fz_uint(pa) < MAX_IDS)
			z->shadow[fz_uint(pa)] = 1;
		break;
	case FNBLK_CMD_DEV_DEL:
		if (id >= 0 && id < MAX_IDS) {
			if (!z->shadow[id])
				finding(z, "fnblk%d deleted but did not exist\n", id);
			z->shadow[id] = 0;
		}
		break;
	case FNBLK_CMD_DEV_SET:
		/* What the reply says is what a fresh read says. */
		if (!a->nr_replies || id < 0)
			break;
		if (ask(z, FNBLK_CMD_DEV_GET, 0, id, &g) || g.error || !g.nr_replies)
			finding(z, "fnblk%d set but not readable\n", id);
		else
			same_device(z, "set reply and a read after it", a->reply[0],
				    a->reply_len[0], g.reply[0], g.reply_len[0]);
		fz_answer_free(&g);
		break;
	case FNBLK_CMD_USER_SET: {
		const struct nlattr *u = msg_attr(req, len, FNBLK_A_USER), *x;
		struct user_walk w = { 0 };
		int rem, have_key = 0;

		if (!u || id < 0)
			break;
		fz_for_each_attr(x, FZ_NLA_DATA(u), FZ_NLA_LEN(u), rem) {
			if (FZ_NLA_TYPE(x) == FNBLK_USER_KEY)
				w.want_key = fz_uint(x), have_key = 1;
			else if (FZ_NLA_TYPE(x) == FNBLK_USER_WEIGHT)
				w.want_weight = (uint32_t)fz_uint(x);
		}
		if (!have_key)
			break;
		if (bounded_dump(z, FNBLK_CMD_USER_GET, id, 200000, walk_user, &w))
			break;
		if (!w.want_key_found)
			finding(z, "weight of user %llu set, but the user is not listed\n",
				(unsigned long long)w.want_key);
		else if (w.got_weight != w.want_weight)
			finding(z, "weight of user %llu set to %u, listed as %u\n",
				(unsigned long long)w.want_key, w.want_weight,
				w.got_weight);
		break;
	}
	}
}

/*
 * Judge one answer. Refusals explain themselves, except those the netlink
 * core makes before the family sees the request: an undeclared command or
 * mode (EOPNOTSUPP), a missing capability (EPERM), a message too short
 * for the genetlink header (EINVAL).
 */
static void judge(struct fuzz *z, const struct sent *s,
		  const struct fz_answer *a)
{
	int declared = s->op && ((s->dump && (s->op->flags & GENL_CMD_CAP_DUMP)) ||
				 (!s->dump && (s->op->flags & GENL_CMD_CAP_DO)));
	int admin = s->op && (s->op->flags & (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM));

	if (a->error < 0) {
		if (a->msg[0])
			return;
		/* Out of memory has nothing more to say. */
		if (z->failslab && (a->error == -ENOMEM || a->error == -ENOBUFS))
			return;
		if (a->error == -EOPNOTSUPP && !declared)
			return;
		if (a->error == -EPERM && admin && z->unpriv)
			return;
		if (a->error == -EINVAL &&
		    z->m.len < NLMSG_HDRLEN + GENL_HDRLEN)
			return;
		finding(z, "command %u%s refused (%s) without a message\n",
			s->cmd, s->dump ? " (dump)" : "", strerror(-a->error));
		return;
	}
	if (!declared) {
		finding(z, "command %u%s accepted but not declared\n", s->cmd,
			s->dump ? " (dump)" : "");
		return;
	}
	if (admin && z->unpriv) {
		finding(z, "command %u accepted without CAP_NET_ADMIN\n", s->cmd);
		return;
	}
	if (!s->dump)
		check_effect(z, s, a);
}

/* ---- one request ---- */

#define FAILSLAB "/sys/kernel/debug/failslab/"

static int write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, v, strlen(v)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * Make this task's slab allocations fail (failslab with task-filter),
 * through a descriptor opened before they may: opening the file to switch
 * them off is an allocation itself, which could fail and leave them on.
 */
static void inject(struct fuzz *z, int on)
{
	if (z->failslab && pwrite(z->fail_fd, on ? "1" : "0", 1, 0) != 1)
		finding(z, "cannot switch failing allocations %s: %s\n",
			on ? "on" : "off", strerror(errno));
}

/*
 * The device list after a request whose answer was lost: only the kernel
 * knows whether it was applied, so the model follows it.
 */
static void resync(struct fuzz *z)
{
	uint8_t buf[64];
	struct fz_msg m = { .buf = buf, .cap = sizeof(buf) };
	uint32_t seq = z->s.seq++;
	size_t at;

	memset(z->shadow, 0, sizeof(z->shadow));
	at = fz_msg_start(&m, z->fam.id, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP,
			  seq, FNBLK_CMD_DEV_GET, (uint8_t)z->fam.version);
	fz_msg_end(&m, at);
	if (fz_send(&z->s, m.buf, m.len))
		return;
	for (;;) {
		ssize_t n = recv(z->s.fd, z->s.rx, FZ_BUF, 0);
		struct nlmsghdr *nlh;
		int len;

		if (n < 0)
			return;
		len = (int)n;
		for (nlh = (struct nlmsghdr *)z->s.rx; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			const struct nlattr *id;

			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE ||
			    nlh->nlmsg_type == NLMSG_ERROR)
				return;
			id = msg_attr((uint8_t *)nlh, (int)nlh->nlmsg_len,
				      FNBLK_A_DEV_ID);
			if (id && fz_uint(id) < MAX_IDS)
				z->shadow[fz_uint(id)] = 1;
		}
	}
}

static void one_request(struct fuzz *z)
{
	struct fz_gen *g = &z->g;
	struct sent s = { 0 };
	struct fz_answer a;
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;
	size_t at;
	int pol, bad, ret, i;

	if (fz_chance(&g->rng, 95) && z->fam.nr_ops) {
		s.op = &z->fam.ops[fz_below(&g->rng, (uint64_t)z->fam.nr_ops)];
		s.cmd = s.op->cmd;
	} else {
		s.cmd = (uint8_t)fz_rand(&g->rng);
		s.op = fz_op_find(&z->fam, s.cmd);
	}
	if (s.op && (s.op->flags & GENL_CMD_CAP_DUMP))
		s.dump = !(s.op->flags & GENL_CMD_CAP_DO) || fz_chance(&g->rng, 30);
	if (fz_chance(&g->rng, 3))
		s.dump = !s.dump;	/* a mode the command may not have */
	if (s.dump)
		flags |= NLM_F_DUMP;
	if (fz_chance(&g->rng, 2))	/* flags genetlink ignores */
		flags |= (uint16_t)(fz_rand(&g->rng) & (NLM_F_ECHO | NLM_F_EXCL |
							NLM_F_CREATE | NLM_F_APPEND));
	pol = s.op ? (s.dump ? s.op->dump_pol : s.op->do_pol) : -1;
	g->pols = s.op ? s.op->pols : NULL;
	bad = fz_chance(&g->rng, 45);

	z->m.len = 0;
	at = fz_msg_start(&z->m, z->fam.id, flags, z->s.seq++, s.cmd,
			  fz_chance(&g->rng, 97) ? (uint8_t)z->fam.version :
			  (uint8_t)fz_rand(&g->rng));
	fz_gen_attrs(g, &z->m, pol, -1, 0, bad);
	fz_msg_end(&z->m, at);
	if (fz_chance(&g->rng, 12)) {
		fz_mutate(g, &z->m);
		s.damaged = 1;
	}
	if (fz_chance(&g->rng, 1))	/* shorter than the genetlink header */
		z->m.len = ((struct nlmsghdr *)z->m.buf)->nlmsg_len =
			NLMSG_HDRLEN + (uint32_t)fz_below(&g->rng, GENL_HDRLEN);
	/*
	 * The live device's data must read back as written: power loss and
	 * injected faults are fuzzed on every other device.
	 */
	if ((s.cmd == FNBLK_CMD_DEV_CRASH || s.cmd == FNBLK_CMD_FAULT_ADD) &&
	    named_id(z->m.buf, (int)z->m.len) == LIVE_ID)
		return;

	inject(z, 1);
	ret = fz_send(&z->s, z->m.buf, z->m.len);
	if (!ret)
		ret = fz_collect(&z->s, ((struct nlmsghdr *)z->m.buf)->nlmsg_seq, &a);
	inject(z, 0);
	if (ret == -EMSGSIZE)	/* the socket layer refused it: too big */
		return;
	if (ret && z->failslab && (ret == -ENOBUFS || ret == -ENOMEM ||
				   ret == -ETIMEDOUT)) {
		z->lost++;
		fz_sock_close(&z->s);	/* answers may still trickle in */
		ret = fz_sock_open(&z->s, 5);
		if (ret)
			finding(z, "cannot reopen the socket: %s\n",
				strerror(-ret));
		resync(z);
		return;
	}
	if (ret) {
		finding(z, "no answer: %s\n", strerror(-ret));
		return;
	}
	z->sent[s.cmd]++;
	z->accepted[s.cmd] += a.error >= 0;
	judge(z, &s, &a);
	for (i = 0; i < a.nr_replies && i < FZ_MAX_REPLIES; i++)
		if (a.reply[i])
			fz_harvest(g->pools, a.reply[i], a.reply_len[i]);
	fz_answer_free(&a);
}

/* ---- the hang watchdog ---- */

static void *watchdog(void *arg)
{
	long hang_s = (long)(intptr_t)arg, last = -1, still = 0;
	int fd;

	for (;;) {
		sleep(1);
		if (progress != last) {
			last = progress;
			still = 0;
			continue;
		}
		if (++still < hang_s)
			continue;
		printf("# HANG: no answer for %ld s at request %ld (seed %llu); the request:",
		       hang_s, cur->i, (unsigned long long)cur->seed);
		hexdump(stdout, cur->m.buf, cur->m.len);
		/* Blocked tasks' stacks into the console for the report. */
		fd = open("/proc/sysrq-trigger", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "w", 1) < 0)
				perror("sysrq");
			close(fd);
		}
		fflush(stdout);
		_exit(1);
	}
	return NULL;
}

/* ---- the live device ---- */

/*
 * Write, read back and compare 4 KiB blocks until the stop file appears.
 * Exit status: 0, 1 data differed, 2 I/O errors, 10 no device.
 */
static void live_io(const char *path)
{
	uint8_t *w, *r;
	uint64_t gen = 0;
	int fd, bad = 0, errs = 0;

	fd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&w, 4096, 4096) ||
	    posix_memalign((void **)&r, 4096, 4096))
		_exit(10);
	for (;;) {
		off_t off = (off_t)(gen % 256) * 4096;

		memset(w, (int)(gen * 7 + 1), 4096);
		memcpy(w, &gen, sizeof(gen));
		if (pwrite(fd, w, 4096, off) != 4096 || pread(fd, r, 4096, off) != 4096)
			errs++;
		else if (memcmp(w, r, 4096))
			bad++;
		gen++;
		if (!access(STOP_FILE, F_OK))
			break;
	}
	close(fd);
	_exit(bad ? 1 : errs ? 2 : 0);
}

/* ---- the fixture ---- */

FIXTURE(fuzz) {
	struct fuzz *z;
	struct fz_pools *pools;
};

static int reload_module(void)
{
	if (!access("/sys/module/fnblk", F_OK) && system("rmmod fnblk"))
		return -1;
	return fnblk_load();
}

FIXTURE_SETUP(fuzz)
{
	struct fuzz *z;

	ASSERT_EQ(0, reload_module())
		TH_LOG("fnblk must be unloadable: the fuzzer needs it to itself");
	z = self->z = calloc(1, sizeof(*z));
	self->pools = calloc(1, sizeof(*self->pools));
	ASSERT_NE(NULL, z);
	ASSERT_NE(NULL, self->pools);
	z->m.cap = 2 * 65536 + 4096;
	z->m.buf = malloc(z->m.cap);
	ASSERT_NE(NULL, z->m.buf);
	ASSERT_EQ(0, fz_sock_open(&z->s, 60));
	ASSERT_EQ(0, fz_family_discover(&z->s, FNBLK_GENL_NAME, &z->fam));
	z->seed = env_u64("FNBLK_FUZZ_SEED", (uint64_t)time(NULL) ^
			  ((uint64_t)getpid() << 32));
	/* The debug kernel is about ten times slower: a fifth as many. */
	z->count = (long)env_u64("FNBLK_FUZZ_COUNT",
				 timing_unchecked() ? 20000 : 100000);
	if (timing_unchecked() && !getenv("FNBLK_FUZZ_COUNT"))
		printf("# %ld requests on %s (FNBLK_FUZZ_COUNT sets it)\n",
		       z->count, timing_unchecked());
	z->g = (struct fz_gen){ .rng = { z->seed }, .pools = self->pools,
				.favoured = FNBLK_A_DEV_ID };
	z->kmsg = kmsg_open();
	cur = z;
}

FIXTURE_TEARDOWN(fuzz)
{
	struct fuzz *z = self->z;

	if (!z)
		return;
	if (z->io_pid > 0) {
		kill(z->io_pid, SIGKILL);
		waitpid(z->io_pid, NULL, 0);
	}
	fz_sock_close(&z->s);
	fz_family_free(&z->fam);
	if (z->kmsg >= 0)
		close(z->kmsg);
	free(z->m.buf);
	free(z);
	free(self->pools);
}

static void report(struct __test_metadata *_metadata, struct fuzz *z)
{
	char line[512];
	size_t n = 0;
	int i;

	/* What got through: a command never accepted was not exercised. */
	for (i = 0; i < 256; i++)
		if (z->sent[i] && fz_op_find(&z->fam, (uint8_t)i) && n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %d:%ld/%ld",
					      i, z->accepted[i], z->sent[i]);
	if (n)
		TH_LOG("accepted/sent by command:%s", line);

	for (i = 0; i < z->nr_findings && i < MAX_FINDINGS; i++)
		TH_LOG("%s", z->findings[i]);
	EXPECT_EQ(0, z->nr_findings)
		TH_LOG("%d findings; repeat with FNBLK_FUZZ_SEED=%llu%s", z->nr_findings,
		       (unsigned long long)z->seed,
		       z->io_pid ? " (FNBLK_FUZZ_IO=0 repeats exactly)" : "");
}

static void run_requests(struct fuzz *z, long count)
{
	for (z->i = 0; z->i < count; z->i++) {
		one_request(z);
		progress++;
		kmsg_check(z);
		if (z->i % CHECK_EVERY == CHECK_EVERY - 1)
			check_state(z);
	}
}

/*
 * The unprivileged and failing-allocation runs: a tenth of the requests,
 * from a seed of their own derived from FNBLK_FUZZ_SEED.
 */
static void run_tenth(struct fuzz *z, const char *test, int k)
{
	z->test = test;
	z->div = 10;
	z->g.rng.s = z->seed + (uint64_t)k;
	printf("# %s: seed %llu + %d, %ld requests\n", test,
	       (unsigned long long)z->seed, k, z->count / 10);
	run_requests(z, z->count / 10);
}

/* The family declares its commands and policies to the controller. */
TEST_F(fuzz, family_declares_policies)
{
	struct fuzz *z = self->z;
	int i, with_policy = 0;

	TH_LOG("family %u, version %u, maxattr %u, %d commands", z->fam.id,
	       z->fam.version, z->fam.maxattr, z->fam.nr_ops);
	ASSERT_LT(0, z->fam.nr_ops);
	for (i = 0; i < z->fam.nr_ops; i++) {
		const struct fz_op *o = &z->fam.ops[i];
		int pol = o->do_pol >= 0 ? o->do_pol : o->dump_pol;

		TH_LOG("command %u flags %#x policy do %d dump %d (maxtype %u)",
		       o->cmd, o->flags, o->do_pol, o->dump_pol,
		       pol >= 0 ? o->pols[pol].maxtype : 0);
		with_policy += pol >= 0 && o->pols[pol].known;
		/* Every command validates its attributes by a policy. */
		EXPECT_LE(0, pol) TH_LOG("command %u has no policy", o->cmd);
	}
	EXPECT_EQ(z->fam.nr_ops, with_policy);
	/* The commands this test knows the meaning of are among them. */
	EXPECT_NE(NULL, fz_op_find(&z->fam, FNBLK_CMD_DEV_ADD));
	EXPECT_NE(NULL, fz_op_find(&z->fam, FNBLK_CMD_USER_SET));
}

/* 10^5 requests as root, with I/O running on one device. */
TEST_F_TIMEOUT(fuzz, requests_refused_or_applied, 3600)
{
	struct fuzz *z = self->z;
	pthread_t wd;
	uint64_t t0 = now_ns();
	int status, io = env_u64("FNBLK_FUZZ_IO", 1) != 0, rc;
	struct fz_answer a;
	struct fnl c;

	z->test = "requests_refused_or_applied";
	z->io = io;

	printf("# seed %llu, %ld requests%s (FNBLK_FUZZ_SEED=%llu repeats it)\n",
	       (unsigned long long)z->seed, z->count, io ? ", live I/O" : "",
	       (unsigned long long)z->seed);
	pthread_create(&wd, NULL, watchdog,
		       (void *)(intptr_t)env_u64("FNBLK_FUZZ_HANG_S", 120));
	pthread_detach(wd);
	unlink(STOP_FILE);
	/* Added with or without I/O, so both runs send the same requests. */
	ASSERT_EQ(0, fnl_open(&c));
	ASSERT_EQ(0, dev_add(&c, &DEV_CFG(.name = LIVE_NAME,
					  .size = 64 * MiB, .bw = 64 * MiB)))
		TH_LOG("add " LIVE_NAME ": %s", c.err);
	fnl_close(&c);
	z->shadow[LIVE_ID] = 1;
	if (io) {
		z->io_pid = fork();
		ASSERT_LE(0, z->io_pid);
		if (!z->io_pid)
			live_io("/dev/" LIVE_NAME);
	}
	run_requests(z, z->count);
	TH_LOG("%ld requests in %.1f s", z->count, secs(now_ns() - t0));

	if (io) {
		int i;

		/* Lift every limit: what is queued must now complete. */
		ASSERT_EQ(0, fnl_open(&c));
		rc = dev_set(&c, &DEV_CFG(.name = LIVE_NAME, .bw = 0,
					  .latency_ns = 0, .overhead = 0));
		EXPECT_EQ(0, rc) TH_LOG("lifting the live device's limits: %s", c.err);
		fnl_close(&c);
		close(open(STOP_FILE, O_CREAT | O_WRONLY, 0644));
		for (i = 0; i < 600 && !waitpid(z->io_pid, &status, WNOHANG); i++)
			usleep(100000);
		if (i == 600) {
			finding(z, "live I/O did not finish within 60 s of lifting every limit\n");
		} else {
			z->io_pid = 0;
			if (WEXITSTATUS(status) == 1)
				finding(z, "live I/O read back other data than it wrote\n");
			else if (WEXITSTATUS(status))
				finding(z, "live I/O failed (status %d)\n",
					WEXITSTATUS(status));
		}
	}
	check_state(z);
	kmsg_check(z);
	/* Everything can be deleted, then the module unloads and loads. */
	for (rc = 0; rc < MAX_IDS; rc++) {
		if (!z->shadow[rc])
			continue;
		if (ask(z, FNBLK_CMD_DEV_DEL, 0, rc, &a) || a.error)
			finding(z, "fnblk%d cannot be deleted at the end: %d %s\n",
				rc, a.error, a.msg);
		else
			z->shadow[rc] = 0;
		fz_answer_free(&a);
	}
	EXPECT_EQ(0, system("rmmod fnblk"));
	EXPECT_EQ(0, fnblk_load());
	report(_metadata, z);
}

/* Without CAP_NET_ADMIN nothing changes, whatever is sent. */
TEST_F_TIMEOUT(fuzz, unprivileged_changes_nothing, 1200)
{
	struct fuzz *z = self->z;
	struct dev_list before = { 0 }, after = { 0 };
	struct fnl c;
	pid_t pid;
	int i, status;

	ASSERT_EQ(0, fnl_open(&c));
	ASSERT_EQ(0, dev_add(&c, &DEV_CFG(.name = "fnblk5", .size = 16 * MiB)));
	ASSERT_EQ(0, dev_add(&c, &DEV_CFG(.name = "fnblk6", .fn = "linear:2")));
	z->shadow[5] = z->shadow[6] = 1;
	ASSERT_EQ(0, bounded_dump(z, FNBLK_CMD_DEV_GET, -1, 2048, collect_dev,
				  &before));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setresuid(65534, 65534, 65534))
			_exit(10);
		z->unpriv = 1;
		run_tenth(z, "unprivileged_changes_nothing", 1);
		report(_metadata, z);
		_exit(z->nr_findings ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, bounded_dump(z, FNBLK_CMD_DEV_GET, -1, 2048, collect_dev,
				  &after));
	ASSERT_EQ(before.nr, after.nr);
	for (i = 0; i < before.nr; i++) {
		EXPECT_EQ(before.id[i], after.id[i]);
		same_device(z, "device before and after", before.msg[i],
			    before.len[i], after.msg[i], after.len[i]);
	}
	dev_list_free(&before);
	dev_list_free(&after);
	EXPECT_EQ(0, dev_del(&c, "fnblk5"));
	EXPECT_EQ(0, dev_del(&c, "fnblk6"));
	fnl_close(&c);
	report(_metadata, z);
}

/*
 * Requests whose kernel allocations fail at random (failslab, on kernels
 * that have it: the debug kernel): every failure path unwinds. A refused
 * request changed nothing, an accepted one did what it said; the device
 * list stays coherent; the module unloads at the end (and kmemleak, in
 * make check-debug, finds nothing left behind).
 */
TEST_F_TIMEOUT(fuzz, requests_under_failing_allocations, 1800)
{
	/*
	 * The task filter first and the probability last: in between, every
	 * task's allocations could fail (the guest's watchdog's did, with a
	 * call trace in the console).
	 */
	static const char *const knobs[][2] = {
		{ "task-filter", "Y" }, { "verbose", "0" }, { "times", "-1" },
		{ "space", "0" }, { "interval", "1" }, { "ignore-gfp-wait", "N" },
		{ "probability", "10" },
	};
	struct fuzz *z = self->z;
	char path[128];
	unsigned int k;
	int id, fd;

	if (access(FAILSLAB "probability", W_OK))
		SKIP(return, "no failslab in this kernel (CONFIG_FAILSLAB)");
	for (k = 0; k < sizeof(knobs) / sizeof(knobs[0]); k++) {
		snprintf(path, sizeof(path), FAILSLAB "%s", knobs[k][0]);
		ASSERT_EQ(0, write_str(path, knobs[k][1])) TH_LOG("%s", path);
	}
	z->fail_fd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, z->fail_fd);
	z->failslab = 1;
	/*
	 * Failing allocations must always stop when the request is done,
	 * even when every allocation fails: otherwise the socket reopened
	 * after a lost answer cannot be made, and every later request fails
	 * (EBADF; seen on the debug kernel at probability 10).
	 */
	ASSERT_EQ(0, write_str(FAILSLAB "probability", "100"));
	inject(z, 1);
	inject(z, 0);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	ASSERT_LE(0, fd) TH_LOG("allocations still fail once the request is done: %s",
				strerror(errno));
	close(fd);
	ASSERT_EQ(0, write_str(FAILSLAB "probability", "10"));
	run_tenth(z, "requests_under_failing_allocations", 2);
	z->failslab = 0;
	close(z->fail_fd);
	write_str(FAILSLAB "probability", "0");
	write_str(FAILSLAB "task-filter", "N");
	TH_LOG("%ld requests lost their answer to a failed allocation", z->lost);
	check_state(z);
	for (id = 0; id < MAX_IDS; id++) {
		struct fz_answer a;

		if (!z->shadow[id])
			continue;
		if (ask(z, FNBLK_CMD_DEV_DEL, 0, id, &a) || a.error)
			finding(z, "fnblk%d cannot be deleted at the end: %d %s\n",
				id, a.error, a.msg);
		fz_answer_free(&a);
	}
	EXPECT_EQ(0, system("rmmod fnblk"));
	EXPECT_EQ(0, fnblk_load());
	report(_metadata, z);
}

TEST_HARNESS_MAIN
