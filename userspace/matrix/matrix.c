// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-matrix: file-backed matrices on real kernel I/O paths. This file
 * is the command line (Documentation/cli.rst): the commands "create",
 * "run", "verify" and "info", their options and the checks across
 * options; target.c writes and finds matrices, run.c runs jobs,
 * report.c reports.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/cli.h"
#include "../lib/diag.h"
#include "../lib/units.h"
#include "bound.h"
#include "module/fnblk_sched.h"
#include "layout.h"
#include "mode.h"
#include "run.h"
#include "target.h"

#define MAX_THREADS	1024
#define MAX_JOBS	1024

/* ---- what the command line sets; the defaults --help shows ---- */

static struct mx_create_opts create_args = { .jobs = 1, .seed = 1 };
static struct mx_run_opts run_args = {
	.set = { .threads = 1, .advise = MX_ADVISE_NORMAL },
	.pattern = MX_PATTERN_ROWS,
	.jobs = 1,
	.seed = 1,
	.sample_ns = 100000000,
};
static unsigned int mode_index;		/* into mx_modes */
static unsigned int advise_index = MX_ADVISE_NORMAL;
static unsigned int pattern_index = MX_PATTERN_ROWS;
static bool quiet_create;

/* ---- choices ---- */

static const char *mode_choice(unsigned int i)
{
	for (unsigned int k = 0; mx_modes[k]; k++)
		if (k == i)
			return mx_modes[k]->name;
	return NULL;
}

static const char *mode_help(unsigned int i)
{
	return mode_choice(i) ? mx_modes[i]->summary : NULL;
}

static const char *advise_choice(unsigned int i)
{
	return i < MX_NR_ADVISE ? mx_advise_name(i) : NULL;
}

static const char *pattern_choice(unsigned int i)
{
	return i < MX_NR_PATTERNS ? mx_pattern_name(i) : NULL;
}

static const char *pattern_help(unsigned int i)
{
	static const char *const help[MX_NR_PATTERNS] = {
		[MX_PATTERN_COLS] = "sweep blocks of whole columns (contiguous on disk)",
		[MX_PATTERN_ROWS] = "random rows gathered across all columns: one element "
				    "per column, each in its own page",
		[MX_PATTERN_TILES] = "random square tiles",
		[MX_PATTERN_XTX] = "X^T X by row panels: compute-bound",
	};

	return i < MX_NR_PATTERNS ? help[i] : NULL;
}

