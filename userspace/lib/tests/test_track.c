// SPDX-License-Identifier: GPL-2.0
/* TAP tests of event-stream n tracking: order, gaps, snapshots (track.c). */
#include <stdio.h>
#include <string.h>

#include "track.h"

static int nr_tests, nr_failed;

static void ok(int cond, const char *name)
{
	nr_tests++;
	if (!cond)
		nr_failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", nr_tests, name);
}

static struct fnblk_dev_event user_ev(uint32_t dev, bool active, uint64_t seq,
				      uint32_t n)
{
	struct fnblk_dev_event ev = {
		.cmd = active ? FNBLK_CMD_EVT_USER_ACTIVE :
				FNBLK_CMD_EVT_USER_IDLE,
		.dev_id = dev, .seq = seq, .has_seq = true, .nr_active = n,
		.has_nr_active = true, .user_key = 100 + seq,
	};

	snprintf(ev.dev_name, sizeof(ev.dev_name), "fnblk%u", dev);
	return ev;
}

static struct fnblk_dev_event dev_ev(uint32_t dev, uint8_t cmd, uint64_t seq)
{
	struct fnblk_dev_event ev = {
		.cmd = cmd, .dev_id = dev, .seq = seq, .has_seq = true,
	};

	snprintf(ev.dev_name, sizeof(ev.dev_name), "fnblk%u", dev);
	return ev;
}

static struct fnblk_stats snap(uint32_t dev, uint64_t events, uint32_t n)
{
	struct fnblk_stats st;

	memset(&st, 0, sizeof(st));
	st.dev_id = dev;
	snprintf(st.dev_name, sizeof(st.dev_name), "fnblk%u", dev);
	st.val[FNBLK_STAT_EVENTS] = events;
	st.val[FNBLK_STAT_NR_ACTIVE] = n;
	return st;
}

int main(void)
{
	struct fnblk_track t;
	struct fnblk_track_dev d;
	struct fnblk_dev_event ev;
	struct fnblk_stats st;
	uint64_t lost;
	int v;

	printf("TAP version 13\n");
	fnblk_track_init(&t);

	/* Start from a snapshot: seq 10, n 2. */
	st = snap(0, 10, 2);
	ok(fnblk_track_snapshot(&t, &st) != NULL &&
	   fnblk_track_find(&t, 0)->seq == 10 && fnblk_track_find(&t, 0)->n == 2,
	   "snapshot sets seq and n");

	ev = user_ev(0, false, 9, 1);
	ok(fnblk_track_event(&t, &ev, &d, &lost) == FNBLK_TRACK_STALE,
	   "an event the snapshot covers is stale");
	ev = user_ev(0, false, 10, 2);
	ok(fnblk_track_event(&t, &ev, &d, &lost) == FNBLK_TRACK_STALE,
	   "the snapshot's own last event is stale");
	ev = user_ev(0, true, 11, 3);
	v = fnblk_track_event(&t, &ev, &d, &lost);
	ok(v == FNBLK_TRACK_APPLIED && d.n == 3 && d.seq == 11 &&
	   !strcmp(d.name, "fnblk0"), "the next event applies: n 3, seq 11");
	ok(fnblk_track_find(&t, 0)->n == 3, "applied n is remembered");

	/* Events 12..14 lost. */
	ev = user_ev(0, false, 15, 1);
	v = fnblk_track_event(&t, &ev, &d, &lost);
	ok(v == FNBLK_TRACK_GAP && lost == 3, "a gap of 3 is reported");
	ok(fnblk_track_find(&t, 0)->n == 3 &&
	   fnblk_track_find(&t, 0)->seq == 11, "a gap changes nothing");
	/* Resync taken after event 15 was sent: it is covered. */
	st = snap(0, 15, 1);
	fnblk_track_snapshot(&t, &st);
	ok(fnblk_track_event(&t, &ev, &d, &lost) == FNBLK_TRACK_STALE,
	   "after a resync the gapped event is covered by the snapshot");
	ev = user_ev(0, false, 16, 0);
	v = fnblk_track_event(&t, &ev, &d, &lost);
	ok(v == FNBLK_TRACK_APPLIED && d.n == 0, "tracking resumes after it");

	/* A resync that raced ahead of nothing: the event is the next one. */
	ev = user_ev(0, true, 20, 1);
	ok(fnblk_track_event(&t, &ev, &d, &lost) == FNBLK_TRACK_GAP &&
	   lost == 3, "another gap");
	st = snap(0, 19, 0);
	fnblk_track_snapshot(&t, &st);
	v = fnblk_track_event(&t, &ev, &d, &lost);
	ok(v == FNBLK_TRACK_APPLIED && d.n == 1 && d.seq == 20,
	   "event just past the snapshot applies");

	/* Devices: unknown until added; removal forgets. */
	ev = user_ev(1, true, 5, 1);
	ok(fnblk_track_event(&t, &ev, &d, &lost) == FNBLK_TRACK_UNKNOWN,
	   "a user event of an unseen device asks for a resync");
	ev = dev_ev(2, FNBLK_CMD_EVT_DEV_ADDED, 1);
	v = fnblk_track_event(&t, &ev, &d, &lost);
	ok(v == FNBLK_TRACK_APPLIED && d.n == 0 && d.seq == 1 && d.id == 2,
	   "an added device starts with its first event");
	ev = user_ev(2, true, 2, 1);
	ok(fnblk_track_event(&t, &ev, &d, &lost) == FNBLK_TRACK_APPLIED &&
	   d.n == 1, "and is tracked from there");
	ev = dev_ev(2, FNBLK_CMD_EVT_DEV_CHANGED, 3);
	ok(fnblk_track_event(&t, &ev, &d, &lost) == FNBLK_TRACK_APPLIED &&
	   d.n == 1, "a device event keeps n");
	ev = dev_ev(2, FNBLK_CMD_EVT_DEV_REMOVED, 4);
	ok(fnblk_track_event(&t, &ev, &d, &lost) == FNBLK_TRACK_APPLIED &&
	   d.id == 2 && !fnblk_track_find(&t, 2),
	   "removal applies, then the device is forgotten");
	ok(fnblk_track_find(&t, 0) && fnblk_track_find(&t, 0)->seq == 20,
	   "other devices are untouched");

	/* Many devices grow the table; forget_all empties it. */
	for (uint32_t i = 10; i < 40; i++) {
		st = snap(i, i, i % 3);
		fnblk_track_snapshot(&t, &st);
	}
	ok(fnblk_track_find(&t, 39) && fnblk_track_find(&t, 39)->n == 0 &&
	   fnblk_track_find(&t, 10)->seq == 10, "thirty more devices tracked");
	fnblk_track_forget_all(&t);
	ok(!fnblk_track_find(&t, 0) && !fnblk_track_find(&t, 39),
	   "forget_all forgets every device");

	fnblk_track_free(&t);
	printf("1..%d\n", nr_tests);
	return nr_failed ? 1 : 0;
}
