/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sizes, rates and durations as people write them ("64MiB/s", "1.5ms",
 * "4k") and back. Rules (fnblkctl(8), UNITS):
 *
 *  - a number is decimal digits with an optional fraction ("1.5"); no
 *    sign, no exponent, no spaces; the result must be a whole number of
 *    bytes or nanoseconds;
 *  - sizes: no suffix or "B" = bytes; K M G T (either case), optionally
 *    followed by "iB", are binary (1024^k); kB KB MB GB TB are decimal
 *    (1000^k); bits ("Mb", "Mbit") are rejected;
 *  - rates: a size followed by an optional "/s"; "0" or "unlimited" = 0;
 *  - durations: ns, us (or µs), ms, s; a unit is required unless the
 *    value is 0.
 *
 * Parsers return 0, or -EINVAL (malformed) / -ERANGE (too large) and point
 * *why at a static phrase that names what was wrong, for the caller to
 * prefix with the argument's name.
 */
#ifndef FNBLK_UNITS_H
#define FNBLK_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int fnblk_parse_size(const char *s, uint64_t *bytes, const char **why);
int fnblk_parse_rate(const char *s, uint64_t *bytes_per_s, const char **why);
int fnblk_parse_duration(const char *s, uint64_t *ns, const char **why);
/* Plain decimal integer in [min, max]. */
int fnblk_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v,
		     const char **why);
/*
 * A decimal number ("0.05", "1.5"; no sign, no exponent); with percent,
 * also "5%" (0.05). Range checks are the caller's.
 */
int fnblk_parse_real(const char *s, bool percent, double *v,
		     const char **why);
/* "N" or "MIN-MAX", plain integers in [min, max], MIN <= MAX. */
int fnblk_parse_uint_range(const char *s, uint64_t min, uint64_t max,
			   uint64_t *lo, uint64_t *hi, const char **why);

/*
 * Human-readable forms in the largest unit not above the value, rounded
 * to at most three decimals ("1.18GiB", "1.235ms", "20MiB/s"); exact when
 * the unit divides the value ("64MiB", "200us"). The _exact forms pick a
 * smaller unit rather than round ("1048580KiB", "1234.567us"), so a
 * configuration reads back as set. They return buf.
 */
#define FNBLK_UNIT_BUFLEN	32
const char *fnblk_format_size(uint64_t bytes, char *buf, size_t len);
const char *fnblk_format_size_exact(uint64_t bytes, char *buf, size_t len);
const char *fnblk_format_rate(uint64_t bytes_per_s, char *buf, size_t len);
const char *fnblk_format_duration(uint64_t ns, char *buf, size_t len);
const char *fnblk_format_duration_exact(uint64_t ns, char *buf, size_t len);

#endif /* FNBLK_UNITS_H */
