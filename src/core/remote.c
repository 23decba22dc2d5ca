/* nodeshm core: MPI-3 RMA between nodes. */
#include "core/remote.h"
#include "core/env.h"
#include "core/runtime.h"

#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static MPI_Win windows[NODESHM_NSEGS] = {MPI_WIN_NULL, MPI_WIN_NULL};

/* Open MPI 5.0 (osc/rdma with hardware-style atomics) returns wrong results for 64-bit
 * MPI_BAND/BOR/BXOR in MPI_Fetch_and_op (seen with 5.0.11; a pure-MPI program reproduces it);
 * there we build those from MPI_Compare_and_swap, which is right. */
static int bitwise64_by_cas;

/* MPI operations that a flush must complete: `issued` counts them, `completed` is the count a
 * finished flush of every window covers (it only grows).  With several threads, a quiet returns
 * early only when a flush that started after its operations has finished. */
static uint64_t ops_issued, ops_completed;
/* Progress (a PE waiting for something) flushes once after new operations, without the write
 * confirmation below (it only has to make sure MPI sends them): `pushed` is the count it covered. */
static uint64_t ops_pushed;
/* The same two counts per window: a flush leaves out a window with nothing issued since the last
 * finished flush of it. */
static uint64_t win_issued[NODESHM_NSEGS], win_completed[NODESHM_NSEGS];

/* MPI counts are ints: a contiguous transfer larger than this goes as several operations, all
 * issued before one completion.  NODESHM_RMA_CHUNK_MAX lowers it so tests reach the split
 * without a 2 GiB heap. */
static size_t chunk_max = INT_MAX;
/* Blocking puts' and non-fetching AMOs' bounce ring (bounce_issue) */
#define BOUNCE_BYTES ((size_t)256 << 10)
#define BOUNCE_PUT_MAX ((size_t)16 << 10)
static char *bounce_ring;
static size_t bounce_used;
static unsigned bounce_windows; /* bit s: window s has puts out of the ring */
static pthread_mutex_t bounce_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void note_issued(int seg)
{
    __atomic_fetch_add(&win_issued[seg], 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&ops_issued, 1, __ATOMIC_RELEASE);
}

