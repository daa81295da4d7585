// SPDX-License-Identifier: GPL-2.0
/*
 * An ordinary mmap() program for the shim tests: maps FILE whole, read
 * only and shared, says on stderr whether the mapping is the kernel's
 * (/proc/self/maps names the file) or not ("fnmap": an anonymous region),
 * and writes the mapped bytes to standard output with write(2), so the
 * kernel itself reads the region (faults from kernel mode).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int mapped_from_file(void *p, const char *path)
{
	char line[4096], real[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	int file = 0;

	if (!f || !realpath(path, real))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    (unsigned long)p >= lo && (unsigned long)p < hi)
			file = strstr(line, real) != NULL;
	fclose(f);
	return file;
}

int main(int argc, char **argv)
{
	struct stat st;
	size_t done = 0;
	char *p;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: helper_mapcat FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);
	fprintf(stderr, "%s\n", mapped_from_file(p, argv[1]) ? "kernel" : "fnmap");
	while (done < (size_t)st.st_size) {
		ssize_t n = write(1, p + done, (size_t)st.st_size - done);

		if (n <= 0) {
			perror("write");
			return 1;
		}
		done += (size_t)n;
	}
	return munmap(p, (size_t)st.st_size) ? 1 : 0;
}
