// SPDX-License-Identifier: GPL-2.0
/*
 * Staging memory: the buffers reads land in before UFFDIO_COPY maps them,
 * and the shadow copies write-back sends while writers go on. Buffers are
 * page-aligned (O_DIRECT), one free list per power-of-two size, and the
 * bytes held (in use or free) never exceed the bound: it is part of the
 * runtime's memory.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fnmap_internal.h"

#define CLASSES		15	/* 4 KiB .. 64 MiB */

struct free_buf {
	struct free_buf *next;
};

struct staging {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	uint64_t cap;
	uint64_t held;		/* in use + free */
	struct free_buf *free[CLASSES];
	unsigned int nfree[CLASSES];
};

static unsigned int class_of(size_t size)
{
	unsigned int c = 0;

	while (((size_t)FNMAP_PAGE_SIZE << c) < size && c + 1 < CLASSES)
		c++;
	return c;
}

struct staging *staging_create(uint64_t cap)
{
	struct staging *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->freed, NULL);
	s->cap = cap;
	return s;
}

/* Unmap free buffers of other classes until need more bytes fit. */
static void reclaim(struct staging *s, uint64_t need, unsigned int keep)
{
	unsigned int c;

	for (c = 0; c < CLASSES && s->held + need > s->cap; c++) {
		while (c != keep && s->free[c] && s->held + need > s->cap) {
			struct free_buf *f = s->free[c];

			s->free[c] = f->next;
			s->nfree[c]--;
			sys_munmap(f, FNMAP_PAGE_SIZE << c);
			s->held -= FNMAP_PAGE_SIZE << c;
		}
	}
}

void *staging_get(struct staging *s, size_t size, bool wait)
{
	unsigned int c = class_of(size);
	size_t bytes = FNMAP_PAGE_SIZE << c;
	void *p = NULL;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		if (s->free[c]) {
			struct free_buf *f = s->free[c];

			s->free[c] = f->next;
			s->nfree[c]--;
			p = f;
			break;
		}
		reclaim(s, bytes, c);
		if (s->held + bytes <= s->cap || !s->held) {
			p = sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED) {
				p = NULL;
				break;
			}
			s->held += bytes;
			break;
		}
		if (!wait)
			break;
		pthread_cond_wait(&s->freed, &s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return p;
}

void staging_put(struct staging *s, void *buf, size_t size)
{
	unsigned int c = class_of(size);
	struct free_buf *f = buf;

	pthread_mutex_lock(&s->lock);
	f->next = s->free[c];
	s->free[c] = f;
	s->nfree[c]++;
	pthread_cond_broadcast(&s->freed);
	pthread_mutex_unlock(&s->lock);
}

uint64_t staging_bytes(struct staging *s)
{
	uint64_t held;

	pthread_mutex_lock(&s->lock);
	held = s->held;
	pthread_mutex_unlock(&s->lock);
	return held;
}

void staging_trim(struct staging *s)
{
	pthread_mutex_lock(&s->lock);
	reclaim(s, s->cap + 1, CLASSES);
	pthread_mutex_unlock(&s->lock);
}

void staging_destroy(struct staging *s)
{
	if (!s)
		return;
	staging_trim(s);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->freed);
	free(s);
}
