// SPDX-License-Identifier: GPL-2.0
/*
 * The command-line convention of every fnblk program (see cli.h): one
 * parser, one help layout, one man-page rendering, one set of messages.
 *
 * The parser is our own rather than getopt_long: it must refuse an
 * abbreviated option (a script that works today must not change meaning
 * when an option is added), say which option lacks its value, and check
 * the whole command line before anything is set.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "units.h"

#ifndef FNBLK_VERSION
#define FNBLK_VERSION "unknown"
#endif

#define HELP_WIDTH	79	/* columns of --help */
#define HELP_COLUMN	26	/* where descriptions start */
#define ERRLEN		256

const char *cli_version(void)
{
	return FNBLK_VERSION;
}

/* ---- messages ---- */

/* "fnblk-sim run" speaks as "fnblk-sim: run: ". */
static void prefix(const struct cli_program *p, FILE *f)
{
	const char *sp = strchr(p->name, ' ');

	if (sp)
		fprintf(f, "%.*s: %s: ", (int)(sp - p->name), p->name, sp + 1);
	else
		fprintf(f, "%s: ", p->name);
}

int cli_usage_error(const struct cli_program *p, const char *fmt, ...)
{
	va_list ap;

	prefix(p, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", p->name);
	return CLI_EXIT_USAGE;
}

/* "a, b or c" into buf: the names of the commands. */
static const char *command_list(const struct cli_command *cmds, char *buf, size_t len)
{
	size_t n = 0, i, at = 0;

	while (cmds[n].name)
		n++;
	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s",
			       i == 0 ? "" : i + 1 == n ? " or " : ", ", cmds[i].name);
	return buf;
}

int cli_dispatch(const struct cli_program *p, const struct cli_command *cmds,
		 int argc, char **argv, int first)
{
	char names[256];
	size_t i;

	if (first >= argc)
		return cli_usage_error(p, "no COMMAND (%s)",
				       command_list(cmds, names, sizeof(names)));
	for (i = 0; cmds[i].name; i++)
		if (!strcmp(argv[first], cmds[i].name))
			return cmds[i].run(argc - first, argv + first);
	return cli_usage_error(p, "unknown command '%s' (expected %s)", argv[first],
			       command_list(cmds, names, sizeof(names)));
}

int cli_command_main(const char *name, const char *about,
		     const struct cli_command *cmds, int argc, char **argv)
{
	static const char *const usage[] = { "COMMAND [OPTIONS]", NULL };
	const struct cli_group groups[] = {
		{ .title = "Commands", .commands = cmds },
		{ .title = "Options" },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = name, .usage = usage, .about = about, .groups = groups,
		.stop_at_operand = true,
	};
	int first, ret = cli_parse(&prog, argc, argv, &first);

	if (ret != CLI_CONTINUE)
		return ret;
	if (first < argc && !strcmp(argv[first], "help")) {
		cli_help(&prog, stdout);
		return CLI_EXIT_OK;
	}
	return cli_dispatch(&prog, cmds, argc, argv, first);
}

