// SPDX-License-Identifier: GPL-2.0
/* The sites of the replay commands (see replay_sites.h). */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "replay_sites.h"
#include "units.h"

int replay_site_spec_add(void *ctx, const struct cli_option *o,
			 const char *arg, char *err, size_t errlen)
{
	struct replay_site_specs *sp = ctx;

	(void)o;
	if (sp->nr == REPLAY_MAX_SITES)
		return fnblk_seterr(err, errlen, "at most %d sites",
				    REPLAY_MAX_SITES);
	sp->spec[sp->nr++] = arg;
	return 0;
}

/*
 * "NAME[,KEY=VALUE]..." into site s, from the defaults in o. fn takes the
 * rest of the text, commas included.
 */
static int parse_site(const char *spec, const struct sim_options *dflt,
		      struct replay_site *s, char *err, size_t errlen)
{
	struct sim_options o = *dflt;
	char *copy = strdup(spec), *p, *next, msg[256];
	size_t name_len = strcspn(spec, ",");
	unsigned int i;
	int ret = -1;

	if (!copy)
		return fnblk_seterr(err, errlen, "out of memory");
	memset(s, 0, sizeof(*s));
	s->slots = 1;
	for (i = 0; i < REPLAY_NR_PHASES; i++)
		s->fail[i] = -1;
	if (!name_len || name_len >= sizeof(s->name) ||
	    strcspn(spec, "\"") < name_len) {
		fnblk_seterr(err, errlen, "site '%s': a name of 1 to %zu characters first",
			     spec, sizeof(s->name) - 1);
		goto out;
	}
	memcpy(s->name, spec, name_len);
	for (p = copy[name_len] ? copy + name_len + 1 : NULL; p; p = next) {
		char *eq = strchr(p, '=');
		const char *why;
		uint64_t v;

		if (!eq) {
			fnblk_seterr(err, errlen, "site %s: '%s' is not KEY=VALUE",
				     s->name, p);
			goto out;
		}
		*eq = '\0';
		next = NULL;
		if (strcmp(p, "fn")) {
			next = strchr(eq + 1, ',');
			if (next)
				*next++ = '\0';
		}
		switch (replay_site_fail_set(s->fail, p, eq + 1, &why)) {
		case 0:
			continue;
		case 1:
			break;
		default:
			fnblk_seterr(err, errlen, "site %s: %s '%s': %s", s->name, p,
				     eq + 1, why);
			goto out;
		}
		if (!strcmp(p, "slots")) {
			if (fnblk_parse_uint(eq + 1, 1, 1000000, &v, &why)) {
				fnblk_seterr(err, errlen, "site %s: slots '%s': %s (1 to 1000000)",
					     s->name, eq + 1, why);
				goto out;
			}
			s->slots = (unsigned int)v;
			continue;
		}
		if (!strcmp(p, "bs") || !strcmp(p, "qd") ||
		    sim_options_set(&o, p, eq + 1, msg, sizeof(msg))) {
			fnblk_seterr(err, errlen, "site %s: %s '%s': %s", s->name,
				     p, eq + 1,
				     !strcmp(p, "bs") || !strcmp(p, "qd") ?
				     "the request size and depth are every job's (--bs, --qd)" :
				     msg);
			goto out;
		}
	}
	s->dev = o.dev;
	ret = 0;
out:
	free(copy);
	return ret;
}

int replay_sites_parse(const struct replay_site_specs *sp,
		       const struct sim_options *dflt, struct replay_site **out,
		       char *err, size_t errlen)
{
	struct replay_site *sites = calloc(sp->nr ? sp->nr : 1, sizeof(*sites));
	unsigned int i, k;

	*out = sites;
	if (!sites)
		return fnblk_seterr(err, errlen, "out of memory");
	for (i = 0; i < sp->nr; i++) {
		if (parse_site(sp->spec[i], dflt, &sites[i], err, errlen))
			return -1;
		for (k = 0; k < i; k++)
			if (!strcmp(sites[k].name, sites[i].name))
				return fnblk_seterr(err, errlen, "site %s given twice",
						    sites[i].name);
	}
	return 0;
}
