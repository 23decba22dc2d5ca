/* nodeshm core: ordering and completion domains.
 *
 * A domain is what the core needs of an OpenSHMEM context, without knowing the face: its PE
 * numbering (a team's: `pes` maps it to world PEs, NULL for the world's own), the count of MPI
 * operations issued on it and the count a finished flush covers (a quiet on it flushes only
 * when they differ).  The core owns the default domain; the face's contexts point to a domain
 * (the default context to the core's), so the core never sees a face object. */
#ifndef NODESHM_DOMAIN_H
#define NODESHM_DOMAIN_H

#include "core/status.h"

#include <stdint.h>

typedef struct nodeshm_domain {
    int id;                      /* 0: the default domain; in messages */
    int n_pes;                   /* PEs in its numbering */
    int *pes;                    /* [n_pes] world PE of each; NULL: world numbering */
    uint64_t issued;             /* MPI operations issued on it (not counted for the default) */
    uint64_t completed;          /* of those, how many a finished flush covers */
} nodeshm_domain_t;

extern nodeshm_domain_t nodeshm_domain_default;
#define NODESHM_DOMAIN_DEFAULT (&nodeshm_domain_default)

/* A new domain numbering `n_pes` PEs as world_pes[i] (NULL: the world's order). */
int nodeshm_domain_init(const char *call, nodeshm_domain_t *d, int id, int n_pes,
                        const int *world_pes);
/* Frees what init allocated. */
void nodeshm_domain_fini(nodeshm_domain_t *d);

int nodeshm_domain_bad_pe(const char *call, const nodeshm_domain_t *d, int pe);

/* Domain PE -> world PE.  On the default domain (a constant in every non-ctx call) this is
 * nothing at all. */
static inline __attribute__((always_inline)) int nodeshm_domain_pe(const char *call,
                                                                  const nodeshm_domain_t *d, int *pe)
{
    if (__builtin_expect(d == NODESHM_DOMAIN_DEFAULT || !d->pes, 1)) return NODESHM_OK;
    if (__builtin_expect((unsigned)*pe >= (unsigned)d->n_pes, 0))
        return nodeshm_domain_bad_pe(call, d, *pe);
    *pe = d->pes[*pe];
    return NODESHM_OK;
}

/* After an MPI operation on `d` that a quiet must complete. */
static inline void nodeshm_domain_issued(nodeshm_domain_t *d)
{
    if (d != NODESHM_DOMAIN_DEFAULT) __atomic_fetch_add(&d->issued, 1, __ATOMIC_RELEASE);
}

#endif
