# graphd: the two commands a new user needs are `make run` and `make test`.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3
# Extra flags for `make run`, e.g. make run ARGS="--log-level debug"
ARGS ?=

.PHONY: all deps configure build run test test-cpp test-python bench clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) >/dev/null

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/bin/graphd $(ARGS)

test: build
	$(MAKE) --no-print-directory test-cpp test-python

test-cpp:
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	$(PYTHON) scripts/check-thread-safety.py --build-dir $(BUILD_DIR) --jobs $(JOBS)

test-python:
	GRAPHD_BIN=$(abspath $(BUILD_DIR))/bin/graphd PYTHONPATH=clients/python \
	  $(PYTHON) -m pytest -q -p no:cacheprovider clients/python/tests tests/integration tests/robustness
	@echo "== again with device=\"gpu\" sessions on a fake accelerator (placement and copies; GRAPHD_TEST_FAKE_GPU) =="
	GRAPHD_TEST_FAKE_GPU=mixed GRAPHD_DEVICE=gpu GRAPHD_BIN=$(abspath $(BUILD_DIR))/bin/graphd PYTHONPATH=clients/python \
	  $(PYTHON) -m pytest -q -p no:cacheprovider clients/python/tests tests/integration \
	  --ignore=tests/integration/test_gpu_bench.py --ignore=tests/integration/test_device_bundle.py

bench: build
	$(BUILD_DIR)/bin/run_overhead_bench --csv $(BUILD_DIR)/bench/run_overhead.csv
	$(BUILD_DIR)/bin/source_bench --csv $(BUILD_DIR)/bench/source.csv
	$(BUILD_DIR)/bin/kernels_bench --benchmark_min_time=0.2 \
	  --benchmark_out=$(BUILD_DIR)/bench/kernels.csv --benchmark_out_format=csv
	$(PYTHON) bench/run_models.py --build-dir $(BUILD_DIR)
	$(BUILD_DIR)/bin/serving_bench --models $(BUILD_DIR)/bench/models --csv $(BUILD_DIR)/bench/serving.csv

clean:
	rm -rf $(BUILD_DIR)
