/* nodeshm core, OpenSHMEM team collectives: alltoall and alltoalls (coll.h).
 *
 * One node: every member publishes its blocks (packed into staging, or its source) and pulls the
 * block meant for it from every member.  Several nodes, up to NODESHM_COLL_NODES_A2A_MAX of
 * blocks per PE: fan.c (the leader moves its node's blocks, one MPI_Alltoallv of the leaders),
 * bar where the library's own wins (MPI_Alltoall over the team: core/coll/library_wins.h).
 * Larger: each PE pushes its blocks for node peers straight into their dest; blocks for other
 * nodes go by one MPI_Alltoallv over the team (zero counts within the node; strided blocks
 * packed). */
#include "core/coll/team/team_coll.h"

#include <limits.h>
#include <stdlib.h>

/* An alltoall's owner waits for every reader of its source, and when PEs outnumber cores that
 * wait costs context switches: then up to 16 KiB of blocks are staged (nodeshm-bench-coll, Open
 * MPI 5, 4 PEs on 2 cores, ratio to MPI_Alltoall with the switch at 4 / 16 / 64 KiB, 2 runs:
 * 2 KiB blocks 1.30-1.33x / 1.96-2.21x / 1.71-1.73x; 4 KiB 3.1x / 4.0-4.7x / 2.7x; 16 KiB
 * 3.4x / 2.8-3.9x / 1.4x), unless NODESHM_COLL_EAGER_MAX says otherwise. */
static size_t alltoall_eager_max(void) { return coll_owner_waits_eager_max(COPY_EAGER_DEFAULT); }

/* One node: every member publishes its blocks (packed into staging, or its source when large)
 * and pulls the block meant for it from each member, starting with the next one (so that not
 * everybody reads member 0 first). */
static void alltoall_node(nodeshm_team_t *t, coll_turn_t x, void *dest, const void *src, size_t dst,
                          size_t sst, size_t nelems, size_t elem)
{
    int n = t->node_n_pes, me = t->node_my_pe;
    size_t block = nelems * elem, sblk = nelems * sst * elem, dblk = nelems * dst * elem;
    int eager = (size_t)n * block <= alltoall_eager_max();
    if (eager) {
        char *st = coll_stage_claim(t, x);
        for (int j = 0; j < n; j++)
            if (j != me)
                coll_copy_block(st + (size_t)j * block, 1, (const char *)src + (size_t)j * sblk,
                                sst, nelems, elem);
    }
    coll_publish(t, x, (uint64_t)n * block, eager ? FROM_STAGE : FROM_SOURCE, 0);
    coll_copy_block((char *)dest + (size_t)me * dblk, dst, (const char *)src + (size_t)me * sblk,
                    sst, nelems, elem);
    for (int i = 1; i < n; i++) {
        int k = (me + i) % n;
        const nodeshm_flag_line_t *r = coll_await_ready(t, x, k);
        char *to = (char *)dest + (size_t)k * dblk;
        if (r->word[TURN_FROM] == FROM_STAGE)
            coll_copy_block(to, dst, coll_stage_of(t, k, x.b) + (size_t)me * block, 1, nelems, elem);
        else
            coll_copy_block(to, dst, coll_at_member(t, src, k) + (size_t)me * sblk, sst, nelems, elem);
    }
    coll_mark_done(t, x);
    if (!eager) coll_await_done(t, x);
}

/* Several nodes, where the MPI library's own alltoall wins (coll_nodes_alltoall_by_library: MPICH
 * at most 128 B, Open MPI 8-16 KiB blocks): MPI_Alltoall over the team, strided blocks packed and
 * unpacked. */
static int alltoall_by_library(const char *call, const nodeshm_team_t *t, void *dest, const void *src,
                               size_t dst, size_t sst, size_t nelems, size_t elem)
{
    int n = t->n_pes, contig = dst == 1 && sst == 1, rc = NODESHM_OK;
    size_t block = nelems * elem, sblk = nelems * sst * elem, dblk = nelems * dst * elem;
    char *sbuf = contig ? (char *)(uintptr_t)src : malloc(2 * (size_t)n * block);
    char *rbuf = contig ? dest : sbuf + (size_t)n * block;
    if (!sbuf) return nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
    for (int j = 0; !contig && j < n; j++)
        coll_copy_block(sbuf + (size_t)j * block, 1, (const char *)src + (size_t)j * sblk, sst, nelems, elem);
    if (MPI_Alltoall(sbuf, (int)block, MPI_BYTE, rbuf, (int)block, MPI_BYTE, t->comm) != MPI_SUCCESS)
        rc = nodeshm_coll_mpi_failed(call, "MPI_Alltoall over the team");
    for (int j = 0; !rc && !contig && j < n; j++)
        coll_copy_block((char *)dest + (size_t)j * dblk, dst, rbuf + (size_t)j * block, 1, nelems, elem);
    if (!contig) free(sbuf);
    return rc;
}

