// SPDX-License-Identifier: GPL-2.0
/* The matrix header and the values of its elements (see layout.h). */
#include <stdio.h>
#include <string.h>

#include "../lib/diag.h"
#include "layout.h"

#define CHECK_BITS	40
#define CHECK_MASK	((1ULL << CHECK_BITS) - 1)
#define VALUE_LIMIT	(1ULL << 52)

uint64_t mx_data_bytes(uint64_t rows, uint64_t cols)
{
	return rows * cols * MX_ELEM;
}

uint64_t mx_stride(uint64_t rows, uint64_t cols)
{
	uint64_t b = MX_HEADER_SIZE + mx_data_bytes(rows, cols);

	return (b + MX_STRIDE_ALIGN - 1) / MX_STRIDE_ALIGN * MX_STRIDE_ALIGN;
}

static uint64_t fnv1a(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void mx_header_seal(struct mx_header *h)
{
	h->checksum = fnv1a(h, offsetof(struct mx_header, checksum));
}

void mx_header_init(struct mx_header *h, uint64_t rows, uint64_t cols,
		    uint64_t seed, uint32_t job, uint32_t jobs)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, MX_MAGIC, sizeof(h->magic));
	h->format = MX_FORMAT;
	h->header_size = MX_HEADER_SIZE;
	h->rows = rows;
	h->cols = cols;
	h->seed = seed;
	h->stride = mx_stride(rows, cols);
	h->job = job;
	h->jobs = jobs;
	mx_header_seal(h);
}

int mx_header_check(const struct mx_header *h, char *err, size_t errlen)
{
	if (memcmp(h->magic, MX_MAGIC, sizeof(h->magic)))
		return fnblk_seterr(err, errlen,
				    "no matrix here (make one with \"fnblk-matrix create\")");
	if (h->format != MX_FORMAT)
		return fnblk_seterr(err, errlen, "matrix format %u, this tool reads %u",
				    h->format, MX_FORMAT);
	if (h->checksum != fnv1a(h, offsetof(struct mx_header, checksum)))
		return fnblk_seterr(err, errlen, "matrix header checksum mismatch");
	if (h->header_size != MX_HEADER_SIZE || !h->rows || !h->cols ||
	    h->rows > MX_MAX_ELEMS / h->cols || !h->jobs || h->job >= h->jobs ||
	    h->stride != mx_stride(h->rows, h->cols) ||
	    h->version > MX_VERSION_MAX)
		return fnblk_seterr(err, errlen, "matrix header is inconsistent");
	return 0;
}

/* A non-zero 40-bit hash of the element's position, seed and version. */
static uint64_t check_bits(const struct mx_header *h, uint64_t i, uint64_t j,
			   uint32_t version)
{
	uint64_t key = mx_mix(h->seed ^ ((uint64_t)version << 48));
	uint64_t c = mx_mix(key ^ (j * h->rows + i)) & CHECK_MASK;

	return c ? c : 1;
}

double mx_value(const struct mx_header *h, uint64_t i, uint64_t j,
		uint32_t version)
{
	return (double)((uint64_t)version << CHECK_BITS |
			check_bits(h, i, j, version));
}

bool mx_check(const struct mx_header *h, uint64_t i, uint64_t j, double x,
	      uint32_t *version)
{
	uint64_t n;
	uint32_t v;

	if (!(x >= 1.0 && x < (double)VALUE_LIMIT))
		return false;
	n = (uint64_t)x;
	if ((double)n != x)
		return false;
	v = (uint32_t)(n >> CHECK_BITS);
	if (v > MX_VERSION_MAX || (n & CHECK_MASK) != check_bits(h, i, j, v))
		return false;
	if (version)
		*version = v;
	return true;
}

void mx_fill(const struct mx_header *h, uint64_t i, uint64_t j, size_t n,
	     double *out)
{
	for (size_t k = 0; k < n; k++)
		out[k] = mx_value(h, i + k, j, 0);
}
