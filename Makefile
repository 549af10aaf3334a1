# SPDX-License-Identifier: GPL-2.0
#
# make            build mlx5_core.ko and mlx5_ib.ko (KDIR: the toolbox kernel,
#                 or e.g. KDIR=/lib/modules/$(uname -r)/build on a real host)
# make emu        build the emulator and its unit tests (CMake)
# make emu-test-asan  the unit tests against the emulator built with ASan +
#                 UBSan (build/emu-asan; a stage of make check)
# make run        the demo: QEMU + 2 emulated HCAs, our driver pair, ibv_devinfo,
#                 ibv_rc_pingpong
# make check      every test: emulator unit tests and guest tests (KTAP)
# make modules-renamed  our pair as mlx5c_core.ko and mlx5c_ib.ko, in
#                 build/mlx5c-modules/{core,ib}: a test build that loads beside
#                 the in-tree mlx5_core/mlx5_ib (MLX5C_MODNAME below)
# make MLX5C_TEST=1  the modules with the GEN_EQE self-test harness
#                 (core/test.c) that guest tests drive; make check and the
#                 builds for test guests set it, make install and DKMS not
# make bench-emu  host-only emulator data-path benchmark next to memcpy
# make check-long the tests too slow for make check (hours under TCG: the
#                 fault sweep)
# make check-debug the guest suite on a debug kernel (KASAN, kmemleak,
#                 lockdep...: scripts/debug-kernel builds it once, hours on 2
#                 cores), then a kmemleak scan
# make toolbox    create the Debian trixie tree used to build and boot
# make sid-root   create the Debian sid tree of the seeds' baseline lane
#                 (rdma-core 65; scripts/sid-root)

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TOOLBOX_DIR = $(shell $(TOP)/scripts/toolbox --print-dir)
TOOLBOX_KVER = $(shell ls $(TOOLBOX_DIR)/lib/modules 2>/dev/null | sort -V | tail -n1)
DKMS_NAME := $(shell sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' $(TOP)/dkms.conf)
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(TOP)/dkms.conf)
# What DKMS needs of the tree: the module sources and their build files.
DKMS_FILES := Makefile Kbuild dkms.conf core ib include scripts/kcompat

ifeq ($(KDIR),)
# Default: the toolbox kernel, built inside the toolbox with its own gcc,
# with the extra warnings (W=1).
W ?= 1
KBUILD_RUN = $(TOP)/scripts/in-toolbox
KDIR_USED = /lib/modules/$(TOOLBOX_KVER)/build
MODULES_DEP = toolbox
else
# A given kernel (a real host, DKMS): no extra warnings unless W is set
# (scripts/build-matrix sets W=1 in the environment of its DKMS builds).
W ?=
KBUILD_RUN =
KDIR_USED = $(KDIR)
MODULES_DEP =
endif

JOBS ?= $(shell nproc)
# -jJOBS, unless make already runs parallel (DKMS calls make -jN): a -j given
# to a sub-make again makes it warn and leave the jobserver.
JOBS_FLAG = $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j$(JOBS))

.PHONY: all modules modules-renamed kverbs-test dmabuf-exporter sriov-shim clean emu emu-test emu-asan emu-test-asan emu-fuzz toolbox sid-root selftests selftests-bins selftests-sid check check-long check-debug debug-kernel run bench bench-emu install dkms-src dkms-install dkms-remove

all: modules

KCOMPAT_H := $(TOP)/include/mlx5c/kcompat_generated.h

# MLX5C_MODNAME=PREFIX names the modules PREFIX_core and PREFIX_ib (default
# mlx5: mlx5_core and mlx5_ib, the names make install and DKMS use); the
# auxiliary devices, the PCI driver and the ib module's match follow it.
MLX5C_MODNAME ?=
# MODNAME_CHECK VARIABLE,VALUE: make stops, saying why, unless VALUE is a
# module name prefix.
MODNAME_CHECK = $(if $(shell printf '%s' '$(2)' | grep -Ex '[a-z][a-z0-9_]{0,40}'),,\
	$(error $(1)='$(2)': a module name prefix is a lower-case letter, then lower-case letters, digits or _))

modules: $(MODULES_DEP)
	$(if $(MLX5C_MODNAME),$(call MODNAME_CHECK,MLX5C_MODNAME,$(MLX5C_MODNAME)))
	$(KBUILD_RUN) sh $(TOP)/scripts/kcompat/gen $(KDIR_USED) $(KCOMPAT_H)
	$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(TOP) W=$(W) MLX5C_TEST=$(MLX5C_TEST) MLX5C_MODNAME=$(MLX5C_MODNAME) $(JOBS_FLAG) modules

