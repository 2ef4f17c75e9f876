# The README's two commands: `make demo` (the main job) and `make test` (the whole suite).
# Both run the idempotent set-up first (Debian packages, Python venv, pinned plugin wheels).
BUILD ?= build
JOBS ?= 2
HHLO := $(BUILD)/tools/hhlo/hhlo

.PHONY: setup setup-cuda build test demo bench asan clean
setup:
	@bash scripts/setup.sh

# The CUDA PJRT plugin and its NVIDIA wheels (third_party/pjrt/cuda); not part of test or demo.
setup-cuda:
	@bash scripts/setup.sh --cuda

build: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 600

# The demo needs only the CLI: build that target, not the whole test suite.
demo: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target hhlo_cli
	@echo "---- hhlo demo ----"
	@$(HHLO) demo

bench: build
	@bash bench/run.sh $(BUILD)

# The runtime tests under AddressSanitizer + LeakSanitizer (our code instrumented, the plugin not).
asan: setup
	@cmake -S . -B build-asan -G Ninja -DHHLO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build build-asan -j $(JOBS) --target hhlo_runtime_tests hhlo_core_tests
	@ASAN_OPTIONS=detect_leaks=1 build-asan/tests/hhlo_core_tests
	@ASAN_OPTIONS=detect_leaks=1 build-asan/tests/hhlo_runtime_tests

clean:
	rm -rf $(BUILD)
