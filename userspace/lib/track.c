// SPDX-License-Identifier: GPL-2.0
/* Per-device sequence and n tracking of the event stream (see track.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "track.h"

void fnblk_track_init(struct fnblk_track *t)
{
	t->dev = NULL;
	t->nr = 0;
}

void fnblk_track_free(struct fnblk_track *t)
{
	free(t->dev);
	fnblk_track_init(t);
}

static struct fnblk_track_dev *find(const struct fnblk_track *t, uint32_t id)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->dev[i].used && t->dev[i].id == id)
			return &t->dev[i];
	return NULL;
}

const struct fnblk_track_dev *fnblk_track_find(const struct fnblk_track *t,
					       uint32_t id)
{
	return find(t, id);
}

static struct fnblk_track_dev *add(struct fnblk_track *t, uint32_t id,
				   const char *name)
{
	struct fnblk_track_dev *d = NULL;

	for (size_t i = 0; i < t->nr && !d; i++)
		if (!t->dev[i].used)
			d = &t->dev[i];
	if (!d) {
		size_t nr = t->nr ? 2 * t->nr : 8;
		struct fnblk_track_dev *p = realloc(t->dev, nr * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + t->nr, 0, (nr - t->nr) * sizeof(*p));
		d = &p[t->nr];
		t->dev = p;
		t->nr = nr;
	}
	memset(d, 0, sizeof(*d));
	d->id = id;
	d->used = true;
	snprintf(d->name, sizeof(d->name), "%s", name);
	return d;
}

int fnblk_track_event(struct fnblk_track *t, const struct fnblk_dev_event *ev,
		      struct fnblk_track_dev *state, uint64_t *lost)
{
	struct fnblk_track_dev *d = find(t, ev->dev_id);

	*lost = 0;
	if (!d) {
		/* A new device's history starts with its "added" event. */
		if (ev->cmd != FNBLK_CMD_EVT_DEV_ADDED && ev->has_seq)
			return FNBLK_TRACK_UNKNOWN;
		d = add(t, ev->dev_id, ev->dev_name);
		if (!d)
			return -ENOMEM;
		d->seq = ev->has_seq ? ev->seq - 1 : 0;
	}
	if (ev->has_seq) {
		if (ev->seq <= d->seq)
			return FNBLK_TRACK_STALE;
		if (ev->seq != d->seq + 1) {
			*lost = ev->seq - d->seq - 1;
			return FNBLK_TRACK_GAP;
		}
		d->seq = ev->seq;
	}
	if (ev->has_nr_active)
		d->n = ev->nr_active;
	*state = *d;
	if (ev->cmd == FNBLK_CMD_EVT_DEV_REMOVED)
		d->used = false;
	return FNBLK_TRACK_APPLIED;
}

const struct fnblk_track_dev *
fnblk_track_snapshot(struct fnblk_track *t, const struct fnblk_stats *st)
{
	struct fnblk_track_dev *d = find(t, st->dev_id);

	if (!d)
		d = add(t, st->dev_id, st->dev_name);
	if (!d)
		return NULL;
	d->seq = st->val[FNBLK_STAT_EVENTS];
	d->n = (uint32_t)st->val[FNBLK_STAT_NR_ACTIVE];
	return d;
}

void fnblk_track_forget(struct fnblk_track *t, uint32_t id)
{
	struct fnblk_track_dev *d = find(t, id);

	if (d)
		d->used = false;
}

void fnblk_track_forget_all(struct fnblk_track *t)
{
	for (size_t i = 0; i < t->nr; i++)
		t->dev[i].used = false;
}
