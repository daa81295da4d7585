// SPDX-License-Identifier: GPL-2.0
/*
 * TAP tests of the command-line parser and help (cli.c): values and their
 * ranges, the messages, operands, and help showing the real defaults.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tests/sched/tap.h"

/* What a program under test sets. */
static struct vars {
	bool quiet, json;
	const char *out;
	unsigned int qd, mode;
	uint64_t bs, rate, dur, seed;
	const char *called;
} v;

static const char *mode_name(unsigned int i)
{
	static const char *const names[] = { "sleep", "spin", NULL };

	return i < 2 ? names[i] : NULL;
}

static const char *mode_help(unsigned int i)
{
	return i ? "busy-loop" : "nanosleep";
}

static int set_called(void *ctx, const struct cli_option *o, const char *arg,
		      char *err, size_t errlen)
{
	if (!strcmp(arg, "bad")) {
		snprintf(err, errlen, "not good");
		return -1;
	}
	((struct vars *)ctx)->called = arg;
	(void)o;
	return 0;
}

static const char *show_called(void *ctx, const struct cli_option *o,
			       char *buf, size_t len)
{
	(void)ctx;
	(void)o;
	snprintf(buf, len, "shown");
	return buf;
}

static struct cli_option opts[] = {
	{ .name = "quiet", .key = 'q', .help = "say nothing", .type = CLI_FLAG,
	  .var = &v.quiet },
	{ .name = "output", .key = 'o', .arg = "FILE", .help = "write there",
	  .type = CLI_STRING, .var = &v.out },
	{ .name = "qd", .arg = "N", .help = "depth", .type = CLI_UINT,
	  .var = &v.qd, .min = 1, .max = 1024 },
	{ .name = "bs", .arg = "SIZE", .help = "request size", .type = CLI_SIZE,
	  .var = &v.bs, .max = 1ULL << 30 },
	{ .name = "rate", .arg = "RATE", .help = "how fast", .type = CLI_RATE,
	  .var = &v.rate },
	{ .name = "duration", .arg = "DUR", .help = "how long",
	  .type = CLI_DURATION, .var = &v.dur },
	{ .name = "seed", .arg = "N", .help = "seed", .type = CLI_U64,
	  .var = &v.seed },
	{ .name = "mode", .arg = "M", .help = "how to wait", .type = CLI_CHOICE,
	  .var = &v.mode, .choice = mode_name, .choice_help = mode_help },
	{ .name = "call", .arg = "X", .help = "custom", .type = CLI_CALL,
	  .set = set_called, .show = show_called },
	{ .name = NULL },
};

static const char *const usage[] = { "[OPTIONS] TARGET", NULL };
static const struct cli_group groups[] = {
	{ .title = "Things", .options = opts, .ctx = &v },
	{ .title = NULL },
};
static const struct cli_program prog = {
	.name = "tool", .usage = usage, .about = "Does things.",
	.groups = groups, .json = &v.json, .json_help = "print JSON",
};
static const struct cli_program sub = {
	.name = "tool cmd", .usage = usage, .groups = groups,
	.stop_at_operand = true,
};

static void reset(void)
{
	memset(&v, 0, sizeof(v));
	v.qd = 4;
	v.bs = 1 << 20;
	v.dur = 1500000;
}

/* Parse a command line given as one string; stderr and stdout captured. */
static char err_text[4096], out_text[8192];
static char *args[32];
static int nargs;

static void capture_to(int fd, char *buf, size_t len, int (*fn)(void *),
		       void *arg, int *ret)
{
	char path[] = "/tmp/test_cli.XXXXXX";
	int tmp = mkstemp(path), saved = dup(fd);
	FILE *f;
	size_t n;

	fflush(NULL);
	dup2(tmp, fd);
	*ret = fn(arg);
	fflush(NULL);
	dup2(saved, fd);
	close(saved);
	f = fdopen(tmp, "r");
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
}

struct call {
	const struct cli_program *p;
	int first;
};

static int do_parse(void *arg)
{
	struct call *c = arg;

	return cli_parse(c->p, nargs, args, &c->first);
}

static int do_parse_out(void *arg)
{
	int ret;

	capture_to(1, out_text, sizeof(out_text), do_parse, arg, &ret);
	return ret;
}

/* args[] and nargs: "tool" then the words of line. */
static void split_args(const char *line)
{
	static char buf[1024];
	char *s;

	snprintf(buf, sizeof(buf), "%s", line);
	nargs = 0;
	args[nargs++] = "tool";
	for (s = strtok(buf, " "); s; s = strtok(NULL, " "))
		args[nargs++] = s;
	args[nargs] = NULL;
}

static int parse(const struct cli_program *p, const char *line, int *first)
{
	struct call c = { p, -1 };
	int ret;

	reset();
	split_args(line);
	capture_to(2, err_text, sizeof(err_text), do_parse_out, &c, &ret);
	if (first)
		*first = c.first;
	return ret;
}