static int set_write_fraction(void *ctx, const struct cli_option *o,
			      const char *arg, char *err, size_t errlen)
{
	const char *why;

	(void)ctx;
	(void)o;
	if (fnblk_parse_real(arg, true, &run_args.write_fraction, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	if (run_args.write_fraction > 1)
		return fnblk_seterr(err, errlen, "at most 1 (100%%)");
	return 0;
}

static const char *show_write_fraction(void *ctx, const struct cli_option *o,
				       char *buf, size_t len)
{
	(void)ctx;
	(void)o;
	snprintf(buf, len, "%g", run_args.write_fraction);
	return buf;
}

/* --block N, or ROWSxCOLS (tiles). */
static int set_block(void *ctx, const struct cli_option *o, const char *arg,
		     char *err, size_t errlen)
{
	const char *x = strchr(arg, 'x'), *why;
	char rows[32];

	(void)ctx;
	(void)o;
	run_args.block_cols = 0;
	if (x) {
		if ((size_t)(x - arg) >= sizeof(rows))
			return fnblk_seterr(err, errlen, "expected N or ROWSxCOLS");
		snprintf(rows, sizeof(rows), "%.*s", (int)(x - arg), arg);
		if (fnblk_parse_uint(x + 1, 1, MX_MAX_ELEMS, &run_args.block_cols, &why))
			return fnblk_seterr(err, errlen, "columns: %s", why);
		arg = rows;
	}
	if (fnblk_parse_uint(arg, 1, MX_MAX_ELEMS, &run_args.block, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	return 0;
}

/* A mode's own option: kept as given, for the mode to parse (mode.h). */
static int set_mode_arg(void *ctx, const struct cli_option *o, const char *arg,
			char *err, size_t errlen)
{
	struct mx_run_opts *r = &run_args;
	struct mx_mode_arg *a = realloc(r->mode_args,
					(r->nr_mode_args + 1) * sizeof(*a));

	(void)ctx;
	if (!a)
		return fnblk_seterr(err, errlen, "out of memory");
	r->mode_args = a;
	a[r->nr_mode_args++] = (struct mx_mode_arg){ o->name, arg };
	return 0;
}

/* ---- option tables ---- */

static const struct cli_option create_options[] = {
	{ .name = "rows", .arg = "R", .type = CLI_U64, .var = &create_args.rows,
	  .min = 1, .max = MX_MAX_ELEMS, .dflt = "", .help = "rows (required)" },
	{ .name = "cols", .arg = "C", .type = CLI_U64, .var = &create_args.cols,
	  .min = 1, .max = MX_MAX_ELEMS, .dflt = "",
	  .help = "columns (required); R x C at most 2^40" },
	{ .name = "jobs", .arg = "K", .type = CLI_UINT, .var = &create_args.jobs,
	  .min = 1, .max = MAX_JOBS,
	  .help = "K matrices of that shape, one per job of \"run --jobs\"" },
	{ .name = "seed", .arg = "N", .type = CLI_U64, .var = &create_args.seed,
	  .help = "seed of the element values" },
	{ .name = "quiet", .key = 'q', .type = CLI_FLAG, .var = &quiet_create,
	  .help = "no progress line" },
	{ .name = NULL },
};

static const struct cli_option access_options[] = {
	{ .name = "mode", .arg = "M", .type = CLI_CHOICE, .var = &mode_index,
	  .choice = mode_choice, .choice_help = mode_help,
	  .help = "how the elements are reached" },
	{ .name = "advise", .arg = "A", .type = CLI_CHOICE, .var = &advise_index,
	  .choice = advise_choice,
	  .help = "mmap: the madvise() hint (random turns readahead off, "
		  "sequential makes it aggressive)" },
	{ .name = "bs", .arg = "SIZE", .type = CLI_SIZE, .var = &run_args.set.bs,
	  .min = 512, .max = 64u << 20, .dflt = "4KiB",
	  .help = "pread, direct: bytes per request, aligned to the size; a "
		  "multiple of 512" },
	{ .name = "pattern", .arg = "P", .type = CLI_CHOICE, .var = &pattern_index,
	  .choice = pattern_choice, .choice_help = pattern_help,
	  .help = "which elements each access touches" },
	{ .name = "block", .arg = "N", .type = CLI_CALL, .set = set_block,
	  .dflt = "1, 1, 64, 64",
	  .help = "per access: columns (cols), rows (rows, xtx), the tile's "
		  "side (tiles; ROWSxCOLS for other shapes, e.g. 8192x1)" },
	{ .name = "threads", .arg = "N", .type = CLI_UINT, .var = &run_args.set.threads,
	  .min = 1, .max = MAX_THREADS, .help = "worker threads per job" },
	{ .name = "accesses", .arg = "N", .type = CLI_U64, .var = &run_args.accesses,
	  .min = 1, .max = UINT64_MAX / 2,
	  .dflt = "one pass: every element once (cols, xtx), or as many "
		  "random accesses",
	  .help = "accesses per job" },
	{ .name = "duration", .arg = "DUR", .type = CLI_DURATION,
	  .var = &run_args.duration_ns, .min = 1, .dflt = "",
	  .help = "run for this long instead of a number of accesses" },
	{ .name = "seed", .arg = "N", .type = CLI_U64, .var = &run_args.seed,
	  .help = "seed of the access sequence (job j uses N + j)" },
	{ .name = "mmap-churn", .arg = "DUR", .type = CLI_DURATION,
	  .var = &run_args.churn_ns, .min = 1000, .dflt = "none",
	  .help = "one more thread per job maps, touches and unmaps 1 MiB of "
		  "anonymous memory every DUR, taking the mmap lock for writing "
		  "as a memory allocator does" },
	{ .name = NULL },
};

static const struct cli_option write_options[] = {
	{ .name = "write-fraction", .arg = "F", .type = CLI_CALL,
	  .set = set_write_fraction, .show = show_write_fraction,
	  .help = "update this fraction of the elements read (0.01 or 1%), "
		  "with this run's version of their values" },
	{ .name = "sync-every", .arg = "N", .type = CLI_U64, .var = &run_args.sync_every,
	  .dflt = "0: once, at the end",
	  .help = "each thread syncs (msync, fsync) after every N of its "
		  "accesses that wrote" },
	{ .name = NULL },
};

static const struct cli_option job_options[] = {
	{ .name = "jobs", .arg = "K", .type = CLI_UINT, .var = &run_args.jobs,
	  .min = 1, .max = MAX_JOBS,
	  .help = "K processes, each on its own matrix of the set" },
	{ .name = "memory-max", .arg = "SIZE", .type = CLI_SIZE,
	  .var = &run_args.memory_max, .min = 1u << 20, .dflt = "none",
	  .help = "memory.max of the jobs' parent cgroup" },
	{ .name = "cgroup", .arg = "NAME", .type = CLI_STRING, .var = &run_args.cgroup,
	  .dflt = "fnblk-matrix-PID",
	  .help = "the parent cgroup /sys/fs/cgroup/NAME, a child job-NNNN per "
		  "job; removed at the end, also when interrupted" },
	{ .name = "no-cgroup", .type = CLI_FLAG, .var = &run_args.no_cgroup,
	  .help = "run the jobs in our own cgroup (memory figures are then "
		  "the system's)" },
	{ .name = NULL },
};

static const struct cli_option check_options[] = {
	{ .name = "verify", .type = CLI_FLAG, .var = &run_args.verify,
	  .help = "check every element read; after the final sync, read the "
		  "last updates back from the device" },
	{ .name = "keep-cache", .type = CLI_FLAG, .var = &run_args.keep_cache,
	  .help = "do not evict the matrices' cached pages first" },
	{ .name = "sample-interval", .arg = "DUR", .type = CLI_DURATION,
	  .var = &run_args.sample_ns, .min = 1000000, .max = 10000000000ULL,
	  .help = "how often memory, pressure and thread states are sampled" },
	{ .name = "quiet", .key = 'q', .type = CLI_FLAG, .var = &run_args.quiet,
	  .help = "no report: the exit status says how it went" },
	{ .name = NULL },
};

static const struct cli_option verify_options[] = {
	{ .name = "jobs", .arg = "K", .type = CLI_UINT, .var = &run_args.jobs,
	  .min = 1, .max = MAX_JOBS, .dflt = "every matrix of the set",
	  .help = "check the first K matrices" },
	{ .name = "threads", .arg = "N", .type = CLI_UINT, .var = &run_args.set.threads,
	  .min = 1, .max = MAX_THREADS, .help = "reader threads per matrix" },
	{ .name = "quiet", .key = 'q', .type = CLI_FLAG, .var = &run_args.quiet,
	  .help = "no report: the exit status says whether every element is right" },
	{ .name = NULL },
};

/* bound: the store, when the report's device is not an fnblk device. */
static struct {
	uint64_t bw, overhead, max_request;
	const char *fn;
	bool json;
} bound_args = { .max_request = 1u << 20, .fn = "constant" };

static const struct cli_option bound_options[] = {
	{ .name = "bw", .arg = "RATE", .type = CLI_RATE, .var = &bound_args.bw,
	  .min = 1, .max = UINT64_MAX, .dflt = "the report's fnblk device",
	  .help = "the store's bandwidth for one user; with it, the store "
		  "is this one, not the report's device" },
	{ .name = "overhead", .arg = "SIZE", .type = CLI_SIZE,
	  .var = &bound_args.overhead, .max = 1ULL << 40, .dflt = "0",
	  .help = "demand added to each request (with --bw)" },
	{ .name = "fn", .arg = "F", .type = CLI_STRING, .var = &bound_args.fn,
	  .dflt = "constant",
	  .help = "f(n) of the store, as fnblkctl takes it (with --bw)" },
	{ .name = "max-request", .arg = "SIZE", .type = CLI_SIZE,
	  .var = &bound_args.max_request, .min = 4096, .max = 1ULL << 30,
	  .align = 4096, .dflt = "1MiB",
	  .help = "largest request (with --bw; else the device's "
		  "max_sectors_kb)" },
	{ .name = NULL },
};

static int cmd_create(int argc, char **argv);
static int cmd_run(int argc, char **argv);
static int cmd_bound(int argc, char **argv);
static int cmd_verify(int argc, char **argv);
static int cmd_info(int argc, char **argv);

static const struct cli_command commands[] = {
	{ .name = "create", .synopsis = "create PATH --rows R --cols C", .run = cmd_create,
	  .help = "write a matrix (or --jobs K of them)" },
	{ .name = "run", .synopsis = "run PATH [OPTIONS]", .run = cmd_run,
	  .help = "access it and report" },
	{ .name = "verify", .synopsis = "verify PATH", .run = cmd_verify,
	  .help = "check every element of every matrix of the set" },
	{ .name = "info", .synopsis = "info PATH", .run = cmd_info,
	  .help = "shape, seed and version of the set" },
	{ .name = "bound", .synopsis = "bound REPORT", .run = cmd_bound,
	  .help = "the least time any page-mapping runtime needs for a run's "
		  "accesses on its store" },
	{ .name = NULL },
};

#define PATH_HELP \
	"PATH is a block device or a regular file holding the matrices one " \
	"after the other, or a directory with a file per matrix " \
	"(matrix-NNNN.fbm)."

static const char *const top_usage[] = { "COMMAND PATH [OPTIONS]", NULL };
static const struct cli_group top_groups[] = {
	{ .title = "Commands (each has its --help)", .commands = commands },
	{ .title = NULL },
};
static const struct cli_program top = {
	.name = PROG,
	.usage = top_usage,
	.about = "File-backed matrices of doubles, column-major, on a block "
		 "device, in a file, or one file per job in a directory. Every "
		 "element is a known function of (i, j), so every read can be "
		 "verified. \"run\" reads and updates them through mmap, pread, "
		 "O_DIRECT or libfnmap with several threads and jobs, and reports "
		 "throughput, latency, page faults, the memory of its cgroups over "
		 "time, pressure, where the threads wait and the request sizes "
		 "the device saw.\n\n" PATH_HELP,
	.groups = top_groups,
	.stop_at_operand = true,
};

static const char *const create_usage[] = {
	"PATH --rows R --cols C [--jobs K] [--seed N]", NULL,
};
static const struct cli_group create_groups[] = {
	{ .title = "Options", .options = create_options },
	{ .title = NULL },
};
static const struct cli_program create_prog = {
	.name = PROG " create",
	.usage = create_usage,
	.about = "Write R x C doubles (a 4 KiB header, then the columns one "
		 "after the other), synced and evicted from the cache. With "
		 "--jobs K, K matrices: each on a 1 MiB boundary after the "
		 "previous one, or PATH/matrix-NNNN.fbm when PATH is a directory. "
		 "A device must be large enough.",
	.groups = create_groups,
};

static const char *const run_usage[] = { "PATH [OPTIONS]", NULL };
static struct cli_group *run_groups;	/* the fixed ones + one per mode */
static struct cli_program run_prog = {
	.name = PROG " run",
	.usage = run_usage,
	.about = "Start --jobs processes (each in its own cgroup under one "
		 "parent, each on its own matrix) with --threads workers, evict "
		 "the matrices' pages, and start the workers together. Each "
		 "access touches the elements its --pattern says; with --verify "
		 "each is checked. Report: throughput, latency per access, page "
		 "faults and where the workers' time went (delay accounting), "
		 "memory.current and memory.stat over time, memory.events, io "
		 "and memory pressure, thread states and kernel wait sites, and "
		 "the device's requests (over netlink for fnblk devices). Exit "
		 "status 3 when a job was killed by the OOM killer.",
	.json = &run_args.json,
	.json_help = "print the report as one JSON document",
};

static const char *const verify_usage[] = { "PATH [--jobs K] [--threads N] [-q]", NULL };
static const struct cli_group verify_groups[] = {
	{ .title = "Options", .options = verify_options },
	{ .title = NULL },
};
static const struct cli_program verify_prog = {
	.name = PROG " verify",
	.usage = verify_usage,
	.about = "Read every element of every matrix once (pread, 1 MiB "
		 "requests) and check it: any version a run wrote is correct, "
		 "anything else is reported with its position. Exit status 1 if "
		 "an element is wrong.",
	.groups = verify_groups,
	.json = &run_args.json,
	.json_help = "print the report as one JSON document",
};

static const char *const info_usage[] = { "PATH", NULL };
static const struct cli_group info_groups[] = { { .title = NULL } };
static const struct cli_program info_prog = {
	.name = PROG " info",
	.usage = info_usage,
	.about = "The set's shape, seed, number of matrices and version.",
	.groups = info_groups,
	.json = &run_args.json,
	.json_help = "print it as JSON",
};

static const char *const bound_usage[] = {
	"REPORT [--bw RATE [--overhead SIZE] [--fn F] [--max-request SIZE]]",
	NULL,
};
static const struct cli_group bound_groups[] = {
	{ .title = "The store (default: the report's fnblk device)",
	  .options = bound_options },
	{ .title = NULL },
};
static const struct cli_program bound_prog = {
	.name = PROG " bound",
	.usage = bound_usage,
	.about = "Replay the accesses of a run from its report (fnblk-matrix "
		 "run -j, a file or - for standard input): which pages they "
		 "read and which their updates changed. Then the store's "
		 "bound: the least time any runtime that maps pages (mmap, "
		 "fnmap) needs on this store to read those pages and write the "
		 "changed ones, with requests that cover runs of pages as "
		 "cheaply as the store's overhead allows (gaps read where that "
		 "costs less than another request) and the store always busy "
		 "at its best f(n); latency is left out, as enough requests in "
		 "flight hide it. Also the time one request a page needs (what "
		 "mmap with random advice asks), the device's own requests "
		 "during the run at the same rate, and the run's measured time "
		 "(run + final sync) over the bound: no such runtime can run "
		 "these accesses faster than that on this store.",
	.groups = bound_groups,
	.json = &bound_args.json,
	.json_help = "print it as JSON",
};

/* run's groups: the fixed ones, then the options of each mode that has any. */
static int build_run_groups(void)
{
	static const struct cli_group fixed[] = {
		{ .title = "Access", .options = access_options },
		{ .title = "Writes", .options = write_options },
		{ .title = "Jobs and memory", .options = job_options },
		{ .title = "Checks and measurement", .options = check_options },
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]), n = nfixed;
	static char titles[16][64];

	for (unsigned int i = 0; mx_modes[i]; i++)
		n += mx_modes[i]->options != NULL;
	run_groups = calloc(n + 1, sizeof(*run_groups));
	if (!run_groups)
		return -1;
	memcpy(run_groups, fixed, sizeof(fixed));
	n = nfixed;
	for (unsigned int i = 0; mx_modes[i] && i < 16; i++) {
		const struct mx_mode_option *mo = mx_modes[i]->options;
		struct cli_option *o;
		size_t k = 0;

		if (!mo)
			continue;
		while (mo[k].name)
			k++;
		o = calloc(k + 1, sizeof(*o));
		if (!o)
			return -1;
		for (size_t j = 0; j < k; j++)
			o[j] = (struct cli_option){
				.name = mo[j].name, .arg = mo[j].arg, .help = mo[j].help,
				.type = CLI_CALL, .set = set_mode_arg,
				.dflt = mo[j].dflt ? mo[j].dflt : "",
			};
		snprintf(titles[i], sizeof(titles[i]), "Options of --mode %s",
			 mx_modes[i]->name);
		run_groups[n++] = (struct cli_group){ .title = titles[i], .options = o };
	}
	run_prog.groups = run_groups;
	return 0;
}

/* Was --name on the command line (as "--name" or "--name=...")? */
static bool given(int argc, char **argv, const char *name)
{
	size_t len = strlen(name);

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "--", 2) && !strncmp(argv[i] + 2, name, len) &&
		    (argv[i][2 + len] == '\0' || argv[i][2 + len] == '='))
			return true;
	return false;
}

/* One PATH operand. */
static int one_path(const struct cli_program *p, int first, int argc,
		    char **argv)
{
	if (first == argc)
		return cli_usage_error(p, "expected a PATH");
	if (first + 1 != argc)
		return cli_usage_error(p, "unexpected argument '%s'", argv[first + 1]);
	run_args.path = argv[first];
	return 0;
}

static int cmd_create(int argc, char **argv)
{
	struct mx_create_opts *o = &create_args;
	char err[512];
	int first, ret = cli_parse(&create_prog, argc, argv, &first);

	if (ret != CLI_CONTINUE || (ret = one_path(&create_prog, first, argc, argv)))
		return ret;
	if (!o->rows || !o->cols)
		return cli_usage_error(&create_prog, "--rows and --cols are required");
	if (o->rows > MX_MAX_ELEMS / o->cols)
		return cli_usage_error(&create_prog, "%" PRIu64 " x %" PRIu64
				       " elements: at most 2^40", o->rows, o->cols);
	o->progress = !quiet_create && isatty(STDERR_FILENO);
	if (mx_create(run_args.path, o, err, sizeof(err)))
		return cli_error(&create_prog, "%s", err);
	return 0;
}

/* What no single option can check. */
static int check_run(int argc, char **argv)
{
	struct mx_run_opts *r = &run_args;

	r->mode = mx_modes[mode_index];
	r->set.advise = (enum mx_advise)advise_index;
	r->pattern = (enum mx_pattern)pattern_index;
	if (r->accesses && r->duration_ns)
		return cli_usage_error(&run_prog, "--accesses and --duration are exclusive");
	if (r->set.bs % 512)
		return cli_usage_error(&run_prog, "--bs '%" PRIu64 "': not a multiple of 512 bytes",
				       r->set.bs);
	if (r->set.bs && !(r->mode->flags & MX_MODE_BS))
		return cli_usage_error(&run_prog, "--bs: --mode %s does not take it (the kernel picks the request size; the report shows readahead)",
				       r->mode->name);
	if (given(argc, argv, "advise") && !(r->mode->flags & MX_MODE_ADVISE))
		return cli_usage_error(&run_prog, "--advise: --mode %s does not take it",
				       r->mode->name);
	for (unsigned int i = 0; i < r->nr_mode_args; i++) {
		const struct mx_mode *owner = mx_mode_owning(r->mode_args[i].name);

		if (owner != r->mode)
			return cli_usage_error(&run_prog, "--%s is an option of --mode %s, not %s",
					       r->mode_args[i].name, owner->name,
					       r->mode->name);
	}
	if (given(argc, argv, "sync-every") && r->write_fraction <= 0)
		return cli_usage_error(&run_prog, "--sync-every: nothing is written without --write-fraction");
	if (r->no_cgroup && (r->cgroup || r->memory_max))
		return cli_usage_error(&run_prog, "--no-cgroup: exclusive with --cgroup and --memory-max");
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	int first, ret;

	if (build_run_groups())
		return cli_error(&run_prog, "out of memory");
	ret = cli_parse(&run_prog, argc, argv, &first);
	if (ret != CLI_CONTINUE || (ret = one_path(&run_prog, first, argc, argv)) ||
	    (ret = check_run(argc, argv)))
		return ret;
	return mx_run(&run_args, &run_prog);
}

/* Every element of every matrix, read once in large blocks and checked. */
static int cmd_verify(int argc, char **argv)
{
	struct mx_set set;
	char err[512];
	int first, ret = cli_parse(&verify_prog, argc, argv, &first);

	if (ret != CLI_CONTINUE || (ret = one_path(&verify_prog, first, argc, argv)))
		return ret;
	if (mx_set_open(run_args.path, &set, err, sizeof(err)))
		return cli_error(&verify_prog, "%s", err);
	if (!given(argc, argv, "jobs"))
		run_args.jobs = mx_set_count(&set);
	run_args.mode = mx_mode_find("pread");
	run_args.set.bs = 1u << 20;
	run_args.pattern = MX_PATTERN_COLS;
	run_args.verify = true;
	run_args.no_cgroup = true;
	return mx_run(&run_args, &verify_prog);
}

static int cmd_info(int argc, char **argv)
{
	char err[512], b[FNBLK_UNIT_BUFLEN];
	struct mx_set set;
	unsigned int n;
	json_t *o;
	int first, ret = cli_parse(&info_prog, argc, argv, &first);

	if (ret != CLI_CONTINUE || (ret = one_path(&info_prog, first, argc, argv)))
		return ret;
	if (mx_set_open(run_args.path, &set, err, sizeof(err)))
		return cli_error(&info_prog, "%s", err);
	n = mx_set_count(&set);
	if (run_args.json) {
		o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:i}",
			      "path", set.path, "kind", mx_set_kind_name(set.kind),
			      "rows", (json_int_t)set.first.rows,
			      "cols", (json_int_t)set.first.cols,
			      "bytes", (json_int_t)mx_data_bytes(set.first.rows, set.first.cols),
			      "stride", (json_int_t)set.first.stride,
			      "seed", (json_int_t)set.first.seed, "matrices", n,
			      "jobs", set.first.jobs, "version", set.first.version);
		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
		return 0;
	}
	printf("%s (%s): %u matri%s of %" PRIu64 " x %" PRIu64 " doubles (%s each), seed %" PRIu64
	       ", version %u\n", set.path, mx_set_kind_name(set.kind), n,
	       n == 1 ? "x" : "ces", set.first.rows, set.first.cols,
	       fnblk_format_size(mx_data_bytes(set.first.rows, set.first.cols), b,
				 sizeof(b)),
	       set.first.seed, set.first.version);
	return 0;
}

