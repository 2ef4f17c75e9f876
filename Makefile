# The README's two commands: `make demo` (the main job) and `make test` (the whole suite).
# Both run the idempotent set-up first (Debian packages, Python venv, pinned plugin wheels).
BUILD ?= build
JOBS ?= 2
# ccache (found by CMakeLists.txt) hashes paths relative to the checkout and not the build
# directory, so the install tests' second build tree (build-shared) reuses build/'s objects.
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= true
HHLO := $(BUILD)/tools/hhlo/hhlo

.PHONY: setup setup-cuda build test test-producers demo bench asan tsan fuzz format format-check clean
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

# The producers' own programs (torch_xla's; tests/producers): their venvs made (about 7 GB,
# scripts/setup_producers.sh), the fixtures written anew by the producers into build/producers,
# and the producer tests run on those. `make test` runs the same tests on the committed fixtures.
test-producers: build
	@bash scripts/setup_producers.sh $(CURDIR)/$(BUILD)/producers
	@HHLO_PRODUCERS_DIR=$(CURDIR)/$(BUILD)/producers $(BUILD)/tests/hhlo_producers_tests

# The demo needs only the CLI: build that target, not the whole test suite.
demo: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target hhlo_cli
	@echo "---- hhlo demo ----"
	@$(HHLO) demo

bench: build
	@bash bench/run.sh $(BUILD)

# Suites under AddressSanitizer + LeakSanitizer + UBSan (our code instrumented, the plugin not):
# core, ir, runtime, custom calls, autodiff, nn, the oneDNN team (docs/reliability.md). One test
# is left out: it makes the plugin register a second FFI handler for a target, which the plugin
# leaks inside itself (docs/facts.md); LeakSanitizer cannot tell that from ours by name at -g1.
# Debug (assertions on, -O0) with -g1: line tables for ASan's stacks, less compile time
# than full -g (as `make tsan`).
ASAN_SUITES := core ir runtime custom_call autodiff nn onednn
ASAN_SKIP := CustomCallErrors.PluginKeepsTheFirstHandlerAndIgnoresASecondSilently
# Suites that hold no PJRT object of their own: leaks inside the plugin's compile are suppressed
# there (tests/lsan_plugin.supp); runtime and custom_call run with no suppression.
ASAN_PLUGIN_LEAKS := autodiff nn
asan: setup
	@cmake -S . -B build-asan -G Ninja -DHHLO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" >/dev/null
	@cmake --build build-asan -j $(JOBS) --target $(foreach s,$(ASAN_SUITES),hhlo_$(s)_tests)
	@set -e; for s in $(ASAN_SUITES); do echo "---- asan $$s"; \
	  supp=; case " $(ASAN_PLUGIN_LEAKS) " in *" $$s "*) \
	    supp=suppressions=$(CURDIR)/tests/lsan_plugin.supp;; esac; \
	  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 LSAN_OPTIONS=$$supp \
	  build-asan/tests/hhlo_$${s}_tests --gtest_brief=1 --gtest_filter=-$(ASAN_SKIP); done

# Runtime, session, custom-call and oneDNN-team suites under ThreadSanitizer (g++; the plugin is not
# instrumented: tests/tsan.supp suppresses reports inside it only, docs/reliability.md).
# allocator_may_return_null (both sanitizers): an allocation too large fails as without a sanitizer
# (Faults.DeviceAllocationTooLargeIsAnErrorNotACrash: the plugin's 4 TiB request), no abort.
# -O1 with line tables: what TSan needs for usable speed and stacks, half the compile time of -O2 -g.
# Soak.* is left out: its 20,000 transfers are each a plugin-side access TSan sees unordered with
# ours (the plugin's event orders them), each suppressed at the cost of seconds; it runs no thread
# of ours (it runs under `make asan` and `make test`).
TSAN_SUITES := runtime session custom_call onednn serve
tsan: setup
	@cmake -S . -B build-tsan -G Ninja -DHHLO_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" >/dev/null
	@cmake --build build-tsan -j $(JOBS) --target $(foreach s,$(TSAN_SUITES),hhlo_$(s)_tests)
	@set -e; for s in $(TSAN_SUITES); do echo "---- tsan $$s"; \
	  TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp halt_on_error=1 second_deadlock_stack=1 \
	  allocator_may_return_null=1" \
	  build-tsan/tests/hhlo_$${s}_tests --gtest_brief=1 --gtest_filter=-Soak.*; done

# libFuzzer (clang, ASan + UBSan, build-fuzz/): each tests/fuzz target for FUZZ_RUNS executions.
FUZZ_RUNS ?= 1000000
fuzz: setup
	@FUZZ_RUNS=$(FUZZ_RUNS) JOBS=$(JOBS) bash scripts/fuzz.sh

# clang-format 14 (Debian's clang-format-14, the version .clang-format is checked with; another
# version formats some constructs differently) over every tracked C++ file.
CLANG_FORMAT ?= clang-format-14
format: setup
	@git ls-files '*.cc' '*.h' | xargs $(CLANG_FORMAT) -i
format-check: setup
	@git ls-files '*.cc' '*.h' | xargs $(CLANG_FORMAT) --dry-run --Werror

clean:
	rm -rf $(BUILD)
