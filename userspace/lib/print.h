/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One printer for every fnblk program, in the manner of iproute2: a program
 * describes its output once, as keys and values, and the printer renders
 * either text (each value through its printf format; a NULL format prints
 * nothing) or JSON (each value under its key, formats ignored). Sizes,
 * rates and durations are raw integers in JSON and human units in text.
 *
 * Inside an object a value with a NULL key is text only; inside an array
 * keys are ignored.
 *
 * pr_end() writes one JSON document (one line when pr_set_compact()), so
 * streaming commands (monitor, top) emit JSON lines. Output goes to
 * standard output unless pr_set_file() says otherwise; a real number that
 * is not finite is null in JSON.
 */
#ifndef FNBLK_PRINT_H
#define FNBLK_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

void pr_init(bool json);
bool pr_json(void);
/* One document per line (streams), rather than indented. */
void pr_set_compact(bool compact);
/* Where text and JSON go (NULL: standard output). */
void pr_set_file(FILE *f);

/* Containers: key is ignored inside arrays and for the outermost one. */
void pr_open_object(const char *key);
void pr_close_object(void);
void pr_open_array(const char *key);
void pr_close_array(void);
/*
 * Write the finished JSON document (a no-op in text mode); 0, or -1 if
 * the output failed.
 */
int pr_end(void);

/* Text only (layout, headings, newlines). */
void pr_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void pr_u64(const char *key, const char *fmt, uint64_t v);
void pr_int(const char *key, const char *fmt, int64_t v);
void pr_double(const char *key, const char *fmt, double v);
void pr_str(const char *key, const char *fmt, const char *s);
void pr_bool(const char *key, const char *fmt, bool v);
/* fmt takes a string: the value in human units. */
void pr_size(const char *key, const char *fmt, uint64_t bytes);
void pr_size_exact(const char *key, const char *fmt, uint64_t bytes);
void pr_rate(const char *key, const char *fmt, uint64_t bytes_per_s);
void pr_duration(const char *key, const char *fmt, uint64_t ns);
void pr_duration_exact(const char *key, const char *fmt, uint64_t ns);

#endif /* FNBLK_PRINT_H */
