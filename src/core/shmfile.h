/* nodeshm core: node-shared memory files, the one mechanism under the OpenSHMEM segments
 * (segment.c) and libnodeshm_mpi's per-communicator buffers (nodeshm_shm_node_map).
 *
 * Nothing is ever left in /dev/shm: a file is a memfd that peers open through /proc/<pid>/fd (no
 * name at all), or, where that is not permitted, an shm_open name with 128 random bits, mode
 * 0600, unlinked as soon as every peer has opened it.  Reports nothing itself (both libraries
 * compile it): callers name their call. */
#ifndef NODESHM_SHMFILE_H
#define NODESHM_SHMFILE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

enum nodeshm_share_method { NODESHM_SHARE_MEMFD = 0, NODESHM_SHARE_NAMED = 1 };

#define NODESHM_SHM_PATH 64

/* What a peer needs to open a file, and to check that it opened the right one: with processes
 * in different PID namespaces, /proc/<pid>/fd/<n> could name another process's file.  An empty
 * path: no file. */
typedef struct nodeshm_shm_handle {
    char path[NODESHM_SHM_PATH];
    uint64_t dev, ino;
} nodeshm_shm_handle_t;

/* Creates a zeroed file of `size` bytes by `method` and fills *h: its fd, or -1 with errno set
 * and *failed naming the system call that failed. */
int nodeshm_shm_create(int method, size_t size, const char *what, nodeshm_shm_handle_t *h, const char **failed);
/* The handle of an existing memfd of this process. */
void nodeshm_shm_handle_of(int fd, nodeshm_shm_handle_t *h);
/* Opens a peer's file: its fd, or -1 (errno; ESTALE: what opened is not the peer's file). */
int nodeshm_shm_open(const nodeshm_shm_handle_t *h);
/* fd mapped shared, without swap reservation (pages cost only when touched); MAP_FAILED. */
void *nodeshm_shm_map(int fd, size_t size);
/* The creator's part once every peer has opened the file: closes fd; a name goes. */
void nodeshm_shm_release(int method, int fd, const nodeshm_shm_handle_t *h);

/* Collective over `node` (processes that share memory), by PMPI calls (an interposer is not
 * entered again): node rank 0 creates `size` zeroed bytes and every rank maps them (one mapping
 * per process, where a segment maps every peer's own).  A memfd first, named files where a peer
 * cannot open it.  Returns the mapping on every rank, or NULL on every rank, with the reason in
 * why[] on the ranks that saw it fail (empty on the others). */
void *nodeshm_shm_node_map(MPI_Comm node, size_t size, const char *what, char *why, size_t why_len);

#endif
