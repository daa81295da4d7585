/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following n from the event stream without ever believing a stale n.
 *
 * Each device numbers its events (FNBLK_A_EVT_SEQ); user events carry the
 * n after them. A tracker keeps, per device, the last sequence number it
 * applied and that n. An event is:
 *  - applied when it is the next one (seq = last + 1);
 *  - stale when a snapshot already covers it (seq <= last): drop it;
 *  - a gap when numbers were skipped: events were lost, n may be wrong.
 * After a gap, or an overrun of the socket (ENOBUFS), the caller takes a
 * stats snapshot, whose FNBLK_STAT_EVENTS (last seq) and NR_ACTIVE the
 * kernel reads together, feeds it to fnblk_track_snapshot() and offers
 * the event again: it is then stale or next.
 *
 * Used by fnblkctl monitor; pure logic, so the host tests drive it.
 */
#ifndef FNBLK_TRACK_H
#define FNBLK_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fnblk.h"

struct fnblk_track_dev {
	uint32_t id;
	char name[FNBLK_NAME_LEN];
	uint64_t seq;			/* last applied or snapshot */
	uint32_t n;
	bool used;
};

struct fnblk_track {
	struct fnblk_track_dev *dev;
	size_t nr;			/* slots, used or not */
};

enum fnblk_track_verdict {
	FNBLK_TRACK_APPLIED,		/* state updated; print it */
	FNBLK_TRACK_STALE,		/* already covered by a snapshot */
	FNBLK_TRACK_GAP,		/* events lost: resync, offer again */
	FNBLK_TRACK_UNKNOWN,		/* device never seen: resync, again */
};

void fnblk_track_init(struct fnblk_track *t);
void fnblk_track_free(struct fnblk_track *t);

/*
 * Classify ev and, if it applies, update the device's seq and n (removal
 * forgets the device). When applied, *state is a copy of the device's
 * state after the event; on FNBLK_TRACK_GAP *lost is how many events are
 * missing. Returns a verdict, or -ENOMEM.
 */
int fnblk_track_event(struct fnblk_track *t, const struct fnblk_dev_event *ev,
		      struct fnblk_track_dev *state, uint64_t *lost);
/* Take seq and n from a snapshot; returns the device's state or NULL. */
const struct fnblk_track_dev *
fnblk_track_snapshot(struct fnblk_track *t, const struct fnblk_stats *st);
/* Forget a device (gone), or all of them (before a full resync). */
void fnblk_track_forget(struct fnblk_track *t, uint32_t id);
void fnblk_track_forget_all(struct fnblk_track *t);
const struct fnblk_track_dev *fnblk_track_find(const struct fnblk_track *t,
					       uint32_t id);

#endif /* FNBLK_TRACK_H */
