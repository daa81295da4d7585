/* SPDX-License-Identifier: GPL-2.0 */
/* fnblk-analyze on a replay's event file (replay.c). */
#ifndef FNBLK_ANALYZE_REPLAY_H
#define FNBLK_ANALYZE_REPLAY_H

#include <stdbool.h>

/* The file starts as a replay event file does. */
bool replay_is_events(const char *path);
/* KPIs and per-site series, figures into plot_dir; the exit status. */
int replay_analyze(const char *path, const char *plot_dir, bool json);

#endif /* FNBLK_ANALYZE_REPLAY_H */
