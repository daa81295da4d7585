/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where each job category's input data are: a locality map, for the
 * data-local assignment of the replay tools (Documentation/replay.rst).
 * A text file of lines "CATEGORY SITE[,SITE]..." ('#' starts a comment);
 * a category it does not name has its data at every site.
 */
#ifndef FNBLK_REPLAY_LOCALITY_H
#define FNBLK_REPLAY_LOCALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

struct replay_locality_entry {
	char *category;
	uint32_t *sites;	/* indexes into the tool's sites */
	size_t nr;
};

struct replay_locality {
	struct replay_locality_entry *e;
	size_t nr;
};

void replay_locality_init(struct replay_locality *l);
void replay_locality_free(struct replay_locality *l);

/*
 * Add "CATEGORY SITE[,SITE]..." (the sites by name, among names[0..nr));
 * 0, or -1 with what is wrong in err.
 */
int replay_locality_add(struct replay_locality *l, const char *category,
			const char *sites, const char *const *names,
			unsigned int nr, char *err, size_t errlen);
/* Read a map file. 0, or -1 with "path:line: what" in err. */
int replay_locality_read(struct replay_locality *l, const char *path,
			 const char *const *names, unsigned int nr, char *err,
			 size_t errlen);
/* The sites holding category's data, or NULL: every site does. */
const struct replay_locality_entry *
replay_locality_of(const struct replay_locality *l, const char *category);
/* Does site hold category's data? */
bool replay_locality_holds(const struct replay_locality *l,
			   const char *category, uint32_t site);
/* The map as "# param locality.CATEGORY=SITE,SITE" lines. */
int replay_locality_params(const struct replay_locality *l,
			   const char *const *names, struct fnblk_events *e);

#endif /* FNBLK_REPLAY_LOCALITY_H */