# The renamed test build: a copy of the module sources in RENAMED_DIR
# (only files newer than the copy's are copied again, so that kbuild
# rebuilds what changed), built there with MLX5C_MODNAME=RENAMED_PREFIX
# (the objects of the tree's own build keep their names and flags).
# Ours and the in-tree pair then load together (mixed_pair_test.sh;
# selftests' lib.sh: mlx5_load_mixed).
RENAMED_PREFIX ?= mlx5c
RENAMED_DIR ?= $(TOP)/build/$(RENAMED_PREFIX)-modules
RENAMED_SOURCES = cd $(TOP) && find Kbuild core ib include -type f \
	\( -name '*.[ch]' -o -name Kbuild \) ! -name '*.mod.c' ! -name kcompat_generated.h
modules-renamed: $(MODULES_DEP)
	$(call MODNAME_CHECK,RENAMED_PREFIX,$(RENAMED_PREFIX))
	mkdir -p $(RENAMED_DIR)
	$(RENAMED_SOURCES) -print0 | xargs -0 cp -pu --parents -t $(RENAMED_DIR)
	$(KBUILD_RUN) sh $(TOP)/scripts/kcompat/gen $(KDIR_USED) $(RENAMED_DIR)/include/mlx5c/kcompat_generated.h
	$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(RENAMED_DIR) W=$(W) MLX5C_TEST=$(MLX5C_TEST) \
		MLX5C_MODNAME=$(RENAMED_PREFIX) $(JOBS_FLAG) modules

clean:
	-$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(TOP) clean
	-$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(SELFTESTS_DIR)/kverbs clean
	-$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(SELFTESTS_DIR)/dmabuf_exporter clean
	-$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(SELFTESTS_DIR)/sriov_shim clean
	rm -rf $(TOP)/build $(KCOMPAT_H)

toolbox:
	$(TOP)/scripts/toolbox

# ccache (when installed) keeps emulator objects across clones: its cache
# lives with the toolbox's, and paths are hashed relative to the clone. Its
# direct mode is off (scripts/lib/ccache-setup says why).
CCACHE := $(shell command -v ccache 2>/dev/null)
EMU_CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo
ifneq ($(CCACHE),)
EMU_CMAKE_FLAGS += -DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE)
export CCACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/mlx5-clone/ccache
export CCACHE_BASEDIR := $(TOP)
export CCACHE_NOHASHDIR := 1
endif

emu:
	$(if $(CCACHE),$(TOP)/scripts/lib/ccache-setup $(CCACHE_DIR))
	cmake -S $(TOP)/emu -B $(TOP)/build/emu $(EMU_CMAKE_FLAGS) >/dev/null
	cmake --build $(TOP)/build/emu -j$(JOBS)

# A test that hangs fails after EMU_TEST_TIMEOUT seconds (the longest
# take a second or two, under ASan and load a few more) instead of
# holding make check until CI's limit.
EMU_TEST_TIMEOUT ?= 300
emu-test: emu
	ctest --test-dir $(TOP)/build/emu --output-on-failure --timeout $(EMU_TEST_TIMEOUT) -j$(JOBS)

# The emulator under AddressSanitizer and UBSan, in build/emu-asan, and its
# unit tests run against it; a sanitizer report fails the test that caused
# it. A stage of make check (scripts/check builds it beside the guests).
# The library and the program are instrumented (-O1 -g1); the test files
# are compiled as make emu compiles them (same build type and flags), so
# that ccache serves them from make emu's objects: a cold build compiles
# about 100 library files (Documentation/measurements.md has the figures).
# EMU_ASAN_TESTS=ON instruments every file, the test files too, at the
# build type's -O2 -g (several times the cold cost, no ccache hits).
EMU_ASAN_TESTS ?= OFF
EMU_SANITIZE := -DMLX5EMU_SANITIZE=address,undefined
EMU_ASAN_CMAKE_FLAGS := $(EMU_CMAKE_FLAGS) $(EMU_SANITIZE) -DMLX5EMU_SANITIZE_TESTS=$(EMU_ASAN_TESTS)
EMU_ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
emu-asan:
	$(if $(CCACHE),$(TOP)/scripts/lib/ccache-setup $(CCACHE_DIR))
	cmake -S $(TOP)/emu -B $(TOP)/build/emu-asan $(EMU_ASAN_CMAKE_FLAGS) >/dev/null
	$(EMU_ASAN_ENV) cmake --build $(TOP)/build/emu-asan -j$(JOBS)

emu-test-asan: emu-asan
	$(EMU_ASAN_ENV) ctest --test-dir $(TOP)/build/emu-asan --output-on-failure --timeout $(EMU_TEST_TIMEOUT) -j$(JOBS)

