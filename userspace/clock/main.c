// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-clock: how far apart two hosts' CLOCK_MONOTONIC are, for merging
 * the event files of a run on several hosts (scripts/cluster,
 * Documentation/cluster.rst). One host serves its clock over UDP; the
 * other sends probes stamped with its own clock and takes, from the probe
 * with the shortest round trip, offset = server - (sent + received) / 2,
 * which is off by at most half that round trip.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "units.h"

#define CLOCK_MAGIC	0x666e636cU	/* "fncl" */
#define DEFAULT_PORT	10810

/* A probe, and the reply: the same with the server's time filled in. */
struct probe {
	uint32_t magic;
	uint32_t seq;
	uint64_t sent_ns;	/* the prober's clock */
	uint64_t server_ns;	/* the server's clock, 0 in a probe */
} __attribute__((packed));

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static struct {
	unsigned int port;
	uint64_t duration_ns;
	unsigned int probes;
	uint64_t timeout_ns;
	bool json;
} args = { .port = DEFAULT_PORT, .probes = 20, .timeout_ns = 200000000 };

#define PORT_OPTION							\
	{ .name = "port", .key = 'p', .arg = "PORT", .type = CLI_UINT,	\
	  .var = &args.port, .min = 1, .max = 65535, .help = "UDP port" }

static const struct cli_option serve_options[] = {
	PORT_OPTION,
	{ .name = "for", .arg = "DUR", .type = CLI_DURATION, .var = &args.duration_ns,
	  .dflt = "until SIGTERM or SIGINT", .help = "stop serving after DUR" },
	{ .name = NULL },
};

