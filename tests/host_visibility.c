/* Emulated hosts (tests/hosts.cmake): usage host_visibility [rounds [passes]].
 * The OpenSHMEM memory model across nodes, round after round: what a PE of another node wrote
 * before a synchronization must be in this PE's memory right after it.  A round does the kinds
 * its pass names:
 *   cas, put  every PE compare-swaps its own word at every PE of other nodes from its value two
 *             rounds before to this round, then puts the round number into its NPUT slots there
 *             (8 bytes each: MPICH sends these as OFI injects); shmem_barrier_all; every PE
 *             checks every slot and word written to it;
 *   flag      a put to a PE of another node, shmem_quiet, a put of the round number to a flag
 *             there; the target waits for the flag, then checks the data;
 *   signal    the same with shmem_putmem_signal and shmem_signal_wait_until.
 * Every other pair of rounds takes the nbi forms (shmem_long_put_nbi, shmem_putmem_nbi,
 * shmem_putmem_signal_nbi), which between nodes only issue the MPI operation.
 * passes: separated by '/', each runs `rounds` rounds; default "put/cas,flag,signal": puts
 * alone first, because the compare-swaps and the waits keep a PE inside MPI more and hide stale
 * puts (before the fix, MPICH 5.0.2 over OFI tcp, 4 PEs on 2 hosts: 192-522 stale views in
 * each of 6 default runs, in the puts' pass; 500 rounds of all kinds at once: none).  Stale views are counted per PE and kind; every PE
 * prints its counts and any one fails the test. */
#include "common.h"

#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PES 64

/* Two of each, by round parity: a PE may be one round ahead (it left the barrier first) and
 * must not overwrite what its target is still checking. */
#define NPUT 32                         /* 8-byte puts per source and target per round */
static long slot[2][MAX_PES][NPUT]; /* slot[r&1][src][i]: the round number r that src put here */
static uint64_t word[2][MAX_PES]; /* word[r&1][src]: compare-swapped by src from r-2 to r */
static long data[8];           /* flag and signal kinds: payload */
static long flag;
static uint64_t sig;

static int me, npes, next;
static int *node_of;
static long stale_put, stale_cas, stale_flag, stale_sig, bad_cas;
static uint64_t last_cas[2]; /* what this PE's word of each parity holds at its targets */

