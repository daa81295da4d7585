# SPDX-License-Identifier: GPL-2.0
# The build side of the command-line convention (Documentation/cli.rst),
# for every program's Makefile:
#   include ../lib/cli.mk
#   CFLAGS += $(CLI_CFLAGS)        the version cli.c reports
#   all: PROG PROG.1               PROG.1 from Documentation/man/PROG.1.in
#   test: ... $(JSON_CHECK)        then: $(CLI_CHECK) [-m PROG.1] ... ./PROG
CLI_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
CLI_REPO := $(abspath $(CLI_DIR)/../..)
FNBLK_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CLI_REPO)/dkms.conf)
CLI_CFLAGS := -DFNBLK_VERSION='"$(FNBLK_VERSION)"'
MKMAN := $(CLI_REPO)/scripts/mkman
MAN_SRC := $(CLI_REPO)/Documentation/man
CLI_CHECK := $(CLI_DIR)/tests/cli_check.sh
JSON_CHECK := $(CLI_DIR)/tests/json_check

# The rules below must not become the including Makefile's default goal.
CLI_SAVED_GOAL := $(.DEFAULT_GOAL)

# A page from its template and the program it describes, built here.
%.1: $(MAN_SRC)/%.1.in % $(MKMAN)
	$(MKMAN) ./$* $< $@
%.8: $(MAN_SRC)/%.8.in % $(MKMAN)
	$(MKMAN) ./$* $< $@
# A library's page: no program, its synopsis from its header.
%.3: $(MAN_SRC)/%.3.in $(MKMAN)
	$(MKMAN) - $< $@

# (lib/ builds it itself.)
ifneq ($(abspath $(CLI_DIR)),$(abspath .))
$(JSON_CHECK): $(CLI_DIR)/tests/json_check.c $(CLI_DIR)/json_docs.c
	$(MAKE) -C $(CLI_DIR) tests/json_check
endif

.DEFAULT_GOAL := $(CLI_SAVED_GOAL)