static void refused(const char *line, const char *msg)
{
	int ret = parse(&prog, line, NULL);

	ok(ret == CLI_EXIT_USAGE && strstr(err_text, msg) &&
	   strstr(err_text, "Try 'tool --help'.") && !*out_text,
	   "'%s' refused: %s", line, msg);
	if (!strstr(err_text, msg))
		diag("stderr: %s", err_text);
}

static void test_values(void)
{
	int first;

	ok(parse(&prog, "-q -o out.csv --qd 16 --bs 64KiB --rate 10MiB/s "
		 "--duration 2s --seed 7 --mode spin --call it T", &first) ==
	   CLI_CONTINUE, "a full command line parses");
	ok(v.quiet && !strcmp(v.out, "out.csv") && v.qd == 16 &&
	   v.bs == 65536 && v.rate == 10 << 20 && v.dur == 2000000000ULL &&
	   v.seed == 7 && v.mode == 1 && !strcmp(v.called, "it"),
	   "every value is stored");
	ok(first == nargs - 1 && !strcmp(args[first], "T"), "the operand is last");
	parse(&prog, "--qd=8 -qj -ofile --rate unlimited", NULL);
	ok(v.qd == 8 && v.quiet && v.json && !strcmp(v.out, "file") &&
	   v.rate == 0, "--name=value, clustered flags, -oVALUE, unlimited");
	parse(&prog, "A --qd 2 B -- -q C", &first);
	ok(v.qd == 2 && !v.quiet && nargs - first == 4 &&
	   !strcmp(args[first], "A") && !strcmp(args[first + 1], "B") &&
	   !strcmp(args[first + 2], "-q") && !strcmp(args[first + 3], "C"),
	   "options after operands; after -- everything is an operand");
	parse(&prog, "-o - T", &first);
	ok(v.out && !strcmp(v.out, "-") && !strcmp(args[first], "T"),
	   "'-o -' takes '-' as the value");
	parse(&sub, "-q X --qd 9", &first);
	ok(v.quiet && v.qd == 4 && nargs - first == 3 && !strcmp(args[first], "X"),
	   "stop_at_operand: the rest belongs to the command");
}

static void test_errors(void)
{
	refused("--qd", "tool: option '--qd' needs a value (N)");
	refused("-o", "tool: option '-o' needs a value (FILE)");
	refused("--qd --seed 3", "option '--qd' needs a value (N)");
	refused("--qd 0", "tool: --qd '0': too small (expected 1 to 1024)");
	refused("--qd 2000", "--qd '2000': too large (expected 1 to 1024)");
	refused("--qd 4x", "--qd '4x': not a whole number");
	refused("--qd -1", "--qd '-1': negative values are not allowed");
	refused("--bs 2GiB", "--bs '2GiB': too large (expected 0B to 1GiB)");
	refused("--bs 4q", "--bs '4q': unknown unit");
	refused("--duration 5", "--duration '5': missing unit");
	refused("--mode fast", "--mode 'fast': expected sleep or spin");
	refused("--call bad", "--call 'bad': not good");
	refused("--bogus", "tool: unknown option '--bogus'");
	refused("-x", "tool: unknown option '-x'");
	refused("--dur 1s", "unknown option '--dur' (did you mean '--duration'?)");
	refused("--quiet=yes", "option '--quiet' takes no value");
	refused("--help=pdf", "--help 'pdf': expected text or man");
	parse(&prog, "--seed 9 --qd 0", NULL);
	ok(v.seed == 0, "nothing is set when any value is bad");
	ok(parse(&prog, "--qd 0 --bogus --help", NULL) == CLI_EXIT_OK &&
	   strstr(out_text, "Usage: tool [OPTIONS] TARGET") && !*err_text,
	   "--help wins over errors");
	ok(parse(&prog, "--version", NULL) == CLI_EXIT_OK &&
	   !strncmp(out_text, "tool (fnblk) ", 13), "--version");
	ok(parse(&sub, "--bogus", NULL) == CLI_EXIT_USAGE &&
	   strstr(err_text, "tool: cmd: unknown option '--bogus'\n"
		  "Try 'tool cmd --help'.\n"),
	   "a command's messages: 'PROG: CMD: ...', Try 'PROG CMD --help'");
}