int cli_error(const struct cli_program *p, const char *fmt, ...)
{
	va_list ap;

	prefix(p, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_FAILURE;
}

void cli_warn(const struct cli_program *p, const char *fmt, ...)
{
	va_list ap;

	prefix(p, stderr);
	fputs("warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- the options of a program ---- */

static const struct cli_option opt_help = {
	.name = "help", .key = 'h', .help = "print this help and exit",
	.type = CLI_FLAG,
};
static const struct cli_option opt_version = {
	.name = "version", .help = "print the version and exit",
	.type = CLI_FLAG,
};
static const struct cli_option opt_json = {
	.name = "json", .key = 'j', .type = CLI_FLAG,
};

/* An option and the group it belongs to (NULL for the standard ones). */
struct found {
	const struct cli_option *o;
	const struct cli_group *g;
};

/* Every option in help order: the groups', then -j, -h, --version. */
static bool next_option(const struct cli_program *p, struct found *it,
			unsigned int *gi, unsigned int *oi)
{
	for (;;) {
		const struct cli_group *g = p->groups ? &p->groups[*gi] : NULL;

		if (g && g->title) {
			if (g->options && g->options[*oi].name) {
				it->o = &g->options[(*oi)++];
				it->g = g;
				return true;
			}
			(*gi)++;
			*oi = 0;
			continue;
		}
		/* Past the groups: the standard options, counted by *oi. */
		it->g = NULL;
		switch ((*oi)++) {
		case 0:
			if (!p->json)
				continue;
			it->o = &opt_json;
			return true;
		case 1:
			it->o = &opt_help;
			return true;
		case 2:
			it->o = &opt_version;
			return true;
		default:
			return false;
		}
	}
}

#define for_each_option(p, it, gi, oi) \
	for (gi = 0, oi = 0; next_option(p, &it, &gi, &oi);)

static bool find_long(const struct cli_program *p, const char *name,
		      size_t len, struct found *out)
{
	unsigned int gi, oi;
	struct found it;

	for_each_option(p, it, gi, oi) {
		if (strlen(it.o->name) == len && !strncmp(it.o->name, name, len)) {
			*out = it;
			return true;
		}
	}
	return false;
}

static bool find_short(const struct cli_program *p, char key, struct found *out)
{
	unsigned int gi, oi;
	struct found it;

	for_each_option(p, it, gi, oi) {
		if (it.o->key && it.o->key == key) {
			*out = it;
			return true;
		}
	}
	return false;
}

/* Is s, as a whole, an option of p (so not meant as another's value)? */
static bool is_option(const struct cli_program *p, const char *s)
{
	struct found f;

	if (s[0] != '-' || !s[1])
		return false;
	if (s[1] == '-')
		return s[2] && find_long(p, s + 2, strcspn(s + 2, "="), &f);
	return find_short(p, s[1], &f);
}

/* The long options starting with s, for "did you mean". */
static void suggest(const struct cli_program *p, const char *s, size_t len,
		    char *buf, size_t buflen)
{
	unsigned int gi, oi, n = 0;
	struct found it;
	size_t used = 0;

	buf[0] = '\0';
	if (!len)
		return;
	for_each_option(p, it, gi, oi) {
		if (strncmp(it.o->name, s, len) || n == 3)
			continue;
		used += snprintf(buf + used, used < buflen ? buflen - used : 0,
				 "%s'--%s'", n ? " or " : " (did you mean ",
				 it.o->name);
		n++;
	}
	if (n && used < buflen)
		snprintf(buf + used, buflen - used, "?)");
}

/* ---- values ---- */

static uint64_t type_max(const struct cli_option *o)
{
	if (o->max)
		return o->max;
	return o->type == CLI_UINT ? UINT32_MAX : UINT64_MAX;
}

/* A value of o's unit as text, for ranges and defaults. */
static const char *unit_text(const struct cli_option *o, uint64_t v,
			     char *buf, size_t len)
{
	switch (o->type) {
	case CLI_SIZE:
		return fnblk_format_size_exact(v, buf, len);
	case CLI_RATE:
		if (!v)
			return "unlimited";
		fnblk_format_size_exact(v, buf, len > 2 ? len - 2 : len);
		strcat(buf, "/s");
		return buf;
	case CLI_DURATION:
		return v ? fnblk_format_duration_exact(v, buf, len) : "0";
	default:
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	}
}

static int parse_number(const struct cli_option *o, const char *arg,
			uint64_t *v, char *err, size_t errlen)
{
	uint64_t min = o->min, max = type_max(o);
	char a[FNBLK_UNIT_BUFLEN], b[FNBLK_UNIT_BUFLEN];
	const char *why = "";
	int ret;

	switch (o->type) {
	case CLI_SIZE:
		ret = fnblk_parse_size(arg, v, &why);
		break;
	case CLI_RATE:
		ret = fnblk_parse_rate(arg, v, &why);
		break;
	case CLI_DURATION:
		ret = fnblk_parse_duration(arg, v, &why);
		break;
	default:
		ret = fnblk_parse_uint(arg, 0, UINT64_MAX, v, &why);
		break;
	}
	if (ret) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	if (o->align && *v % o->align) {
		snprintf(err, errlen, "not a multiple of %s",
			 unit_text(o, o->align, a, sizeof(a)));
		return -1;
	}
	if (*v >= min && *v <= max)
		return 0;
	unit_text(o, min, a, sizeof(a));
	unit_text(o, max, b, sizeof(b));
	if (max == UINT64_MAX || (o->type == CLI_UINT && max == UINT32_MAX))
		snprintf(err, errlen, "too small (at least %s)", a);
	else
		snprintf(err, errlen, "%s (expected %s to %s)",
			 *v < min ? "too small" : "too large", a, b);
	return -1;
}

/* "a, b or c" */
static void choice_list(const struct cli_option *o, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; o->choice(i); i++)
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%s",
				 !i ? "" : o->choice(i + 1) ? ", " : " or ",
				 o->choice(i));
}

static int set_value(const struct found *f, const char *arg, char *err,
		     size_t errlen)
{
	const struct cli_option *o = f->o;
	char names[200];
	unsigned int i;
	uint64_t v;

	switch (o->type) {
	case CLI_FLAG:
		*(bool *)o->var = true;
		return 0;
	case CLI_STRING:
		*(const char **)o->var = arg;
		return 0;
	case CLI_CHOICE:
		for (i = 0; o->choice(i); i++) {
			if (!strcmp(o->choice(i), arg)) {
				*(unsigned int *)o->var = i;
				return 0;
			}
		}
		choice_list(o, names, sizeof(names));
		snprintf(err, errlen, "expected %s", names);
		return -1;
	case CLI_CALL:
		return o->set(f->g ? f->g->ctx : NULL, o, arg, err, errlen);
	case CLI_UINT:
		if (parse_number(o, arg, &v, err, errlen))
			return -1;
		*(unsigned int *)o->var = (unsigned int)v;
		return 0;
	default:
		if (parse_number(o, arg, &v, err, errlen))
			return -1;
		*(uint64_t *)o->var = v;
		return 0;
	}
}

/* ---- parsing ---- */

enum help_format { HELP_NONE, HELP_TEXT, HELP_MAN };

struct parse {
	const struct cli_program *p;
	bool apply;		/* second pass: set values */
	enum help_format help;
	bool version;
	bool failed;
	char msg[ERRLEN + 128];	/* the first error */
};

__attribute__((format(printf, 2, 3)))
static void bad(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	va_start(ap, fmt);
	vsnprintf(ps->msg, sizeof(ps->msg), fmt, ap);
	va_end(ap);
}

/* A recognised option, spelled as typed, with its value if it takes one. */
static void option(struct parse *ps, const struct found *f,
		   const char *spelled, const char *arg)
{
	union { bool b; const char *s; unsigned int u; uint64_t q; } scratch;
	struct cli_option copy;
	struct found check;
	char err[ERRLEN];

	if (f->o == &opt_help) {
		if (!arg || !strcmp(arg, "text"))
			ps->help = HELP_TEXT;
		else if (!strcmp(arg, "man"))
			ps->help = HELP_MAN;
		else
			bad(ps, "--help '%s': expected text or man", arg);
		return;
	}
	if (f->o == &opt_version) {
		ps->version = true;
		return;
	}
	if (!ps->apply) {
		/* Check what can be checked without setting anything. */
		if (!f->g || f->o->type == CLI_CALL)
			return;
		copy = *f->o;
		copy.var = &scratch;
		check = (struct found){ &copy, f->g };
		f = &check;
	} else if (f->o == &opt_json) {
		*ps->p->json = true;
		return;
	}
	err[0] = '\0';
	if (set_value(f, arg, err, sizeof(err))) {
		if (arg)
			bad(ps, "%s '%s': %s", spelled, arg, err);
		else
			bad(ps, "%s: %s", spelled, err);
	}
}

/* The value of an option at argv[*i]: inline, or the next argument. */
static const char *value_of(struct parse *ps, const struct found *f,
			    const char *spelled, const char *inl, int argc,
			    char **argv, int *i)
{
	if (inl)
		return inl;
	/* "-o -" is stdout, but "--qd --jobs 4" lost the value of --qd. */
	if (*i + 1 >= argc || is_option(ps->p, argv[*i + 1])) {
		bad(ps, "option '%s' needs a value (%s)", spelled, f->o->arg);
		return NULL;
	}
	return argv[++*i];
}

/* One "--name[=value]" at argv[*i]. */
static void long_option(struct parse *ps, int argc, char **argv, int *i)
{
	const char *s = argv[*i] + 2, *eq = strchr(s, '='), *arg;
	size_t len = eq ? (size_t)(eq - s) : strlen(s);
	char spelled[128], hint[160];
	struct found f;

	snprintf(spelled, sizeof(spelled), "--%.*s", (int)len, s);
	if (!find_long(ps->p, s, len, &f)) {
		suggest(ps->p, s, len, hint, sizeof(hint));
		bad(ps, "unknown option '%s'%s", spelled, hint);
		return;
	}
	if (!f.o->arg && f.o != &opt_help) {
		if (eq)
			bad(ps, "option '%s' takes no value", spelled);
		else
			option(ps, &f, spelled, NULL);
		return;
	}
	if (f.o == &opt_help) {
		option(ps, &f, spelled, eq ? eq + 1 : NULL);
		return;
	}
	arg = value_of(ps, &f, spelled, eq ? eq + 1 : NULL, argc, argv, i);
	if (arg)
		option(ps, &f, spelled, arg);
}

/* One "-abc" or "-ovalue" at argv[*i]. */
static void short_options(struct parse *ps, int argc, char **argv, int *i)
{
	const char *s = argv[*i] + 1;
	char spelled[3] = "-";
	struct found f;

	for (; *s; s++) {
		spelled[1] = *s;
		if (!find_short(ps->p, *s, &f)) {
			bad(ps, "unknown option '%s'", spelled);
			return;
		}
		if (!f.o->arg) {
			option(ps, &f, spelled, NULL);
			continue;
		}
		s = value_of(ps, &f, spelled, s[1] ? s + 1 : NULL, argc, argv,
			     i);
		if (s)
			option(ps, &f, spelled, s);
		return;
	}
}

/*
 * Walk the command line once. With order non-NULL, the arguments'
 * indexes are appended to it, options first, then operands.
 */
static void walk(struct parse *ps, int argc, char **argv, int *order,
		 int *nr_options)
{
	int i, nopt = 0, nop = 0, *operands = order ? order + argc : NULL;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		int start = i;

		if (!strcmp(s, "--")) {
			if (order)
				order[nopt++] = i;
			for (i++; i < argc; i++)
				if (operands)
					operands[nop++] = i;
			break;
		}
		if (s[0] != '-' || !s[1]) {
			if (ps->p->stop_at_operand) {
				for (; i < argc; i++)
					if (operands)
						operands[nop++] = i;
				break;
			}
			if (operands)
				operands[nop++] = i;
			continue;
		}
		if (s[1] == '-')
			long_option(ps, argc, argv, &i);
		else
			short_options(ps, argc, argv, &i);
		if (order)
			for (; start <= i && start < argc; start++)
				order[nopt++] = start;
	}
	if (order) {
		memmove(order + nopt, operands, nop * sizeof(*order));
		*nr_options = nopt;
	}
}

