/* Which path each OpenSHMEM team collective took (shmemx_coll_calls): on SHMEM_TEAM_WORLD, every
 * counted family at sizes on both sides of each of its choices, each call checked to move exactly
 * its expected path's counter by one (and no other family's or path's), with its values checked
 * against a local reference on fresh random data.  The expected path restates the choices
 * (src/core/coll/team/team_coll.h, core/coll/library_wins.h; their size bounds taken from those
 * headers): one node, "node"; between nodes "library" where the MPI library's own collective runs
 * (MPICH: team_sync always; with at most 2 PEs per node fcollect up to 64 KiB, reductions up to
 * 16 KiB; alltoall in MPICH's inject band; broadcast up to 16 KiB, with more than 2 PEs per node
 * only above 128 B; Open MPI: scans above the chain's sizes), else "leaders".  (Scans take the
 * chain up to coll_small_max(), 256 or 560 B by oversubscription: 8-256 B is the chain either
 * way, 4 KiB and up never; every team here is nodes in blocks of PEs, as the chain needs.) */
#include "common.h"
#include "core/coll/reduce.h"
#include "core/coll/library_wins.h"

#include <shmemx.h>
#include <stdint.h>
#include <string.h>

#define COLL_LIBRARY_MAX ((size_t)64 << 10) /* team_coll.h: NODESHM_COLL_NODES_LIBRARY_MAX */
#define BCAST_LIBRARY_MAX ((size_t)16 << 10) /* team_coll.h: coll_nodes_bcast_by_library */
#define BCAST_FEW_MAX ((size_t)128)          /* ... where more than 2 PEs per node: above this */
#define SCAN_CHAIN_MAX ((size_t)256)         /* coll_small_max()'s smaller value (small.c) */

static const char *const families[] = {"sync", "broadcast", "collect", "fcollect", "alltoall", "reduce", "scan"};
static const char *const paths[] = {"node", "leaders", "library"};
enum { NF = 7, NP = 3 };
static long before[NF][NP];
static int me, npes, nodes;

static void snapshot(void)
{
    for (int f = 0; f < NF; f++)
        for (int p = 0; p < NP; p++) before[f][p] = shmemx_coll_calls(families[f], paths[p]);
}
/* the counters moved by exactly one call of family f on path p */
static void expect(int f, int p, const char *what, size_t bytes)
{
    for (int g = 0; g < NF; g++)
        for (int q = 0; q < NP; q++) {
            long moved = shmemx_coll_calls(families[g], paths[q]) - before[g][q];
            long want = g == f && q == p;
            CHECK(moved == want, "%s of %zu bytes: %s/%s moved by %ld, expected %ld", what, bytes, families[g],
                  paths[q], moved, want);
        }
}
static int between(void) { return nodes > 1; }
static int few_per_node(void) { return NODESHM_UNDER_MPICH && npes <= 2 * nodes; }
static int path_of(int library) { return !between() ? 0 : library ? 2 : 1; }
static int bcast_by_library(size_t b)
{
    return NODESHM_UNDER_MPICH && b <= BCAST_LIBRARY_MAX && (b > BCAST_FEW_MAX || npes <= 2 * nodes);
}
static int scan_by_library(size_t b) { return !NODESHM_UNDER_MPICH && b > SCAN_CHAIN_MAX; }

static uint64_t val(int pe, int call, size_t i) { return test_value(pe, call, i); }