static void test_help(void)
{
	parse(&prog, "--help", NULL);
	ok(strstr(out_text, "\nThings:\n") != NULL, "group title");
	ok(strstr(out_text, "  -q, --quiet             say nothing\n") != NULL,
	   "a flag: short and long, no default");
	ok(strstr(out_text, "      --qd N              depth (default: 4)\n") != NULL,
	   "the default is the variable's value");
	ok(strstr(out_text, "--bs SIZE           request size (default: 1MiB)\n") &&
	   strstr(out_text, "--duration DUR      how long (default: 1.5ms)\n") &&
	   strstr(out_text, "--rate RATE         how fast (default: unlimited)\n"),
	   "sizes, durations and rates in units");
	ok(strstr(out_text, "(default: sleep)\n") &&
	   strstr(out_text, "sleep  nanosleep\n") &&
	   strstr(out_text, "spin   busy-loop\n"),
	   "choices with their help");
	ok(strstr(out_text, "custom (default: shown)") != NULL, "show() for CLI_CALL");
	ok(strstr(out_text, "  -j, --json              print JSON\n") &&
	   strstr(out_text, "  -h, --help              print this help and exit\n") &&
	   strstr(out_text, "      --version           print the version and exit\n"),
	   "the standard options close the last group");
	parse(&prog, "--help=man", NULL);
	ok(strstr(out_text, ".\\\" cli-begin options tool\n") &&
	   strstr(out_text, ".TP\n\\&\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR\n") &&
	   strstr(out_text, "\\fB\\-\\-qd\\fR \\fIN\\fR\n\\&depth (default: 4)\n"),
	   "--help=man: the same options in roff");
}

/* A program with commands: which one ran, with what. */
static const char *ran;
static int ran_argc;

static int cmd_go(int argc, char **argv)
{
	ran = argv[0];
	ran_argc = argc;
	return 7;
}

static const struct cli_command cmds[] = {
	{ .name = "go", .synopsis = "go WHERE", .help = "leave", .run = cmd_go },
	{ .name = "stop", .help = "stay", .run = cmd_go },
	{ .name = "wait", .help = "linger", .run = cmd_go },
	{ .name = NULL },
};
static const char *const cmd_usage[] = { "COMMAND [OPTIONS]", NULL };
static const struct cli_group cmd_groups[] = {
	{ .title = "Commands", .commands = cmds },
	{ .title = "Options" },
	{ .title = NULL },
};
static const struct cli_program with_cmds = {
	.name = "tool", .usage = cmd_usage, .groups = cmd_groups,
	.stop_at_operand = true,
};

struct dispatch_call {
	int first;
};

static int do_dispatch(void *arg)
{
	struct dispatch_call *d = arg;

	return cli_dispatch(&with_cmds, cmds, nargs, args, d->first);
}

/* Parse line as with_cmds, then dispatch; stderr captured. */
static int dispatch(const char *line)
{
	struct dispatch_call d;
	int ret;

	ran = NULL;
	ran_argc = 0;
	ret = parse(&with_cmds, line, &d.first);
	if (ret != CLI_CONTINUE)
		return ret;
	capture_to(2, err_text, sizeof(err_text), do_dispatch, &d, &ret);
	return ret;
}

static void test_commands(void)
{
	ok(dispatch("stop --qd 3 x") == 7 && ran && !strcmp(ran, "stop") &&
	   ran_argc == 4 && !*err_text,
	   "the named command runs with argv[0] its name and the rest after it");
	ok(dispatch("") == CLI_EXIT_USAGE && !ran &&
	   strstr(err_text, "tool: no COMMAND (go, stop or wait)\nTry 'tool --help'."),
	   "no command: a usage error that lists them");
	ok(dispatch("fly") == CLI_EXIT_USAGE && !ran &&
	   strstr(err_text, "tool: unknown command 'fly' (expected go, stop or wait)"),
	   "an unknown command: a usage error that lists them");
	if (!strstr(err_text, "expected go, stop or wait"))
		diag("stderr: %s", err_text);
	parse(&with_cmds, "--help", NULL);
	ok(strstr(out_text, "\nCommands:\n") && strstr(out_text, "  go WHERE") &&
	   strstr(out_text, "leave\n") && strstr(out_text, "  stop ") &&
	   strstr(out_text, "linger\n"),
	   "--help lists the commands (synopsis, else name) with their help");
}

static int do_command_main(void *arg)
{
	(void)arg;
	return cli_command_main("tool", "Does things by command.", cmds, nargs, args);
}

/* cli_command_main() on a command line given as one string. */
static int command_main(const char *line)
{
	int ret;

	ran = NULL;
	split_args(line);
	capture_to(1, out_text, sizeof(out_text), do_command_main, NULL, &ret);
	return ret;
}

static void test_command_main(void)
{
	ok(command_main("wait 1 2") == 7 && ran && !strcmp(ran, "wait") && ran_argc == 3,
	   "cli_command_main runs the command");
	ok(command_main("help") == CLI_EXIT_OK && !ran &&
	   strstr(out_text, "Usage: tool COMMAND [OPTIONS]") &&
	   strstr(out_text, "Does things by command.") &&
	   strstr(out_text, "\nCommands:\n") && strstr(out_text, "  go WHERE"),
	   "'PROG help' prints what --help prints");
	ok(command_main("--version") == CLI_EXIT_OK && !strncmp(out_text, "tool (fnblk) ", 13),
	   "and the standard options work before the command");
}

int main(void)
{
	test_values();
	test_errors();
	test_help();
	test_commands();
	test_command_main();
	return tap_done();
}
