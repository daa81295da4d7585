// SPDX-License-Identifier: GPL-2.0
/*
 * helper_hog MIB SECONDS: hold MIB MiB of anonymous memory (touched) for
 * SECONDS, then exit; memory pressure for the VM tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len;
	char *p;

	if (argc != 3) {
		fprintf(stderr, "usage: helper_hog MIB SECONDS\n");
		return 2;
	}
	len = (size_t)atoi(argv[1]) << 20;
	p = malloc(len);
	if (!p) {
		perror("helper_hog");
		return 1;
	}
	memset(p, 1, len);
	sleep((unsigned int)atoi(argv[2]));
	return p[len - 1] == 1 ? 0 : 1;
}