int main(void)
{
    shmem_init();
    me = shmem_my_pe(), npes = shmem_n_pes(), nodes = shmemx_n_nodes();
    (void)test_seed();
    const size_t MAX = (size_t)128 << 10;
    uint64_t *src = shmem_malloc(MAX), *dst = shmem_malloc(MAX * (size_t)npes);
    uint64_t *ref = malloc(MAX * (size_t)npes);
    CHECK(src && dst && ref, "memory");
    CHECK(shmemx_coll_calls("no_such_family", "node") == -1 && shmemx_coll_calls("sync", "nowhere") == -1,
          "unknown names must give -1");
    int call = 0;

    snapshot();
    shmem_team_sync(SHMEM_TEAM_WORLD);
    expect(0, path_of(NODESHM_UNDER_MPICH), "team_sync", 0);

    /* fcollect and reductions: both sides of their bounds; alltoall: both sides of the band */
    static const size_t sizes[] = {8, 24, 64, 256, 4096, 16384, 16392, 65536, 65544};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++, call++) {
        size_t b = sizes[k], n = b / 8;
        for (size_t i = 0; i < n; i++) src[i] = val(me, call, i);
        shmem_barrier_all();
        snapshot();
        shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, b);
        expect(3, path_of(few_per_node() && b <= COLL_LIBRARY_MAX), "fcollect", b);
        for (int pe = 0; pe < npes; pe++)
            for (size_t i = 0; i < n; i++) ref[(size_t)pe * n + i] = val(pe, call, i);
        CHECK(!memcmp(dst, ref, b * (size_t)npes), "fcollect of %zu bytes: values", b);

        snapshot();
        shmem_uint64_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
        expect(5, path_of(few_per_node() && b <= NODESHM_REDUCE_NODES_FAN_MAX), "sum_reduce", b);
        for (size_t i = 0; i < n; i++) {
            uint64_t s = 0;
            for (int pe = 0; pe < npes; pe++) s += val(pe, call, i);
            CHECK(dst[i] == s, "sum_reduce of %zu bytes: element %zu", b, i);
            if (dst[i] != s) break;
        }

        if (b * (size_t)npes <= MAX) { /* alltoall: b bytes per pair */
            for (int pe = 0; pe < npes; pe++)
                for (size_t i = 0; i < n; i++) src[(size_t)pe * n + i] = val(me, call + 1000, (size_t)pe * n + i);
            shmem_barrier_all();
            snapshot();
            shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, b);
            expect(4, path_of(nodeshm_nodes_alltoall_by_library(npes, nodes, b)), "alltoall", b);
            for (int pe = 0; pe < npes; pe++)
                for (size_t i = 0; i < n; i++) ref[(size_t)pe * n + i] = val(pe, call + 1000, (size_t)me * n + i);
            CHECK(!memcmp(dst, ref, b * (size_t)npes), "alltoall of %zu bytes: values", b);
        }

        snapshot();
        for (size_t i = 0; i < n; i++) src[i] = val(me, call + 2000, i);
        shmem_barrier_all();
        snapshot();
        int root = call % npes;
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, b, root);
        expect(1, path_of(bcast_by_library(b)), "broadcast", b);
        for (size_t i = 0; i < n; i++) ref[i] = val(root, call + 2000, i);
        CHECK(!memcmp(dst, ref, b), "broadcast of %zu bytes from PE %d: values", b, root);
        snapshot();
        shmem_uint64_sum_inscan(SHMEM_TEAM_WORLD, dst, src, n);
        expect(6, path_of(scan_by_library(b)), "sum_inscan", b);
        for (size_t i = 0; i < n; i++) {
            uint64_t s = 0;
            for (int pe = 0; pe <= me; pe++) s += val(pe, call + 2000, i);
            CHECK(dst[i] == s, "sum_inscan of %zu bytes: element %zu", b, i);
            if (dst[i] != s) break;
        }
        snapshot();
        shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, b);
        expect(2, path_of(0), "collect", b);
        for (int pe = 0; pe < npes; pe++)
            for (size_t i = 0; i < n; i++) ref[(size_t)pe * n + i] = val(pe, call + 2000, i);
        CHECK(!memcmp(dst, ref, b * (size_t)npes), "collect of %zu bytes: values", b);
        shmem_barrier_all();
    }
    shmem_free(src);
    shmem_free(dst);
    free(ref);
    int rc = test_finish("coll_paths");
    shmem_finalize();
    return rc;
}
