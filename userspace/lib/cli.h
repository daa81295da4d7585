/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One command-line convention for every fnblk program (Documentation/cli.rst).
 *
 * A program describes its options once, in tables of struct cli_option;
 * from them come the parser, "--help", and the SYNOPSIS and OPTIONS of
 * its man page ("--help=man", which scripts/mkman splices into the page's
 * template), so the three cannot disagree. Every program gets:
 *
 *   -h, --help      usage, what it does, every option with its default
 *   --version       "NAME (fnblk) VERSION"
 *   -j, --json      where the program prints results (cli_program.json)
 *
 * and the same messages: an unknown option, a missing value, a value out
 * of range or in the wrong unit all name the option and exit 2 with
 * "Try 'NAME --help'.". Defaults shown by --help are read from the
 * variables the options set, before any argument is applied, so they are
 * the defaults the program really uses.
 */
#ifndef FNBLK_CLI_H
#define FNBLK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status of every fnblk program. */
#define CLI_EXIT_OK		0
#define CLI_EXIT_FAILURE	1	/* runtime error */
#define CLI_EXIT_USAGE		2	/* bad command line */

/* cli_parse(): carry on with the operands. */
#define CLI_CONTINUE		(-1)

enum cli_type {
	CLI_FLAG,	/* bool: set */
	CLI_STRING,	/* const char *: the argument itself */
	CLI_UINT,	/* unsigned int in [min, max] */
	CLI_U64,	/* uint64_t in [min, max] */
	CLI_SIZE,	/* uint64_t bytes in [min, max], units.h */
	CLI_RATE,	/* uint64_t bytes/s in [min, max]; 0 = unlimited */
	CLI_DURATION,	/* uint64_t ns in [min, max]; a unit is required */
	CLI_CHOICE,	/* unsigned int: index of the name, from choice() */
	CLI_CALL,	/* set() parses and stores */
};

struct cli_option;

/* CLI_CALL: store arg; 0, or -1 with a message in err (no option name). */
typedef int (*cli_set_fn)(void *ctx, const struct cli_option *o,
			  const char *arg, char *err, size_t errlen);
/* The current value as text, for the default in --help; NULL for none. */
typedef const char *(*cli_show_fn)(void *ctx, const struct cli_option *o,
				   char *buf, size_t len);

struct cli_option {
	const char *name;	/* long name without "--"; NULL ends a table */
	char key;		/* short letter, or 0 */
	const char *arg;	/* placeholder of the value ("N"); NULL: none */
	const char *help;	/* sentences; the default is appended */
	enum cli_type type;
	void *var;		/* what the option sets (not for CLI_CALL) */
	uint64_t min, max;	/* numeric range; max 0 = the type's maximum */
	uint64_t align;		/* CLI_SIZE: a multiple of this (0 = any) */
	/* CLI_CHOICE: name (and optional one-line help) of value i, NULL past the last. */
	const char *(*choice)(unsigned int i);
	const char *(*choice_help)(unsigned int i);
	cli_set_fn set;		/* CLI_CALL */
	cli_show_fn show;	/* CLI_CALL: the default as text */
	const char *dflt;	/* the default as text, overriding the above;
				 * "" says nothing */
};

/* A word listed with an explanation: a command, a setting. */
struct cli_term {
	const char *term;	/* "dev add [NAME] [SETTING VALUE]..."; NULL ends */
	const char *help;
};

/* A command of a program that has commands ("fnblk-sim run"). */
struct cli_command {
	const char *name;	/* "run"; NULL ends */
	const char *synopsis;	/* how --help lists it; NULL: the name */
	const char *help;
	/* Runs with argv[0] the command's name; returns the exit status. */
	int (*run)(int argc, char **argv);
};

/* A titled part of --help: options, terms, or commands. */
struct cli_group {
	const char *title;	/* "Output"; NULL ends the list of groups */
	const struct cli_option *options;
	const struct cli_term *terms;
	const struct cli_command *commands;
	void *ctx;		/* passed to set() and show() */
};

struct cli_program {
	/* "fnblk-fleet", or the program and its command: "fnblk-sim run". */
	const char *name;
	/* What follows the name, one form a line; NULL-terminated. */
	const char *const *usage;
	/* What it does: paragraphs separated by blank lines. */
	const char *about;
	const struct cli_group *groups;	/* NULL: the standard options only */
	/* -j, --json set *json (and json_help says to what effect). */
	bool *json;
	const char *json_help;
	/* Options end at the first operand (a command or object follows). */
	bool stop_at_operand;
};

/*
 * Parse argv[1..argc-1]. Operands end up, in order, in argv[*first..argc-1]
 * (options may follow operands unless stop_at_operand; "--" ends the
 * options). Nothing is set unless every option is known, has its value
 * and, but for CLI_CALL options, a valid one; -h/--help or --version
 * anywhere wins over any error. Returns
 * CLI_CONTINUE, or the status to exit with: CLI_EXIT_OK after printing help
 * or the version, CLI_EXIT_USAGE after printing what was wrong.
 */
int cli_parse(const struct cli_program *p, int argc, char **argv, int *first);

/*
 * Parse arg as option o would, into var (o->var if NULL): for values that
 * come from elsewhere than the command line (a file's recorded options).
 * 0, or -1 with what was wrong in err. CLI_CALL options get a NULL ctx.
 */
int cli_set_value(const struct cli_option *o, void *var, const char *arg,
		  char *err, size_t errlen);

/*
 * Run the command argv[first] names with argv[first..argc-1]; without one,
 * or with an unknown one, a usage error that lists the commands.
 */
int cli_dispatch(const struct cli_program *p, const struct cli_command *cmds,
		 int argc, char **argv, int first);

/*
 * The whole main() of a program whose first operand is a command
 * ("PROG COMMAND [OPTIONS]"): --help lists the commands and the standard
 * options, "PROG help" is "PROG --help", then cli_dispatch().
 */
int cli_command_main(const char *name, const char *about,
		     const struct cli_command *cmds, int argc, char **argv);

/* "PROG: CMD: message" and "Try 'PROG CMD --help'." on stderr; returns 2. */
int cli_usage_error(const struct cli_program *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "PROG: CMD: message" on stderr; returns 1. */
int cli_error(const struct cli_program *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "PROG: CMD: warning: message" on stderr. */
void cli_warn(const struct cli_program *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The help as --help prints it. */
void cli_help(const struct cli_program *p, FILE *f);
/* SYNOPSIS and OPTIONS as roff, delimited for scripts/mkman. */
void cli_man(const struct cli_program *p, FILE *f);

/* The fnblk version every program reports. */
const char *cli_version(void);

#endif /* FNBLK_CLI_H */