int cli_parse(const struct cli_program *p, int argc, char **argv, int *first)
{
	struct parse ps = { .p = p };
	int *order, nopt = 0, i;
	char **copy;

	/* First pass: the shape of the command line, --help and --version. */
	walk(&ps, argc, argv, NULL, NULL);
	if (ps.help == HELP_TEXT) {
		cli_help(p, stdout);
		return CLI_EXIT_OK;
	}
	if (ps.help == HELP_MAN) {
		cli_man(p, stdout);
		return CLI_EXIT_OK;
	}
	if (ps.version) {
		printf("%.*s (fnblk) %s\n", (int)strcspn(p->name, " "),
		       p->name, cli_version());
		return CLI_EXIT_OK;
	}
	if (ps.failed)
		return cli_usage_error(p, "%s", ps.msg);

	/* Second pass: set every value, and put the operands last. */
	ps.apply = true;
	order = calloc(2 * (size_t)(argc + 1), sizeof(*order));
	copy = calloc((size_t)argc + 1, sizeof(*copy));
	if (!order || !copy) {
		free(order);
		free(copy);
		return cli_error(p, "out of memory");
	}
	walk(&ps, argc, argv, order, &nopt);
	if (ps.failed) {
		free(order);
		free(copy);
		return cli_usage_error(p, "%s", ps.msg);
	}
	for (i = 1; i < argc; i++)
		copy[i] = argv[order[i - 1]];
	for (i = 1; i < argc; i++)
		argv[i] = copy[i];
	*first = 1 + nopt;
	free(order);
	free(copy);
	return CLI_CONTINUE;
}