int nodeshm_coll_alltoalls(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                           size_t dst, size_t sst, size_t nelems, size_t elem)
{
    int n = t->n_pes, me = t->my_pe;
    if (dst < 1 || sst < 1)
        return nodeshm_report(NODESHM_ERR_ARG, call, "invalid stride %zu (must be >= 1)",
                              dst < 1 ? dst : sst);
    size_t total = (size_t)n * nelems;
    size_t dext = total ? ((total - 1) * dst + 1) * elem : 0;
    size_t sext = total ? ((total - 1) * sst + 1) * elem : 0;
    int rc = coll_check_sym(call, "dest", dest, dext);
    if (!rc) rc = coll_check_sym(call, "source", src, sext);
    if (rc) return rc;
    uint64_t e = coll_begin(t);
    coll_turn_t x = coll_turn_begin(t, e);
    if (nelems == 0) return NODESHM_OK;
    if (t->n_nodes == 1) {
        coll_path(COLL_ALLTOALL, COLL_PATH_NODE);
        alltoall_node(t, x, dest, src, dst, sst, nelems, elem);
        return NODESHM_OK;
    }
    size_t block = nelems * elem; /* bytes per PE pair */
    if (coll_nodes_alltoall_by_library(t, block)) {
        coll_path(COLL_ALLTOALL, COLL_PATH_LIBRARY);
        return alltoall_by_library(call, t, dest, src, dst, sst, nelems, elem);
    }
    coll_path(COLL_ALLTOALL, COLL_PATH_LEADERS);
    if ((size_t)n * block <= NODESHM_COLL_NODES_A2A_MAX) { /* leaders only: fan.c */
        MPI_Comm leaders = MPI_COMM_NULL;
        if ((rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
        return nodeshm_coll_nodes_alltoall(call, t, leaders, e, dest, src, dst, sst, nelems, elem);
    }
    coll_node_sync(t, e + 1);
    for (int k = 0; k < t->node_n_pes; k++) {
        int j = t->node_members[k];
        coll_copy_block(coll_at_member(t, dest, k) + (size_t)me * nelems * dst * elem, dst,
                        (const char *)src + (size_t)j * nelems * sst * elem, sst, nelems, elem);
    }
    if (t->n_nodes > 1) {
        int *cnt = calloc((size_t)n, sizeof(int)), *sd = calloc((size_t)n, sizeof(int));
        int *rcnt = calloc((size_t)n, sizeof(int)), *rd = calloc((size_t)n, sizeof(int));
        int contig = dst == 1 && sst == 1;
        int remote = n - t->node_n_pes;
        char *sbuf = NULL, *rbuf = NULL;
        if (!cnt || !sd || !rcnt || !rd) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
        if (!rc && (contig ? (size_t)n : (size_t)remote) * block > INT_MAX)
            rc = nodeshm_coll_too_big(call, (size_t)n * block);
        if (!rc && !contig) {
            sbuf = malloc((size_t)remote * block);
            rbuf = malloc((size_t)remote * block);
            if (!sbuf || !rbuf) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
        }
        if (!rc) {
            for (int j = 0, p = 0; j < n; j++) {
                if (t->node_of[j] == t->my_node) continue;
                cnt[j] = rcnt[j] = (int)block;
                sd[j] = rd[j] = contig ? (int)((size_t)j * block) : (int)((size_t)p * block);
                if (!contig)
                    coll_copy_block(sbuf + (size_t)p * block, 1,
                                    (const char *)src + (size_t)j * nelems * sst * elem, sst, nelems, elem);
                p++;
            }
            if (MPI_Alltoallv(contig ? src : sbuf, cnt, sd, MPI_BYTE, contig ? dest : rbuf, rcnt,
                              rd, MPI_BYTE, t->comm) != MPI_SUCCESS)
                rc = nodeshm_coll_mpi_failed(call, "MPI_Alltoallv between nodes");
        }
        if (!rc && !contig)
            for (int j = 0, p = 0; j < n; j++) {
                if (t->node_of[j] == t->my_node) continue;
                coll_copy_block((char *)dest + (size_t)j * nelems * dst * elem, dst,
                                rbuf + (size_t)p * block, 1, nelems, elem);
                p++;
            }
        free(cnt);
        free(sd);
        free(rcnt);
        free(rd);
        free(sbuf);
        free(rbuf);
    }
    coll_node_sync(t, e + 2);
    return rc;
}
