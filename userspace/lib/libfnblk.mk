# SPDX-License-Identifier: GPL-2.0
# Include from a program's Makefile to build against libfnblk:
#   include ../lib/libfnblk.mk
#   CFLAGS += $(LIBFNBLK_CFLAGS)   LDLIBS += $(LIBFNBLK_LDLIBS)
#   prog: ... $(LIBFNBLK)
LIBFNBLK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
LIBFNBLK := $(LIBFNBLK_DIR)/libfnblk.a
LIBFNBLK_CFLAGS := -I$(LIBFNBLK_DIR) $(shell pkg-config --cflags libnl-3.0 libnl-genl-3.0 jansson)
LIBFNBLK_LDLIBS := $(LIBFNBLK) $(shell pkg-config --libs libnl-genl-3.0 libnl-3.0 jansson) -lm

# The rule below must not become the including Makefile's default goal.
LIBFNBLK_SAVED_GOAL := $(.DEFAULT_GOAL)

$(LIBFNBLK): FORCE
	$(MAKE) -C $(LIBFNBLK_DIR) libfnblk.a

.PHONY: FORCE
FORCE:

.DEFAULT_GOAL := $(LIBFNBLK_SAVED_GOAL)
