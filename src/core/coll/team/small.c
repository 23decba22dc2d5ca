/* nodeshm core, OpenSHMEM team collectives: small contributions, a deep ring per member.
 *
 * Contributions of at most coll_small_max() bytes on a one-node team (a broadcast root's, every
 * member's in a reduction or a scan round) do not take turns in staging: a member whose data
 * others read would wait every NODESHM_COLL_STAGE_DEPTH (4) collectives for the slowest reader,
 * which when PEs outnumber cores means a context switch or more per 4 calls (Open MPI's broadcast
 * root or MPI_Scan's first rank just leave eager messages in the receivers' queues and move on).
 * Instead each member has, per team slot, SMALL_DEPTH entries (runtime.h: small[slot][i]);
 * collective number seq uses entry seq % SMALL_DEPTH of the publishing member's ring.  Word 0 of
 * an entry is the epoch of its owner's latest publication there (a flag: flags.h), the payload
 * follows in the same cache line (one line handoff up to 48 bytes).  Each member's LINE_SMALL
 * done flag holds the epoch of the latest small collective of the team whose peers'
 * contributions it has finished reading: members take the team's collectives in order, so a peer
 * whose done reached an entry's previous epoch has read it (or had nothing to read in it), and
 * the owner may overwrite it; an owner waits only when it is SMALL_DEPTH collectives ahead of a
 * peer.  The line's word KNOWN (written by its owner only, read by nobody else) remembers the
 * lowest done of my peers I last saw, so their lines are read about once per ring, not once per
 * call (as the interposer's area does with its banks: core/coll/area.c).  Retiring a team waits
 * for the peers' reads and clears the entry epochs, so that a later team in the slot (whose
 * members may not have been this one's) finds no previous publication to wait for.
 *
 * The interposer's ring (core/coll/ring.h) is one ring of a node's shared buffers; this one is a
 * ring per member in its own control block, which its peers map already (team_coll.h). */
#include "core/coll/team/team_coll.h"

#define SMALL_DEPTH NODESHM_COLL_SMALL_DEPTH
#define SMALL_HEAD 16 /* bytes before the payload: the epoch, then padding (16: payload aligned
                       * for any element type) */
#define SMALL_MAX (NODESHM_COLL_SMALL_ENTRY - SMALL_HEAD)
_Static_assert(NODESHM_COLL_SMALL_ENTRY % 64 == 0, "entries are whole cache lines");
enum { KNOWN = 0 }; /* word of my LINE_SMALL: the lowest peers' done I last saw */

/* The ring pays off by letting a member run ahead of descheduled readers.  When every PE has a
 * core it is no faster than the staging turns up to 256 B, and slower above (nodeshm-bench-coll,
 * MPICH 2 PEs, 3 runs: broadcast of 512 B 0.29-0.35 us against 0.17-0.21 us staged; sum_reduce
 * of 512 B 1.8-1.9x against 2.0-2.1x of MPI_Allreduce), so then it stops at 256 B.  All PEs
 * agree on nodeshm_wait_oversubscribed, hence on the path. */
#define SMALL_MAX_CORES ((size_t)256)
size_t coll_small_max(void) { return nodeshm_wait_oversubscribed ? SMALL_MAX : SMALL_MAX_CORES; }

static inline uint64_t *small_entry(const nodeshm_team_t *t, int node_member, uint64_t seq)
{
    return (uint64_t *)(void *)nodeshm_ctrl_of(t->node_local[node_member])
        ->small[t->slot][seq % SMALL_DEPTH];
}

/* Waits until every node peer is done with the small collective of epoch `last` (0: none). */
static void small_await_peers(const nodeshm_team_t *t, uint64_t last)
{
    uint64_t *known = &coll_my_line(t, LINE_SMALL)->word[KNOWN];
    if (last <= *known) return;
    *known = coll_peers_wait(t, LINE_SMALL, NODESHM_FLAG_DONE, last);
}

/* My entry for this collective, free to be rewritten. */
char *coll_small_claim(const nodeshm_team_t *t, coll_turn_t x)
{
    uint64_t *entry = small_entry(t, t->node_my_pe, x.seq);
    small_await_peers(t, __atomic_load_n(entry, __ATOMIC_RELAXED));
    return (char *)entry + SMALL_HEAD;
}

void coll_small_publish(const nodeshm_team_t *t, coll_turn_t x)
{
    nodeshm_flag_store(small_entry(t, t->node_my_pe, x.seq), x.e);
}

/* Waits for node member k's contribution to this collective; returns its payload. */
const char *coll_small_await(const nodeshm_team_t *t, coll_turn_t x, int k)
{
    const uint64_t *entry = small_entry(t, k, x.seq);
    (void)nodeshm_flag_wait_ge(entry, x.e);
    return (const char *)entry + SMALL_HEAD;
}

void coll_small_retire(nodeshm_team_t *t)
{
    uint64_t last = 0;
    for (int i = 0; i < SMALL_DEPTH; i++) {
        uint64_t e = __atomic_load_n(small_entry(t, t->node_my_pe, (uint64_t)i), __ATOMIC_RELAXED);
        last = e > last ? e : last;
    }
    small_await_peers(t, last);
    for (int i = 0; i < SMALL_DEPTH; i++)
        __atomic_store_n(small_entry(t, t->node_my_pe, (uint64_t)i), 0, __ATOMIC_RELAXED);
    coll_my_line(t, LINE_SMALL)->word[KNOWN] = 0;
}
