// SPDX-License-Identifier: GPL-2.0
/*
 * json_check: exit 0 if standard input is one or more JSON documents
 * (a document, or JSON lines) and nothing else; otherwise say where it
 * broke and exit 1. For the command-line tests (cli_check.sh), which must
 * not need jq or python on a fresh machine.
 */
#include <stdio.h>

#include "json_docs.h"

int main(void)
{
	char err[256];
	int docs = fnblk_json_each(stdin, NULL, NULL, err, sizeof(err));

	if (docs < 0) {
		fprintf(stderr, "json_check: %s\n", err);
		return 1;
	}
	if (!docs) {
		fprintf(stderr, "json_check: no JSON on standard input\n");
		return 1;
	}
	return 0;
}
