# skn — build, test, install. `make help` lists the targets.
#
# make            build/libskn.so.1 (+ libskn.so; its kernels for this CPU, KERNEL_SETS=all for any x86-64) and the programs
# make check      install the missing Debian packages for every test, build, run every test
# make demo       install the build's packages, build the library (for this CPU's instruction set) and the command, skin a procedural arm
#                 and a glTF model, write pictures (scripts/install-deps says which packages are whose)
# make install    PREFIX=/usr/local: headers, library, GL and libffi adapters, skn.hpp, pkg-config file, Python and Lua packages
# make bench      the benchmark: bandwidth probes, every kernel vs the scalar reference and the yardstick
# make bench-against BASE=REV   this library against git revision REV's, in one process, row by row
# make bench-weights   bone heat on 50,000 vertices and 60 bones: Blender's own against skn's, 1 and 2 threads
# make bench-bake      skn bake of 10,000 frames (npy, zarr) against skn_skin alone; skn.bake on 1 and 2 Dask workers
# make check-threads  the unit tests under ThreadSanitizer (make check runs tests/threads under it)
# make fuzz       FUZZ_SECONDS=N: each fuzz target (tests/fuzz) on every core; make fuzz-build: them alone
# make blender-addon   build/skn_blender.zip for Blender's Preferences > Add-ons > Install
# make ffi        build/libskn_ffi.a, skn through libffi (plugins/ffi); make node-deps: plugins/node's packages

.DEFAULT_GOAL := all
PYTHON ?= /usr/bin/python3
CC ?= cc
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
LUADIR ?= $(PREFIX)/share/lua/5.1
BUILD ?= build

# Builds use every core unless told otherwise (`make -j1` wins): the kernels
# are a few large translation units, minutes each, that build side by side.
# Targets that install packages first (deps) build in a sub-make after it.
NPROC := $(shell nproc 2>/dev/null || echo 2)
# Only the top-level make sets it: the makes it starts share its jobserver,
# so that make check's four build trees (below) keep both cores busy.
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(NPROC)
endif

# The version lives in abi/skn.h (SKN_VERSION_MAJOR/MINOR/PATCH); the
# packages' own files repeat it, and tests/versions checks that they agree.
VERSION := $(shell sed -n 's/^\#define SKN_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' abi/skn.h | paste -sd.)
SONAME := libskn.so.1
LIB := $(BUILD)/$(SONAME)

WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
# SAN: sanitizer flags for the whole build (make check builds build/san with
# them, the skn command included: UBSan's float-cast-overflow is not in its
# "undefined" group, and at -O1 it changed what GCC warned of).
SAN ?=
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
LIB_CFLAGS := -std=c99 $(CFLAGS) $(SAN) -fPIC -fvisibility=hidden $(WARN) -DSKN_BUILDING -D_POSIX_C_SOURCE=200809L -I$(BUILD)/gen
LIB_LDFLAGS := $(SAN) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=abi/libskn.map -Wl,--no-undefined -pthread -lcjson -lm

