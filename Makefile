# The README's two commands: `make demo` (the main job) and `make test` (the whole suite).
# Both run the idempotent set-up first (Debian packages, Python venv, pinned plugin wheels).
BUILD ?= build
JOBS ?= 2
HHLO := $(BUILD)/tools/hhlo/hhlo

.PHONY: setup build test demo bench clean
setup:
	@bash scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 600

demo: build
	@$(HHLO) demo

bench: build
	@bash bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)
