/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The on-disk form of a file-backed matrix and the value of each element.
 *
 * A matrix is a 4 KiB header followed by rows x cols doubles in column
 * major order: element (i, j) is at data offset (j * rows + i) * 8, so a
 * column is contiguous and a row is spread over every column. Several
 * matrices (one per job) either sit in a directory as matrix-NNNN.fbm or
 * follow each other on one device or file, "stride" bytes apart (a
 * multiple of 1 MiB), each with its own header.
 *
 * Every element holds a value that is a known function of (i, j), the
 * matrix's seed and a version: the integer
 *
 *	version << 40 | check(i, j, version, seed)
 *
 * as a double (below 2^52, so exact), where check() is a non-zero 40-bit
 * hash. "create" writes version 0; a run that writes stores its own
 * version (1..4095, counted in the header). A reader can therefore tell,
 * for any element, that it holds a value written for that very (i, j) of
 * that matrix, whatever version it is, and a zero, a stale block or an
 * element from elsewhere never passes.
 */
#ifndef MATRIX_LAYOUT_H
#define MATRIX_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MX_MAGIC		"FNBLKMX1"
#define MX_FORMAT		1
#define MX_HEADER_SIZE		4096u
#define MX_ELEM			8u		/* sizeof(double) */
#define MX_STRIDE_ALIGN		(1u << 20)	/* matrices of a set */
#define MX_VERSION_MAX		4095u		/* 12 bits */
#define MX_MAX_ELEMS		(1ULL << 40)	/* 8 TiB of data */

/* The header as it is on disk (little-endian, the rest of 4 KiB zero). */
struct mx_header {
	char magic[8];
	uint32_t format;
	uint32_t header_size;
	uint64_t rows;
	uint64_t cols;
	uint64_t seed;
	uint64_t stride;	/* bytes from one matrix of a set to the next */
	uint32_t job;		/* this matrix's index in its set */
	uint32_t jobs;		/* matrices in the set */
	uint32_t version;	/* last version a run wrote (0: as created) */
	uint32_t reserved;
	uint64_t checksum;	/* FNV-1a of the bytes before it */
};

/* Bytes of data (rows * cols * 8) and of the whole matrix on disk. */
uint64_t mx_data_bytes(uint64_t rows, uint64_t cols);
/* Header plus data rounded up to the stride alignment. */
uint64_t mx_stride(uint64_t rows, uint64_t cols);

/* Fill a header; checksum included. */
void mx_header_init(struct mx_header *h, uint64_t rows, uint64_t cols,
		    uint64_t seed, uint32_t job, uint32_t jobs);
void mx_header_seal(struct mx_header *h);
/* 0 if the header is one of ours and consistent, else -1 and why. */
int mx_header_check(const struct mx_header *h, char *err, size_t errlen);

/* The value element (i, j) holds at a version. */
double mx_value(const struct mx_header *h, uint64_t i, uint64_t j,
		uint32_t version);
/*
 * Does x belong at (i, j)? True for the value of any version; *version
 * (if not NULL) then says which.
 */
bool mx_check(const struct mx_header *h, uint64_t i, uint64_t j, double x,
	      uint32_t *version);

/*
 * Fill n consecutive elements of column j from row i with version 0, as
 * "create" writes them.
 */
void mx_fill(const struct mx_header *h, uint64_t i, uint64_t j, size_t n,
	     double *out);

/* 64-bit mixer shared by the values and the access patterns. */
static inline uint64_t mx_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif /* MATRIX_LAYOUT_H */