/* `*done` = max(`*done`, `value`): counts only grow. */
static void raise_to(uint64_t *done, uint64_t value)
{
    uint64_t d = __atomic_load_n(done, __ATOMIC_ACQUIRE);
    while (d < value &&
           !__atomic_compare_exchange_n(done, &d, value, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
}

static int mpi_failed(const char *call, const char *what, int err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    return nodeshm_report(NODESHM_ERR_MPI, call, "%s failed: %s", what, text);
}
#define MPI_TRY(call, expr)                                                                        \
    do {                                                                                           \
        int err_ = (expr);                                                                         \
        if (err_ != MPI_SUCCESS) return mpi_failed(call, #expr, err_);                             \
    } while (0)

/* Completion at the target, confirmed.  MPICH over OFI's tcp provider sends a small MPI_Put as
 * fi_inject_write, which counts as complete once the bytes are in the origin's socket: the
 * provider asks no acknowledgement for an inject (libfabric's xnet_rma_inject_common), so
 * MPI_Win_flush returns while the data may still wait in the target's socket buffer until the
 * target next enters MPI.  After shmem_barrier_all a PE then read stale data
 * (tests/host_visibility.c: 192-522 stale views in 500 rounds of puts at 2 hosts x 2 PEs).
 * So a flush that covers writes also fetches (MPI_NO_OP) a word from each target written since
 * the last one, on the same window, and waits for it: the target answers only after it has
 * taken every earlier byte of that connection off the socket, the write's data included.  The
 * target answers from its MPI progress, which a waiting PE drives (core/wait.h), as for any
 * fetching atomic.  Not MPI_Get: over OFI tcp a 1-byte MPI_Get took ~20 ms (the put loop ran
 * 10x slower); the fetch costs one round trip (1000 rounds of 64 puts + barrier: 2.3 -> 3.3 s).
 * On by default except under Open MPI (whose flush completes at the target: the host tests
 * pass there); NODESHM_RMA_CONFIRM=0|1 overrides. */
static int confirm_writes;
static int n_targets;
static unsigned char *written[NODESHM_NSEGS]; /* written[s][pe]: a write not yet confirmed */
static int *written_list[NODESHM_NSEGS];      /* those PEs, each once */
static uint64_t *written_sink[NODESHM_NSEGS]; /* the fetches' results, one per target */
static int written_n[NODESHM_NSEGS];
static pthread_mutex_t written_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_written(int seg, int pe)
{
    if (!confirm_writes) return;
    pthread_mutex_lock(&written_lock);
    if (!written[seg][pe]) {
        written[seg][pe] = 1;
        written_list[seg][written_n[seg]++] = pe;
    }
    pthread_mutex_unlock(&written_lock);
}

/* Fetches the first word of every window of each PE written to since the last call (pe < 0)
 * or of that one PE; the caller's flush then waits for the answers.  The caller holds
 * written_lock until that flush has finished, so that a concurrent flush does not count
 * writes confirmed by a read that has not yet come back. */
static int confirm_issue(const char *call, int pe, int *fetched)
{
    const uint64_t zero = 0;
    for (int s = 0; s < NODESHM_NSEGS; s++) {
        if (fetched) fetched[s] = written_n[s] > 0;
        if (pe >= 0) {
            if (!written[s][pe]) continue;
            int err = MPI_Fetch_and_op(&zero, &written_sink[s][pe], MPI_UINT64_T, pe, 0, MPI_NO_OP,
                                       windows[s]);
            if (err != MPI_SUCCESS) return mpi_failed(call, "MPI_Fetch_and_op (write confirmation)", err);
            continue; /* stays marked: the next flush of every target fetches again */
        }
        for (int i = 0; i < written_n[s]; i++) {
            int t = written_list[s][i];
            written[s][t] = 0;
            int err = MPI_Fetch_and_op(&zero, &written_sink[s][t], MPI_UINT64_T, t, 0, MPI_NO_OP,
                                       windows[s]);
            if (err != MPI_SUCCESS) return mpi_failed(call, "MPI_Fetch_and_op (write confirmation)", err);
        }
        written_n[s] = 0;
    }
    return NODESHM_OK;
}

int nodeshm_remote_init(void)
{
    if (!nodeshm_rt.spans_nodes) return NODESHM_OK;
    size_t cmax = INT_MAX;
    if (nodeshm_env_size("NODESHM_RMA_CHUNK_MAX", cmax, &cmax) != NODESHM_OK) return NODESHM_ERR_ENV;
    if (cmax == 0 || cmax > INT_MAX)
        return nodeshm_report(NODESHM_ERR_ENV, "shmem_init",
                              "NODESHM_RMA_CHUNK_MAX=%zu: must be 1..%d bytes", cmax, INT_MAX);
    chunk_max = cmax;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    bitwise64_by_cas = strstr(version, "Open MPI") != NULL;
    long confirm = strstr(version, "Open MPI") == NULL;
    if (nodeshm_env_long("NODESHM_RMA_CONFIRM", confirm, 0, 1, &confirm) != NODESHM_OK)
        return NODESHM_ERR_ENV;
    confirm_writes = (int)confirm;
    if (confirm_writes) {
        n_targets = nodeshm_rt.n_pes;
        for (int s = 0; s < NODESHM_NSEGS; s++) {
            written[s] = calloc((size_t)n_targets, 1);
            written_list[s] = malloc((size_t)n_targets * sizeof(int));
            written_sink[s] = malloc((size_t)n_targets * sizeof(uint64_t));
            written_n[s] = 0;
            if (!written[s] || !written_list[s] || !written_sink[s])
                return nodeshm_report(NODESHM_ERR_NOMEM, "shmem_init", "out of memory");
        }
    }
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "same_disp_unit", "true");
    for (int s = 0; s < NODESHM_NSEGS; s++) {
        nodeshm_segment_t *seg = &nodeshm_rt.seg[s];
        MPI_TRY("shmem_init", MPI_Win_create(seg->base, (MPI_Aint)seg->size, 1, info,
                                             nodeshm_rt.topo.world, &windows[s]));
        MPI_Win_set_errhandler(windows[s], MPI_ERRORS_RETURN);
        MPI_TRY("shmem_init", MPI_Win_lock_all(MPI_MODE_NOCHECK, windows[s]));
    }
    MPI_Info_free(&info);
    return NODESHM_OK;
}

void nodeshm_remote_fini(void)
{
    for (int s = 0; s < NODESHM_NSEGS; s++) {
        free(written[s]);
        free(written_list[s]);
        free(written_sink[s]);
        written[s] = NULL;
        written_list[s] = NULL;
        written_sink[s] = NULL;
        written_n[s] = 0;
        if (windows[s] == MPI_WIN_NULL) continue;
        MPI_Win_unlock_all(windows[s]);
        MPI_Win_free(&windows[s]);
    }
    free(bounce_ring); /* every put out of it completed with the windows' epochs */
    bounce_ring = NULL;
    bounce_used = 0;
    bounce_windows = 0;
}

MPI_Win nodeshm_remote_window(int seg)
{
    return seg >= 0 && seg < NODESHM_NSEGS ? windows[seg] : MPI_WIN_NULL;
}

int nodeshm_remote_confirms_writes(void) { return confirm_writes; }

/* A datatype for nblocks blocks of `block` bytes, `stride` bytes apart (nblocks > 1); -1 when
 * a count does not fit an int. */
static int make_type(size_t block, size_t nblocks, size_t stride, MPI_Datatype *type)
{
    if (block > INT_MAX || nblocks > INT_MAX) return -1;
    MPI_Type_create_hvector((int)nblocks, (int)block, (MPI_Aint)stride, MPI_BYTE, type);
    MPI_Type_commit(type);
    return 0;
}

/* Contiguous: one MPI_Put/MPI_Get per chunk_max bytes, all issued before the one completion
 * the caller does (a flush per chunk would serialise them). */
static int contiguous(const char *call, int is_put, char *local, size_t off, size_t n, int pe,
                      MPI_Win win)
{
    for (size_t done = 0; done < n; done += chunk_max) {
        int c = (int)(n - done < chunk_max ? n - done : chunk_max);
        int err = is_put ? MPI_Put(local + done, c, MPI_BYTE, pe, (MPI_Aint)(off + done), c, MPI_BYTE, win)
                         : MPI_Get(local + done, c, MPI_BYTE, pe, (MPI_Aint)(off + done), c, MPI_BYTE, win);
        if (err != MPI_SUCCESS) return mpi_failed(call, is_put ? "MPI_Put" : "MPI_Get", err);
    }
    return NODESHM_OK;
}

/* A blocking put of up to BOUNCE_PUT_MAX bytes goes out of a copy in a ring of this PE's, so it
 * returns without MPI_Win_flush_local (the source is reusable at once, as OpenSHMEM wants): that
 * flush waits for the send itself, and above MPI's inject size it was the gap to the MPI library
 * (MPICH over OFI tcp, 2 emulated hosts x 1, quiet: putmem + quiet 38.7-39.0 us at 512 B-2 KiB
 * against 30.0-30.5 us for MPI_Put + confirmation fetch + flush; 8-128 B 1.01x).  The ring's space
 * is reused once MPI_Win_flush_local_all has completed every put out of it. */

/* op MPI_OP_NULL: an MPI_Put of the n bytes; else an MPI_Accumulate of one `type` with op (a
 * non-fetching AMO, whose operand is on the caller's stack: MPICH 2 hosts x 1, add + quiet 47.3 us
 * with a flush_local against 39.5 us for MPI_Accumulate + confirmation fetch + flush). */
static int bounce_issue(const char *call, const void *src, size_t n, int seg, size_t off, int pe,
                        MPI_Datatype type, MPI_Op op)
{
    int rc = NODESHM_OK, err;
    pthread_mutex_lock(&bounce_lock);
    if (!bounce_ring && !(bounce_ring = malloc(BOUNCE_BYTES)))
        rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for the puts' bounce ring (%zu bytes)",
                            BOUNCE_BYTES);
    if (!rc && bounce_used + n > BOUNCE_BYTES) {
        for (int s = 0; !rc && s < NODESHM_NSEGS; s++)
            if ((bounce_windows >> s & 1) && (err = MPI_Win_flush_local_all(windows[s])) != MPI_SUCCESS)
                rc = mpi_failed(call, "MPI_Win_flush_local_all", err);
        bounce_used = 0;
        bounce_windows = 0;
    }
    if (!rc) {
        char *copy = bounce_ring + bounce_used;
        memcpy(copy, src, n);
        err = op == MPI_OP_NULL ? MPI_Put(copy, (int)n, MPI_BYTE, pe, (MPI_Aint)off, (int)n, MPI_BYTE, windows[seg])
                                : MPI_Accumulate(copy, 1, type, pe, (MPI_Aint)off, 1, type, op, windows[seg]);
        if (err != MPI_SUCCESS) rc = mpi_failed(call, op == MPI_OP_NULL ? "MPI_Put" : "MPI_Accumulate", err);
        bounce_used += (n + 63) & ~(size_t)63;
        bounce_windows |= 1u << seg;
    }
    pthread_mutex_unlock(&bounce_lock);
    return rc;
}

/* nbi: an nbi put or get, completed by the next quiet.  Blocking put: out of the bounce ring up
 * to BOUNCE_PUT_MAX, else MPI_Win_flush_local, so the source is reusable on return (the quiet's
 * flush completes it at the target); blocking
 * get: MPI_Win_flush, the data is here.  An nbi put leaves even the local completion to the
 * quiet (the specification lets the source be reused only after it): a flush_local per put
 * cost more than the put (MPICH over OFI tcp, 2 KiB: 6.0 us flush_local + 4.9 us MPI_Put per
 * put in a window of 16; Open MPI over tcp: 10.6 + 0.6 us). */
static int transfer(const char *call, int is_put, int nbi, void *local, int seg, size_t off,
                    size_t block, size_t nblocks, size_t dst_stride, size_t src_stride, int pe)
{
    MPI_Win win = windows[seg];
    size_t local_stride = is_put ? src_stride : dst_stride;
    size_t remote_stride = is_put ? dst_stride : src_stride;
    int rc, err;
    const int bounced = is_put && !nbi && nblocks == 1 && block <= BOUNCE_PUT_MAX && block <= chunk_max;
    if (bounced) {
        rc = bounce_issue(call, local, block, seg, off, pe, MPI_BYTE, MPI_OP_NULL);
        if (rc) return rc;
    } else if (nblocks == 1) {
        rc = contiguous(call, is_put, local, off, block, pe, win);
        if (rc) return rc;
    } else {
        MPI_Datatype ltype, rtype;
        if (make_type(block, nblocks, local_stride, &ltype) < 0)
            return nodeshm_report(NODESHM_ERR_ARG, call,
                                  "strided transfer too large (%zu blocks of %zu bytes)", nblocks, block);
        make_type(block, nblocks, remote_stride, &rtype);
        err = is_put ? MPI_Put(local, 1, ltype, pe, (MPI_Aint)off, 1, rtype, win)
                     : MPI_Get(local, 1, ltype, pe, (MPI_Aint)off, 1, rtype, win);
        MPI_Type_free(&ltype);
        MPI_Type_free(&rtype);
        if (err != MPI_SUCCESS) return mpi_failed(call, is_put ? "MPI_Put" : "MPI_Get", err);
    }
    if (!nbi && !bounced) {
        err = is_put ? MPI_Win_flush_local(pe, win) : MPI_Win_flush(pe, win);
        if (err != MPI_SUCCESS)
            return mpi_failed(call, is_put ? "MPI_Win_flush_local" : "MPI_Win_flush", err);
    }
    if (is_put) note_written(seg, pe);
    if (is_put || nbi) note_issued(seg);
    return NODESHM_OK;
}

int nodeshm_remote_put(const char *call, int seg, size_t off, const void *src, size_t block,
                       size_t nblocks, size_t dst_stride, size_t src_stride, int pe, int nbi)
{
    return transfer(call, 1, nbi, (void *)src, seg, off, block, nblocks, dst_stride, src_stride, pe);
}

int nodeshm_remote_get(const char *call, void *dst, int seg, size_t off, size_t block,
                       size_t nblocks, size_t dst_stride, size_t src_stride, int pe, int nbi)
{
    return transfer(call, 0, nbi, dst, seg, off, block, nblocks, dst_stride, src_stride, pe);
}

static int bitwise_by_cas(const char *call, int op, size_t off, const void *operand, void *result,
                          int pe, MPI_Win win)
{
    uint64_t v, old, seen, zero = 0;
    memcpy(&v, operand, sizeof v);
    MPI_TRY(call, MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, pe, (MPI_Aint)off, MPI_NO_OP, win));
    MPI_TRY(call, MPI_Win_flush(pe, win));
    for (;;) {
        uint64_t want = op == NODESHM_AMO_AND ? old & v : op == NODESHM_AMO_OR ? old | v : old ^ v;
        MPI_TRY(call, MPI_Compare_and_swap(&want, &old, &seen, MPI_UINT64_T, pe, (MPI_Aint)off, win));
        MPI_TRY(call, MPI_Win_flush(pe, win));
        if (seen == old) break;
        old = seen;
    }
    if (result) memcpy(result, &old, sizeof old);
    return NODESHM_OK;
}

