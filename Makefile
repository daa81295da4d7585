# SPDX-License-Identifier: GPL-2.0
#
# fnblk top-level build. Every output lands under build/:
#   build/<kver>/module/fnblk.ko   the module, one object tree per kernel
#   build/root/bin/                user-space programs the test VM gets
#   build/kselftest/               installed kselftests (run_kselftest.sh)
#   build/linux-source/            checkpatch + kselftest framework, extracted
#                                  from Debian's linux-source package
#
# make [KDIR=/lib/modules/<kver>/build]  module (every installed kernel, or
#                                        KDIR only), user space, selftests
# make install [KVER=...] [PREFIX=...]   module via modules_install + depmod
#              [DESTDIR=...]             (KVER: KDIR's kernel, else the running
#                                        one), programs to $(PREFIX)/bin, their
#                                        man pages to $(PREFIX)/share/man
# make install-userspace [PREFIX=...]    the programs and man pages only
# make dkms-add                          copy the module sources to
#                                        /usr/src/fnblk-<ver>, dkms add
# make lint                              checkpatch --strict + sparse
# make uapi                              regenerate uapi/linux/fnblk.h from
#                                        Documentation/netlink/specs/fnblk.yaml
# make check-deps                        do the packages install-deps
#                                        installs provide all the sources use?
# make check [KERNELS="6.1 6.12"]        every test: host, then VMs
# make fresh-check                       the README's set-up commands on a
#                                        fresh Debian 12 root (mmdebstrap)
# make debug-kernel                      lockdep/KASAN/UBSAN/kmemleak 6.1
#                                        kernel (cached) + fnblk.ko for it
# make check-debug                       every selftest on the debug kernel;
#                                        fails on any checker report
# make demo                              checkpoint fleet on fnblk in a VM
# See Documentation/build.rst.

SRC := $(CURDIR)
BUILD := $(SRC)/build
PREFIX ?= /usr/local
KERNELS ?= 6.1 6.12
export KERNELS

