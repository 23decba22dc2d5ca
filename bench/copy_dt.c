/* nodeshm-bench-dt: strided ("datatype") transfers between two PEs of a node, by block size.
 *
 * The sender's data is `buffer` bytes (default 4 MiB; -m [minblock:]buffer) laid out as blocks of
 * b bytes, every other block (stride 2b); the receiver gets them into the same layout.  Block
 * sizes b = 4 B .. buffer by powers of 2.  Per transfer, side by side in one run:
 *   shm_np    sender packs every block into a shared staging buffer, raises a flag; receiver
 *             unpacks from it (two copies, no overlap)
 *   shm_p     pipelined: the packed stream goes through a ring of CHUNK-byte slots with flags,
 *             so packing chunk k+1 overlaps unpacking chunk k
 *   cma       receiver: one process_vm_readv per IOV_MAX blocks, one iovec per block, straight
 *             from the sender's private buffer (nodeshm_cma_readv; iovec lists built once)
 *   xpmem_nc  XPMEM attach, copy the blocks, detach, every transfer   (when XPMEM works)
 *   xpmem_c   the same with the attachment cached                     (when XPMEM works)
 *   mpi_send  MPI_Send / MPI_Recv of one MPI_Type_vector(count, b, 2b, MPI_BYTE)
 * -p N runs N pairs at once (PE 2i sends to PE 2i+1).  CSV (bench/bench_util.h): test "dt" (one
 * pair) or "dt_multi" (-p > 1), bytes = buffer, param = block size, time per transfer (max over
 * the PEs of each repetition).  The receiver checks every transfer's bytes (once per engine).
 * --cold: both sides' strided layouts are slots of a ring >= 2 x LLC (bench_util.h), transfer n
 * on slot n, so neither the packing nor the unpacking finds its data in a cache; tests dt_cold /
 * dt_multi_cold (CMA's iovec lists are moved to the slot outside the timed time). */
#include <mpi.h>
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "bench_util.h"
#include "core/copy_engine.h"
#include "core/runtime.h"
#include "core/wait.h"

#define PROG "nodeshm-bench-dt"
#define CHUNK ((size_t)32 << 10) /* pipelined slot */
#define NSLOT 8
#define MAX_SAMPLES 64

#define DT_ENGINES(X) X(SHM_NP, "shm_np") X(SHM_P, "shm_p") X(CMA, "cma") \
    X(XPMEM_NC, "xpmem_nc") X(XPMEM_C, "xpmem_c") X(MPI, "mpi_send")
enum {
#define DT_ENUM_(id, name) E_##id,
    DT_ENGINES(DT_ENUM_)
#undef DT_ENUM_
    E_COUNT
};
static const char *const engine_name[E_COUNT] = {
#define DT_NAME_(id, name) name,
    DT_ENGINES(DT_NAME_)
#undef DT_NAME_
};

static uint64_t *ready, *ack; /* symmetric: ready lives on the sender, ack on the receiver */
static uint64_t seq;          /* chunks handed over so far: the same count on both sides */

static void wait_ge(const uint64_t *flag, uint64_t v)
{
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < v) nodeshm_wait_step(&w);
}

/* Bytes [pos, pos+len) of the packed stream <-> the strided layout at `base` (block b). */
static void stream_copy(int pack, char *base, size_t b, size_t pos, size_t len, char *packed)
{
    while (len > 0) {
        size_t k = pos / b, off = pos % b, n = b - off < len ? b - off : len;
        char *s = base + 2 * b * k + off;
        if (pack) memcpy(packed, s, n);
        else memcpy(s, packed, n);
        packed += n, pos += n, len -= n;
    }
}

static int pairs_arg(const char *arg, const char *next, void *user)
{
    if (strcmp(arg, "-p") || !next) return 0;
    char *end;
    long v = strtol(next, &end, 10);
    if (*end || v < 1 || v > 4096) return 0;
    *(int *)user = (int)v;
    return 2;
}

/* byte i of PE pe's layout in ring slot k (--cold: every slot differs, so a transfer that read
 * another slot than its own is caught) */