int nodeshm_remote_amo(const char *call, int op, size_t size, int seg, size_t off,
                       const void *operand, const void *compare, void *result, int pe)
{
    static const MPI_Op ops[] = {
        [NODESHM_AMO_FETCH] = MPI_NO_OP, [NODESHM_AMO_SET] = MPI_REPLACE,
        [NODESHM_AMO_SWAP] = MPI_REPLACE, [NODESHM_AMO_CSWAP] = MPI_REPLACE,
        [NODESHM_AMO_ADD] = MPI_SUM,      [NODESHM_AMO_AND] = MPI_BAND,
        [NODESHM_AMO_OR] = MPI_BOR,       [NODESHM_AMO_XOR] = MPI_BXOR,
    };
    /* Unsigned integers of the word's size: two's complement makes SUM right for signed types,
     * and the other ops move bits (float swap/set/fetch included). */
    MPI_Datatype type = size == 4 ? MPI_UINT32_T : MPI_UINT64_T;
    MPI_Win win = windows[seg];
    if (size == 8 && bitwise64_by_cas &&
        (op == NODESHM_AMO_AND || op == NODESHM_AMO_OR || op == NODESHM_AMO_XOR))
        return bitwise_by_cas(call, op, off, operand, result, pe, win);
    uint64_t scratch, zero = 0;
    if (op == NODESHM_AMO_CSWAP)
        MPI_TRY(call, MPI_Compare_and_swap(operand, compare, result, type, pe, (MPI_Aint)off, win));
    else if (result || op == NODESHM_AMO_FETCH)
        MPI_TRY(call, MPI_Fetch_and_op(operand ? operand : &zero, result ? result : &scratch, type,
                                       pe, (MPI_Aint)off, ops[op], win));
    else { /* the operand lives on the caller's stack: sent out of the bounce ring's copy */
        int rc = bounce_issue(call, operand, size, seg, off, pe, type, ops[op]);
        if (rc) return rc;
        note_written(seg, pe);
        note_issued(seg);
        return NODESHM_OK;
    }
    MPI_TRY(call, MPI_Win_flush(pe, win));
    return NODESHM_OK;
}

