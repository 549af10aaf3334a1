# SPDX-License-Identifier: GPL-2.0
#
# make            build mlx5_core.ko and mlx5_ib.ko (KDIR: the toolbox kernel,
#                 or e.g. KDIR=/lib/modules/$(uname -r)/build on a real host)
# make emu        build the emulator and its unit tests (CMake)
# make run        the demo: QEMU + 2 emulated HCAs, our driver pair, ibv_devinfo,
#                 ibv_rc_pingpong
# make check      every test: emulator unit tests and guest tests (KTAP)
# make toolbox    create the Debian trixie tree used to build and boot

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TOOLBOX_DIR := $(shell $(TOP)/scripts/toolbox --print-dir)
TOOLBOX_KVER = $(shell ls $(TOOLBOX_DIR)/lib/modules 2>/dev/null | sort -V | tail -n1)
W ?= 1

ifeq ($(KDIR),)
# Default: the toolbox kernel, built inside the toolbox with its own gcc.
KBUILD_RUN = $(TOP)/scripts/in-toolbox
KDIR_USED = /lib/modules/$(TOOLBOX_KVER)/build
MODULES_DEP = toolbox
else
KBUILD_RUN =
KDIR_USED = $(KDIR)
MODULES_DEP =
endif

JOBS ?= $(shell nproc)

.PHONY: all modules clean emu emu-test toolbox check run install dkms

all: modules

modules: $(MODULES_DEP)
	$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(TOP) W=$(W) -j$(JOBS) modules

clean:
	-$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(TOP) clean
	rm -rf $(TOP)/build

toolbox:
	$(TOP)/scripts/toolbox

emu:
	cmake -S $(TOP)/emu -B $(TOP)/build/emu -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(TOP)/build/emu -j$(JOBS)

emu-test: emu
	ctest --test-dir $(TOP)/build/emu --output-on-failure -j$(JOBS)

check: toolbox emu
	$(TOP)/scripts/check

run: toolbox emu modules
	$(TOP)/scripts/vm --hca 2 -- sh scripts/demo
