/* libnodeshm_mpi links its own instance of core/wait.c, the one wait policy of both faces,
 * compiled with hidden symbols (CMakeLists.txt): in a program that loads libnodeshm as well,
 * neither library's policy state or progress hook binds to the other's.  Its progress hook
 * (core/remote.c in libnodeshm) is never called here: only shmem_init says that waits must drive
 * MPI progress (nodeshm_wait_configure), and libnodeshm_mpi's instance never hears it. */
#include "core/remote.h"

void nodeshm_remote_progress(void) {}
