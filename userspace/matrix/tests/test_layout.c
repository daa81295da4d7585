// SPDX-License-Identifier: GPL-2.0
/* Host tests of the matrix format: values, checks, headers. */
#include <string.h>

#include "layout.h"
#include "tap.h"

int main(void)
{
	struct mx_header h, other;
	bool all = true, none = true;
	uint32_t v = 99;
	char err[256];

	mx_header_init(&h, 1000, 300, 42, 0, 1);
	mx_header_init(&other, 1000, 300, 43, 0, 1);
	ok(!mx_header_check(&h, err, sizeof(err)), "a fresh header checks");
	is_u64(h.stride, 3u << 20, "stride: header + 2.4MB of data rounded to 1MiB");

	for (uint64_t j = 0; j < 300; j += 7)
		for (uint64_t i = 0; i < 1000; i += 3) {
			double x = mx_value(&h, i, j, 0);

			all &= mx_check(&h, i, j, x, &v) && v == 0;
			/* the neighbours' values, the other seed's, zero: never */
			none &= !mx_check(&h, i + 1, j, x, NULL);
			none &= !mx_check(&h, i, j + 1, x, NULL);
			none &= !mx_check(&h, i, j, mx_value(&other, i, j, 0), NULL);
		}
	ok(all, "every element's value checks at its own position, version 0");
	ok(none, "no value checks at another position or under another seed");
	ok(!mx_check(&h, 0, 0, 0.0, NULL), "zero (a hole, store none) never checks");
	ok(!mx_check(&h, 0, 0, -mx_value(&h, 0, 0, 0), NULL), "a negated value does not check");
	ok(!mx_check(&h, 0, 0, mx_value(&h, 0, 0, 0) + 0.5, NULL), "a non-integer does not check");
	ok(mx_check(&h, 5, 7, mx_value(&h, 5, 7, 4095), &v) && v == 4095,
	   "the highest version checks and decodes");
	ok(mx_check(&h, 5, 7, mx_value(&h, 5, 7, 17), &v) && v == 17,
	   "an updated element decodes its version");
	ok(mx_value(&h, 5, 7, 17) != mx_value(&h, 5, 7, 18), "versions differ");

	{
		double buf[10];
		bool same = true;

		mx_fill(&h, 995, 3, 10, buf);
		for (unsigned int k = 0; k < 10; k++)
			same &= buf[k] == mx_value(&h, 995 + k, 3, 0);
		ok(same, "mx_fill writes what mx_value says (past a column's end too)");
	}

	other = h;
	other.rows *= 1000;
	ok(mx_header_check(&other, err, sizeof(err)) &&
	   strstr(err, "checksum"), "a changed header fails its checksum");
	mx_header_seal(&other);
	ok(mx_header_check(&other, err, sizeof(err)) && strstr(err, "inconsistent"),
	   "a resealed header with the wrong stride is inconsistent");
	memset(&other, 0, sizeof(other));
	ok(mx_header_check(&other, err, sizeof(err)) && strstr(err, "no matrix"),
	   "zeros are no matrix (%s)", err);
	mx_header_init(&other, 1ULL << 20, 1ULL << 20, 1, 0, 1);
	ok(!mx_header_check(&other, err, sizeof(err)), "2^40 elements are allowed");
	mx_header_init(&other, 1ULL << 21, 1ULL << 20, 1, 0, 1);
	ok(mx_header_check(&other, err, sizeof(err)), "2^41 elements are not");
	return tap_done();
}
