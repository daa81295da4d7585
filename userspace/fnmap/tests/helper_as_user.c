// SPDX-License-Identifier: GPL-2.0
/*
 * helper_as_user UID COMMAND [ARG...]: run COMMAND as UID (group UID, no
 * supplementary groups) for the unprivileged tests (the test VM has no
 * su(1) users).
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3) {
		fprintf(stderr, "usage: helper_as_user UID COMMAND [ARG...]\n");
		return 2;
	}
	uid = (uid_t)atoi(argv[1]);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("helper_as_user");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
