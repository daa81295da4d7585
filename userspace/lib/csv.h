/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CSV fields as RFC 4180 has them, one line at a time: a field may be
 * quoted, and a quoted field may hold commas and doubled quotes (not line
 * breaks). Used by the job-record and replay-event files.
 */
#ifndef FNBLK_CSV_H
#define FNBLK_CSV_H

#include <stddef.h>
#include <stdio.h>

/*
 * Split line (without its line break) into fields, in place, removing the
 * quotes. *fields grows as needed (free it when done). Returns the number
 * of fields, or -1 with "field N: what" in err (or "out of memory").
 */
int csv_split(char *line, char ***fields, size_t *cap, char *err,
	      size_t errlen);

/* Write s as one field, quoted when it holds a comma or a quote. */
void csv_write_field(FILE *f, const char *s);

#endif /* FNBLK_CSV_H */
