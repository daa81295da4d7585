/* SPDX-License-Identifier: GPL-2.0 */
/* The "# param" lines of a fleet run: every setting, schedule and device. */
#ifndef FLEET_PARAMS_H
#define FLEET_PARAMS_H

#include "run.h"

/*
 * Fill r->ev's source and parameters: the schedule, the I/O settings
 * (engine and qd only where they apply), start_ns, each job's plan and
 * solo time, the fnblk device's settings as it reported them when the run
 * started (r->dev) and, last, the user's --param values.
 */
void record_params(struct fleet_run *r);

#endif /* FLEET_PARAMS_H */
