/* nodeshm core: memory segments that every PE of a node maps.
 *
 * Each PE creates its segment and every PE of its node maps it.  Nothing is ever left in
 * /dev/shm: a segment is a node-shared memory file (shmfile.h: a memfd, or where peers cannot open
 * one an shm_open name unlinked as soon as every peer has opened it, before init returns). */
#ifndef NODESHM_SEGMENT_H
#define NODESHM_SEGMENT_H

#include "core/shmfile.h"
#include "core/topology.h"
#include <stddef.h>

typedef struct nodeshm_segment {
    char *base;        /* my own segment, in my address space */
    size_t size;       /* bytes, a multiple of the page size, the same on every PE */
    char **peer_base;  /* [node_n_pes]: each node peer's segment mapped here (mine at my index) */
    int node_n_pes;
    int fixed;         /* base is an existing range we replaced (the data segment): never unmap */
} nodeshm_segment_t;

/* Collective over the node: finds which sharing method works here (once). */
int nodeshm_segment_probe(const nodeshm_topology_t *topo, int *method);

/* Collective over the node.  With `fixed` non-NULL, the existing pages [fixed, fixed+size) are
 * replaced, contents preserved, by the shared segment (the data segment).  Otherwise my mapping
 * is placed so that base + skew is a multiple of `align` (0: anywhere), which lets the heap
 * honour large shmem_align requests. */
int nodeshm_segment_create(const nodeshm_topology_t *topo, int method, size_t size, void *fixed,
                           size_t align, size_t skew, const char *what, nodeshm_segment_t *seg);
void nodeshm_segment_destroy(nodeshm_segment_t *seg);

/* Not collective, needs no MPI: replaces [fixed, fixed+size) by a memfd mapping now, so that
 * nodeshm_segment_create(fixed) later only shares it.  Called before MPI_Init, while no other
 * thread (an MPI progress thread, say) can write the range between the copy and the swap. */
int nodeshm_segment_prepare_fixed(void *fixed, size_t size, const char *what);

#endif
