/* nodeshm core: copy engines (copy_engine.h): the start-up probe, CMA transfers with partial-copy
 * loops, and XPMEM attachments when built with it.
 *
 * Why a probe that copies for real: whether process_vm_readv works depends on things a process
 * cannot query in advance: Yama's ptrace_scope, a container's seccomp filter, the peer being
 * dumpable, this process' CAP_SYS_PTRACE.  So every PE reads a private buffer of every node peer
 * (and writes one) and checks the bytes; one failure anywhere switches CMA off on the whole node,
 * so that every PE takes the same path (a copy engine chosen per pair would make protocols
 * asymmetric), and the debug line says which pair failed and why. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/copy_engine.h"
#include "core/env.h"
#include "core/status.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#ifndef NODESHM_HAVE_XPMEM
#define NODESHM_HAVE_XPMEM 0
#endif
#if NODESHM_HAVE_XPMEM
#include <fcntl.h>
#include <xpmem.h>
#endif

#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif
#ifndef PR_SET_PTRACER_ANY
#define PR_SET_PTRACER_ANY ((unsigned long)-1)
#endif
#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* The kernel moves at most MAX_RW_COUNT (INT_MAX rounded down to a page) per call; stay well
 * below it so one call never asks for more than it may do. */
#define CMA_CALL_BYTES ((size_t)1 << 30)
/* Probe buffers: odd sizes spanning page boundaries, so alignment luck cannot pass the probe. */
#define PROBE_READ_BYTES 12347
#define PROBE_WRITE_BYTES 1021

const char *nodeshm_copy_name(nodeshm_copy_kind_t kind)
{
    static const char *const names[] = {
#define NODESHM_COPY_NAME_(id, name) name,
        NODESHM_COPY_ENGINES(NODESHM_COPY_NAME_)
#undef NODESHM_COPY_NAME_
    };
    return (unsigned)kind < NODESHM_COPY_KINDS ? names[kind] : "unknown";
}

/* ---- the latest probe's result ------------------------------------------------------------- */

static nodeshm_copy_caps_t probed_caps;
static nodeshm_copy_peer_t *probed_peers;
static int probed_n = -1; /* -1: no probe yet */

const nodeshm_copy_caps_t *nodeshm_copy_caps(void)
{
    return probed_n < 0 ? NULL : &probed_caps;
}

const nodeshm_copy_peer_t *nodeshm_copy_peer(int node_rank)
{
    return node_rank >= 0 && node_rank < probed_n ? &probed_peers[node_rank] : NULL;
}

int nodeshm_copy_n_peers(void)
{
    return probed_n < 0 ? 0 : probed_n;
}

/* ---- CMA ------------------------------------------------------------------------------------ */

typedef ssize_t (*cma_fn)(pid_t, const struct iovec *, unsigned long, const struct iovec *,
                          unsigned long, unsigned long);

/* A position in an iovec list: element i, byte off within it. */
typedef struct iov_cursor {
    const struct iovec *v;
    size_t n, i, off;
} iov_cursor_t;

/* Fills out[] with up to IOV_MAX elements from the cursor, at most `cap` bytes in all (zero-length
 * elements skipped); returns the element count, *bytes the byte count. */
static size_t iov_batch(const iov_cursor_t *c, struct iovec *out, size_t cap, size_t *bytes)
{
    size_t k = 0, sum = 0;
    for (size_t i = c->i, off = c->off; i < c->n && k < IOV_MAX && sum < cap; i++, off = 0) {
        size_t len = c->v[i].iov_len - off;
        if (len == 0) continue;
        if (len > cap - sum) len = cap - sum;
        out[k].iov_base = (char *)c->v[i].iov_base + off;
        out[k].iov_len = len;
        sum += len;
        k++;
    }
    *bytes = sum;
    return k;
}

static void iov_advance(iov_cursor_t *c, size_t bytes)
{
    while (bytes > 0 && c->i < c->n) {
        size_t left = c->v[c->i].iov_len - c->off;
        if (bytes < left) {
            c->off += bytes;
            return;
        }
        bytes -= left;
        c->i++;
        c->off = 0;
    }
}

