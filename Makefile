# The README's two commands. Both configure and build from scratch on a fresh
# machine (cmake, a C compiler with OpenMP; nvcc optional).
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build run test test-asan test-gpu clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Main job: the paper's experiment on the embedded default matrix.
run: build
	./$(BUILD)/cisparse run

# Every test through CTest; GPU tests report "skipped" where no GPU is present.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The CPU tests under AddressSanitizer and UndefinedBehaviorSanitizer.
test-asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCISPARSE_SANITIZE=ON -DCISPARSE_CUDA=OFF
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS) -LE gpu

# Only the GPU tests (run these on the device machine).
test-gpu: build
	cd $(BUILD) && ctest --output-on-failure -L gpu

clean:
	rm -rf $(BUILD) build-asan
