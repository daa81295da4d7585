// SPDX-License-Identifier: GPL-2.0
/* n(t) record; see ntrace.h. */
#include <inttypes.h>

#include "ntrace.h"

static void flush_held(struct ntrace *nt)
{
	if (!nt->held)
		return;
	nt->held = false;
	if (nt->any && nt->n == nt->written_n)
		return;
	fprintf(nt->f, "%" PRIu64 ",%u\n", nt->t, nt->n);
	nt->written_n = nt->n;
	nt->any = true;
}

void ntrace_open(struct ntrace *nt, FILE *f)
{
	*nt = (struct ntrace){ .f = f };
	fputs("# fnblk-ntrace v1\n# source=sim\nt_ns,n\n", f);
	ntrace_change(nt, 0, 0);
}

void ntrace_change(struct ntrace *nt, uint64_t t, unsigned int n)
{
	if (nt->held && t != nt->t)
		flush_held(nt);
	nt->t = t;
	nt->n = n;
	nt->held = true;
}

int ntrace_close(struct ntrace *nt)
{
	flush_held(nt);
	return fflush(nt->f) || ferror(nt->f) ? -1 : 0;
}
