/* Copy engines (src/core/copy_engine.h), white box, run under shmem_init (which probes).
 *
 *   - CMA reads and writes of every node peer's PRIVATE (malloc'ed) random buffers: 0 bytes, odd
 *     sizes, unaligned offsets, > 1 MiB; a strided scatter/gather with more iovecs than IOV_MAX
 *     and local/remote elements of different sizes (the cursor splits elements);
 *   - bad arguments: refused with NODESHM_ERR_ARG, the message names the call and the value;
 *   - NODESHM_CMA=0: caps say why, the API refuses cleanly, the debug line says so;
 *   - a blocked CMA is detected: one PE makes itself non-dumpable and every PE drops
 *     CAP_SYS_PTRACE from its effective set (no root needed: unprivileged processes have none), so
 *     the kernel refuses process_vm_readv of that PE; a re-probe must disable CMA naming the PE and
 *     the errno; undone, a re-probe enables it again. */
#include "common.h"
#include "core/copy_engine.h"
#include "core/runtime.h"
#include "core/status.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define NSIZES 8
static const size_t sizes[NSIZES] = {0, 1, 7, 4096, 4097, 65537, (size_t)1536 * 1024 + 3, 333};
#define SLOT 9001 /* bytes each PE writes into each peer's landing buffer */

static unsigned char byte_of(int pe, int k, size_t i)
{
    return (unsigned char)(test_value(pe, k, i / 8) >> (8 * (i % 8)));
}

/* PE pe's stream k, bytes [0, n): one test_value per 8 bytes (checks must stay cheap at 8 PEs
 * on 2 cores) */
static void fill_stream(unsigned char *out, int pe, int k, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = test_value(pe, k, i / 8);
        for (size_t j = 0; j < 8 && i + j < n; j++) out[i + j] = (unsigned char)(v >> (8 * j));
    }
}

/* index of the first byte where a and b differ, or n */
static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) == 0) return n;
    size_t i = 0;
    while (a[i] == b[i]) i++;
    return i;
}

/* ---- stderr capture: the error and debug messages are part of the contract ---------------- */
static int saved_fd = -1;
static void capture_begin(void)
{
    fflush(stderr);
    saved_fd = dup(2);
    int fd = memfd_create("copy_engine_test", 0);
    dup2(fd, 2);
    close(fd);
}
static void capture_end(char *out, size_t n)
{
    lseek(2, 0, SEEK_SET);
    ssize_t r = read(2, out, n - 1);
    out[r > 0 ? r : 0] = 0;
    dup2(saved_fd, 2);
    close(saved_fd);
    if (r > 0) { /* show it too, for the log */
        ssize_t w = write(2, out, (size_t)r);
        (void)w;
    }
}

/* Raises or drops CAP_SYS_PTRACE in the effective set (only within the permitted set). */
static int set_ptrace_cap(int on)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d)) return -1;
    unsigned bit = 1u << (CAP_SYS_PTRACE % 32);
    if (on) d[CAP_SYS_PTRACE / 32].effective |= d[CAP_SYS_PTRACE / 32].permitted & bit;
    else d[CAP_SYS_PTRACE / 32].effective &= ~bit;
    return (int)syscall(SYS_capset, &h, d);
}

static unsigned char *bufs[NSIZES];
static unsigned char *landing;