/* ---- help ---- */

/* The default of o as text, or NULL. */
static const char *default_text(const struct found *f, char *buf, size_t len)
{
	const struct cli_option *o = f->o;

	if (o->dflt)
		return *o->dflt ? o->dflt : NULL;
	if (!o->var && o->type != CLI_CALL)
		return NULL;
	switch (o->type) {
	case CLI_FLAG:
		return NULL;
	case CLI_STRING:
		return *(const char **)o->var;
	case CLI_CHOICE:
		return o->choice(*(unsigned int *)o->var);
	case CLI_CALL:
		return o->show ? o->show(f->g ? f->g->ctx : NULL, o, buf, len)
			       : NULL;
	case CLI_UINT:
		return unit_text(o, *(unsigned int *)o->var, buf, len);
	default:
		return unit_text(o, *(uint64_t *)o->var, buf, len);
	}
}

/* The help of o, with its default; the caller frees it. */
static char *option_help(const struct cli_program *p, const struct found *f)
{
	const char *help = f->o == &opt_json ? p->json_help : f->o->help;
	char buf[FNBLK_UNIT_BUFLEN * 4], *s = NULL;
	const char *d = default_text(f, buf, sizeof(buf));

	if (!help)
		help = "";
	if (d) {
		/* "how a job writes:" (a list follows) keeps its colon last. */
		size_t n = strlen(help);
		bool colon = n && help[n - 1] == ':';

		if (asprintf(&s, "%.*s%s(default: %s)%s", (int)(n - colon), help,
			     n ? " " : "", d, colon ? ":" : "") < 0)
			s = NULL;
	} else {
		s = strdup(help);
	}
	return s;
}

