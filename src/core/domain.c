/* nodeshm core: ordering and completion domains (domain.h). */
#include "core/domain.h"

#include <stdlib.h>
#include <string.h>

nodeshm_domain_t nodeshm_domain_default = {.id = 0};

int nodeshm_domain_init(const char *call, nodeshm_domain_t *d, int id, int n_pes,
                        const int *world_pes)
{
    *d = (nodeshm_domain_t){.id = id, .n_pes = n_pes};
    if (!world_pes) return NODESHM_OK;
    d->pes = malloc(sizeof *d->pes * (size_t)n_pes);
    if (!d->pes) { /* a failed context creation, which is not an error: no report */
        nodeshm_debug("%s: no memory for %d PE numbers", call, n_pes);
        return NODESHM_ERR_NOMEM;
    }
    memcpy(d->pes, world_pes, sizeof *d->pes * (size_t)n_pes);
    return NODESHM_OK;
}

void nodeshm_domain_fini(nodeshm_domain_t *d)
{
    free(d->pes);
    d->pes = NULL;
}

int nodeshm_domain_bad_pe(const char *call, const nodeshm_domain_t *d, int pe)
{
    return nodeshm_report(NODESHM_ERR_ARG, call,
                          "invalid PE %d for context %d (its team's PEs are 0 to %d)", pe, d->id,
                          d->n_pes - 1);
}