# The libFuzzer targets of emu/fuzz (clang++, ASan + UBSan on every object,
# -O1, build/emu-fuzz); scripts/fuzz runs them (a bounded time each; make
# check-long runs every target for CHECK_LONG_FUZZ_SECONDS) and makes
# their seed corpora (emu/fuzz/corpus).
FUZZ_CXX ?= clang++
emu-fuzz:
	$(if $(CCACHE),$(TOP)/scripts/lib/ccache-setup $(CCACHE_DIR))
	cmake -S $(TOP)/emu -B $(TOP)/build/emu-fuzz $(filter-out -DCMAKE_BUILD_TYPE=%,$(EMU_CMAKE_FLAGS)) \
		-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS=-O1 $(EMU_SANITIZE) -DCMAKE_CXX_COMPILER=$(FUZZ_CXX) \
		-DMLX5EMU_FUZZ=ON >/dev/null
	$(EMU_ASAN_ENV) cmake --build $(TOP)/build/emu-fuzz -j$(JOBS) --target fuzzers

# Test programs of selftests/ built natively with the toolbox gcc (the guest
# would compile them under TCG).
SELFTESTS_DIR := $(TOP)/selftests/drivers/mlx5
# selftests-bins: the C programs, compiled by SELFTESTS_CC into SELFTESTS_OUT.
SELFTESTS_CC ?= $(TOP)/scripts/in-toolbox gcc
SELFTESTS_OUT ?= $(SELFTESTS_DIR)
selftests: toolbox
	$(MAKE) selftests-bins
	$(MAKE) kverbs-test
	$(MAKE) dmabuf-exporter
	$(MAKE) sriov-shim

selftests-bins:
	mkdir -p $(SELFTESTS_OUT)
	$(SELFTESTS_CC) -O2 -Wall -Wextra \
		-o $(SELFTESTS_OUT)/ib_udata_test $(SELFTESTS_DIR)/ib_udata_test.c \
		$(SELFTESTS_DIR)/ib_udata_lib.c $(SELFTESTS_DIR)/ib_uverbs_raw.c \
		$(wildcard $(SELFTESTS_DIR)/ib_udata_cases_*.c)
	$(SELFTESTS_CC) -O2 -Wall -Wextra \
		-o $(SELFTESTS_OUT)/ib_verbs_test $(SELFTESTS_DIR)/ib_verbs_test.c \
		$(SELFTESTS_DIR)/ib_verbs_lib.c $(wildcard $(SELFTESTS_DIR)/ib_verbs_cases_*.c) -libverbs
	$(SELFTESTS_CC) -O2 -Wall -Wextra \
		-o $(SELFTESTS_OUT)/upstream_verbs_test $(SELFTESTS_DIR)/upstream_verbs_test.c \
		$(SELFTESTS_DIR)/ib_verbs_lib.c $(wildcard $(SELFTESTS_DIR)/upstream_verbs_cases_*.c) -libverbs
	$(SELFTESTS_CC) -O2 -Wall -Wextra \
		-o $(SELFTESTS_OUT)/doorbell_abuse $(SELFTESTS_DIR)/doorbell_abuse.c -libverbs -lmlx5
	$(SELFTESTS_CC) -O2 -Wall -Wextra \
		-o $(SELFTESTS_OUT)/verbs_compat_test $(SELFTESTS_DIR)/verbs_compat_test.c \
		$(SELFTESTS_DIR)/ib_verbs_lib.c $(wildcard $(SELFTESTS_DIR)/verbs_compat_cases_*.c) -libverbs -lmlx5
	$(SELFTESTS_CC) -O2 -Wall -Wextra \
		-o $(SELFTESTS_OUT)/verbs_diff_test $(SELFTESTS_DIR)/verbs_diff_test.c \
		$(SELFTESTS_DIR)/ib_verbs_lib.c $(SELFTESTS_DIR)/ib_uverbs_raw.c \
		$(wildcard $(SELFTESTS_DIR)/verbs_diff_cases_*.c) -libverbs -lmlx5
	$(SELFTESTS_CC) -O2 -Wall -Wextra \
		-o $(SELFTESTS_OUT)/isolation_test $(SELFTESTS_DIR)/isolation_test.c \
		$(SELFTESTS_DIR)/ib_verbs_lib.c -libverbs -lmlx5
	$(SELFTESTS_CC) -O2 -Wall -Wextra \
		-o $(SELFTESTS_OUT)/dm_alloc $(SELFTESTS_DIR)/dm_alloc.c -libverbs

# The seeds' baseline lane: the Debian sid tree with rdma-core 65
# (scripts/sid-root), and the C programs built in it against rdma-core 65's
# headers and libraries, into build/selftests-sid (MLX5_BIN_DIR of the lane).
SID_ROOT = $(shell $(TOP)/scripts/sid-root --print-dir)
sid-root:
	$(TOP)/scripts/sid-root