/* s wrapped to width, every line but the first indented by indent. */
static void wrap(FILE *f, const char *s, int col, int indent)
{
	while (*s) {
		size_t word = strcspn(s, " \n");

		if (col > indent && col + 1 + (int)word > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)word, s);
		col += (int)word;
		s += word;
		/* A blank line is a new paragraph. */
		if (!strncmp(s, "\n\n", 2)) {
			fprintf(f, "\n\n%*s", indent, "");
			col = indent;
		}
		s += strspn(s, " \n");
	}
	fputc('\n', f);
}

/* "  left" then text from HELP_COLUMN, wrapped. */
static void help_entry(FILE *f, const char *left, const char *text)
{
	int col = fprintf(f, "  %s", left);

	if (!*text) {
		fputc('\n', f);
		return;
	}
	if (col >= HELP_COLUMN - 1) {
		fputc('\n', f);
		col = 0;
	}
	fprintf(f, "%*s", HELP_COLUMN - col, "");
	wrap(f, text, HELP_COLUMN, HELP_COLUMN);
}

static void option_left(const struct cli_option *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s%c%s--%s%s%s", o->key ? "-" : " ", o->key ? o->key : ' ',
		 o->key ? ", " : "  ", o->name, o->arg ? " " : "",
		 o->arg ? o->arg : "");
}

