# The README's two commands. Both configure and build from scratch on a fresh
# machine (cmake, a C compiler with OpenMP; nvcc optional).
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

PYTHON ?= python3
VENV  := $(BUILD)/venv

.PHONY: all build run test test-asan test-gpu fuzz venv mpi clean

all: build

# `make test` first makes sure of MPI (the target mpi below), so that CMake finds it.
$(BUILD)/CMakeCache.txt: | $(if $(filter test,$(MAKECMDGOALS)),mpi)
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

# MPICH for the MPI tests (label mpi: mpirun -np 2 and 3 of the tool, the MPI
# communicator's unit test): installed with apt-get only when mpicc or
# mpirun is missing, on a Debian/Ubuntu machine where this runs as root;
# where that is not possible (no apt-get, not root, no package index) it says
# so and goes on: the MPI tests then report "skipped" with the reason. A
# build folder configured before MPI came is configured again to find it.
MPI_PACKAGES := mpich libmpich-dev
mpi:
	@if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "make: installing MPICH for the MPI tests (apt-get install $(MPI_PACKAGES))"; \
	  if DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(MPI_PACKAGES) >/dev/null 2>&1 || \
	     { apt-get update -q >/dev/null 2>&1 && \
	       DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(MPI_PACKAGES) >/dev/null 2>&1; }; then \
	    if [ -f $(BUILD)/CMakeCache.txt ]; then cmake $(BUILD) >/dev/null; fi; \
	  else echo "warning: cannot install $(MPI_PACKAGES); the MPI tests report skipped"; fi; \
	else echo "warning: no MPI (mpicc, mpirun) and no root apt-get to install it; the MPI tests report skipped"; fi

# Every test through CTest: unit, cli, mpi (MPICH installed first where it can
# be: the target mpi), install (the installed tree's
# consumers), python (pytest on the build tree's library, and `pip install .`);
# GPU tests report "skipped" where no GPU is present.
test: mpi build venv
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
	cmake --build build-fuzz -j $(JOBS) --target fuzz_cli_options fuzz_mm_read fuzz_fcidump_read fuzz_ci_states
	cd build-fuzz && ctest --output-on-failure -L fuzz

# Only the GPU tests (run these on the device machine).
test-gpu: build
	cd $(BUILD) && ctest --output-on-failure -L gpu

clean:
	rm -rf $(BUILD) build-asan build-fuzz