static int cmd_serve(int argc, char **argv)
{
	static const char *const usage[] = { "[OPTIONS]", NULL };
	const struct cli_group groups[] = {
		{ .title = "Options", .options = serve_options },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-clock serve", .usage = usage, .groups = groups,
		.about = "Answer every probe (fnblk-clock offset) with this host's "
			 "CLOCK_MONOTONIC, on UDP port PORT of every address.",
	};
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sigaction act = { .sa_handler = on_signal };
	uint64_t end;
	int first, fd, ret = cli_parse(&prog, argc, argv, &first);

	if (ret != CLI_CONTINUE)
		return ret;
	if (first != argc)
		return cli_usage_error(&prog, "unexpected argument '%s'", argv[first]);
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	sa.sin_port = htons(args.port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return cli_error(&prog, "UDP port %u: %s", args.port, strerror(errno));
	end = args.duration_ns ? now_ns() + args.duration_ns : UINT64_MAX;
	while (!stop && now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		struct probe pr;
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recvfrom(fd, &pr, sizeof(pr), 0, (struct sockaddr *)&from, &len);
		if (n != (ssize_t)sizeof(pr) || ntohl(pr.magic) != CLOCK_MAGIC)
			continue;	/* not ours: ignored */
		pr.server_ns = now_ns();
		sendto(fd, &pr, sizeof(pr), 0, (struct sockaddr *)&from, len);
	}
	close(fd);
	return 0;
}

static const struct cli_option offset_options[] = {
	PORT_OPTION,
	{ .name = "probes", .key = 'n', .arg = "N", .type = CLI_UINT,
	  .var = &args.probes, .min = 1, .max = 100000,
	  .help = "probes to send, one at a time" },
	{ .name = "timeout", .arg = "DUR", .type = CLI_DURATION,
	  .var = &args.timeout_ns, .min = 1000000, .max = 60000000000ULL,
	  .help = "how long to wait for each reply" },
	{ .name = NULL },
};

/* host as an IPv4 or IPv6 socket address on the port. 0, or -1. */
static int resolve(const char *host, unsigned int port,
		   struct sockaddr_storage *sa, socklen_t *len, const char **why)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res;
	char service[8];
	int err;

	snprintf(service, sizeof(service), "%u", port);
	err = getaddrinfo(host, service, &hints, &res);
	if (err) {
		*why = gai_strerror(err);
		return -1;
	}
	memcpy(sa, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

struct best {
	unsigned int replies;
	uint64_t rtt_ns;
	int64_t offset_ns;
};

/* Send one probe and wait for its reply; keep it if its trip is shortest. */
static void one_probe(int fd, uint32_t seq, struct best *b)
{
	struct probe pr = { .magic = htonl(CLOCK_MAGIC), .seq = htonl(seq) };
	uint64_t deadline, got;

	pr.sent_ns = now_ns();
	if (send(fd, &pr, sizeof(pr), 0) != (ssize_t)sizeof(pr))
		return;
	deadline = pr.sent_ns + args.timeout_ns;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct probe r;
		uint64_t t = now_ns();
		int64_t off;

		if (t >= deadline ||
		    poll(&p, 1, (int)((deadline - t) / 1000000 + 1)) <= 0)
			return;
		if (recv(fd, &r, sizeof(r), 0) != (ssize_t)sizeof(r))
			continue;
		got = now_ns();
		/* A late reply to an earlier probe is not this one's. */
		if (ntohl(r.magic) != CLOCK_MAGIC || ntohl(r.seq) != seq ||
		    r.sent_ns != pr.sent_ns)
			continue;
		off = (int64_t)(r.server_ns - pr.sent_ns) - (int64_t)((got - pr.sent_ns) / 2);
		if (!b->replies++ || got - pr.sent_ns < b->rtt_ns) {
			b->rtt_ns = got - pr.sent_ns;
			b->offset_ns = off;
		}
		return;
	}
}

static int cmd_offset(int argc, char **argv)
{
	static const char *const usage[] = { "[OPTIONS] HOST", NULL };
	const struct cli_group groups[] = {
		{ .title = "Options", .options = offset_options },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-clock offset", .usage = usage, .groups = groups,
		.about = "How far HOST's CLOCK_MONOTONIC is ahead of this host's: "
			 "the ns to add to a time of this host to get HOST's clock "
			 "(HOST runs fnblk-clock serve). Of N probes, the one with "
			 "the shortest round trip decides; the offset is off by at "
			 "most half that round trip, which is printed with it.",
		.json = &args.json, .json_help = "print offset_ns, rtt_ns, probes "
			 "and replies as JSON",
	};
	struct sockaddr_storage sa;
	struct best b = { 0 };
	const char *why;
	socklen_t len;
	unsigned int i;
	int first, fd, ret = cli_parse(&prog, argc, argv, &first);

	if (ret != CLI_CONTINUE)
		return ret;
	if (argc - first != 1)
		return cli_usage_error(&prog, first == argc ? "no HOST" :
				       "one HOST, not %d", argc - first);
	if (resolve(argv[first], args.port, &sa, &len, &why))
		return cli_error(&prog, "%s: %s", argv[first], why);
	fd = socket(sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, len))
		return cli_error(&prog, "%s port %u: %s", argv[first], args.port,
				 strerror(errno));
	for (i = 0; i < args.probes; i++)
		one_probe(fd, i, &b);
	close(fd);
	if (!b.replies)
		return cli_error(&prog, "%s port %u: no reply to %u probes (is fnblk-clock serve running there?)",
				 argv[first], args.port, args.probes);
	if (args.json) {
		json_t *o = json_pack("{s:I, s:I, s:i, s:i}", "offset_ns",
				      (json_int_t)b.offset_ns, "rtt_ns",
				      (json_int_t)b.rtt_ns, "probes", (int)args.probes,
				      "replies", (int)b.replies);

		if (!o || json_dumpf(o, stdout, JSON_COMPACT))
			return cli_error(&prog, "writing JSON failed");
		json_decref(o);
		putchar('\n');
		return 0;
	}
	printf("offset %" PRId64 " ns +- %" PRIu64 " ns (%s ahead of this host; best round trip of %u replies to %u probes)\n",
	       b.offset_ns, b.rtt_ns / 2, argv[first], b.replies, args.probes);
	return 0;
}

static const struct cli_command commands[] = {
	{ .name = "serve", .run = cmd_serve,
	  .help = "answer probes with this host's clock" },
	{ .name = "offset", .run = cmd_offset,
	  .help = "measure how far a serving host's clock is ahead" },
	{ .name = NULL },
};

int main(int argc, char **argv)
{
	return cli_command_main("fnblk-clock",
				"Measure the offset between two hosts' CLOCK_MONOTONIC "
				"(the clock of fnblk-fleet's events) over UDP, to merge "
				"the events of a run on several hosts. "
				"'fnblk-clock COMMAND --help' describes a command.",
				commands, argc, argv);
}
