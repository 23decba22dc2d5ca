/* nodeshm core: node-shared memory files (shmfile.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/shmfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

void nodeshm_shm_handle_of(int fd, nodeshm_shm_handle_t *h)
{
    struct stat st;
    memset(h, 0, sizeof *h);
    if (fd < 0 || fstat(fd, &st) != 0) return;
    snprintf(h->path, sizeof h->path, "/proc/%ld/fd/%d", (long)getpid(), fd);
    h->dev = (uint64_t)st.st_dev;
    h->ino = (uint64_t)st.st_ino;
}

int nodeshm_shm_create(int method, size_t size, const char *what, nodeshm_shm_handle_t *h, const char **failed)
{
    int fd;
    char name[48] = "";
    memset(h, 0, sizeof *h);
    if (method == NODESHM_SHARE_MEMFD) {
        fd = memfd_create(what, MFD_CLOEXEC);
        if (fd < 0) {
            *failed = "memfd_create";
            return -1;
        }
    } else {
        unsigned char rnd[16];
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
            *failed = "getrandom";
            return -1;
        }
        snprintf(name, sizeof name, "/nodeshm-");
        for (int i = 0; i < 16; i++) snprintf(name + 9 + 2 * i, 3, "%02x", rnd[i]);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            *failed = "shm_open";
            return -1;
        }
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        int err = errno;
        close(fd);
        if (*name) shm_unlink(name);
        errno = err;
        *failed = "ftruncate";
        return -1;
    }
    nodeshm_shm_handle_of(fd, h);
    if (*name) snprintf(h->path, sizeof h->path, "/dev/shm%s", name);
    return fd;
}

int nodeshm_shm_open(const nodeshm_shm_handle_t *h)
{
    struct stat st;
    if (!h->path[0]) {
        errno = ENOENT;
        return -1;
    }
    int fd = open(h->path, O_RDWR | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != h->dev || (uint64_t)st.st_ino != h->ino)) {
        close(fd);
        errno = ESTALE;
        fd = -1;
    }
    return fd;
}

void *nodeshm_shm_map(int fd, size_t size)
{
    return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
}

void nodeshm_shm_release(int method, int fd, const nodeshm_shm_handle_t *h)
{
    if (fd < 0) return;
    if (method == NODESHM_SHARE_NAMED) unlink(h->path);
    close(fd);
}

void *nodeshm_shm_node_map(MPI_Comm node, size_t size, const char *what, char *why, size_t why_len)
{
    int me;
    PMPI_Comm_rank(node, &me);
    if (why_len) why[0] = '\0';
    for (int method = NODESHM_SHARE_MEMFD; method <= NODESHM_SHARE_NAMED; method++) {
        nodeshm_shm_handle_t h;
        const char *failed = NULL;
        void *base = MAP_FAILED;
        int fd = -1, err = 0;
        memset(&h, 0, sizeof h);
        if (me == 0) {
            fd = nodeshm_shm_create(method, size, what, &h, &failed);
            if (fd >= 0 && (base = nodeshm_shm_map(fd, size)) == MAP_FAILED) failed = "mmap";
            if (failed) {
                err = errno;
                h.path[0] = '\0'; /* tells the peers not to try */
            }
        }
        PMPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, node);
        if (me != 0 && h.path[0]) {
            int peer = nodeshm_shm_open(&h);
            if (peer < 0) {
                failed = "open";
                err = errno;
            } else {
                if ((base = nodeshm_shm_map(peer, size)) == MAP_FAILED) {
                    failed = "mmap";
                    err = errno;
                }
                close(peer);
            }
        }
        /* every peer has opened it, or failed: the creator may drop the fd and the name */
        int ok = base != MAP_FAILED, all = 0;
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, node);
        if (me == 0) nodeshm_shm_release(method, fd, &h);
        if (all) return base;
        if (base != MAP_FAILED) munmap(base, size);
        if (failed && why_len)
            snprintf(why, why_len, "%s(%s%s%s, %zu bytes): %s", failed, what, me ? " of node rank 0 at " : "",
                     me ? h.path : "", size, strerror(err));
    }
    return NULL;
}
