# graphd: the two commands a new user needs are `make run` and `make test`.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3
# Extra flags for `make run`, e.g. make run ARGS="--log-level debug"
ARGS ?=

# Instrumented builds (clang, their own build directories; tests/sanitizers/README.md):
# ASan+UBSan with libFuzzer coverage (make test-asan, make fuzz, make fuzz-smoke).
ASAN_BUILD_DIR ?= build-asan
FUZZ_SECONDS ?= 600
SAN_CXX ?= clang++-16

.PHONY: all deps configure build run test test-cpp test-python bench clean \
        build-asan test-asan fuzz fuzz-smoke soak image test-image wheel install-client

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DGRAPHD_BUILD_TESTS=ON -DGRAPHD_BUILD_BENCH=ON >/dev/null

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Only what the server and the Python client need: the build packages and the client's
# (no test or benchmark dependencies), and only graphd, graphctl and the Python stubs.
run:
	@GRAPHD_DEPS=run bash scripts/install-deps.sh
	@[ -f $(BUILD_DIR)/CMakeCache.txt ] || cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DGRAPHD_BUILD_TESTS=OFF -DGRAPHD_BUILD_BENCH=OFF >/dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS) --target graphd graphctl graphd_python_stubs
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
	$(PYTHON) bench/zoo.py --build-dir $(BUILD_DIR) --profile
	$(BUILD_DIR)/bin/serving_bench --models $(BUILD_DIR)/bench/models --csv $(BUILD_DIR)/bench/serving.csv
	$(PYTHON) bench/training_bench.py --graphd $(BUILD_DIR)/bin/graphd --csv $(BUILD_DIR)/bench/training.csv

build-asan: deps
	@cmake -S . -B $(ASAN_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$(SAN_CXX) \
	  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1 -DNDEBUG" -DGRAPHD_SANITIZE=address,undefined -DGRAPHD_FUZZ=ON \
	  -DGRAPHD_WITH_CUDA=OFF -DGRAPHD_BUILD_BENCH=OFF >/dev/null
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)

# The C++ tests and the Python suites against the instrumented server; fails on any
# sanitizer report (scripts/test-sanitized.sh).
test-asan: build-asan
	bash scripts/test-sanitized.sh $(ASAN_BUILD_DIR) $(JOBS)

# Each libFuzzer target for FUZZ_SECONDS (default 600), two at a time; the corpus
# grows in $(ASAN_BUILD_DIR)/fuzz/corpus (tests/fuzz/run_fuzzers.sh).
fuzz: build-asan
	bash tests/fuzz/run_fuzzers.sh $(ASAN_BUILD_DIR) $(FUZZ_SECONDS)

fuzz-smoke: build-asan
	bash tests/fuzz/run_fuzzers.sh --seeds-only $(ASAN_BUILD_DIR) 20

# 30 minutes of mixed load against the release server; RSS must stay flat (bench/soak.py).
SOAK_MINUTES ?= 30
soak: build
	$(PYTHON) bench/soak.py --build-dir $(BUILD_DIR) --minutes $(SOAK_MINUTES)

# The Python client as a wheel with its generated stubs: $(BUILD_DIR)/dist/graphd-*.whl
wheel: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target graphd_python_stubs
	bash scripts/make-wheel.sh $(BUILD_DIR)

# The C++ client library as a CMake package (find_package(graphd), graphd::client).
PREFIX ?= /usr/local
install-client: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target graphd_client
	cmake --install $(BUILD_DIR) --prefix $(PREFIX) --component client

# The server image, built here with buildah on a local Debian base (no registry:
# scripts/make-image.sh), and its test: graphd from the image serves a session, a
# function call and KServe v2 from a mounted repository, and drains on SIGTERM.
IMAGE ?= localhost/graphd:latest
image:
	@GRAPHD_DEPS=image bash scripts/install-deps.sh
	GRAPHD_IMAGE=$(IMAGE) bash scripts/make-image.sh

test-image: image build
	GRAPHD_IMAGE=$(IMAGE) PYTHONPATH=clients/python $(PYTHON) -m pytest -q -p no:cacheprovider tests/container

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR)