static void test_transfers(const nodeshm_topology_t *t, uint64_t *addrs)
{
    int me = shmem_my_pe();
    for (int j = 0; j < t->node_n_pes; j++) {
        const nodeshm_copy_peer_t *peer = nodeshm_copy_peer(j);
        int pe = t->node_pes[j];
        CHECK(peer && peer->pe == pe && peer->pid > 0, "peer %d: %p", j, (void *)peer);
        if (!peer) continue;
        uint64_t theirs[NSIZES + 1];
        shmem_getmem(theirs, addrs, sizeof theirs, pe);
        for (int k = 0; k < NSIZES; k++) {
            size_t n = sizes[k];
            unsigned char *got = malloc(n + 1), *want = malloc(n + 1);
            memset(got, 0, n + 1);
            fill_stream(want, pe, k, n);
            CHECK(nodeshm_cma_read("test_read", peer, got, (void *)(uintptr_t)theirs[k], n) ==
                      NODESHM_OK, "read %zu bytes of PE %d", n, pe);
            size_t bad = first_diff(got, want, n);
            CHECK(bad == n, "read of PE %d's %zu-byte buffer: byte %zu wrong", pe, n, bad);
            /* an unaligned window */
            if (n > 10) {
                size_t off = 3 + (size_t)(test_value(me, 99, (uint64_t)k) % (n - 10));
                size_t len = n - off - 1;
                memset(got, 0, n);
                CHECK(nodeshm_cma_read("test_read", peer, got, (void *)(uintptr_t)(theirs[k] + off),
                                       len) == NODESHM_OK, "window read");
                bad = first_diff(got, want + off, len);
                CHECK(bad == len, "window [%zu, +%zu) of PE %d: byte %zu wrong", off, len, pe, bad);
            }
            free(want);
            free(got);
        }
        /* my stream 50 into my slot of their landing buffer */
        unsigned char mine[SLOT];
        for (size_t i = 0; i < SLOT; i++) mine[i] = byte_of(me, 50, i);
        CHECK(nodeshm_cma_write("test_write", peer,
                                (void *)(uintptr_t)(theirs[NSIZES] + (size_t)t->node_my_pe * SLOT),
                                mine, SLOT) == NODESHM_OK, "write to PE %d", pe);

        /* strided gather: every other 3-byte block of their big buffer (more iovecs than
         * IOV_MAX), into local elements of 5 bytes */
        int k = NSIZES - 2;
        size_t blocks = sizes[k] / 6, packed = blocks * 3;
        struct iovec *rv = malloc(blocks * sizeof *rv);
        size_t nl = (packed + 4) / 5;
        struct iovec *lv = malloc(nl * sizeof *lv);
        unsigned char *pack = calloc(1, packed), *want = malloc(sizes[k]);
        fill_stream(want, pe, k, sizes[k]);
        for (size_t b = 0; b < blocks; b++)
            rv[b] = (struct iovec){(void *)(uintptr_t)(theirs[k] + 6 * b), 3};
        for (size_t e = 0; e < nl; e++)
            lv[e] = (struct iovec){pack + 5 * e, e + 1 < nl ? 5 : packed - 5 * e};
        CHECK(nodeshm_cma_readv("test_readv", peer, lv, nl, rv, blocks) == NODESHM_OK,
              "readv of %zu blocks from PE %d", blocks, pe);
        size_t bad = packed;
        for (size_t i = 0; i < packed && bad == packed; i++)
            if (pack[i] != want[6 * (i / 3) + i % 3]) bad = i;
        CHECK(bad == packed, "strided readv from PE %d: packed byte %zu wrong", pe, bad);
        free(rv), free(lv), free(pack), free(want);
    }
    shmem_barrier_all();
    for (int j = 0; j < t->node_n_pes; j++) {
        size_t bad = SLOT;
        for (size_t i = 0; i < SLOT && bad == SLOT; i++)
            if (landing[(size_t)j * SLOT + i] != byte_of(t->node_pes[j], 50, i)) bad = i;
        CHECK(bad == SLOT, "slot written by PE %d: byte %zu wrong", t->node_pes[j], bad);
    }
}

/* Each bad call must be refused with `status`, its message naming the call and `value`. */
static void expect_refusal(int rc, int status, const char *msg, const char *call,
                           const char *value)
{
    CHECK(rc == status, "%s: status %d, expected %d", call, rc, status);
    CHECK(strstr(msg, call) != NULL, "message names the call %s: '%s'", call, msg);
    CHECK(strstr(msg, value) != NULL, "message names '%s': '%s'", value, msg);
}