/* Put-with-signal between nodes: the data, then its completion at the target (MPI_Win_flush of
 * the data's window to that PE only; with confirmation, one fetch on that window, whose answer
 * comes after the data), then the signal as an accumulate.  Earlier operations are not waited
 * for (put-with-signal orders only its own data before its signal).  Before, this took a
 * flush_local after the put, a flush of every window to the PE, and the next wait flushed and
 * confirmed the signal again. */
int nodeshm_remote_put_signal(const char *call, int seg, size_t off, const void *src, size_t n,
                              int sig_seg, size_t sig_off, uint64_t signal, int sig_op, int pe)
{
    MPI_Win win = windows[seg];
    int rc = NODESHM_OK;
    if (n) {
        if (confirm_writes) pthread_mutex_lock(&written_lock);
        rc = contiguous(call, 1, (char *)src, off, n, pe, win);
        if (rc == NODESHM_OK && confirm_writes) {
            static const uint64_t zero = 0;
            int err = MPI_Fetch_and_op(&zero, &written_sink[seg][pe], MPI_UINT64_T, pe, 0,
                                       MPI_NO_OP, win);
            if (err != MPI_SUCCESS)
                rc = mpi_failed(call, "MPI_Fetch_and_op (write confirmation)", err);
        }
        if (rc == NODESHM_OK) {
            int err = MPI_Win_flush(pe, win);
            if (err != MPI_SUCCESS) rc = mpi_failed(call, "MPI_Win_flush", err);
        }
        if (confirm_writes) pthread_mutex_unlock(&written_lock);
        if (rc) return rc;
    }
    return nodeshm_remote_amo(call, sig_op == 0 ? NODESHM_AMO_SET : NODESHM_AMO_ADD, 8, sig_seg,
                              sig_off, &signal, NULL, NULL, pe);
}

