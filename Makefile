# The README's two commands. Both configure and build from scratch on a fresh
# machine (cmake, a C compiler with OpenMP; nvcc optional).
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

PYTHON ?= python3
VENV  := $(BUILD)/venv

.PHONY: all build run test test-asan test-gpu fuzz venv clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Main job: the paper's experiment on the embedded default matrix.
run: build
	./$(BUILD)/cisparse run

# The Python tests' virtual environment: made once (when missing or when
# python/requirements-test.txt changes), from PyPI; CTest's python tests use
# it. It sees the system's packages (CuPy on the GPU machine); where no
# package index can be reached, what is installed already must do, and the
# python tests report "skipped" when numpy, scipy or pytest are missing.
$(VENV)/.ready: python/requirements-test.txt
	test -x $(VENV)/bin/python || $(PYTHON) -m venv --system-site-packages $(VENV)
	$(VENV)/bin/python -m pip install --quiet -r python/requirements-test.txt || \
	  echo "warning: cannot install python/requirements-test.txt; the python tests use what is installed"
	touch $@

venv: $(VENV)/.ready

# Every test through CTest: unit, cli, install (the installed tree's
# consumers), python (pytest on the build tree's library, and `pip install .`);
# GPU tests report "skipped" where no GPU is present.
test: build venv
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The CPU tests under AddressSanitizer and UndefinedBehaviorSanitizer (not the
# installed-tree and Python consumers: uninstrumented programs cannot load an
# instrumented libcisparse.so).
test-asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCISPARSE_SANITIZE=ON -DCISPARSE_CUDA=OFF
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS) -LE 'gpu|install|python'

# The libFuzzer targets of fuzz/ (clang only: -fsanitize=fuzzer), a short run
# of each from its seeds (CTest label fuzz).
fuzz:
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCISPARSE_CUDA=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_cli_options fuzz_mm_read fuzz_fcidump_read
	cd build-fuzz && ctest --output-on-failure -L fuzz

# Only the GPU tests (run these on the device machine).
test-gpu: build
	cd $(BUILD) && ctest --output-on-failure -L gpu

clean:
	rm -rf $(BUILD) build-asan build-fuzz
