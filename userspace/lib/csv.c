// SPDX-License-Identifier: GPL-2.0
/* CSV fields (see csv.h). */
#include <stdlib.h>
#include <string.h>

#include "csv.h"

int csv_split(char *line, char ***fields, size_t *cap, char *err,
	      size_t errlen)
{
	char *src = line, *dst = line;
	size_t nr = 0;

	for (;;) {
		if (nr == *cap) {
			size_t ncap = *cap ? 2 * *cap : 32;
			char **f = realloc(*fields, ncap * sizeof(*f));

			if (!f) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			*fields = f;
			*cap = ncap;
		}
		(*fields)[nr++] = dst;
		if (*src == '"') {
			for (src++; *src != '"' || src[1] == '"'; src++) {
				if (!*src) {
					snprintf(err, errlen, "field %zu: quote not closed on its line",
						 nr);
					return -1;
				}
				if (*src == '"')
					src++;	/* a doubled quote stands for one */
				*dst++ = *src;
			}
			src++;
			if (*src && *src != ',') {
				snprintf(err, errlen, "field %zu: text after its closing quote",
					 nr);
				return -1;
			}
		} else {
			for (; *src && *src != ','; src++) {
				if (*src == '"') {
					snprintf(err, errlen, "field %zu: quote inside an unquoted field",
						 nr);
					return -1;
				}
				*dst++ = *src;
			}
		}
		if (!*src) {
			*dst = '\0';
			return (int)nr;
		}
		*dst++ = '\0';
		src++;
	}
}

void csv_write_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