static void help_option(const struct cli_program *p, const struct found *f,
			FILE *out)
{
	const struct cli_option *o = f->o;
	char left[128], *text = option_help(p, f);
	unsigned int i;
	size_t w = 0;

	option_left(o, left, sizeof(left));
	help_entry(out, left, text ? text : "");
	free(text);
	if (o->type != CLI_CHOICE || !o->choice_help)
		return;
	for (i = 0; o->choice(i); i++)
		if (strlen(o->choice(i)) > w)
			w = strlen(o->choice(i));
	for (i = 0; o->choice(i); i++) {
		int col = fprintf(out, "%*s%-*s  ", HELP_COLUMN + 2, "", (int)w,
				  o->choice(i));

		wrap(out, o->choice_help(i), col, col);
	}
}

/*
 * The groups of p through three printers; the standard options close the
 * last group (or make up an "Options" group of their own).
 */
static void render_groups(const struct cli_program *p, FILE *f,
			  void (*title)(FILE *f, const char *title),
			  void (*term)(FILE *f, const struct cli_term *t),
			  void (*opt)(const struct cli_program *p,
				      const struct found *it, FILE *f))
{
	static const struct cli_group only_standard[] = {
		{ .title = "Options" }, { .title = NULL },
	};
	const struct cli_group *g = p->groups && p->groups->title ?
				    p->groups : only_standard;
	unsigned int i;

	for (; g->title; g++) {
		title(f, g->title);
		for (i = 0; g->terms && g->terms[i].term; i++)
			term(f, &g->terms[i]);
		for (i = 0; g->commands && g->commands[i].name; i++) {
			const struct cli_command *c = &g->commands[i];

			term(f, &(struct cli_term){ c->synopsis ? c->synopsis : c->name,
						    c->help });
		}
		for (i = 0; g->options && g->options[i].name; i++)
			opt(p, &(struct found){ &g->options[i], g }, f);
		if (g[1].title)
			continue;
		if (p->json)
			opt(p, &(struct found){ &opt_json, NULL }, f);
		opt(p, &(struct found){ &opt_help, NULL }, f);
		opt(p, &(struct found){ &opt_version, NULL }, f);
	}
}

static void help_title(FILE *f, const char *title)
{
	fprintf(f, "\n%s:\n", title);
}

static void help_term(FILE *f, const struct cli_term *t)
{
	help_entry(f, t->term, t->help);
}

void cli_help(const struct cli_program *p, FILE *f)
{
	unsigned int i;

	for (i = 0; p->usage[i]; i++)
		fprintf(f, "%s %s %s\n", i ? "   or:" : "Usage:", p->name,
			p->usage[i]);
	if (p->about && *p->about) {
		fputc('\n', f);
		wrap(f, p->about, 0, 0);
	}
	render_groups(p, f, help_title, help_term, help_option);
}

/* ---- man ---- */

/* Text escaped for roff; "-" stays a hyphen-minus, as people type it. */
static void roff_text(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++) {
		switch (s[i]) {
		case '\\':
			fputs("\\e", f);
			break;
		case '-':
			fputs("\\-", f);
			break;
		case '\'':
			fputs("\\(aq", f);
			break;
		case '`':
			fputs("\\(ga", f);
			break;
		case '\n':
			fputc(' ', f);
			break;
		default:
			fputc(s[i], f);
		}
	}
}