selftests-sid: toolbox sid-root
	$(MAKE) selftests-bins SELFTESTS_OUT=$(TOP)/build/selftests-sid \
		SELFTESTS_CC="$(TOP)/scripts/in-toolbox --root $(SID_ROOT) gcc"

# The in-kernel verbs self-test module (kverbs_test.sh loads it), built as
# the driver modules are.
kverbs-test: $(MODULES_DEP)
	$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(SELFTESTS_DIR)/kverbs W=$(W) $(JOBS_FLAG) modules

# The test-only dynamic DMA-BUF exporter (verbs_compat_test.sh loads it).
dmabuf-exporter: $(MODULES_DEP)
	$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(SELFTESTS_DIR)/dmabuf_exporter W=$(W) $(JOBS_FLAG) modules

# The test-only SR-IOV shim (sriov_test.sh loads it; Documentation/emulator.md,
# "SR-IOV").
sriov-shim: $(MODULES_DEP)
	$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(SELFTESTS_DIR)/sriov_shim W=$(W) $(JOBS_FLAG) modules

check: toolbox emu selftests selftests-sid
	$(TOP)/scripts/check

check-long: toolbox emu selftests
	$(TOP)/scripts/check-long

check-debug: toolbox emu selftests
	$(TOP)/scripts/check-debug

debug-kernel: toolbox
	$(TOP)/scripts/debug-kernel

run: toolbox emu modules
	$(TOP)/scripts/vm --hca 2 -- sh scripts/demo

# Benchmarks, not tests: probe time, then perftest and verbs rates on the
# in-tree pair, ours and rdma_rxe, BENCH_ROUNDS rounds interleaved; then
# on Ethernet ports a TCP transfer of BENCH_ETH_MIB MiB and RoCE perftest,
# BENCH_ETH_ROUNDS rounds. Bandwidth tests run MLX5_BENCH_SECONDS (default
# 3), latency tests 10 x BENCH_ITERS iterations (scripts/bench/lib.sh).
BENCH_ITERS ?= 200
BENCH_ROUNDS ?= 5
BENCH_ETH_MIB ?= 16
BENCH_ETH_ROUNDS ?= 3
bench: toolbox emu modules
	$(TOP)/scripts/bench/run probe
	$(TOP)/scripts/bench/run perf $(BENCH_ITERS) $(BENCH_ROUNDS)
	$(TOP)/scripts/bench/run eth $(BENCH_ETH_MIB) $(BENCH_ITERS) $(BENCH_ETH_ROUNDS)
	$(TOP)/scripts/bench/readme

# Host only, no guest: the emulator's data path driven directly, next to
# memcpy (emu/bench/dp_bench.cc); BENCH_EMU_SECONDS per figure.
bench-emu: emu
	$(TOP)/build/emu/mlx5emu_bench $(BENCH_EMU_SECONDS)

# Install into /lib/modules/<kver>/updates (found before the in-tree modules).
# Never the test harness in an installed module.
install: override MLX5C_TEST :=
install: modules
	$(KBUILD_RUN) $(MAKE) -C $(KDIR_USED) M=$(TOP) INSTALL_MOD_DIR=updates modules_install
	$(KBUILD_RUN) depmod -a $(notdir $(patsubst %/build,%,$(KDIR_USED)))

# DKMS: copy the module sources to /usr/src/<name>-<version>, then add,
# build and install them for the running kernel.
dkms-src:
	rm -rf $(DESTDIR)/usr/src/$(DKMS_NAME)-$(DKMS_VERSION)
	mkdir -p $(DESTDIR)/usr/src/$(DKMS_NAME)-$(DKMS_VERSION)
	cd $(TOP) && cp -r --parents $(DKMS_FILES) $(DESTDIR)/usr/src/$(DKMS_NAME)-$(DKMS_VERSION)/
	find $(DESTDIR)/usr/src/$(DKMS_NAME)-$(DKMS_VERSION) \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \
		-o -name '*.mod' -o -name '*.mod.c' -o -name modules.order -o -name Module.symvers \
		-o -name kcompat_generated.h \) -delete

dkms-install:
	$(MAKE) -C $(TOP) --no-print-directory dkms-src
	dkms add -m $(DKMS_NAME) -v $(DKMS_VERSION)
	dkms build -m $(DKMS_NAME) -v $(DKMS_VERSION)
	dkms install -m $(DKMS_NAME) -v $(DKMS_VERSION)

dkms-remove:
	dkms remove -m $(DKMS_NAME) -v $(DKMS_VERSION) --all
	rm -rf /usr/src/$(DKMS_NAME)-$(DKMS_VERSION)