/* Checks a list; *total its bytes.  Reports naming `call` and `which` on a bad element. */
static int iov_check(const char *call, const char *which, const struct iovec *v, size_t n,
                     size_t *total)
{
    *total = 0;
    if (n > 0 && !v)
        return nodeshm_report(NODESHM_ERR_ARG, call, "%s iovec list is NULL with %zu elements",
                              which, n);
    for (size_t i = 0; i < n; i++) {
        if (v[i].iov_len > 0 && !v[i].iov_base)
            return nodeshm_report(NODESHM_ERR_ARG, call, "%s iovec[%zu]: NULL address, %zu bytes",
                                  which, i, v[i].iov_len);
        if (v[i].iov_len > SIZE_MAX - *total)
            return nodeshm_report(NODESHM_ERR_ARG, call, "%s iovecs: total size overflows", which);
        *total += v[i].iov_len;
    }
    return NODESHM_OK;
}

/* The one transfer loop of both directions: `fn` is process_vm_readv or process_vm_writev, whose
 * arguments are (pid, local list, remote list) either way. */
static int cma_transfer(const char *call, const char *what, cma_fn fn,
                        const nodeshm_copy_peer_t *peer, const struct iovec *local, size_t n_local,
                        const struct iovec *remote, size_t n_remote)
{
    if (!peer || peer->pid <= 0)
        return nodeshm_report(NODESHM_ERR_ARG, call, "invalid peer (%s)",
                              peer ? "pid <= 0" : "NULL");
    size_t lbytes, rbytes;
    int rc = iov_check(call, "local", local, n_local, &lbytes);
    if (rc == NODESHM_OK) rc = iov_check(call, "remote", remote, n_remote, &rbytes);
    if (rc) return rc;
    if (lbytes != rbytes)
        return nodeshm_report(NODESHM_ERR_ARG, call,
                              "local iovecs hold %zu bytes but remote ones %zu: must be equal",
                              lbytes, rbytes);
    if (lbytes == 0) return NODESHM_OK;
    const nodeshm_copy_caps_t *caps = nodeshm_copy_caps();
    if (!caps || !caps->cma)
        return nodeshm_report(NODESHM_ERR_SYSTEM, call, "CMA is not available: %s",
                              caps ? caps->cma_why : "no probe ran (before shmem_init?)");
    struct iovec lv[IOV_MAX], rv[IOV_MAX];
    iov_cursor_t lc = {local, n_local, 0, 0}, rc_ = {remote, n_remote, 0, 0};
    size_t done = 0;
    while (done < lbytes) {
        size_t lb, rb;
        size_t ln = iov_batch(&lc, lv, CMA_CALL_BYTES, &lb);
        size_t rn = iov_batch(&rc_, rv, CMA_CALL_BYTES, &rb);
        ssize_t got = fn(peer->pid, lv, ln, rv, rn, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0)
            return nodeshm_report(NODESHM_ERR_SYSTEM, call,
                                  "%s with PE %d (pid %d) stopped after %zu of %zu bytes: %s", what,
                                  peer->pe, (int)peer->pid, done, lbytes,
                                  got < 0 ? strerror(errno) : "no progress");
        /* partial: the kernel stopped early (a page fault, a signal); resume where it stopped */
        iov_advance(&lc, (size_t)got);
        iov_advance(&rc_, (size_t)got);
        done += (size_t)got;
    }
    return NODESHM_OK;
}

int nodeshm_cma_readv(const char *call, const nodeshm_copy_peer_t *peer, const struct iovec *local,
                      size_t n_local, const struct iovec *remote, size_t n_remote)
{
    return cma_transfer(call, "process_vm_readv", process_vm_readv, peer, local, n_local, remote,
                        n_remote);
}

int nodeshm_cma_writev(const char *call, const nodeshm_copy_peer_t *peer,
                       const struct iovec *remote, size_t n_remote, const struct iovec *local,
                       size_t n_local)
{
    return cma_transfer(call, "process_vm_writev", process_vm_writev, peer, local, n_local, remote,
                        n_remote);
}

int nodeshm_cma_read(const char *call, const nodeshm_copy_peer_t *peer, void *local,
                     const void *remote, size_t len)
{
    struct iovec l = {local, len}, r = {(void *)remote, len};
    return nodeshm_cma_readv(call, peer, &l, 1, &r, 1);
}

int nodeshm_cma_write(const char *call, const nodeshm_copy_peer_t *peer, void *remote,
                      const void *local, size_t len)
{
    struct iovec l = {(void *)local, len}, r = {remote, len};
    return nodeshm_cma_writev(call, peer, &r, 1, &l, 1);
}

