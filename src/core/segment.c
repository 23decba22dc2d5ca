/* nodeshm core: node-shared segments. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/segment.h"
#include "core/status.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Creates the backing file (shmfile.c) and fills `h` with what a peer opens. */
static int create_backing(int method, size_t size, nodeshm_shm_handle_t *h, const char *what)
{
    const char *failed = "";
    int fd = nodeshm_shm_create(method, size, what, h, &failed);
    if (fd < 0)
        return nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "%s(%s, %zu bytes): %s", failed, what, size,
                              strerror(errno));
    return fd;
}

int nodeshm_segment_probe(const nodeshm_topology_t *topo, int *method)
{
    nodeshm_shm_handle_t mine, *all = calloc((size_t)topo->node_n_pes, sizeof *all);
    int fd = create_backing(NODESHM_SHARE_MEMFD, 4096, &mine, "nodeshm-probe");
    int ok = fd >= 0 && all != NULL;
    /* every PE takes part in every collective, whatever failed, so nobody hangs */
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all ? all : &mine, all ? sizeof mine : 0, MPI_BYTE,
                  topo->node);
    for (int i = 0; ok && i < topo->node_n_pes; i++) {
        int peer = nodeshm_shm_open(&all[i]);
        if (peer < 0) ok = 0;
        else close(peer);
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, topo->node);
    if (fd >= 0) close(fd);
    free(all);
    *method = all_ok ? NODESHM_SHARE_MEMFD : NODESHM_SHARE_NAMED;
    nodeshm_debug("segments shared by %s", all_ok ? "memfd (no names)" : "shm_open names, unlinked at init");
    return NODESHM_OK;
}

static int page_is_zero(const char *p, size_t page)
{
    const uint64_t *w = (const uint64_t *)p;
    for (size_t i = 0; i < page / sizeof *w; i++)
        if (w[i]) return 0;
    return 1;
}

/* Copies the live pages of [fixed, fixed+size) into the mapping m, skipping zero pages (an
 * untouched .bss must stay free), then swaps m in at `fixed` with one mremap: the range is
 * never unmapped in between. */
static int replace_fixed(void *m, void *fixed, size_t size, const char *what)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t off = 0; off < size; off += page)
        if (!page_is_zero((char *)fixed + off, page)) memcpy((char *)m + off, (char *)fixed + off, page);
    if (mremap(m, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, fixed) == MAP_FAILED) {
        int rc = nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "mremap(%s at %p): %s", what, fixed,
                                strerror(errno));
        munmap(m, size);
        return rc;
    }
    return NODESHM_OK;
}

/* A range replaced before MPI started (nodeshm_segment_prepare_fixed), waiting to be shared. */
static struct { void *addr; size_t size; int fd; } prepared = {NULL, 0, -1};

int nodeshm_segment_prepare_fixed(void *fixed, size_t size, const char *what)
{
    if (!fixed || !size || prepared.fd >= 0) return NODESHM_OK;
    nodeshm_shm_handle_t h;
    int fd = create_backing(NODESHM_SHARE_MEMFD, size, &h, what);
    if (fd < 0) return fd;
    void *m = nodeshm_shm_map(fd, size);
    int rc = m == MAP_FAILED ? nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "mmap(%s): %s", what,
                                              strerror(errno))
                             : replace_fixed(m, fixed, size, what);
    if (rc) {
        close(fd);
        return rc;
    }
    prepared.addr = fixed;
    prepared.size = size;
    prepared.fd = fd;
    return NODESHM_OK;
}

/* Maps fd so that base + skew is a multiple of align (a power of two; 0: anywhere). */
static void *map_aligned(int fd, size_t size, size_t align, size_t skew)
{
    int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_NORESERVE;
    if (align == 0) return nodeshm_shm_map(fd, size);
    char *res = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED) return MAP_FAILED;
    uintptr_t want = (((uintptr_t)res + skew + align - 1) & ~(uintptr_t)(align - 1)) - skew;
    char *at = (char *)want;
    if (mmap(at, size, prot, flags | MAP_FIXED, fd, 0) == MAP_FAILED) {
        munmap(res, size + align);
        return MAP_FAILED;
    }
    if (at > res) munmap(res, (size_t)(at - res));
    if (res + size + align > at + size) munmap(at + size, (size_t)(res + size + align - (at + size)));
    return at;
}

int nodeshm_segment_create(const nodeshm_topology_t *topo, int method, size_t size, void *fixed,
                           size_t align, size_t skew, const char *what, nodeshm_segment_t *seg)
{
    memset(seg, 0, sizeof *seg);
    seg->size = size;
    seg->node_n_pes = topo->node_n_pes;
    seg->fixed = fixed != NULL;
    seg->peer_base = calloc((size_t)topo->node_n_pes, sizeof(char *));
    nodeshm_shm_handle_t mine, *all = calloc((size_t)topo->node_n_pes, sizeof *all);
    memset(&mine, 0, sizeof mine);
    int rc = NODESHM_OK, fd = -1;
    if (!seg->peer_base || !all) rc = nodeshm_report(NODESHM_ERR_NOMEM, "shmem_init", "out of memory");
    int adopt = fixed && prepared.fd >= 0 && prepared.addr == fixed && prepared.size == size &&
                method == NODESHM_SHARE_MEMFD;
    if (prepared.fd >= 0 && fixed) { /* used now, or replaced again below: either way done */
        if (adopt) {
            fd = prepared.fd;
            nodeshm_shm_handle_of(fd, &mine);
            seg->base = fixed;
        } else {
            close(prepared.fd); /* its pages stay mapped at `fixed` until replaced */
        }
        prepared.fd = -1;
    }
    if (rc == NODESHM_OK && size && !adopt) {
        fd = create_backing(method, size, &mine, what);
        if (fd < 0) rc = fd;
    }
    if (rc == NODESHM_OK && size && !adopt) {
        void *m = map_aligned(fd, size, fixed ? 0 : align, skew);
        if (m == MAP_FAILED) {
            rc = nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "mmap(%s, %zu bytes): %s", what, size,
                                strerror(errno));
        } else if (fixed) {
            rc = replace_fixed(m, fixed, size, what);
            if (rc == NODESHM_OK) seg->base = fixed;
        } else {
            seg->base = m;
        }
    }

    /* everyone learns whether everyone succeeded before opening anything */
    int ok = rc == NODESHM_OK, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, topo->node);
    if (all_ok) MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, topo->node);
    for (int i = 0; all_ok && size && i < topo->node_n_pes; i++) {
        if (i == topo->node_my_pe) {
            seg->peer_base[i] = seg->base;
            continue;
        }
        int peer = nodeshm_shm_open(&all[i]);
        void *m = MAP_FAILED;
        if (peer >= 0) {
            m = nodeshm_shm_map(peer, size);
            close(peer);
        }
        if (m == MAP_FAILED) {
            rc = nodeshm_report(NODESHM_ERR_SYSTEM, "shmem_init", "mapping %s of node peer %d (%s): %s",
                                what, i, all[i].path, strerror(errno));
            break;
        }
        seg->peer_base[i] = m;
    }
    /* every peer has opened it (or failed): names can go; memfds close with the last mapping */
    MPI_Barrier(topo->node);
    nodeshm_shm_release(method, fd, &mine);
    free(all);
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