static void test_bad_arguments(void)
{
    const nodeshm_copy_peer_t *peer = nodeshm_copy_peer(0);
    const nodeshm_copy_caps_t *caps = nodeshm_copy_caps();
    char buf[64], msg[2048];
    int rc;
    nodeshm_copy_peer_t nopid = {.pid = 0, .pe = 0, .xpmem_segid = -1};

    capture_begin();
    rc = nodeshm_cma_read("bad_peer_call", NULL, buf, buf, 8);
    capture_end(msg, sizeof msg);
    expect_refusal(rc, NODESHM_ERR_ARG, msg, "bad_peer_call", "NULL");

    capture_begin();
    rc = nodeshm_cma_write("bad_pid_call", &nopid, buf, buf, 8);
    capture_end(msg, sizeof msg);
    expect_refusal(rc, NODESHM_ERR_ARG, msg, "bad_pid_call", "pid <= 0");

    capture_begin();
    rc = nodeshm_cma_read("null_local_call", peer, NULL, buf, 8);
    capture_end(msg, sizeof msg);
    expect_refusal(rc, NODESHM_ERR_ARG, msg, "null_local_call", "NULL address, 8 bytes");

    struct iovec a[2] = {{buf, 8}, {buf + 8, 9}}, b = {buf + 32, 16};
    capture_begin();
    rc = nodeshm_cma_readv("uneven_call", peer, a, 2, &b, 1);
    capture_end(msg, sizeof msg);
    expect_refusal(rc, NODESHM_ERR_ARG, msg, "uneven_call", "17 bytes but remote ones 16");

    /* 0 bytes: nothing to do, fine even with NULL addresses and whatever the engine state */
    CHECK(nodeshm_cma_read("zero_call", peer, NULL, NULL, 0) == NODESHM_OK, "0-byte read");
    CHECK(nodeshm_cma_writev("zero_call", peer, NULL, 0, NULL, 0) == NODESHM_OK, "0-byte writev");

    if (caps && caps->cma) { /* an unmapped remote address: the kernel's EFAULT, reported */
        capture_begin();
        rc = nodeshm_cma_read("fault_call", peer, buf, (void *)(uintptr_t)64, 8);
        capture_end(msg, sizeof msg);
        expect_refusal(rc, NODESHM_ERR_SYSTEM, msg, "fault_call", strerror(EFAULT));
        /* a partial transfer: the kernel copies the first element and stops at the unmapped
         * second; the loop resumes there, gets EFAULT and reports how far it got */
        const nodeshm_copy_peer_t *self = nodeshm_copy_peer(nodeshm_rt.topo.node_my_pe);
        unsigned char got[108];
        memset(got, 0, sizeof got);
        struct iovec l = {got, 108}, r[2] = {{bufs[5] + 5, 100}, {(void *)(uintptr_t)64, 8}};
        capture_begin();
        rc = nodeshm_cma_readv("partial_call", self, &l, 1, r, 2);
        capture_end(msg, sizeof msg);
        expect_refusal(rc, NODESHM_ERR_SYSTEM, msg, "partial_call", "stopped after 100 of 108");
        CHECK(memcmp(got, bufs[5] + 5, 100) == 0, "the first 100 bytes arrived");
    } else { /* disabled: refused, saying why */
        capture_begin();
        rc = nodeshm_cma_read("disabled_call", peer, buf, buf + 8, 8);
        capture_end(msg, sizeof msg);
        expect_refusal(rc, NODESHM_ERR_SYSTEM, msg, "disabled_call", "CMA is not available");
        expect_refusal(rc, NODESHM_ERR_SYSTEM, msg, "disabled_call", caps ? caps->cma_why : "?");
    }
}

/* Re-probes; node rank 0 checks its debug lines (when SHMEM_DEBUG is on) contain `line`. */
static void reprobe(const nodeshm_topology_t *t, nodeshm_copy_caps_t *caps, const char *line)
{
    char msg[2048];
    nodeshm_copy_peer_t *peers = malloc((size_t)t->node_n_pes * sizeof *peers);
    if (t->node_my_pe == 0) capture_begin();
    int rc = nodeshm_copy_probe("test_probe", t->node, caps, peers);
    if (t->node_my_pe == 0) {
        capture_end(msg, sizeof msg);
        if (nodeshm_debug_enabled())
            CHECK(strstr(msg, line) != NULL, "debug output has '%s': '%.300s'", line, msg);
    }
    CHECK(rc == NODESHM_OK, "probe: %d", rc);
    for (int j = 0; j < t->node_n_pes; j++)
        CHECK(peers[j].pe == t->node_pes[j], "peer %d is PE %d", j, peers[j].pe);
    free(peers);
}