/* ---- XPMEM ---------------------------------------------------------------------------------- */

#if NODESHM_HAVE_XPMEM
/* Attachments cached per peer segment: attaching costs a system call and page-table setup, and
 * protocols attach the same user buffers again and again. */
typedef struct xp_attachment {
    uintptr_t base; /* page-aligned remote address */
    size_t len;
    char *local;
} xp_attachment_t;
typedef struct xp_peer {
    long long segid;
    xpmem_apid_t apid;
    xp_attachment_t *att;
    size_t n, cap;
} xp_peer_t;
static xp_peer_t *xp_peers;
static size_t xp_n;
static long long xp_my_segid = -1;
static int xp_usable; /* the probe found XPMEM working (or is trying it) */
static pthread_mutex_t xp_lock = PTHREAD_MUTEX_INITIALIZER;

static xp_peer_t *xp_find(long long segid, int create)
{
    for (size_t i = 0; i < xp_n; i++)
        if (xp_peers[i].segid == segid) return &xp_peers[i];
    if (!create) return NULL;
    xp_peer_t *grown = realloc(xp_peers, (xp_n + 1) * sizeof *grown);
    if (!grown) return NULL;
    xp_peers = grown;
    xpmem_apid_t apid = xpmem_get((xpmem_segid_t)segid, XPMEM_RDWR, XPMEM_PERMIT_MODE, NULL);
    if (apid == -1) return NULL;
    xp_peers[xp_n] = (xp_peer_t){.segid = segid, .apid = apid};
    return &xp_peers[xp_n++];
}

static void xp_drop(xp_peer_t *p)
{
    for (size_t i = 0; i < p->n; i++) xpmem_detach(p->att[i].local);
    free(p->att);
    xpmem_release(p->apid);
    *p = xp_peers[--xp_n];
}

void *nodeshm_xpmem_attach(const nodeshm_copy_peer_t *peer, const void *remote, size_t len)
{
    if (!xp_usable || !peer || peer->xpmem_segid < 0 || len == 0) return NULL;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t r = (uintptr_t)remote, base = r & ~(uintptr_t)(page - 1);
    size_t span = ((r + len - base) + page - 1) & ~(page - 1);
    char *out = NULL;
    pthread_mutex_lock(&xp_lock);
    xp_peer_t *p = xp_find(peer->xpmem_segid, 1);
    for (size_t i = 0; p && i < p->n && !out; i++)
        if (base >= p->att[i].base && base + span <= p->att[i].base + p->att[i].len)
            out = p->att[i].local + (r - p->att[i].base);
    if (p && !out && p->n == p->cap) {
        xp_attachment_t *grown = realloc(p->att, (2 * p->cap + 8) * sizeof *grown);
        if (grown) {
            p->att = grown;
            p->cap = 2 * p->cap + 8;
        }
    }
    if (p && !out && p->n < p->cap) {
        struct xpmem_addr addr = {.apid = p->apid, .offset = (off_t)base};
        void *local = xpmem_attach(addr, span, NULL);
        if (local != (void *)-1) {
            p->att[p->n++] = (xp_attachment_t){base, span, local};
            out = (char *)local + (r - base);
        }
    }
    pthread_mutex_unlock(&xp_lock);
    return out;
}

void nodeshm_xpmem_release(const nodeshm_copy_peer_t *peer)
{
    if (!peer) return;
    pthread_mutex_lock(&xp_lock);
    xp_peer_t *p = xp_find(peer->xpmem_segid, 0);
    if (p) xp_drop(p);
    pthread_mutex_unlock(&xp_lock);
}

/* Exposes this whole address space once; returns the segment id or -1, *why when -1. */
static long long xp_expose(char *why, size_t whylen)
{
    if (xp_my_segid >= 0) return xp_my_segid;
    if (access("/dev/xpmem", R_OK | W_OK) != 0) {
        snprintf(why, whylen, "/dev/xpmem: %s", strerror(errno));
        return -1;
    }
    if (xpmem_version() < 0) {
        snprintf(why, whylen, "xpmem_version: %s", strerror(errno));
        return -1;
    }
    xpmem_segid_t s = xpmem_make(0, XPMEM_MAXADDR_SIZE, XPMEM_PERMIT_MODE, (void *)0600);
    if (s == -1) {
        snprintf(why, whylen, "xpmem_make: %s", strerror(errno));
        return -1;
    }
    return xp_my_segid = (long long)s;
}