/* A paragraph: "\&" keeps a leading "." or "'" from being a request. */
static void roff_para(FILE *f, const char *s)
{
	fputs("\\&", f);
	while (*s) {
		size_t n = strcspn(s, "\n");

		roff_text(f, s, n);
		s += n;
		if (!strncmp(s, "\n\n", 2)) {
			fputs("\n.PP\n\\&", f);
			s += strspn(s, "\n");
		} else if (*s) {
			fputc(' ', f);
			s++;
		}
	}
	fputc('\n', f);
}

/*
 * A synopsis-style line: placeholders (capitals) in italics, brackets and
 * ellipses in roman, everything else (commands, options) in bold.
 */
static void roff_words(FILE *f, const char *s)
{
	fputs("\\&", f);
	while (*s) {
		size_t n = strcspn(s, " ,[]|{}");

		if (!n) {
			fputc(*s++, f);
			continue;
		}
		/* A trailing "..." is punctuation, not part of the word. */
		size_t dots = n >= 3 && !strncmp(s + n - 3, "...", 3) ? 3 : 0;
		bool placeholder = *s >= 'A' && *s <= 'Z' &&
				   strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") >= n - dots;

		if (n == dots) {
			fputs("\\&...", f);
		} else {
			fputs(placeholder ? "\\fI" : "\\fB", f);
			roff_text(f, s, n - dots);
			fputs("\\fR", f);
			if (dots)
				fputs("\\&...", f);
		}
		s += n;
	}
	fputc('\n', f);
}

static void man_option(const struct cli_program *p, const struct found *f,
		       FILE *out)
{
	const struct cli_option *o = f->o;
	char left[128], *text = option_help(p, f);
	unsigned int i;

	option_left(o, left, sizeof(left));
	fputs(".TP\n", out);
	roff_words(out, left + strspn(left, " "));
	roff_para(out, text ? text : "");
	free(text);
	if (o->type != CLI_CHOICE || !o->choice_help)
		return;
	fputs(".RS\n", out);
	for (i = 0; o->choice(i); i++) {
		fputs(".TP\n\\fB", out);
		roff_text(out, o->choice(i), strlen(o->choice(i)));
		fputs("\\fR\n", out);
		roff_para(out, o->choice_help(i));
	}
	fputs(".RE\n", out);
}

static void man_title(FILE *f, const char *title)
{
	fputs(".PP\n\\fB", f);
	roff_text(f, title, strlen(title));
	fputs(":\\fR\n", f);
}

static void man_term(FILE *f, const struct cli_term *t)
{
	fputs(".TP\n", f);
	roff_words(f, t->term);
	roff_para(f, t->help);
}

void cli_man(const struct cli_program *p, FILE *f)
{
	unsigned int i;

	/* scripts/mkman cuts this at the markers. */
	fprintf(f, ".\\\" cli-begin synopsis %s\n", p->name);
	for (i = 0; p->usage[i]; i++) {
		char line[512];

		snprintf(line, sizeof(line), "%s %s", p->name, p->usage[i]);
		if (i)
			fputs(".br\n", f);
		roff_words(f, line);
	}
	fprintf(f, ".\\\" cli-end\n.\\\" cli-begin description %s\n", p->name);
	if (p->about && *p->about)
		roff_para(f, p->about);
	fprintf(f, ".\\\" cli-end\n.\\\" cli-begin options %s\n", p->name);
	render_groups(p, f, man_title, man_term, man_option);
	fputs(".\\\" cli-end\n", f);
}

int cli_set_value(const struct cli_option *o, void *var, const char *arg,
		  char *err, size_t errlen)
{
	struct cli_option copy = *o;
	struct found f = { &copy, NULL };

	if (var)
		copy.var = var;
	err[0] = '\0';
	return set_value(&f, arg, err, errlen);
}
