/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What of a recorded fleet run the model covers. fnblk-sim compare
 * re-simulates a run from its "# param" lines; this reads the settings the
 * simulator has no model for (the page cache, files on a file system,
 * memory limits, users other than one per job) and the ones it can only
 * stand in for (a synchronous path as one request in flight), adapts the
 * simulation where it can, and says each in a note: "adapted" when the
 * simulation still models the run, "unmodelled" when it cannot (what
 * compare --strict fails on).
 */
#ifndef FNBLK_SIM_COVERAGE_H
#define FNBLK_SIM_COVERAGE_H

#include "events.h"
#include "options.h"

enum coverage_kind { COVERAGE_ADAPTED, COVERAGE_UNMODELLED };

struct coverage_note {
	const char *code;	/* the param it is about: "path", "key", ... */
	enum coverage_kind kind;
	char text[320];
};

#define COVERAGE_MAX	16

struct coverage {
	struct coverage_note note[COVERAGE_MAX];
	unsigned int nr;
	unsigned int unmodelled;	/* notes of that kind */
};

/*
 * Read e's params (already applied to o) and adapt o where the simulator
 * can stand in for what the run did: the request depth of synchronous
 * paths. Notes go to c.
 */
void coverage_check(const struct fnblk_events *e, struct sim_options *o,
		    struct coverage *c);
const char *coverage_kind_name(enum coverage_kind k);

#endif /* FNBLK_SIM_COVERAGE_H */