static void xp_fini(void)
{
    pthread_mutex_lock(&xp_lock);
    xp_usable = 0;
    while (xp_n) xp_drop(&xp_peers[0]);
    free(xp_peers);
    xp_peers = NULL;
    if (xp_my_segid >= 0) xpmem_remove((xpmem_segid_t)xp_my_segid);
    xp_my_segid = -1;
    pthread_mutex_unlock(&xp_lock);
}
#else
void *nodeshm_xpmem_attach(const nodeshm_copy_peer_t *peer, const void *remote, size_t len)
{
    (void)peer, (void)remote, (void)len;
    return NULL;
}
void nodeshm_xpmem_release(const nodeshm_copy_peer_t *peer) { (void)peer; }
static long long xp_expose(char *why, size_t whylen)
{
    snprintf(why, whylen, "not built (no xpmem.h and libxpmem at build time)");
    return -1;
}
static void xp_fini(void) {}
#endif

/* ---- the probe ------------------------------------------------------------------------------ */

/* What each rank publishes. */
typedef struct probe_card {
    long long segid;
    uint64_t seed;  /* of its pattern */
    uint64_t rbuf;  /* address of its pattern buffer (PROBE_READ_BYTES) */
    uint64_t wbuf;  /* address of its landing buffer: PROBE_WRITE_BYTES per node rank */
    int pid, pe;
} probe_card_t;

/* A failure seen by one rank: the first one it met. */
typedef struct probe_fail {
    int errnum;  /* 0: the call "worked" but the bytes were wrong */
    char text[120];
} probe_fail_t;

static void pattern(uint64_t seed, unsigned char *out, size_t n)
{
    uint64_t x = seed;
    for (size_t i = 0; i < n; i++) {
        x += 0x9e3779b97f4a7c15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        out[i] = (unsigned char)(z ^ (z >> 31));
    }
}