CORE_SRC := $(wildcard core/*.c core/gltf/*.c core/kernels/*.c core/weights/*.c)
CORE_OBJ := $(patsubst core/%.c,$(BUILD)/obj/%.o,$(CORE_SRC))

# Each kernel source is built once per instruction set; simd.c picks at run time.
# (-Wno-psabi: the 64-byte vectors only pass between inlined static functions.)
# The sanitizer build checks the kernels' arithmetic with one width and the
# loops rolled (SKN_KERNELS_LEAN: soa.h, blocks_simd.h) and no variable
# tracking: fully unrolled, instrumenting them took minutes per file.
# Every build leaves out GCC's variable-location tracking for them
# (-fno-var-tracking-assignments): tracking the locals of the many inlined
# specialisations took about a fifth of their build time, for values a
# debugger reads in the scalar reference instead.
# GCC's combiner tried three- and four-instruction combinations across the
# DQS, BLEND and COR kernels' long straight-line bodies (dqs_<isa>.c,
# blend_<isa>.c, cor_<isa>.c, with lbsq_<isa>.c built alike) for a
# third of their build time; with pairs only, their code differs in 0.05% of
# its instructions and builds in three quarters of the time, and they run
# within 1-2% either way (`skn bench --against` the two builds). LBS
# (lbs_<isa>.c, a tenth of the code) ran 3-4% slower so and keeps the
# default. (A probe: other compilers lack the parameter.)
# Their debug information is line tables alone (-g1, where CFLAGS asks for
# any): profilers and stack traces keep the kernels' lines; the types and
# scopes of their thousands of inlined locals took a fifth of their build.
# KERNEL_DEBUG=-g on the command line gives them everything.
KERNEL_DEBUG ?= $(if $(filter -g%,$(CFLAGS)),-g1)
KERNEL_COMBINE := $(shell $(CC) -Werror --param=max-combine-insns=2 -c -x c /dev/null -o /dev/null 2>/dev/null && echo --param=max-combine-insns=2)
# KERNEL_SETS=portable builds the portable kernels alone (simd.c then has no
# other set to pick): for the trees whose tests look at something other
# than the instruction sets — the fuzzers' (below) and ThreadSanitizer's,
# whose threads program checks the pool's hand-offs, which no set changes
# (the AVX2 and AVX-512 kernels took two thirds of that tree's build).
# KERNEL_SETS=native, the default (`make`, make demo, make install), builds
# the widest set this CPU runs, as the compiler's -march=native sees it (the
# test simd.c makes at run time), and the portable set lean (below): a
# library for this machine in 0.6 of the time every set takes (81-87 s
# against 135 s here; docs/performance.md, "Build time"). A library to ship
# to other machines — a package, a wheel, the Blender add-on's zip, an
# image — is built with KERNEL_SETS=all: there every x86-64 CPU runs the
# widest set it has. (On another CPU a native library still runs, on the
# sets it holds; `skn --version` and `skn bench` say when the CPU could run
# a wider one.) make check builds and tests all.
KERNEL_SETS ?= native
ifeq ($(FUZZ),1)
# The fuzz build (clang, `make fuzz-build`): the kernels at -O0 and without
# coverage — clang takes minutes a kernel file at -O1, and their paths
# follow counts, which bind and the loader decide, not the data.
# FUZZ_KERNEL_OPT=-O1 for a long campaign: slower to build, several times faster to run.
# FUZZ_KERNEL_SETS=portable (make check's short runs) builds the portable
# set alone: the fuzzers look for inputs that break bind, the loader and
# the kernels' control (blocks, counts, morph spans), which no instruction
# set changes; the AVX2 and AVX-512 sets are held to ASan by the san tree's
# unit tests and its replay of every seed and finding (tests/run-all).
# Clang at -O0 under ASan took 30-40 s a wide kernel file.
FUZZ_KERNEL_OPT ?= -O0
FUZZ_KERNEL_SETS ?= all
KERNEL_SETS := $(FUZZ_KERNEL_SETS)
$(BUILD)/obj/kernels/%.o: KFLAGS := $(FUZZ_KERNEL_OPT) -Wno-psabi -fno-sanitize=fuzzer-no-link -DSKN_KERNELS_LEAN
SIMD_KFLAGS := $(FUZZ_KERNEL_OPT) -Wno-psabi -fno-sanitize=fuzzer-no-link
# COR's centers are arithmetic over the weights: tracing their comparisons
# guides nothing and took half the skin target's time.
$(BUILD)/obj/cor_bind.o: KFLAGS := -fno-sanitize-coverage=trace-cmp
else
# In the sanitizer trees ASan checks the kernels and UBSan does not: vector
# code on float lanes whose integer arithmetic is indices bind validated;
# UBSan's checks took half of those files' build (31.6 s against 18.6 s for
# cor_avx2.c) for none the code can fail. The rest of the library keeps both.
KERNEL_FLAGS := -Wno-psabi -fno-var-tracking-assignments $(if $(SAN),-DSKN_KERNELS_LEAN -fno-var-tracking \
  $(if $(findstring undefined,$(SAN)),-fno-sanitize=undefined -fno-sanitize=float-cast-overflow)) $(KERNEL_DEBUG)
$(BUILD)/obj/kernels/%.o: KFLAGS := $(KERNEL_FLAGS)
$(BUILD)/obj/kernels/dqs_%.o $(BUILD)/obj/kernels/blend_%.o $(BUILD)/obj/kernels/cor_%.o \
  $(BUILD)/obj/kernels/lbsq_%.o: KFLAGS := $(KERNEL_FLAGS) $(KERNEL_COMBINE)
SIMD_KFLAGS := $(KERNEL_FLAGS)
endif
ifeq ($(KERNEL_SETS),portable)
KERNELS_LEFT_OUT := avx2 avx512
else ifeq ($(KERNEL_SETS),native)
NATIVE := $(shell $(CC) -march=native -dM -E -x c /dev/null 2>/dev/null)
KERNELS_WIDEST := $(if $(and $(filter __AVX512F__,$(NATIVE)),$(filter __AVX512VL__,$(NATIVE))),avx512,$(if \
  $(and $(filter __AVX2__,$(NATIVE)),$(filter __FMA__,$(NATIVE))),avx2))
KERNELS_LEFT_OUT := $(filter-out $(KERNELS_WIDEST),avx2 avx512)
endif
CORE_OBJ := $(filter-out $(foreach s,$(KERNELS_LEFT_OUT),%_$(s).o),$(CORE_OBJ))
# Beside a wider set the portable kernels run only when asked for
# (skn_set_simd), so a native build makes them lean (SKN_KERNELS_LEAN: the
# block's own width alone, loops rolled; the same arithmetic, bit for bit):
# 20 CPU-seconds where the full set took 75, in a tree of their own
# (obj/kernels/lean), so that switching KERNEL_SETS rebuilds neither.
ifneq ($(KERNELS_WIDEST),)
CORE_OBJ := $(patsubst $(BUILD)/obj/kernels/%_portable.o,$(BUILD)/obj/kernels/lean/%_portable.o,$(CORE_OBJ))
endif
$(BUILD)/obj/kernels/simd.o: KFLAGS := $(SIMD_KFLAGS) $(if $(filter avx2,$(KERNELS_LEFT_OUT)),-DSKN_KERNELS_NO_AVX2) \
  $(if $(filter avx512,$(KERNELS_LEFT_OUT)),-DSKN_KERNELS_NO_AVX512)
# simd.o follows the choice when a tree switches (its file changes only then)
$(BUILD)/obj/kernels/simd.o: $(BUILD)/kernel-sets
$(BUILD)/kernel-sets: FORCE
	@mkdir -p $(dir $@)
	@echo $(KERNEL_SETS) $(KERNELS_LEFT_OUT) | cmp -s - $@ || echo $(KERNEL_SETS) $(KERNELS_LEFT_OUT) > $@
$(BUILD)/obj/kernels/%_avx2.o: ISA := -mavx2 -mfma
$(BUILD)/obj/kernels/%_avx512.o: ISA := -mavx2 -mfma -mavx512f -mavx512vl -mavx512dq -mprefer-vector-width=512

# Programs link against the built library with an rpath, so that they run
# from the build tree without installing anything ($ORIGIN/..), and the
# installed skn command finds PREFIX/lib from PREFIX/bin ($ORIGIN/../lib).
# `skn_bind_desc d = { sizeof d };` is the ABI's idiom: zero means default.
PROG_CFLAGS := -std=c99 $(CFLAGS) $(SAN) $(WARN) -Wno-missing-field-initializers -D_POSIX_C_SOURCE=200809L -Iabi -Iscripts -Iplugins/gl
PROG_LDFLAGS := -L$(BUILD) -Wl,-rpath,'$$ORIGIN/..' -Wl,-rpath,'$$ORIGIN' -Wl,-rpath,'$$ORIGIN/../lib' -lskn -lm

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

TEST_SRC := $(wildcard tests/unit/*.c)
GL_SRC := $(wildcard plugins/gl/*.c)
GL_LIB := $(BUILD)/libskn_gl.a
GL_TEST_SRC := $(wildcard tests/gl/*.c)
DEMO := $(BUILD)/bin/skn-demo
ADDON := $(BUILD)/skn_blender.zip
CLI := $(BUILD)/bin/skn
CLI_SRC := $(wildcard plugins/cli/*.c)
FFI_SRC := $(wildcard plugins/ffi/*.c)
FFI_OBJ := $(patsubst plugins/ffi/%.c,$(BUILD)/obj/ffi/%.o,$(FFI_SRC))
FFI_LIB := $(BUILD)/libskn_ffi.a

.PHONY: FORCE all lib gl ffi node-deps python fuzz fuzz-build blender-addon bench bench-against bench-blender bench-weights bench-bake check check-threads test demo install uninstall deps deps-build abi-baseline clean help
all: lib gl ffi $(DEMO) $(CLI) $(BUILD)/data/arm.gltf python $(ADDON) $(BUILD)/stripped/$(SONAME)
lib: $(LIB) $(BUILD)/libskn.so
gl: $(GL_LIB)
ffi: $(FFI_LIB)

# The OpenGL adapter (plugins/gl): a static library a host links beside
# libskn. It loads GL (and, for headless programs, EGL) at run time, so it
# links neither.
GL_OBJ := $(patsubst plugins/gl/%.c,$(BUILD)/obj/gl/%.o,$(GL_SRC))
$(BUILD)/obj/gl/%.o: plugins/gl/%.c plugins/gl/*.h abi/skn.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fPIC -c $< -o $@
$(GL_LIB): $(GL_OBJ)
	rm -f $@
	ar rcs $@ $(GL_OBJ)

# The libffi adapter (plugins/ffi): a static library that loads libskn at
# run time and calls it through libffi. It never sees skn.h (no -Iabi).
FFI_CFLAGS := -std=c99 $(CFLAGS) $(SAN) $(WARN) -D_POSIX_C_SOURCE=200809L -Iplugins/ffi
$(BUILD)/obj/ffi/%.o: plugins/ffi/%.c plugins/ffi/*.h
	@mkdir -p $(dir $@)
	$(CC) $(FFI_CFLAGS) -fPIC -c $< -o $@
$(FFI_LIB): $(FFI_OBJ)
	rm -f $@
	ar rcs $@ $(FFI_OBJ)

# Each object depends on the headers it includes (-MMD: the compiler lists
# them in a .d file beside it), so that editing one kernel family's header
# rebuilds that family's objects and not the minutes of all of them.
$(BUILD)/obj/%.o: core/%.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(KFLAGS) $(ISA) -MMD -MP -c $< -o $@
$(BUILD)/obj/kernels/lean/%.o: core/kernels/%.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(KFLAGS) -DSKN_KERNELS_LEAN -MMD -MP -c $< -o $@

-include $(CORE_OBJ:.o=.d)

# The GLSL pieces (core/glsl/*.glsl), embedded as C strings for glsl.c.
GLSL_SRC := $(wildcard core/glsl/*.glsl)
$(BUILD)/gen/glsl_pieces.h: $(GLSL_SRC) scripts/glsl_to_c
	@mkdir -p $(dir $@)
	scripts/glsl_to_c $(GLSL_SRC) > $@
$(BUILD)/obj/glsl.o: $(BUILD)/gen/glsl_pieces.h

$(LIB): $(CORE_OBJ) abi/libskn.map
	$(CC) $(CORE_OBJ) $(LIB_LDFLAGS) -o $@

$(BUILD)/libskn.so: $(LIB)
	ln -sf $(SONAME) $@

$(BUILD)/obj $(BUILD)/bin $(BUILD)/tests:
	mkdir -p $@

$(DEMO): scripts/demo.c scripts/arm.h abi/skn.h $(BUILD)/libskn.so | $(BUILD)/bin
	$(CC) $(PROG_CFLAGS) $< $(PROG_LDFLAGS) -o $@

# The skn command: a host of its own, built on abi/skn.h alone.
# `skn bench` times the shared yardstick (../shared/bench/lbs_ref.c, a fixed
# scalar loop) beside skn where the folder is beside the checkout, built at
# -O2 as its README says; without it the column is left out.
YARDSTICK := $(wildcard ../shared/bench/lbs_ref.c)
ifneq ($(YARDSTICK),)
YARDSTICK_OBJ := $(BUILD)/obj/yardstick/lbs_ref.o
YARDSTICK_FLAGS := -DSKN_YARDSTICK -I../shared/bench $(YARDSTICK_OBJ)
$(YARDSTICK_OBJ): $(YARDSTICK) ../shared/bench/lbs_ref.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -DREF_SUFFIX=_O2 -c $< -o $@
endif
$(CLI): $(CLI_SRC) $(wildcard plugins/cli/*.h) abi/skn.h $(BUILD)/libskn.so $(GL_LIB) $(YARDSTICK_OBJ) | $(BUILD)/bin
	$(CC) $(PROG_CFLAGS) $(YARDSTICK_FLAGS) -I/usr/include/OpenEXR $(CLI_SRC) $(GL_LIB) $(PROG_LDFLAGS) -lpng -lcjson \
	  -lOpenEXRCore-3_1 -pthread -ldl -o $@

$(BUILD)/bin/arm_gltf: scripts/arm_gltf.c scripts/arm.h | $(BUILD)/bin
	$(CC) $(PROG_CFLAGS) $< -lm -o $@

$(BUILD)/data/arm.gltf: $(BUILD)/bin/arm_gltf
	@mkdir -p $(dir $@)
	$(BUILD)/bin/arm_gltf $@

# The Python package, usable in place: PYTHONPATH=build/python (the library beside it).
PY_SRC := $(wildcard plugins/python/skn/*.py)
python: $(BUILD)/python/skn/libskn.so.1 $(patsubst plugins/python/%,$(BUILD)/python/%,$(PY_SRC))
$(BUILD)/python/skn/%: plugins/python/skn/% | $(BUILD)/python/skn
	cp $< $@
$(BUILD)/python/skn/libskn.so.1: $(LIB) | $(BUILD)/python/skn
	cp $< $@
$(BUILD)/python/skn:
	mkdir -p $@

# The Blender add-on, for Preferences > Add-ons > Install.
blender-addon: $(ADDON)
$(ADDON): $(wildcard plugins/blender/skn_blender/*.py) $(PY_SRC) $(LIB) plugins/blender/package
	@PYTHON=$(PYTHON) plugins/blender/package $(BUILD) $@

# The full benchmark: prints the table, writes build/bench.json (not a test).
bench: deps
	@$(MAKE) --no-print-directory all
	@$(CLI) bench --full -o $(BUILD)/bench.json

# This library against an earlier revision's, both in one process on the same
# rigs, calls alternating (`skn bench --against`, not a test): BASE's library
# is built once from `git archive` under build/base/REV. ARGS: the sweep.
ARGS ?= --full
bench-against: deps
	@test -n "$(BASE)" || { echo "make bench-against: say which revision, e.g. BASE=HEAD~1" >&2; exit 2; }
	@$(MAKE) --no-print-directory $(CLI)
	@rev=$$(git rev-parse --short=12 "$(BASE)^{commit}") && dir=$(BUILD)/base/$$rev && \
	  if [ ! -f $$dir/build/$(SONAME) ]; then rm -rf $$dir && mkdir -p $$dir && git archive $$rev | tar -x -C $$dir && \
	    $(MAKE) --no-print-directory -C $$dir BUILD=build lib > $$dir.log 2>&1 || { tail $$dir.log; exit 1; }; fi && \
	  $(CLI) bench --against $$dir/build/$(SONAME) $(ARGS) -o $(BUILD)/bench-against.json

# Blender's Armature modifier against the add-on's CPU and GPU modes, one Blender with a
# window on a virtual X server, then a frame change headless on the setups the add-on takes
# over (plain bones, B-Bones, shape keys) at 50,000 and 200,000 vertices, then where in the
# frame the result could go (tests/bench/blender_in_frame.py: no add-on; not a test).
bench-blender: deps
	@$(MAKE) --no-print-directory $(ADDON)
	@BLENDER_USER_SCRIPTS=$$(mktemp -d) xvfb-run -a -s "-screen 0 1024x768x24" blender --factory-startup \
	  --python tests/bench/blender_bench.py -- $(abspath $(ADDON)) 2>&1 \
	  | grep -E '^(machine|mesh|per |deformation|\(the|Linear|Preserve|GPU mode|B-Bones|a shape key|Rigify|[0-9,]+ vertices|warning)|Error|Traceback'
	@BLENDER_USER_SCRIPTS=$$(mktemp -d) blender -b --factory-startup \
	  --python tests/bench/blender_frames.py -- $(abspath $(ADDON)) 2>&1 \
	  | grep -E '^(machine|a frame|[0-9]+ rounds|where a| +[0-9,]+ |vertices| +vertices)|Error|Traceback'
	@blender -b --factory-startup -Y --python-exit-code 1 --python tests/bench/blender_in_frame.py 2>&1 \
	  | grep -E '^(a frame| +[0-9,]+ | +vertices)|Error|Traceback|not each'

# Bone heat at scale: Blender's With Automatic Weights against skn's on a
# 50,000-vertex mesh of 60 bones, and skn on 1 against 2 threads.
bench-weights: deps
	@$(MAKE) --no-print-directory $(ADDON)
	@BLENDER_USER_SCRIPTS=$$(mktemp -d) blender -b --factory-startup \
	  --python tests/bench/blender_weights.py -- $(abspath $(ADDON)) $(ROUNDS) 2>&1 \
	  | grep -E '^(mesh|Blender|skn|1 ->)|Error|Traceback'

# skn bake at scale: 10,000 frames of a 10,240-vertex character, npy and
# zarr against skn_skin alone, and skn.bake on 1 and 2 Dask workers.
bench-bake: deps
	@$(MAKE) --no-print-directory $(CLI) python
	@$(PYTHON) tests/bench/bake_bench.py $(BUILD) $(or $(FRAMES),10000) $(or $(ROUNDS),3)

# ---- tests ----
# The header's layouts as the compiler lays them out (scripts/abi_layouts):
# what every language adapter's declarations are compared with.
$(BUILD)/abi/layouts.txt: $(BUILD)/abi/layouts
	$< > $@
$(BUILD)/abi/layouts: abi/skn.h scripts/abi_layouts scripts/skn_header.py $(BUILD)/libskn.so
	@mkdir -p $(dir $@)
	$(PYTHON) scripts/abi_layouts abi/skn.h > $@.c
	$(CC) -std=c11 $(CFLAGS) $(WARN) -Iabi $@.c $(PROG_LDFLAGS) -o $@

# The C++ wrapper's test (plugins/cpp): with exceptions, and without as
# many plugin hosts are built.
CXX_TEST := $(CXX) -std=c++17 $(CFLAGS) $(SAN) $(WARN) -Iabi -Iplugins/cpp
$(BUILD)/tests/cpp: plugins/cpp/tests/test_skn.cpp plugins/cpp/skn.hpp tests/adapters/expect.h abi/skn.h $(BUILD)/libskn.so | $(BUILD)/tests
	$(CXX_TEST) -Itests/adapters $< $(PROG_LDFLAGS) -o $@
$(BUILD)/tests/cpp-no-exceptions: plugins/cpp/tests/test_skn.cpp plugins/cpp/skn.hpp tests/adapters/expect.h abi/skn.h $(BUILD)/libskn.so | $(BUILD)/tests
	$(CXX_TEST) -Itests/adapters -fno-exceptions $< $(PROG_LDFLAGS) -o $@

# The libffi adapter's test: only skn_ffi.h, every call through ffi_call.
$(BUILD)/tests/ffi: plugins/ffi/tests/test_ffi.c plugins/ffi/skn_ffi.h tests/adapters/expect.h $(FFI_LIB) | $(BUILD)/tests
	$(CC) $(FFI_CFLAGS) -Wno-missing-field-initializers -Itests/adapters $< $(FFI_LIB) -lffi -ldl -lm -o $@

# The Node package's dependencies, from its lockfile (koffi's prebuilt
# binary comes as an npm package; no install script is run).
node-deps: plugins/node/node_modules/.package-lock.json
plugins/node/node_modules/.package-lock.json: plugins/node/package.json plugins/node/package-lock.json
	cd plugins/node && npm ci --include=dev --ignore-scripts --no-audit --no-fund --loglevel=error

# The C library's own outputs for the adapters' tests to match (tests/adapters).
$(BUILD)/tests/adapter_reference: tests/adapters/reference.c tests/unit/testlib.c tests/unit/testlib.h abi/skn.h \
  $(BUILD)/libskn.so | $(BUILD)/tests
	$(CC) $(PROG_CFLAGS) $(CHECK_CFLAGS) -Itests/unit $< tests/unit/testlib.c $(PROG_LDFLAGS) $(CHECK_LIBS) -o $@
$(BUILD)/adapters/cases.txt: $(BUILD)/tests/adapter_reference
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	$< $(dir $@) data/gltf

$(BUILD)/tests/unit: $(TEST_SRC) tests/unit/*.h abi/skn.h $(BUILD)/libskn.so | $(BUILD)/tests
	$(CC) $(PROG_CFLAGS) $(CHECK_CFLAGS) $(TEST_SRC) $(PROG_LDFLAGS) $(CHECK_LIBS) -o $@

# The GLSL against skn_skin on Mesa's llvmpipe, through a headless EGL context.
$(BUILD)/tests/gl: $(GL_TEST_SRC) tests/gl/*.h tests/unit/testlib.c tests/unit/testlib.h $(GL_LIB) $(BUILD)/libskn.so | $(BUILD)/tests
	$(CC) $(PROG_CFLAGS) $(CHECK_CFLAGS) -Itests/unit $(GL_TEST_SRC) tests/unit/testlib.c $(GL_LIB) $(PROG_LDFLAGS) $(CHECK_LIBS) -lcjson -ldl -o $@

# Threads at once: one rig, many poses, ranges, documents (plainly, and
# under ThreadSanitizer in build/tsan).
$(BUILD)/tests/threads: tests/threads/test_threads.c abi/skn.h $(BUILD)/libskn.so | $(BUILD)/tests
	$(CC) $(PROG_CFLAGS) $< $(PROG_LDFLAGS) -pthread -o $@

# ---- fuzzing (tests/fuzz) ----
# replay: the fuzz targets as a plain program, in every build: make check
# runs the seeds and the regression file of every finding through it.
FUZZ_SRC := tests/fuzz/gltf_target.c tests/fuzz/bind_target.c tests/fuzz/skin_target.c tests/fuzz/guard.c
$(BUILD)/tests/replay: $(FUZZ_SRC) tests/fuzz/replay.c tests/fuzz/fuzz.h $(BUILD)/libskn.so | $(BUILD)/tests
	$(CC) $(PROG_CFLAGS) -Itests/fuzz $(FUZZ_SRC) tests/fuzz/replay.c $(PROG_LDFLAGS) -o $@

# libFuzzer: clang, the library's sources compiled into each target with
# ASan, UBSan and coverage (a build of its own, build/fuzz).
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_TARGETS := gltf bind skin
FUZZ_BUILD ?= $(BUILD)/fuzz
fuzz-build: deps
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang FUZZ=1 SAN="$(FUZZ_SAN)" CFLAGS="-O1 -g" \
	  $(patsubst %,$(FUZZ_BUILD)/fuzz-%,$(FUZZ_TARGETS))
$(BUILD)/fuzz-%: $(CORE_OBJ) $(FUZZ_SRC) tests/fuzz/libfuzzer.c tests/fuzz/fuzz.h
	$(CC) $(PROG_CFLAGS) -fsanitize=fuzzer -Itests/fuzz -DSKN_FUZZ_TARGET=skn_fuzz_$* $(FUZZ_SRC) tests/fuzz/libfuzzer.c \
	  $(CORE_OBJ) -lcjson -lm -pthread -o $@

# `make fuzz FUZZ_SECONDS=600`: each target for that long on every core,
# its corpus kept in build/fuzz/corpus-TARGET; a finding is written beside
# it (crash-*), to be added to tests/fuzz/regressions/TARGET.
FUZZ_SECONDS ?= 300
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  tests/fuzz/run $$t $(FUZZ_BUILD) -max_total_time=$(FUZZ_SECONDS) -jobs=$(NPROC) -workers=$(NPROC) || exit 1; \
	done

# A host compiled against the first release's header (a fixture), linked
# against today's library: every grown *_desc at its old size.
$(BUILD)/tests/old_client: tests/abi/old_client.c tests/abi/skn-1.0/skn.h $(BUILD)/libskn.so | $(BUILD)/tests
	$(CC) -std=c99 $(CFLAGS) $(WARN) -Wno-missing-field-initializers -D_POSIX_C_SOURCE=200809L -Itests/abi/skn-1.0 $< \
	  $(PROG_LDFLAGS) -o $@

# The dlopen client links nothing of skn: it finds every call through skn_get_api.
$(BUILD)/tests/abi_client: tests/abi/abi_client.c abi/skn.h | $(BUILD)/tests
	$(CC) $(PROG_CFLAGS) $< -ldl -o $@

# The Debian packages: deps for everything make check runs, deps-build for
# building and the demo (scripts/install-deps says which are which).
deps:
	@scripts/install-deps
deps-build:
	@scripts/install-deps build

# make check builds four trees side by side — the plain build, ASan+UBSan
# (build/san), ThreadSanitizer (build/tsan) and the fuzzers' clang build —
# sharing one jobserver: each tree ends on a few large kernel files, and
# built one after another they left a core idle for minutes. Then the tests.
# The plain and ASan trees hold every kernel set (KERNEL_SETS=all), so that
# the tests hold each set this CPU runs to the scalar reference.
check: deps
	@$(MAKE) --no-print-directory check-plain check-san check-tsan fuzz-build FUZZ_KERNEL_SETS=portable
	@PYTHON=$(PYTHON) BUILD=$(BUILD) tests/run-all

.PHONY: check-plain check-san check-tsan
check-plain:
	@$(MAKE) --no-print-directory KERNEL_SETS=all all $(BUILD)/tests/unit $(BUILD)/tests/gl $(BUILD)/tests/abi_client $(BUILD)/tests/replay \
	  $(BUILD)/tests/threads $(BUILD)/tests/old_client $(BUILD)/abi/layouts.txt $(BUILD)/adapters/cases.txt \
	  $(BUILD)/tests/ffi $(BUILD)/tests/cpp $(BUILD)/tests/cpp-no-exceptions node-deps
check-san:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SAN="$(SAN_FLAGS)" CFLAGS="-O1 -g" KERNEL_SETS=all $(BUILD)/san/tests/unit $(BUILD)/san/tests/gl \
	  $(BUILD)/san/tests/replay $(BUILD)/san/tests/ffi $(BUILD)/san/tests/cpp $(BUILD)/san/bin/skn
check-tsan:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/tsan SAN="-fsanitize=thread" CFLAGS="-O1 -g" KERNEL_SETS=portable \
	  $(BUILD)/tsan/tests/threads

test: check

# A third build, so not part of check: the pool's hand-offs under ThreadSanitizer.
check-threads: deps
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/tsan SAN="-fsanitize=thread" CFLAGS="-O1 -g" $(BUILD)/tsan/tests/unit
	@CK_FORK=no $(BUILD)/tsan/tests/unit

# The demo installs and builds what it runs, no more: the library, the skn
# command (with the GL adapter, for --gpu), skn-demo and the arm.
demo: deps-build
	@$(MAKE) --no-print-directory KERNEL_SETS=native lib $(DEMO) $(CLI) $(BUILD)/data/arm.gltf
	@BUILD=$(BUILD) scripts/demo

# Regenerate the ABI baseline after an intended, compatible addition.
abi-baseline: $(LIB)
	abidw --no-corpus-path --headers-dir abi $(LIB) > abi/libskn.abi
	@echo "wrote abi/libskn.abi"

# The installed library is stripped; its debug information goes to a file of
# its own that debuggers find by the library's .gnu_debuglink
# (LIBDIR/.debug/libskn.so.1.debug), as Debian splits its packages.
STRIPPED := $(BUILD)/stripped/$(SONAME)
$(STRIPPED): $(LIB)
	@mkdir -p $(dir $@)
	objcopy --only-keep-debug $(LIB) $@.debug
	objcopy --strip-debug --strip-unneeded --add-gnu-debuglink=$@.debug $(LIB) $@

# Debian's interpreters look in PREFIX/lib/pythonX.Y/dist-packages (/usr/local included).
PYTHON_SITE ?= $(shell $(PYTHON) -c "import sys; print('$(PREFIX)/lib/python%d.%d/dist-packages' % sys.version_info[:2])")

# Everything it installs is a prerequisite, built before the first file is
# copied (from a clean checkout too: tests/install-check holds `make
# install`'s builds to `make`'s), so the recipe only copies.
install: lib gl ffi $(STRIPPED) $(CLI)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/.debug $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PYTHON_SITE)/skn $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LUADIR)/skn
	install -m 644 plugins/cpp/skn.hpp plugins/ffi/skn_ffi.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(FFI_LIB) $(DESTDIR)$(LIBDIR)/libskn_ffi.a
	install -m 644 plugins/lua/skn/init.lua plugins/lua/skn/cdef.lua $(DESTDIR)$(LUADIR)/skn/
	install -m 644 $(PY_SRC) $(DESTDIR)$(PYTHON_SITE)/skn/
	install -m 644 abi/skn.h plugins/gl/skn_gl.h plugins/gl/skn_egl.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(GL_LIB) $(DESTDIR)$(LIBDIR)/libskn_gl.a
	install -m 755 $(STRIPPED) $(DESTDIR)$(LIBDIR)/$(SONAME)
	install -m 644 $(STRIPPED).debug $(DESTDIR)$(LIBDIR)/.debug/$(SONAME).debug
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/skn
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libskn.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' abi/skn.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/skn.pc

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/skn.hpp $(DESTDIR)$(INCLUDEDIR)/skn_ffi.h $(DESTDIR)$(LIBDIR)/libskn_ffi.a
	rm -rf $(DESTDIR)$(LUADIR)/skn
	rm -f $(DESTDIR)$(INCLUDEDIR)/skn.h $(DESTDIR)$(INCLUDEDIR)/skn_gl.h $(DESTDIR)$(INCLUDEDIR)/skn_egl.h \
	      $(DESTDIR)$(LIBDIR)/libskn_gl.a $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libskn.so \
	      $(DESTDIR)$(LIBDIR)/.debug/$(SONAME).debug $(DESTDIR)$(PREFIX)/bin/skn \
	      $(DESTDIR)$(LIBDIR)/pkgconfig/skn.pc
	rm -rf $(DESTDIR)$(PYTHON_SITE)/skn

clean:
	rm -rf $(BUILD)

help:
	@sed -n 's/^# make/make/p' Makefile
