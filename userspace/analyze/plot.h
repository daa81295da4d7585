/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gnuplot plumbing of fnblk-analyze's figures (plot.c), for every
 * analysis: data files and one plots.gp in a directory, then gnuplot run
 * there, so a figure can be restyled and redrawn from what it shows.
 */
#ifndef FNBLK_ANALYZE_PLOT_H
#define FNBLK_ANALYZE_PLOT_H

#include <stdio.h>

/* dir/name opened for writing, or NULL with a message on stderr. */
FILE *plot_file(const char *dir, const char *name);
/* The PNG terminal this gnuplot has ("pngcairo ..." or "png ..."). */
const char *plot_terminal(void);
/* Run dir/plots.gp in dir. 0, or -1 with a message on stderr. */
int plot_script_run(const char *dir);

#endif /* FNBLK_ANALYZE_PLOT_H */