static int ptrace_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int v = -1;
    if (f) {
        if (fscanf(f, "%d", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

static void fail_once(probe_fail_t *f, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_once(probe_fail_t *f, int errnum, const char *fmt, ...)
{
    if (f->text[0]) return;
    f->errnum = errnum;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
}

/* The node agrees on one failure (or none): the lowest rank with a system error wins, else the
 * lowest with wrong data.  Returns 1 when every rank succeeded; else copies the text to why. */
static int agree_on(MPI_Comm comm, int rank, int size, const probe_fail_t *mine, char *why,
                    size_t whylen)
{
    int key = !mine->text[0] ? 2 * size : (mine->errnum ? 0 : size) + rank, best = 0;
    MPI_Allreduce(&key, &best, 1, MPI_INT, MPI_MIN, comm);
    if (best == 2 * size) return 1;
    probe_fail_t f = *mine;
    MPI_Bcast(&f, (int)sizeof f, MPI_BYTE, best % size, comm);
    snprintf(why, whylen, "%s", f.text);
    return 0;
}

static void probe_cma(MPI_Comm comm, int rank, int size, const probe_card_t *cards,
                      unsigned char *wbuf, probe_fail_t *fail)
{
    unsigned char want[PROBE_READ_BYTES], got[PROBE_READ_BYTES];
    const probe_card_t *me = &cards[rank];
    /* alone on the node: try it on ourselves, which still meets seccomp and missing syscalls */
    for (int j = 0; j < size; j++) {
        if (j == rank && size > 1) continue;
        const probe_card_t *p = &cards[j];
        nodeshm_copy_peer_t peer = {.pid = p->pid, .pe = p->pe, .xpmem_segid = -1};
        struct iovec l = {got, PROBE_READ_BYTES}, r = {(void *)(uintptr_t)p->rbuf, PROBE_READ_BYTES};
        memset(got, 0, sizeof got);
        ssize_t n;
        do n = process_vm_readv(peer.pid, &l, 1, &r, 1, 0);
        while (n < 0 && errno == EINTR);
        pattern(p->seed, want, PROBE_READ_BYTES);
        if (n < 0)
            fail_once(fail, errno, "process_vm_readv by PE %d from PE %d: %s", me->pe, p->pe,
                      strerror(errno));
        else if (n != PROBE_READ_BYTES || memcmp(got, want, PROBE_READ_BYTES) != 0)
            fail_once(fail, 0, "process_vm_readv by PE %d from PE %d: read %zd bytes, wrong data",
                      me->pe, p->pe, n);
        /* my pattern's head into my slot of j's landing buffer */
        struct iovec lw = {want, PROBE_WRITE_BYTES};
        pattern(me->seed, want, PROBE_WRITE_BYTES);
        struct iovec rw = {(void *)(uintptr_t)(p->wbuf + (uint64_t)rank * PROBE_WRITE_BYTES),
                           PROBE_WRITE_BYTES};
        do n = process_vm_writev(peer.pid, &lw, 1, &rw, 1, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            fail_once(fail, errno, "process_vm_writev by PE %d to PE %d: %s", me->pe, p->pe,
                      strerror(errno));
    }
    MPI_Barrier(comm); /* every write has landed (or failed) */
    for (int j = 0; j < size; j++) {
        if (j == rank && size > 1) continue;
        pattern(cards[j].seed, want, PROBE_WRITE_BYTES);
        if (memcmp(wbuf + (size_t)j * PROBE_WRITE_BYTES, want, PROBE_WRITE_BYTES) != 0)
            fail_once(fail, 0, "process_vm_writev by PE %d to PE %d: wrong data arrived",
                      cards[j].pe, me->pe);
    }
}

#if NODESHM_HAVE_XPMEM
static void probe_xpmem(int rank, int size, const probe_card_t *cards, probe_fail_t *fail)
{
    unsigned char want[PROBE_READ_BYTES];
    for (int j = 0; j < size; j++) {
        if (j == rank && size > 1) continue;
        nodeshm_copy_peer_t peer = {.pid = cards[j].pid, .pe = cards[j].pe,
                                    .xpmem_segid = cards[j].segid};
        unsigned char *p = nodeshm_xpmem_attach(&peer, (void *)(uintptr_t)cards[j].rbuf,
                                                PROBE_READ_BYTES);
        pattern(cards[j].seed, want, PROBE_READ_BYTES);
        if (!p)
            fail_once(fail, errno ? errno : EINVAL, "xpmem attach by PE %d of PE %d: %s",
                      cards[rank].pe, cards[j].pe, strerror(errno ? errno : EINVAL));
        else if (memcmp(p, want, PROBE_READ_BYTES) != 0)
            fail_once(fail, 0, "xpmem attach by PE %d of PE %d: wrong data", cards[rank].pe,
                      cards[j].pe);
        nodeshm_xpmem_release(&peer); /* probe buffers die with the probe: drop the cache */
    }
}
#endif

int nodeshm_copy_probe(const char *call, MPI_Comm node_comm, nodeshm_copy_caps_t *caps_out,
                       nodeshm_copy_peer_t *peers_out)
{
    int rank, size, world_rank;
    MPI_Comm_rank(node_comm, &rank);
    MPI_Comm_size(node_comm, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    long want_cma = 1, want_xpmem = 1;
    int rc = nodeshm_env_long("NODESHM_CMA", 1, 0, 1, &want_cma);
    int rc2 = nodeshm_env_long("NODESHM_XPMEM", 1, 0, 1, &want_xpmem);
    if (rc == NODESHM_OK) rc = rc2;
    if (rc) want_cma = want_xpmem = 0; /* still run the collective part: peers are in it */
    int scope = ptrace_scope();
    /* Yama 1 lets only ancestors trace us, and node peers are siblings: name them all as
     * allowed (PR_SET_PTRACER takes a single pid, so "any").  Yama 2/3 cannot be lifted here. */
    if (want_cma && scope == 1 && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) != 0)
        nodeshm_debug("prctl(PR_SET_PTRACER, ANY): %s", strerror(errno));

    nodeshm_copy_caps_t caps;
    memset(&caps, 0, sizeof caps);
    /* the switches must agree over the node: every PE takes the same path */
    long wants[2] = {want_cma, want_xpmem}, all[2];
    MPI_Allreduce(wants, all, 2, MPI_LONG, MPI_MIN, node_comm);
    char xwhy[sizeof caps.xpmem_why] = "";
    long long segid = all[1] ? xp_expose(xwhy, sizeof xwhy) : -1;

    unsigned char *rbuf = malloc(PROBE_READ_BYTES);
    unsigned char *wbuf = calloc((size_t)size, PROBE_WRITE_BYTES);
    probe_card_t *cards = calloc((size_t)size, sizeof *cards);
    static unsigned long long calls;
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 24) ^ (++calls << 48) ^
                    (uint64_t)(uintptr_t)&seed;
    int have = rbuf && wbuf && cards, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_LAND, node_comm);
    if (!all_have) {
        free(rbuf), free(wbuf), free(cards);
        return nodeshm_report(NODESHM_ERR_NOMEM, call, "copy engine probe: out of memory");
    }
    pattern(seed, rbuf, PROBE_READ_BYTES);
    probe_card_t mine = {.segid = segid, .seed = seed, .rbuf = (uint64_t)(uintptr_t)rbuf,
                         .wbuf = (uint64_t)(uintptr_t)wbuf, .pid = (int)getpid(), .pe = world_rank};
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, cards, (int)sizeof mine, MPI_BYTE, node_comm);

    char scope_text[40];
    if (scope >= 0) snprintf(scope_text, sizeof scope_text, " (ptrace_scope=%d)", scope);
    else snprintf(scope_text, sizeof scope_text, " (no Yama ptrace_scope)");
    if (!all[0]) {
        snprintf(caps.cma_why, sizeof caps.cma_why, "NODESHM_CMA=0");
    } else {
        probe_fail_t fail = {0, ""};
        probe_cma(node_comm, rank, size, cards, wbuf, &fail);
        char why[sizeof fail.text] = "";
        caps.cma = agree_on(node_comm, rank, size, &fail, why, sizeof why);
        if (!caps.cma) snprintf(caps.cma_why, sizeof caps.cma_why, "%s%s", why, scope_text);
    }

    /* XPMEM: every rank must have exposed itself, then every attach must work */
    int exposed = segid >= 0, all_exposed = 0;
    MPI_Allreduce(&exposed, &all_exposed, 1, MPI_INT, MPI_LAND, node_comm);
    if (!all[1]) {
        snprintf(caps.xpmem_why, sizeof caps.xpmem_why, "NODESHM_XPMEM=0");
    } else if (!all_exposed) {
        probe_fail_t f = {ENODEV, ""};
        if (!exposed && NODESHM_HAVE_XPMEM) /* built: which PE could not, and why */
            snprintf(f.text, sizeof f.text, "PE %d: %s", world_rank, xwhy);
        else if (!exposed)
            snprintf(f.text, sizeof f.text, "%s", xwhy);
        agree_on(node_comm, rank, size, &f, caps.xpmem_why, sizeof caps.xpmem_why);
    } else {
#if NODESHM_HAVE_XPMEM
        probe_fail_t fail = {0, ""};
        xp_usable = 1; /* for nodeshm_xpmem_attach during the probe */
        probe_xpmem(rank, size, cards, &fail);
        caps.xpmem = agree_on(node_comm, rank, size, &fail, caps.xpmem_why, sizeof caps.xpmem_why);
#endif
    }
#if NODESHM_HAVE_XPMEM
    xp_usable = caps.xpmem;
#endif
    MPI_Barrier(node_comm); /* nobody frees a probe buffer a peer still reads */

    nodeshm_copy_peer_t *peers = malloc((size_t)size * sizeof *peers);
    for (int j = 0; peers && j < size; j++)
        peers[j] = (nodeshm_copy_peer_t){.pid = cards[j].pid, .pe = cards[j].pe,
                                         .xpmem_segid = caps.xpmem ? cards[j].segid : -1};
    free(rbuf), free(wbuf), free(cards);
    if (!peers) return nodeshm_report(NODESHM_ERR_NOMEM, call, "copy engine probe: out of memory");
    free(probed_peers);
    probed_peers = peers;
    probed_n = size;
    probed_caps = caps;
    if (caps_out) *caps_out = caps;
    if (peers_out) memcpy(peers_out, peers, (size_t)size * sizeof *peers);
    if (rank == 0) {
        if (caps.cma)
            nodeshm_debug("CMA: enabled (process_vm_readv/writev between all %d PEs of the node%s)",
                          size, size == 1 ? ", tested on itself" : "");
        else nodeshm_debug("CMA: disabled: %s", caps.cma_why);
        if (caps.xpmem) nodeshm_debug("XPMEM: enabled");
        else nodeshm_debug("XPMEM: disabled: %s", caps.xpmem_why);
    }
    return rc;
}

void nodeshm_copy_fini(void)
{
    xp_fini();
    free(probed_peers);
    probed_peers = NULL;
    probed_n = -1;
    memset(&probed_caps, 0, sizeof probed_caps);
}