static void test_blocked(const nodeshm_topology_t *t)
{
    if (t->node_n_pes < 2) return;
    int victim = t->node_pes[1];
    char expect[64];
    snprintf(expect, sizeof expect, "from PE %d: %s", victim, strerror(EPERM));
    int dropped = set_ptrace_cap(0);
    CHECK(dropped == 0, "capset (drop CAP_SYS_PTRACE): %s", strerror(errno));
    if (t->node_my_pe == 1) CHECK(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0, "PR_SET_DUMPABLE 0");
    shmem_barrier_all();
    nodeshm_copy_caps_t caps;
    reprobe(t, &caps, "CMA: disabled: process_vm_readv by PE");
    CHECK(!caps.cma, "CMA still enabled with PE %d non-dumpable", victim);
    CHECK(strstr(caps.cma_why, expect) != NULL, "why names the PE and errno: '%s'", caps.cma_why);
    char buf[16];
    CHECK(nodeshm_cma_read("blocked_call", nodeshm_copy_peer(1), buf, buf, 0) == NODESHM_OK, "0 B");
    /* undone: enabled again */
    if (t->node_my_pe == 1) CHECK(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0, "PR_SET_DUMPABLE 1");
    CHECK(set_ptrace_cap(1) == 0, "capset (raise CAP_SYS_PTRACE): %s", strerror(errno));
    shmem_barrier_all();
    reprobe(t, &caps, "CMA: enabled");
    CHECK(caps.cma, "CMA not re-enabled: %s", caps.cma_why);
}

int main(void)
{
    shmem_init();
    test_seed();
    int me = shmem_my_pe();
    const nodeshm_topology_t *t = &nodeshm_rt.topo;
    const char *sw = getenv("NODESHM_CMA");
    int switched_off = sw && !strcmp(sw, "0");
    const nodeshm_copy_caps_t *caps = nodeshm_copy_caps();
    CHECK(caps != NULL, "no probe at shmem_init");
    CHECK(nodeshm_copy_n_peers() == t->node_n_pes, "%d peers", nodeshm_copy_n_peers());
    CHECK(!strcmp(nodeshm_copy_name(NODESHM_COPY_CMA), "cma"), "name");
    if (!caps) return test_finish("copy_engine");
    if (switched_off) {
        CHECK(!caps->cma && !strcmp(caps->cma_why, "NODESHM_CMA=0"), "why '%s'", caps->cma_why);
    } else if (!caps->cma) { /* a machine that blocks CMA: the reason must say where */
        if (me == 0) printf("CMA is not available here: %s\n", caps->cma_why);
        CHECK(strstr(caps->cma_why, "process_vm_") != NULL, "why '%s'", caps->cma_why);
    }
    CHECK(caps->xpmem || caps->xpmem_why[0], "XPMEM off without a reason");

    uint64_t *addrs = shmem_malloc((NSIZES + 1) * sizeof *addrs);
    for (int k = 0; k < NSIZES; k++) {
        bufs[k] = malloc(sizes[k] + 1);
        fill_stream(bufs[k], me, k, sizes[k]);
        addrs[k] = (uint64_t)(uintptr_t)bufs[k];
    }
    landing = calloc((size_t)t->node_n_pes, SLOT);
    addrs[NSIZES] = (uint64_t)(uintptr_t)landing;
    shmem_barrier_all();

    if (caps->cma) {
        test_transfers(t, addrs);
        test_bad_arguments();
        test_blocked(t);
    } else {
        test_bad_arguments();
        nodeshm_copy_caps_t again;
        if (switched_off) reprobe(t, &again, "CMA: disabled: NODESHM_CMA=0");
    }
    shmem_barrier_all();
    for (int k = 0; k < NSIZES; k++) free(bufs[k]);
    free(landing);
    shmem_free(addrs);
    int rc = test_finish("copy_engine");
    shmem_finalize();
    return rc;
}
