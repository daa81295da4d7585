// SPDX-License-Identifier: GPL-2.0
/* The locality map of the replay tools (see replay_locality.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* getline, strdup */
#endif
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "replay_locality.h"

void replay_locality_init(struct replay_locality *l)
{
	memset(l, 0, sizeof(*l));
}

void replay_locality_free(struct replay_locality *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->e[i].category);
		free(l->e[i].sites);
	}
	free(l->e);
	replay_locality_init(l);
}

int replay_locality_add(struct replay_locality *l, const char *category,
			const char *sites, const char *const *names,
			unsigned int nr, char *err, size_t errlen)
{
	struct replay_locality_entry *e;
	char *copy, *tok, *save = NULL;
	int ret = -1;

	if (replay_locality_of(l, category))
		return fnblk_seterr(err, errlen, "category %s mapped twice", category);
	e = realloc(l->e, (l->nr + 1) * sizeof(*e));
	if (!e)
		return fnblk_seterr(err, errlen, "out of memory");
	l->e = e;
	e = &l->e[l->nr];
	memset(e, 0, sizeof(*e));
	copy = strdup(sites);
	e->category = strdup(category);
	e->sites = calloc(nr ? nr : 1, sizeof(*e->sites));
	if (!copy || !e->category || !e->sites) {
		fnblk_seterr(err, errlen, "out of memory");
		goto out;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int s;
		size_t k;

		for (s = 0; s < nr && strcmp(names[s], tok); s++)
			;
		if (s == nr) {
			fnblk_seterr(err, errlen, "category %s: site '%s' is not one of the sites",
				     category, tok);
			goto out;
		}
		for (k = 0; k < e->nr && e->sites[k] != s; k++)
			;
		if (k == e->nr)
			e->sites[e->nr++] = s;
	}
	if (!e->nr) {
		fnblk_seterr(err, errlen, "category %s: no site", category);
		goto out;
	}
	l->nr++;
	ret = 0;
out:
	free(copy);
	if (ret) {
		free(e->category);
		free(e->sites);
	}
	return ret;
}

int replay_locality_read(struct replay_locality *l, const char *path,
			 const char *const *names, unsigned int nr, char *err,
			 size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, msg[256];
	unsigned long n = 0;
	size_t cap = 0;
	int ret = 0;

	if (!f)
		return fnblk_seterr(err, errlen, "%s: %s", path, strerror(errno));
	while (!ret && getline(&line, &cap, f) >= 0) {
		char *cat, *sites, *extra, *save = NULL;

		n++;
		line[strcspn(line, "#\r\n")] = '\0';
		cat = strtok_r(line, " \t", &save);
		if (!cat)
			continue;
		sites = strtok_r(NULL, " \t", &save);
		extra = strtok_r(NULL, " \t", &save);
		if (!sites || extra)
			ret = fnblk_seterr(err, errlen, "%s:%lu: not CATEGORY SITE[,SITE]...",
					   path, n);
		else if (replay_locality_add(l, cat, sites, names, nr, msg, sizeof(msg)))
			ret = fnblk_seterr(err, errlen, "%s:%lu: %s", path, n, msg);
	}
	free(line);
	fclose(f);
	return ret;
}

const struct replay_locality_entry *
replay_locality_of(const struct replay_locality *l, const char *category)
{
	size_t i;

	for (i = 0; l && i < l->nr; i++)
		if (!strcmp(l->e[i].category, category))
			return &l->e[i];
	return NULL;
}

bool replay_locality_holds(const struct replay_locality *l,
			   const char *category, uint32_t site)
{
	const struct replay_locality_entry *e = replay_locality_of(l, category);
	size_t k;

	if (!e)
		return true;
	for (k = 0; k < e->nr; k++)
		if (e->sites[k] == site)
			return true;
	return false;
}

int replay_locality_params(const struct replay_locality *l,
			   const char *const *names, struct fnblk_events *e)
{
	char name[128], value[1024];
	size_t i, k, n;

	for (i = 0; i < l->nr; i++) {
		snprintf(name, sizeof(name), "locality.%s", l->e[i].category);
		for (k = 0, n = 0; k < l->e[i].nr && n < sizeof(value); k++)
			n += (size_t)snprintf(value + n, sizeof(value) - n, "%s%s",
					      k ? "," : "", names[l->e[i].sites[k]]);
		if (fnblk_events_set_param(e, name, value))
			return -1;
	}
	return 0;
}