# The kernels to build for: KDIR alone if given, else every kernel whose
# headers are installed (each /lib/modules/<kver>/build).
ifneq ($(KDIR),)
KDIR := $(abspath $(KDIR))
# UTS_RELEASE, not include/config/kernel.release: Debian's 6.1 headers
# put the upstream version (6.1.x) in the latter.
KVERS := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
ifeq ($(KVERS),)
$(error KDIR=$(KDIR) has no include/generated/utsrelease.h)
endif
else
KVERS := $(patsubst /lib/modules/%/build,%,$(wildcard /lib/modules/*/build))
endif

# The debug kernel (make debug-kernel), when built: the module is built for
# it too, against its object tree.
DEBUG_KERNEL := $(BUILD)/debug-kernel
DEBUG_KVER := $(if $(KDIR),,$(shell cat $(DEBUG_KERNEL)/kver 2>/dev/null))
MODULE_KVERS := $(KVERS) $(DEBUG_KVER)
kdir = $(or $(KDIR),$(if $(filter $(DEBUG_KVER),$(1)),$(DEBUG_KERNEL)/build,/lib/modules/$(1)/build))

# "make install" targets KVER: KDIR's kernel, else the running one. A
# build host (running some other kernel) names one: make install KVER=...
KVER ?= $(if $(KDIR),$(firstword $(KVERS)),$(shell uname -r))

KTOOLS := $(BUILD)/linux-source
KSFT_SRC := $(KTOOLS)/tools/testing/selftests
KSFT_OBJ := $(BUILD)/kselftest-obj
KSFT_INSTALL := $(BUILD)/kselftest

# Module sources subject to lint.
LINT_FILES = $(wildcard module/*.c module/*.h) uapi/linux/fnblk.h
# Tracepoint headers are written in the TRACE_EVENT() language, laid out as
# the kernel's include/trace/events/ are: checkpatch reads its open-ended
# TP_*( lines as misaligned C calls, so those two checks are off for them.
LINT_TRACE_FILES = $(wildcard module/*_trace.h)
CHECKPATCH = perl $(KTOOLS)/scripts/checkpatch.pl --strict --no-tree \
	--show-types --terse

.PHONY: all modules userspace root selftests kernel-tools uapi uapi-check install \
	install-module install-userspace dkms-add lint checkpatch sparse \
	check-deps check fresh-check demo debug-kernel check-debug \
	clean help $(MODULE_KVERS:%=module-%) $(KVERS:%=sparse-%)

all: uapi-check modules userspace root selftests

# uapi/linux/fnblk.h is generated from the family's YNL spec: every build
# validates the spec against the kernel's schema and checks the header is
# what it generates; "make uapi" regenerates it.
uapi-check:
	@scripts/ynl-uapi check

uapi:
	@scripts/ynl-uapi write

help:
	@sed -n '/^# make \[KDIR/,/^# See/{s/^# \{0,1\}//;p;/^See/q;}' Makefile

modules: $(MODULE_KVERS:%=module-%)

# One object tree per kernel, see scripts/mirror-module.
$(MODULE_KVERS:%=module-%): module-%:
	@if [ ! -f module/Kbuild ]; then \
		echo "  SKIP    fnblk.ko for $*: module/Kbuild does not exist yet"; \
	else \
		scripts/mirror-module $(BUILD)/$* && \
		$(MAKE) -C $(call kdir,$*) M=$(BUILD)/$* modules; \
	fi

userspace:
	$(MAKE) -C userspace all

# Programs the test VM carries, in build/root/bin (emptied first, so a
# removed program does not linger).
root: userspace
	rm -rf $(BUILD)/root/bin
	$(MAKE) -C userspace install PREFIX=$(BUILD)/root DESTDIR=

kernel-tools:
	@scripts/extract-kernel-tools $(KTOOLS)

# Build and install selftests/fnblk with the kernel's own lib.mk: the
# target directory inside the extracted selftests tree holds a symlink to
# each of our files (lib.mk is included as ../lib.mk), objects go to O=.
selftests: kernel-tools userspace
	@mkdir -p $(KSFT_SRC)/fnblk
	@find $(KSFT_SRC)/fnblk -maxdepth 1 -type l -delete
	@for f in selftests/fnblk/*; do \
		[ -f "$$f" ] && ln -sfn $(SRC)/$$f $(KSFT_SRC)/fnblk/; \
	done; true
	@rm -rf $(KSFT_INSTALL)
	$(MAKE) -C $(KSFT_SRC) TARGETS=fnblk O=$(KSFT_OBJ) \
		KSFT_INSTALL_PATH=$(KSFT_INSTALL) FNBLK_SRC=$(SRC) install >/dev/null

install: install-module install-userspace

DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC := /usr/src/fnblk-$(DKMS_VERSION)

# The module's sources only (no build/, no user space) as DKMS wants them;
# then "dkms build/install -m fnblk -v $(DKMS_VERSION) [-k KVER]".
dkms-add:
	-dkms remove -m fnblk -v $(DKMS_VERSION) --all 2>/dev/null
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/module $(DKMS_SRC)/uapi/linux
	install -m 644 dkms.conf Kbuild $(DKMS_SRC)/
	install -m 644 $(wildcard module/*.c module/*.h) module/Kbuild $(DKMS_SRC)/module/
	install -m 644 uapi/linux/fnblk.h $(DKMS_SRC)/uapi/linux/
	dkms add -m fnblk -v $(DKMS_VERSION)

# The module goes to $(DESTDIR)/lib/modules/$(KVER) (INSTALL_MOD_PATH). A
# staged tree gets no depmod: that runs where it is installed (postinst).
install-module: modules
	@if [ ! -f $(BUILD)/$(KVER)/module/fnblk.ko ]; then \
		if [ ! -d $(call kdir,$(KVER)) ]; then \
			echo "install: kernel $(KVER) has no headers here" \
				"($(call kdir,$(KVER))): install linux-headers-$(KVER)," \
				"or name a kernel fnblk.ko was built for:" \
				"make install KVER=<$(strip $(KVERS))>" \
				"(make install-userspace installs the programs alone)" >&2; \
		else \
			echo "install: fnblk.ko was not built for $(KVER)" \
				"(make KDIR=$(call kdir,$(KVER)))" >&2; \
		fi; \
		exit 1; \
	fi
	$(MAKE) -C $(call kdir,$(KVER)) M=$(BUILD)/$(KVER) \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(abspath $(DESTDIR))) modules_install
	$(if $(DESTDIR),@echo "install: $(DESTDIR) is a staged tree: run" \
		"depmod $(KVER) where it is installed",depmod -a $(KVER))

install-userspace: userspace
	$(MAKE) -C userspace install PREFIX=$(PREFIX)

lint: checkpatch sparse

checkpatch: kernel-tools
	$(CHECKPATCH) -f $(filter-out $(LINT_TRACE_FILES),$(LINT_FILES))
	$(CHECKPATCH) --ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		-f $(LINT_TRACE_FILES)

# Sparse through Kbuild (C=2 checks every file, built or not); any warning
# in our sources fails. Compiler warnings fail too.
sparse: $(KVERS:%=sparse-%)

$(KVERS:%=sparse-%): sparse-%:
	@if [ ! -f module/Kbuild ]; then \
		echo "  SKIP    sparse for $*: module/Kbuild does not exist yet"; \
		exit 0; \
	fi; \
	scripts/mirror-module $(BUILD)/lint/$* && \
	log=$(BUILD)/lint/$*.log && \
	$(MAKE) -C $(call kdir,$*) M=$(BUILD)/lint/$* C=2 modules >$$log 2>&1 || \
		{ cat $$log; exit 1; }; \
	warn=$$(grep -E '(warning|error):' $$log | sed 's|$(BUILD)/lint/$*/||'); \
	if [ -n "$$warn" ]; then \
		echo "$$warn"; \
		echo "sparse: $*: warnings above (full log $$log)" >&2; exit 1; \
	fi; \
	echo "  SPARSE  $*: clean"

check-deps:
	scripts/check-deps

check:
	scripts/check

fresh-check:
	scripts/fresh-check

# The kernel is cached outside the tree (scripts/debug-kernel); the module
# for it is then built by a fresh make, which sees its release.
debug-kernel:
	scripts/debug-kernel
	$(MAKE) modules

check-debug:
	scripts/check-debug

demo:
	scripts/demo

clean:
	-$(MAKE) -C userspace clean
	rm -rf $(BUILD)
