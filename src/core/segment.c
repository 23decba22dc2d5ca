/* nodeshm core: node-shared segments. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/segment.h"
#include "core/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_LEN 64

/* Creates the backing file; fills `path` with what a peer opens. */
static int create_backing(int method, size_t size, char path[PATH_LEN], const char *what)
{
    int fd;
    if (method == NODESHM_SHARE_MEMFD) {
        fd = memfd_create(what, MFD_CLOEXEC);
        if (fd < 0)
            return nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "memfd_create(%s): %s", what,
                                  strerror(errno));
        snprintf(path, PATH_LEN, "/proc/%ld/fd/%d", (long)getpid(), fd);
    } else {
        unsigned char rnd[16];
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
            return nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "getrandom: %s", strerror(errno));
        char name[48] = "/nodeshm-";
        for (int i = 0; i < 16; i++) snprintf(name + 9 + 2 * i, 3, "%02x", rnd[i]);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0)
            return nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "shm_open(%s): %s", name,
                                  strerror(errno));
        snprintf(path, PATH_LEN, "/dev/shm%s", name);
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        int err = errno;
        close(fd);
        if (method == NODESHM_SHARE_NAMED) unlink(path);
        return nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "ftruncate(%s, %zu bytes): %s", what,
                              size, strerror(err));
    }
    return fd;
}

int nodeshm_segment_probe(const nodeshm_topology_t *topo, int *method)
{
    char path[PATH_LEN] = "";
    int fd = create_backing(NODESHM_SHARE_MEMFD, 4096, path, "nodeshm-probe");
    int ok = fd >= 0;
    char *paths = calloc((size_t)topo->node_n_pes, PATH_LEN);
    if (!paths) return NODESHM_ERR_NOMEM;
    MPI_Allgather(path, PATH_LEN, MPI_CHAR, paths, PATH_LEN, MPI_CHAR, topo->node);
    for (int i = 0; ok && i < topo->node_n_pes; i++) {
        int peer = open(paths + (size_t)i * PATH_LEN, O_RDWR | O_CLOEXEC);
        if (peer < 0) ok = 0;
        else close(peer);
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, topo->node);
    if (fd >= 0) close(fd);
    free(paths);
    *method = all_ok ? NODESHM_SHARE_MEMFD : NODESHM_SHARE_NAMED;
    nodeshm_debug("segments shared by %s", all_ok ? "memfd (no names)" : "shm_open names, unlinked at init");
    return NODESHM_OK;
}

int nodeshm_segment_create(const nodeshm_topology_t *topo, int method, size_t size, void *fixed,
                           const char *what, nodeshm_segment_t *seg)
{
    memset(seg, 0, sizeof *seg);
    seg->size = size;
    seg->node_n_pes = topo->node_n_pes;
    seg->fixed = fixed != NULL;
    seg->peer_base = calloc((size_t)topo->node_n_pes, sizeof(char *));
    char *paths = calloc((size_t)topo->node_n_pes, PATH_LEN);
    char path[PATH_LEN] = "";
    int rc = NODESHM_OK;
    if (!seg->peer_base || !paths) {
        free(paths);
        return nodeshm_report(NODESHM_ERR_NOMEM, "shmem_init", "out of memory");
    }

    int fd = size ? create_backing(method, size, path, what) : -1;
    if (size && fd < 0) rc = fd;
    if (rc == NODESHM_OK && size) {
        void *mine = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
        if (mine == MAP_FAILED) {
            rc = nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "mmap(%s, %zu bytes): %s", what, size,
                                strerror(errno));
        } else if (fixed) {
            /* Copy the live contents, then swap the shared pages in with one mremap, so the range
             * is never unmapped in between. */
            memcpy(mine, fixed, size);
            if (mremap(mine, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, fixed) == MAP_FAILED) {
                rc = nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "mremap(%s at %p): %s", what,
                                    fixed, strerror(errno));
                munmap(mine, size);
            } else {
                seg->base = fixed;
            }
        } else {
            seg->base = mine;
        }
    }

    /* everyone learns whether everyone succeeded before opening anything */
    int ok = rc == NODESHM_OK, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, topo->node);
    if (all_ok) MPI_Allgather(path, PATH_LEN, MPI_CHAR, paths, PATH_LEN, MPI_CHAR, topo->node);
    for (int i = 0; all_ok && size && i < topo->node_n_pes; i++) {
        if (i == topo->node_my_pe) {
            seg->peer_base[i] = seg->base;
            continue;
        }
        const char *p = paths + (size_t)i * PATH_LEN;
        int peer = open(p, O_RDWR | O_CLOEXEC);
        void *m = MAP_FAILED;
        if (peer >= 0) {
            m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, peer, 0);
            close(peer);
        }
        if (m == MAP_FAILED) {
            rc = nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "mapping %s of node peer %d (%s): %s",
                                what, i, p, strerror(errno));
            break;
        }
        seg->peer_base[i] = m;
    }
    /* every peer has opened it (or failed): names can go; memfds close with the last mapping */
    MPI_Barrier(topo->node);
    if (fd >= 0) {
        if (method == NODESHM_SHARE_NAMED) unlink(path);
        close(fd);
    }
    free(paths);
    ok = rc == NODESHM_OK;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, topo->node);
    if (!all_ok && rc == NODESHM_OK)
        rc = NODESHM_ERR_SYSTEM; /* a peer failed and said so */
    return rc;
}

void nodeshm_segment_destroy(nodeshm_segment_t *seg)
{
    if (!seg->peer_base) return;
    for (int i = 0; i < seg->node_n_pes; i++) {
        char *p = seg->peer_base[i];
        if (!p || (seg->fixed && p == seg->base)) continue;
        munmap(p, seg->size);
    }
    /* a replaced data segment stays mapped: the program's globals live there */
    free(seg->peer_base);
    memset(seg, 0, sizeof *seg);
}