static void one_round(long r, int do_put, int do_cas, int do_flag, int do_sig)
{
    /* barrier: compare-swaps first (a fetching operation waits for the target's answer, which
     * comes after the target has taken earlier writes off the connection: it would hide them) */
    for (int p = 0; p < npes && do_cas; p++) {
        if (node_of[p] == node_of[me]) continue;
        const uint64_t prev = last_cas[r & 1];
        uint64_t old = shmem_uint64_atomic_compare_swap(&word[r & 1][me], prev, (uint64_t)r, p);
        if (old != prev) bad_cas++;
    }
    if (do_cas) last_cas[r & 1] = (uint64_t)r;
    const int nbi = (r >> 1) & 1;
    static long nbi_src[NPUT]; /* nbi sources stay untouched until the barrier's quiet */
    for (int i = 0; i < NPUT; i++) nbi_src[i] = r;
    for (int i = 0; i < NPUT && do_put; i++)
        for (int p = 0; p < npes; p++) {
            if (node_of[p] == node_of[me]) continue;
            if (nbi) shmem_long_put_nbi(&slot[r & 1][me][i], &nbi_src[i], 1, p);
            else shmem_long_p(&slot[r & 1][me][i], r, p);
        }
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) {
        if (node_of[p] == node_of[me]) continue;
        for (int i = 0; i < NPUT && do_put; i++)
            if (__atomic_load_n(&slot[r & 1][p][i], __ATOMIC_ACQUIRE) != r) {
                stale_put++; /* counted once per source and round */
                break;
            }
        if (do_cas && __atomic_load_n(&word[r & 1][p], __ATOMIC_ACQUIRE) != (uint64_t)r) stale_cas++;
    }
    long payload[8];
    if (do_flag) { /* data, quiet, flag */
        for (int i = 0; i < 8; i++) payload[i] = r * 8 + i;
        if (nbi) shmem_putmem_nbi(data, payload, sizeof payload, next);
        else shmem_putmem(data, payload, sizeof payload, next);
        shmem_quiet();
        shmem_long_p(&flag, r, next);
        shmem_long_wait_until(&flag, SHMEM_CMP_GE, r);
        for (int i = 0; i < 8; i++)
            if (__atomic_load_n(&data[i], __ATOMIC_ACQUIRE) != r * 8 + i) {
                stale_flag++;
                break;
            }
        shmem_barrier_all(); /* nobody overwrites data before its target checked it */
    }
    if (do_sig) {
        for (int i = 0; i < 8; i++) payload[i] = -(r * 8 + i);
        if (nbi) /* payload stays untouched until the barrier's quiet */
            shmem_putmem_signal_nbi(data, payload, sizeof payload, &sig, (uint64_t)r,
                                    SHMEM_SIGNAL_SET, next);
        else shmem_putmem_signal(data, payload, sizeof payload, &sig, (uint64_t)r, SHMEM_SIGNAL_SET,
                                 next);
        shmem_signal_wait_until(&sig, SHMEM_CMP_GE, (uint64_t)r);
        for (int i = 0; i < 8; i++)
            if (__atomic_load_n(&data[i], __ATOMIC_ACQUIRE) != -(r * 8 + i)) {
                stale_sig++;
                break;
            }
        shmem_barrier_all();
    }
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 500;
    char passes[256];
    snprintf(passes, sizeof passes, "%s", argc > 2 ? argv[2] : "put/cas,flag,signal");
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const int nn = shmemx_node_n_pes();
    if (npes > MAX_PES || shmemx_n_nodes() < 2) {
        if (me == 0) fprintf(stderr, "host_visibility: needs 2..%d PEs on 2 or more nodes\n", MAX_PES);
        shmem_finalize();
        return 1;
    }
    /* a PE's node: the world index of its node's first PE */
    const int my_node = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
    node_of = malloc((size_t)npes * sizeof *node_of);
    int *node_sym = shmem_malloc(sizeof(int));
    *node_sym = my_node;
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) node_of[p] = shmem_int_g(node_sym, p);
    shmem_barrier_all();
    /* flag and signal target: me + nn, a permutation that leaves the node when the nodes are
     * blocks of nn consecutive PEs (oshrun --hosts spreads PEs so, evenly) */
    next = (me + nn) % npes;
    if (node_of[next] == my_node || npes % nn) {
        fprintf(stderr, "host_visibility: PE %d: PE %d is on this node: nodes are not even blocks\n",
                me, next);
        shmem_global_exit(1);
    }

    long r = 0;
    for (char *save = NULL, *kinds = strtok_r(passes, "/", &save); kinds;
         kinds = strtok_r(NULL, "/", &save)) {
        const int do_put = strstr(kinds, "put") != NULL, do_cas = strstr(kinds, "cas") != NULL;
        const int do_flag = strstr(kinds, "flag") != NULL, do_sig = strstr(kinds, "signal") != NULL;
        for (long end = r + rounds; r < end;) one_round(++r, do_put, do_cas, do_flag, do_sig);
    }
    printf("host_visibility: PE %d (node of PE %d, node PE %d): %ld rounds: stale after barrier: "
           "put %ld, compare-swap %ld; after quiet+flag %ld; after signal %ld; wrong cswap "
           "results %ld\n",
           me, my_node, shmemx_node_my_pe(), r, stale_put, stale_cas, stale_flag,
           stale_sig, bad_cas);
    fflush(stdout);
    long bad = stale_put + stale_cas + stale_flag + stale_sig + bad_cas;
    static long total;
    shmem_long_atomic_add(&total, bad, 0);
    shmem_barrier_all();
    int rc = 0;
    if (me == 0) {
        if (total) {
            fprintf(stderr, "host_visibility: FAIL: %ld stale views or wrong results\n", total);
            rc = 1;
        } else {
            printf("host_visibility: PASS\n");
        }
    }
    free(node_of);
    shmem_free(node_sym);
    shmem_finalize();
    return rc;
}
