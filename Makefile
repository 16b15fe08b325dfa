# The two commands of the README, and the builds behind them.
#   make run    install what is missing, build, and run the main job (in the viewer when a
#               display is available, headless otherwise)
#   make test   install what is missing, build, run every test
# Both build with warnings as errors (Debian 12's gcc compiles hinge without a warning).
# Also: make build, make sanitize (ASan + UBSan build and tests), make bench, make deps,
#       make fuzz (libFuzzer harnesses of tests/fuzz, FUZZ_TIME seconds each; see the README).

BUILD ?= build
SANBUILD ?= build-sanitize
FUZZ_TIME ?= 60
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# Debian 12 packages hinge builds, tests and runs with (ffmpeg: hinge render's video.mp4;
# python3: the structure test, tests/tools/structure.py; pybind11-dev to python3-pandas: the
# Python package python/ and its tests)
DEPS = build-essential cmake pkg-config libsundials-dev libxml2-dev libyaml-dev libcmocka-dev \
       libplplot-dev plplot-driver-cairo libfcl-dev libassimp-dev libsdl2-dev libepoxy-dev \
       libcglm-dev libstb-dev fonts-dejavu-core xvfb xauth liblapacke-dev libegl1 libegl-mesa0 \
       libgl1-mesa-dri ffmpeg libopenmpi-dev openmpi-bin python3 \
       pybind11-dev python3-dev python3-pybind11 python3-numpy python3-pytest python3-matplotlib \
       python3-pandas python3-setuptools python3-pip libmujoco-dev
# and for make sanitize and make fuzz: clang with its sanitizer and libFuzzer runtimes
FUZZ_DEPS = clang libclang-rt-14-dev
# (fuzz_mjcf runs MuJoCo in its reader process, whose faults come back as errors;
# fuzz_mjcf_frame feeds the reader's answers to hinge's decoder and converter in-process)
FUZZ_TARGETS = urdf mesh dynamics scene checkpoint commands \
               collada ply mjcf mjcf_frame campaign

# make build (and run) and make test configure $(BUILD) with the same flags: a flag that differs
# rewrites every target's flags.make, and the next of them would recompile the whole tree
# (make run then make test built everything twice)
CONFIG = -DCMAKE_BUILD_TYPE=Release -DHINGE_WERROR=ON

.PHONY: run test build sanitize bench deps fuzz fuzz-deps clean

run: build
	./$(BUILD)/hinge run scenes/heatshield.yaml --out $(BUILD)/out/heatshield

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

build: deps
	cmake -S . -B $(BUILD) $(CONFIG)
	cmake --build $(BUILD) -j$(JOBS)

# the sanitizer build: clang, ASan + UBSan, and libFuzzer's coverage, so that one build (one
# compile of every file) runs the tests (make sanitize) and the fuzz harnesses (make fuzz)
SANCONFIG = -DCMAKE_BUILD_TYPE=Debug -DHINGE_SANITIZE=ON -DHINGE_FUZZ=ON -DHINGE_WERROR=ON

sanitize: deps fuzz-deps
	CC=clang CXX=clang++ cmake -S . -B $(SANBUILD) $(SANCONFIG)
	cmake --build $(SANBUILD) -j$(JOBS)
	HINGE_TEST_QUICK=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(SANBUILD) --output-on-failure -j$(JOBS)

bench: build
	./$(BUILD)/tests/bench/bench_dynamics
	./$(BUILD)/tests/bench/bench_integrators
	./$(BUILD)/tests/bench/bench_render scenes

# each harness for FUZZ_TIME seconds under ASan + UBSan (tests/fuzz/run.sh); a finding fails with
# its reproducer in $(SANBUILD)/findings/ (keep it in tests/fuzz/regressions/NAME/ once fixed)
fuzz: fuzz-deps
	CC=clang CXX=clang++ cmake -S . -B $(SANBUILD) $(SANCONFIG)
	cmake --build $(SANBUILD) -j$(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	bash tests/fuzz/run.sh $(SANBUILD) $(FUZZ_TIME) $(FUZZ_TARGETS)

fuzz-deps:
	@$(MAKE) --no-print-directory deps DEPS="$(FUZZ_DEPS)"

# install the packages that are missing (as root, or through sudo)
deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
	  grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi

# make install PREFIX=DIR: the shared libraries, headers, CMake and pkg-config files, the program and
# its scenes under DIR (default /usr/local; docs/install.md)
PREFIX ?= /usr/local
.PHONY: install
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(SANBUILD)
