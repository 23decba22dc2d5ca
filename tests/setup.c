/* Setup and queries: info_get_version/name, my_pe/n_pes (and the deprecated _my_pe/_num_pes),
 * shmemx_node_* and shmemx_n_nodes, pe_accessible, addr_accessible, shmem_ptr, and loads and
 * stores through shmem_ptr, on heap and global symmetric objects.
 *
 * The node of each PE is known independently when every PE runs on one host (the usual test
 * setup, checked by comparing host names): all PEs, or with NODESHM_PES_PER_NODE=k, PEs
 * [k*j, k*j+k). */
#include <limits.h>
#include <shmem.h>
#include <shmemx.h>
#include <string.h>

#include "common.h"

#define MAX_PES 64
#define HOST_LEN 256

/* symmetric globals: initialized (.data) and zeroed (.bss) */
static long g_data[MAX_PES] = {1, 2, 3};
static long g_bss[MAX_PES];
static char g_host[HOST_LEN];
static int g_info[4]; /* my_pe, n_pes, node_my_pe, node_n_pes */

enum { K_PTR = 1, K_SENT = 2 };

static void test_version_name(void)
{
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK(major == 1 && minor == 6, "shmem_info_get_version: %d.%d, expected 1.6", major, minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
          "shmem_info_get_version: %d.%d, but SHMEM_MAJOR/MINOR_VERSION are %d.%d", major, minor,
          SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    CHECK(_SHMEM_MAJOR_VERSION == 1 && _SHMEM_MINOR_VERSION == 6, "_SHMEM_MAJOR/MINOR_VERSION");
    char name[SHMEM_MAX_NAME_LEN + 16];
    memset(name, 'X', sizeof name);
    shmem_info_get_name(name);
    size_t len = strnlen(name, SHMEM_MAX_NAME_LEN);
    CHECK(len < SHMEM_MAX_NAME_LEN, "shmem_info_get_name: no terminating NUL within SHMEM_MAX_NAME_LEN");
    CHECK(len > 0, "shmem_info_get_name: empty name");
    CHECK(len < SHMEM_MAX_NAME_LEN && strcmp(name, SHMEM_VENDOR_STRING) == 0,
          "shmem_info_get_name: '%.*s', expected SHMEM_VENDOR_STRING '%s'", (int)len, name, SHMEM_VENDOR_STRING);
    CHECK(name[SHMEM_MAX_NAME_LEN] == 'X', "shmem_info_get_name wrote past SHMEM_MAX_NAME_LEN bytes");
    CHECK(strlen(SHMEM_VENDOR_STRING) < SHMEM_MAX_NAME_LEN && strcmp(_SHMEM_VENDOR_STRING, SHMEM_VENDOR_STRING) == 0,
          "SHMEM_VENDOR_STRING / _SHMEM_VENDOR_STRING");
    int level = -1;
    shmem_query_thread(&level);
    CHECK(level >= SHMEM_THREAD_SINGLE && level <= SHMEM_THREAD_MULTIPLE, "shmem_query_thread after "
          "shmem_init: %d", level);
}

/* Expected node of PE q as a "node key", or -1 when it cannot be known from outside. */
static int single_host;
static long per_node;
static int node_key(int q)
{
    if (!single_host) return -1;
    return per_node > 0 ? (int)(q / per_node) : 0;
}

static int info[MAX_PES][4];

static void test_pes_and_nodes(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int nme = shmemx_node_my_pe(), nn = shmemx_node_n_pes(), nodes = shmemx_n_nodes();
    CHECK(me >= 0 && me < n, "shmem_my_pe %d, shmem_n_pes %d", me, n);
    CHECK(_my_pe() == me && _num_pes() == n, "_my_pe/_num_pes %d/%d, shmem_my_pe/n_pes %d/%d", _my_pe(), _num_pes(),
          me, n);
    CHECK(nn >= 1 && nn <= n && nme >= 0 && nme < nn, "shmemx_node_my_pe %d, shmemx_node_n_pes %d, %d PEs", nme,
          nn, n);
    CHECK(nodes >= 1 && nodes <= n, "shmemx_n_nodes %d with %d PEs", nodes, n);
    if (n > MAX_PES) return;

    /* gather everyone's view */
    g_info[0] = me;
    g_info[1] = n;
    g_info[2] = nme;
    g_info[3] = nn;
    gethostname(g_host, HOST_LEN - 1);
    shmem_barrier_all();
    single_host = 1;
    char host[HOST_LEN];
    for (int q = 0; q < n; q++) {
        shmem_int_get(info[q], g_info, 4, q);
        shmem_char_get(host, g_host, HOST_LEN, q);
        if (strcmp(host, g_host) != 0) single_host = 0;
    }
    const char *env = getenv("NODESHM_PES_PER_NODE");
    per_node = env ? atol(env) : 0;
    if (me == 0)
        printf("%d PEs, %d node(s) of up to %d PEs (NODESHM_PES_PER_NODE=%s)%s\n", n, nodes, nn,
               env ? env : "unset", single_host ? ", one host" : ", several hosts");

    int seen[MAX_PES] = {0}, leaders = 0;
    for (int q = 0; q < n; q++) {
        CHECK(info[q][0] >= 0 && info[q][0] < n && !seen[info[q][0]]++, "PE %d says its number is %d", q,
              info[q][0]);
        CHECK(info[q][1] == n, "PE %d says there are %d PEs, I count %d", q, info[q][1], n);
        leaders += info[q][2] == 0;
    }
    CHECK(leaders == nodes, "%d PEs have node_my_pe 0, shmemx_n_nodes is %d", leaders, nodes);

    /* my node: the PEs whose memory shmem_ptr reaches; node_my_pe is my rank among them */
    int members = 0, rank = -1;
    for (int q = 0; q < n; q++) {
        int reach = shmem_ptr(g_bss, q) != NULL;
        if (q == me) rank = members;
        if (reach) {
            CHECK(info[q][3] == nn && info[q][2] == members, "PE %d on my node: node_my_pe %d, node_n_pes %d; "
                  "expected %d, %d", q, info[q][2], info[q][3], members, nn);
            members++;
        }
        if (node_key(q) >= 0)
            CHECK(reach == (node_key(q) == node_key(me)), "shmem_ptr(global, %d) is %s, but PE %d is %son my "
                  "node", q, reach ? "not NULL" : "NULL", q, node_key(q) == node_key(me) ? "" : "not ");
    }
    CHECK(members == nn, "shmem_ptr reaches %d PEs, shmemx_node_n_pes is %d", members, nn);
    CHECK(rank == nme, "I am number %d among the PEs shmem_ptr reaches, shmemx_node_my_pe is %d", rank, nme);
    if (single_host) {
        long k = per_node > 0 ? per_node : n;
        int expect_nn = (int)((me / k + 1) * k <= n ? k : n - me / k * k);
        CHECK(nn == expect_nn && nme == (int)(me % k), "one host, %ld PEs per node: node_n_pes %d, node_my_pe %d; "
              "expected %d, %ld", k, nn, nme, expect_nn, me % k);
        CHECK(nodes == (int)((n + k - 1) / k), "one host, %ld PEs per node: shmemx_n_nodes %d, expected %ld", k,
              nodes, (n + k - 1) / k);
    }
    shmem_barrier_all();
}

static void test_accessible(void)
{
    int n = shmem_n_pes(), me = shmem_my_pe();
    for (int q = 0; q < n; q++) CHECK(shmem_pe_accessible(q) == 1, "shmem_pe_accessible(%d) is 0", q);
    static const int bad[] = {-1, INT_MIN, INT_MAX};
    for (size_t i = 0; i < 3; i++) CHECK(shmem_pe_accessible(bad[i]) == 0, "shmem_pe_accessible(%d) is 1", bad[i]);
    CHECK(shmem_pe_accessible(n) == 0, "shmem_pe_accessible(n_pes = %d) is 1", n);

    char *heap = shmem_malloc(1000);
    static int local_static = 7; /* a static inside a function is symmetric too */
    long stack_var = 0;
    long *private_heap = malloc(sizeof(long));
    const void *sym[] = {heap, heap + 999, g_data, &g_data[MAX_PES - 1], g_bss, &local_static, &test_seed_value};
    const char *sym_name[] = {"heap block", "heap block's last byte", "initialized global",
                              "initialized global's last element", "zeroed global", "static local",
                              "common.h's static"};
    for (size_t i = 0; i < sizeof sym / sizeof sym[0]; i++) {
        for (int q = 0; q < n; q++)
            CHECK(shmem_addr_accessible(sym[i], q) == 1, "shmem_addr_accessible(%s, %d) is 0", sym_name[i], q);
        CHECK(shmem_addr_accessible(sym[i], -1) == 0 && shmem_addr_accessible(sym[i], n) == 0,
              "shmem_addr_accessible(%s) is 1 for an invalid PE", sym_name[i]);
        CHECK(shmem_ptr(sym[i], me) == sym[i], "shmem_ptr(%s, my PE) is %p, not the address %p", sym_name[i],
              shmem_ptr(sym[i], me), sym[i]);
        CHECK(shmem_ptr(sym[i], -1) == NULL && shmem_ptr(sym[i], n) == NULL,
              "shmem_ptr(%s) is not NULL for an invalid PE", sym_name[i]);
    }
    const void *nonsym[] = {&stack_var, private_heap};
    const char *nonsym_name[] = {"stack variable", "malloc'd memory"};
    for (size_t i = 0; i < 2; i++)
        for (int q = 0; q < n; q++) {
            CHECK(shmem_addr_accessible(nonsym[i], q) == 0, "shmem_addr_accessible(%s, %d) is 1", nonsym_name[i], q);
            CHECK(shmem_ptr(nonsym[i], q) == NULL, "shmem_ptr(%s, %d) is not NULL", nonsym_name[i], q);
        }
    free(private_heap);
    shmem_free(heap);
}

/* Every PE stores its value into slot [me] of every node peer's heap and global arrays through
 * shmem_ptr, and loads the peer's own mark from the last slot; after a barrier each owner finds
 * exactly its node peers' values. */
#define MARK (MAX_PES - 1)
static void test_ptr_access(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n > MARK) return;
    long *heap = shmem_malloc(sizeof(long) * MAX_PES);
    for (int round = 0; round < 2; round++) {
        for (int mem = 0; mem < 2; mem++) {
            long *arr = mem ? g_data : heap;
            for (int s = 0; s < n; s++) arr[s] = (long)test_value(me, K_SENT, (uint64_t)(s + 100 * round + 1000 * mem));
            arr[MARK] = (long)test_value(me, K_SENT, (uint64_t)(MARK + 100 * round + 1000 * mem));
        }
        shmem_barrier_all();
        for (int q = 0; q < n; q++)
            for (int mem = 0; mem < 2; mem++) {
                long *arr = mem ? g_data : heap;
                long *remote = shmem_ptr(arr, q);
                int on_node = node_key(q) >= 0 ? node_key(q) == node_key(me) : remote != NULL;
                CHECK((remote != NULL) == on_node, "shmem_ptr(%s, %d) = %p", mem ? "global" : "heap", q, (void *)remote);
                if (remote) {
                    /* a load sees the owner's mark, a store goes into my slot */
                    long want = (long)test_value(q, K_SENT, (uint64_t)(MARK + 100 * round + 1000 * mem));
                    CHECK(remote[MARK] == want, "load through shmem_ptr(%s, %d): %ld, expected %ld",
                          mem ? "global" : "heap", q, remote[MARK], want);
                    remote[me] = (long)test_value(me, K_PTR, (uint64_t)(q + 100 * round + 1000 * mem));
                }
            }
        shmem_barrier_all();
        for (int mem = 0; mem < 2; mem++) {
            long *arr = mem ? g_data : heap;
            for (int s = 0; s < n; s++) {
                int on_node = shmem_ptr(arr, s) != NULL;
                long want = on_node ? (long)test_value(s, K_PTR, (uint64_t)(me + 100 * round + 1000 * mem))
                                    : (long)test_value(me, K_SENT, (uint64_t)(s + 100 * round + 1000 * mem));
                CHECK(arr[s] == want, "%s slot %d after stores through shmem_ptr: %ld, expected %ld (%s)",
                      mem ? "global" : "heap", s, arr[s], want, on_node ? "that PE's store" : "untouched");
            }
        }
        shmem_barrier_all();
    }
    shmem_free(heap);
}

int main(void)
{
    shmem_init();
    test_seed();
    test_version_name();
    test_pes_and_nodes();
    test_accessible();
    test_ptr_access();
    int status = test_finish("setup");
    shmem_finalize();
    return status;
}