static int cmd_bound(int argc, char **argv)
{
	char err[512], b1[FNBLK_UNIT_BUFLEN], b2[FNBLK_UNIT_BUFLEN];
	struct mx_store st, *store = NULL;
	struct mx_bound b;
	json_error_t jerr;
	json_t *report;
	int first, ret = cli_parse(&bound_prog, argc, argv, &first);

	if (ret != CLI_CONTINUE)
		return ret;
	if (first == argc)
		return cli_usage_error(&bound_prog, "expected a REPORT");
	if (first + 1 != argc)
		return cli_usage_error(&bound_prog, "unexpected argument '%s'",
				       argv[first + 1]);
	if (!given(argc, argv, "bw") &&
	    (given(argc, argv, "overhead") || given(argc, argv, "fn") ||
	     given(argc, argv, "max-request")))
		return cli_usage_error(&bound_prog, "--overhead, --fn and "
				       "--max-request describe a store given "
				       "by --bw");
	report = strcmp(argv[first], "-") ?
		 json_load_file(argv[first], 0, &jerr) :
		 json_loadf(stdin, 0, &jerr);
	if (!report)
		return cli_error(&bound_prog, "%s: line %d: %s", argv[first],
				 jerr.line, jerr.text);
	if (given(argc, argv, "bw")) {
		struct fnblk_fn fn;
		const char *why;

		if (fnblk_fn_parse(bound_args.fn, &fn, &why)) {
			json_decref(report);
			return cli_usage_error(&bound_prog, "--fn '%s': %s",
					       bound_args.fn, why);
		}
		st = (struct mx_store){ .bw = bound_args.bw,
					.overhead = bound_args.overhead,
					.max_request = bound_args.max_request,
					.rate_factor = 0 };
		st.rate_factor = mx_fn_peak(&fn, mx_report_jobs(report));
		store = &st;
	}
	ret = mx_bound_report(report, store, &b, err, sizeof(err));
	json_decref(report);
	if (ret)
		return cli_error(&bound_prog, "%s: %s", argv[first], err);
	if (bound_args.json) {
		json_t *o = json_pack(
			"{s:I, s:I, s:I, s:I, s:I,"
			" s:{s:I, s:I, s:I, s:f},"
			" s:{s:I, s:I, s:I, s:f},"
			" s:f, s:f, s:f}",
			"accesses", (json_int_t)b.accesses,
			"elements", (json_int_t)b.elements,
			"updates", (json_int_t)b.updates,
			"pages_read", (json_int_t)b.pages_read,
			"pages_written", (json_int_t)b.pages_written,
			"per_page", "requests", (json_int_t)b.per_page.requests,
			"bytes", (json_int_t)b.per_page.bytes,
			"demand", (json_int_t)b.per_page.demand,
			"seconds", b.per_page_s,
			"least", "requests", (json_int_t)b.least.requests,
			"bytes", (json_int_t)b.least.bytes,
			"demand", (json_int_t)b.least.demand,
			"seconds", b.least_s,
			"device_s", b.device_s, "measured_s", b.measured_s,
			"ceiling", b.least_s > 0 ? b.measured_s / b.least_s : 0);

		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
		return 0;
	}
	printf("%" PRIu64 " accesses, %" PRIu64 " elements, %" PRIu64
	       " updated: %" PRIu64 " pages read, %" PRIu64 " written\n",
	       b.accesses, b.elements, b.updates, b.pages_read,
	       b.pages_written);
	printf("one request a page:  %8" PRIu64 " requests, %10s, %8.2f s\n",
	       b.per_page.requests,
	       fnblk_format_size(b.per_page.bytes, b1, sizeof(b1)),
	       b.per_page_s);
	printf("least (best cover):  %8" PRIu64 " requests, %10s, %8.2f s\n",
	       b.least.requests,
	       fnblk_format_size(b.least.bytes, b2, sizeof(b2)), b.least_s);
	if (b.measured_s > 0 && b.least_s > 0)
		printf("this run: %.2f s (run + final sync), the device's "
		       "requests %.2f s of it (%.0f %%): at most %.2fx faster "
		       "on this store\n", b.measured_s, b.device_s,
		       100 * b.device_s / b.measured_s,
		       b.measured_s / b.least_s);
	return 0;
}

int main(int argc, char **argv)
{
	int first, ret = cli_parse(&top, argc, argv, &first);

	if (ret != CLI_CONTINUE)
		return ret;
	/* Each command parses what follows it as its own argv. */
	ret = cli_dispatch(&top, commands, argc, argv, first);
	free(run_args.mode_args);
	return ret;
}
