/* nodeshm core, OpenSHMEM team collectives: alltoall and alltoalls (coll.h).
 *
 * One node: core/coll/alltoall.h's alltoall (written once for both faces: every member publishes
 * its blocks, each takes the block meant for it from every member, starting with the next one)
 * on this face's publications (below: staging, or the member's source when large).  Several
 * nodes, up to NODESHM_COLL_NODES_A2A_MAX of blocks per PE: fan.c (the leader moves its node's
 * blocks, one MPI_Alltoallv of the leaders), bar where the library's own wins (MPI_Alltoall over
 * the team: core/coll/library_wins.h).  Larger: each PE pushes its blocks for node peers straight
 * into their dest; blocks for other nodes go by one MPI_Alltoallv over the team (zero counts
 * within the node; strided blocks packed). */
#include "core/coll/team/team_coll.h"
#include "core/coll/alltoall.h"

#include <limits.h>
#include <stdlib.h>

/* An alltoall's owner waits for every reader of its source, and when PEs outnumber cores that
 * wait costs context switches: then up to 16 KiB of blocks are staged (nodeshm-bench-coll, Open
 * MPI 5, 4 PEs on 2 cores, ratio to MPI_Alltoall with the switch at 4 / 16 / 64 KiB, 2 runs:
 * 2 KiB blocks 1.30-1.33x / 1.96-2.21x / 1.71-1.73x; 4 KiB 3.1x / 4.0-4.7x / 2.7x; 16 KiB
 * 3.4x / 2.8-3.9x / 1.4x), unless NODESHM_COLL_EAGER_MAX says otherwise. */
static size_t alltoall_eager_max(void) { return coll_owner_waits_eager_max(COPY_EAGER_DEFAULT); }

/* ---- this face's publications of a one-node alltoall (core/coll/publish.h) ---------------------- */
/* Up to the eager size each member packs its blocks for the others into its staging buffer of
 * the turn (block j at j * block; its own block stays out: it copies that from its source);
 * above it the member publishes its source, which readers copy in place at its stride
 * (rendezvous: it waits for their done after the call).  Every member decides the same (the
 * sizes are symmetric, the eager size is the same everywhere).  On a one-node team node member k
 * is team member k, and my dest's block k is k's. */
typedef struct alltoall_pub {
    nodeshm_pub_t p;
    nodeshm_team_t *t;
    coll_turn_t x;
    char *dest;
    const char *src;
    size_t dst, sst, nelems, elem;
    size_t dblk, sblk; /* bytes from one block's start to the next one's in dest, in src */
    size_t pitch;      /* the same in a publication: packed (block bytes), or sblk */
    int eager;
} alltoall_pub_t;
static inline const alltoall_pub_t *alltoall_of(const nodeshm_pub_t *p) { return (const alltoall_pub_t *)p; }

static inline char *alltoall_claim(nodeshm_pub_t *p)
{
    const alltoall_pub_t *a = alltoall_of(p);
    return a->eager ? coll_stage_claim(a->t, a->x) : (char *)(uintptr_t)a->src;
}

static inline void alltoall_pack(nodeshm_pub_t *p, char *to)
{
    const alltoall_pub_t *a = alltoall_of(p);
    if (!a->eager) return;
    /* the fields in locals: the blocks' stores may alias the struct, which would reload them */
    const int n = p->n, me = p->me;
    const char *src = a->src;
    const size_t pitch = a->pitch, sblk = a->sblk, sst = a->sst, nelems = a->nelems, elem = a->elem;
    for (int j = 0; j < n; j++)
        if (j != me) coll_copy_block(to + (size_t)j * pitch, 1, src + (size_t)j * sblk, sst, nelems, elem);
}

static inline void alltoall_post(nodeshm_pub_t *p, int what)
{
    const alltoall_pub_t *a = alltoall_of(p);
    (void)what; /* DATA: my blocks */
    coll_publish(a->t, a->x, (uint64_t)p->n * a->nelems * a->elem, a->eager ? FROM_STAGE : FROM_SOURCE, 0);
}

/* Waits for node member k's blocks; returns where they start */
static inline const char *alltoall_await(const nodeshm_pub_t *p, int k, int what)
{
    const alltoall_pub_t *a = alltoall_of(p);
    (void)what;
    (void)coll_await_ready(a->t, a->x, k);
    return a->eager ? coll_stage_of(a->t, k, a->x.b) : coll_at_member(a->t, a->src, k);
}

static inline const char *alltoall_block(const nodeshm_pub_t *p, const char *at, int j)
{
    return at + (size_t)j * alltoall_of(p)->pitch;
}

/* Block from member k, at `from`, into dest's block k: packed where staged (a constant source
 * stride of 1, as the former code's call: with the stride a runtime value, strided alltoalls of
 * 256 B-4 KiB took 2-4% longer, both MPIs), else at k's stride; when staged, mine from my source
 * (it is not in my staging) */
static inline void alltoall_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    const alltoall_pub_t *a = alltoall_of(p);
    char *to = a->dest + (size_t)k * a->dblk;
    if (!a->eager) coll_copy_block(to, a->dst, from, a->sst, a->nelems, a->elem);
    else if (k != p->me) coll_copy_block(to, a->dst, from, 1, a->nelems, a->elem);
    else coll_copy_block(to, a->dst, a->src + (size_t)k * a->sblk, a->sst, a->nelems, a->elem);
}

static inline void alltoall_done(nodeshm_pub_t *p)
{
    const alltoall_pub_t *a = alltoall_of(p);
    coll_mark_done(a->t, a->x);
}

static const nodeshm_pub_ops_t alltoall_ops = {.post = alltoall_post, .await = alltoall_await,
                                               .done = alltoall_done, .claim = alltoall_claim,
                                               .pack = alltoall_pack, .unpack = alltoall_unpack,
                                               .block = alltoall_block};

/* One node: core/coll/alltoall.h.  A member whose source was read in place waits for the others'
 * done before returning. */
static void alltoall_node(nodeshm_team_t *t, coll_turn_t x, void *dest, const void *src, size_t dst,
                          size_t sst, size_t nelems, size_t elem)
{
    const int n = t->node_n_pes;
    const size_t block = nelems * elem;
    alltoall_pub_t a = {.p = {n, t->node_my_pe, 1, 0}, .t = t, .x = x, .dest = dest, .src = src, .dst = dst,
                        .sst = sst, .nelems = nelems, .elem = elem, .dblk = block * dst, .sblk = block * sst,
                        .eager = (size_t)n * block <= alltoall_eager_max()};
    a.pitch = a.eager ? block : a.sblk;
    nodeshm_alltoall(&alltoall_ops, &a.p);
    if (!a.eager) coll_await_done(t, x); /* the readers copied my source */
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