/* Flushes every window with operations since its last finished flush; `quiet`: and confirms
 * the writes (where confirm_writes), else only makes MPI send them (progress). */
static int flush_windows(const char *call, int quiet)
{
    uint64_t issued = __atomic_load_n(&ops_issued, __ATOMIC_ACQUIRE);
    uint64_t wi[NODESHM_NSEGS];
    for (int s = 0; s < NODESHM_NSEGS; s++) wi[s] = __atomic_load_n(&win_issued[s], __ATOMIC_ACQUIRE);
    int rc = NODESHM_OK, confirm_fetched[NODESHM_NSEGS] = {0};
    const int confirm = quiet && confirm_writes;
    if (confirm) {
        pthread_mutex_lock(&written_lock);
        rc = confirm_issue(call, -1, confirm_fetched); /* completed by the flushes below */
    }
    for (int s = 0; s < NODESHM_NSEGS && rc == NODESHM_OK; s++) {
        if (windows[s] == MPI_WIN_NULL) continue;
        /* a confirmation fetch counts as an operation of its window */
        if (wi[s] == __atomic_load_n(&win_completed[s], __ATOMIC_ACQUIRE) &&
            !(confirm && confirm_fetched[s]))
            continue;
        int err = MPI_Win_flush_all(windows[s]);
        if (err != MPI_SUCCESS) rc = mpi_failed(call, "MPI_Win_flush_all", err);
    }
    if (confirm) pthread_mutex_unlock(&written_lock);
    if (rc) return rc;
    for (int s = 0; s < NODESHM_NSEGS; s++) raise_to(&win_completed[s], wi[s]);
    raise_to(quiet ? &ops_completed : &ops_pushed, issued);
    return NODESHM_OK;
}