static unsigned char pattern_byte(int pe, size_t i, unsigned long k)
{
    return (unsigned char)((i * 131u) ^ (i >> 9) ^ ((unsigned)pe * 77u) ^ (k * 29u));
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), pairs = 1;
    bench_opts_t opt;
    int bad = bench_parse(argc, argv, PROG, me, &opt, pairs_arg, &pairs,
                          "[-p pairs] (-m [min_block:]buffer_bytes)");
    if (!bad && npes < 2 * pairs) {
        if (me == 0) bench_note(PROG, "-p %d needs at least %d PEs, not %d", pairs, 2 * pairs, npes);
        bad = 2;
    }
    if (bad) {
        shmem_finalize();
        return bad;
    }
    /* quick mode: a 16 KiB buffer, blocks from 64 B (handoffs cost a time slice when the
     * machine is oversubscribed; tests must stay short) */
    size_t buf = bench_quick() ? (size_t)16 << 10 : (size_t)4 << 20, minb = bench_quick() ? 64 : 4;
    if (opt.max_size) buf = opt.max_size;
    if (opt.min_size) minb = opt.min_size;
    const nodeshm_copy_caps_t *caps = nodeshm_copy_caps();
    int reps = bench_reps();
    long warm = bench_warmup(&opt, 1);
    long normal = (long)(((size_t)8 << 20) / buf);
    long iters = bench_iters_opt(&opt, normal < 2 ? 2 : normal > 50 ? 50 : normal);

    int active = me < 2 * pairs, sender = active && me % 2 == 0, receiver = active && me % 2 == 1;
    int partner = active ? me ^ 1 : -1;
    /* --cold: the strided layout is a ring of slots (bench_util.h); hot: one slot */
    size_t total = 2 * buf;
    if (opt.cold) {
        total = bench_cold_bytes(PROG, me, nodeshm_rt.topo.node_n_pes, 1, 0, 0, 2 * buf);
        if (!total) {
            shmem_finalize();
            return 1;
        }
    }
    bench_ring_t ring = {NULL, total, 0, 1};
    bench_ring_size(&ring, 2 * buf, opt.cold);
    char *data = malloc(total);                     /* strided layouts, private */
    char *stage = shmem_malloc(buf > NSLOT * CHUNK ? buf : NSLOT * CHUNK);
    ready = shmem_calloc(1, sizeof *ready);
    ack = shmem_calloc(1, sizeof *ack);
    static uint64_t data_addr;
    int ok = data && stage && ready && ack, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_ok) {
        if (me == 0) bench_note(PROG, "cannot allocate %zu bytes per PE%s", total + buf,
                                opt.cold ? " (--cold)" : "");
        shmem_finalize();
        return 1;
    }
    ring.base = data;
    for (unsigned long k = 0; k < ring.k; k++) {
        char *slot = bench_slot(&ring, k);
        for (size_t i = 0; i < 2 * buf; i++) slot[i] = sender ? (char)pattern_byte(me, i, k) : 0;
    }
    unsigned long turns = 0; /* transfers so far: the same count on both sides */
    data_addr = (uint64_t)(uintptr_t)data;
    shmem_barrier_all();

    /* the partner's side, all within the node (else: say so and stop) */
    int pidx = active ? nodeshm_rt.topo.node_index_of[partner] : -1;
    const nodeshm_copy_peer_t *peer = pidx >= 0 ? nodeshm_copy_peer(pidx) : NULL;
    char *their_stage = active && pidx >= 0 ? shmem_ptr(stage, partner) : NULL;
    uint64_t *their_ready = active && pidx >= 0 ? shmem_ptr(ready, partner) : NULL;
    uint64_t *their_ack = active && pidx >= 0 ? shmem_ptr(ack, partner) : NULL;
    uint64_t their_data = 0;
    if (active) shmem_getmem(&their_data, &data_addr, sizeof their_data, partner);
    int local = !active || (peer && their_stage && their_ready && their_ack), all_local = 0;
    MPI_Allreduce(&local, &all_local, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_local) {
        if (me == 0) bench_note(PROG, "a pair spans nodes: strided copies need one node");
        shmem_finalize();
        return 1;
    }

    int avail[E_COUNT] = {1, 1, caps && caps->cma, caps && caps->xpmem, caps && caps->xpmem, 1};
    char test[64];
    bench_cold_test(&opt, pairs > 1 ? "dt_multi" : "dt", test);
    if (me == 0) {
        bench_note(PROG, "buffer %zu bytes, blocks %zu..%zu, %d pair(s), %d PEs, %ld iterations x "
                   "%d repetitions; CMA %s, XPMEM %s", buf, minb, buf, pairs, npes, iters, reps,
                   avail[E_CMA] ? "on" : caps ? caps->cma_why : "not probed",
                   avail[E_XPMEM_C] ? "on" : caps ? caps->xpmem_why : "not probed");
        if (opt.csv) bench_csv_header();
        else {
            printf("# %s: buffer %zu bytes, %d pair(s), us per transfer (median of %d)%s\n", PROG,
                   buf, pairs, reps, opt.full ? " [min-max]" : "");
            printf("# %9s %9s", "block", "count");
            for (int e = 0; e < E_COUNT; e++)
                if (avail[e]) printf(" %*s", opt.full ? 26 : 12, engine_name[e]);
            printf("\n");
        }
    }

    int failed = 0;
    for (size_t b = minb; b <= buf && !failed; b *= 2) {
        size_t count = buf / b;
        struct iovec *liov = NULL, *riov = NULL;
        size_t iov_at = 0; /* the slot offset the iovecs point at (--cold moves them) */
        if (receiver && avail[E_CMA]) {
            liov = malloc(count * sizeof *liov);
            riov = malloc(count * sizeof *riov);
            for (size_t k = 0; liov && riov && k < count; k++) {
                liov[k] = (struct iovec){data + 2 * b * k, b};
                riov[k] = (struct iovec){(void *)(uintptr_t)(their_data + 2 * b * k), b};
            }
        }
        MPI_Datatype vec;
        MPI_Type_vector((int)count, (int)b, (int)(2 * b), MPI_BYTE, &vec);
        MPI_Type_commit(&vec);
        bench_stats_t st[E_COUNT];
        memset(st, 0, sizeof st);
        static double samples[E_COUNT][MAX_SAMPLES];
        /* repetitions outermost, engines inside: load that comes and goes (a shared machine)
         * hits every engine alike */
        for (int r = -1; r < reps && !failed; r++) { /* r = -1: warm-up */
            for (int e = 0; e < E_COUNT && !failed; e++) {
                if (!avail[e]) continue;
                long n = r < 0 ? warm : iters;
                unsigned long t1 = turns;
                turns += (unsigned long)n;
                double untimed = 0; /* moving CMA's iovecs to the next slot (--cold) */
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = bench_now();
                for (long it = 0; active && it < n && !failed; it++) {
                    size_t off = bench_slot_off(&ring, t1 + (unsigned long)it);
                    char *lay = ring.base + off; /* this transfer's strided layout */
                    switch (e) {
                    case E_SHM_NP: /* one "chunk" of buf bytes; staging free when acked */
                        seq++;
                        if (sender) {
                            wait_ge(their_ack, seq - 1);
                            stream_copy(1, lay, b, 0, buf, stage);
                            __atomic_store_n(ready, seq, __ATOMIC_RELEASE);
                        } else {
                            wait_ge(their_ready, seq);
                            stream_copy(0, lay, b, 0, buf, their_stage);
                            __atomic_store_n(ack, seq, __ATOMIC_RELEASE);
                        }
                        break;
                    case E_SHM_P:
                        for (size_t pos = 0; pos < buf; pos += CHUNK) {
                            size_t len = buf - pos < CHUNK ? buf - pos : CHUNK;
                            uint64_t g = ++seq;
                            size_t slot = (size_t)(g % NSLOT) * CHUNK;
                            if (sender) {
                                wait_ge(their_ack, g > NSLOT ? g - NSLOT : 0);
                                stream_copy(1, lay, b, pos, len, stage + slot);
                                __atomic_store_n(ready, g, __ATOMIC_RELEASE);
                            } else {
                                wait_ge(their_ready, g);
                                stream_copy(0, lay, b, pos, len, their_stage + slot);
                                __atomic_store_n(ack, g, __ATOMIC_RELEASE);
                            }
                        }
                        break;
                    case E_CMA:
                        if (receiver && liov && riov && off != iov_at) {
                            double u0 = bench_now();
                            for (size_t k = 0; k < count; k++) {
                                liov[k].iov_base = (char *)liov[k].iov_base - iov_at + off;
                                riov[k].iov_base = (char *)riov[k].iov_base - iov_at + off;
                            }
                            iov_at = off;
                            untimed += bench_now() - u0;
                        }
                        if (receiver)
                            failed = !liov || !riov ||
                                     nodeshm_cma_readv(PROG, peer, liov, count, riov, count);
                        break;
                    case E_XPMEM_NC:
                    case E_XPMEM_C:
                        if (receiver) {
                            const char *src = nodeshm_xpmem_attach(
                                peer, (void *)(uintptr_t)their_data, total);
                            if (!src) {
                                bench_note(PROG, "PE %d: xpmem attach failed", me);
                                failed = 1;
                                break;
                            }
                            for (size_t k = 0; k < count; k++)
                                memcpy(lay + 2 * b * k, src + off + 2 * b * k, b);
                            if (e == E_XPMEM_NC) nodeshm_xpmem_release(peer);
                        }
                        break;
                    case E_MPI:
                        if (sender) MPI_Send(lay, 1, vec, partner, 7, MPI_COMM_WORLD);
                        else MPI_Recv(lay, 1, vec, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        break;
                    }
                }
                double t = active ? (bench_now() - t0 - untimed) / (double)(n ? n : 1) : 0;
                /* the receiver holds exactly the sender's blocks in every slot this repetition
                 * used; clears them for the next (after the timing: they are not cold then, but
                 * are not used again before the ring has come round) */
                if (receiver && !failed && n > 0) {
                    unsigned long used = (unsigned long)n < ring.k ? (unsigned long)n : ring.k;
                    for (unsigned long j = turns - used; j < turns && !failed; j++) {
                        char *chk = bench_slot(&ring, j);
                        unsigned long slot = j % ring.k;
                        for (size_t k = 0; k < count && !failed; k++)
                            for (size_t i = 2 * b * k; i < 2 * b * k + b; i += (b > 64 ? 61 : 1))
                                if ((unsigned char)chk[i] != pattern_byte(partner, i, slot)) {
                                    bench_note(PROG, "PE %d: %s, block %zu: byte %zu wrong", me,
                                               engine_name[e], b, i);
                                    failed = 1;
                                    break;
                                }
                        memset(chk, 0, 2 * buf);
                    }
                }
                /* one collective for both: each costs a time slice on a loaded machine */
                double mine[2] = {t, failed}, all[2];
                MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (r >= 0) samples[e][r] = all[0];
                failed = all[1] > 0;
            }
        }
        if (receiver && avail[E_XPMEM_C]) nodeshm_xpmem_release(peer);
        for (int e = 0; e < E_COUNT && !failed; e++) {
            if (!avail[e]) continue;
            st[e] = bench_stats(samples[e], reps);
            if (me == 0 && opt.csv) {
                char param[24];
                snprintf(param, sizeof param, "%zu", b);
                bench_row(test, engine_name[e], buf, param, npes, st[e]);
            }
        }
        MPI_Type_free(&vec);
        free(liov);
        free(riov);
        if (me == 0 && !opt.csv && !failed) {
            printf("  %9zu %9zu", b, count);
            for (int e = 0; e < E_COUNT; e++) {
                if (!avail[e]) continue;
                if (opt.full)
                    printf(" %10.1f [%6.1f-%6.1f]", st[e].median * 1e6, st[e].min * 1e6,
                           st[e].max * 1e6);
                else printf(" %12.1f", st[e].median * 1e6);
            }
            printf("\n");
            fflush(stdout);
        }
        if (b > buf / 2) break;
    }
    shmem_barrier_all();
    free(data);
    shmem_free(stage);
    shmem_free(ready);
    shmem_free(ack);
    shmem_finalize();
    return failed;
}