int nodeshm_remote_flush_windows(const char *call) { return flush_windows(call, 1); }

int nodeshm_remote_flush_all(void)
{
    if (__atomic_load_n(&ops_issued, __ATOMIC_ACQUIRE) == __atomic_load_n(&ops_completed, __ATOMIC_ACQUIRE))
        return NODESHM_OK;
    return nodeshm_remote_flush_windows("shmem_quiet");
}

int nodeshm_remote_flush(int pe)
{
    if (__atomic_load_n(&ops_issued, __ATOMIC_ACQUIRE) == __atomic_load_n(&ops_completed, __ATOMIC_ACQUIRE))
        return NODESHM_OK;
    int rc = NODESHM_OK;
    if (confirm_writes) {
        pthread_mutex_lock(&written_lock);
        rc = confirm_issue("shmem_pe_quiet", pe, NULL);
    }
    for (int s = 0; s < NODESHM_NSEGS && rc == NODESHM_OK; s++) {
        if (windows[s] == MPI_WIN_NULL) continue;
        int err = MPI_Win_flush(pe, windows[s]);
        if (err != MPI_SUCCESS) rc = mpi_failed("shmem_pe_quiet", "MPI_Win_flush", err);
    }
    if (confirm_writes) pthread_mutex_unlock(&written_lock);
    return rc; /* other PEs may still have pending operations */
}

void nodeshm_remote_progress(void)
{
    /* MPI completes operations only at a flush: a PE about to wait for an answer must not
     * leave its own operations unflushed (the answer may depend on them).  Once per batch of
     * new operations, and without the write confirmation: that is for a quiet's visibility
     * guarantee, and a waiting PE answers its peers' confirmations anyway (here).  Before, every
     * wait after a put-with-signal confirmed the signal's window and the data's (two round trips
     * to a PE that was itself busy sending). */
    uint64_t issued = __atomic_load_n(&ops_issued, __ATOMIC_ACQUIRE);
    if (issued != __atomic_load_n(&ops_pushed, __ATOMIC_ACQUIRE) &&
        issued != __atomic_load_n(&ops_completed, __ATOMIC_ACQUIRE))
        (void)flush_windows("shmem_wait_until", 0);
    /* An MPI call that does nothing but drive the progress engine. */
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, nodeshm_rt.topo.world, &flag, MPI_STATUS_IGNORE);
}
