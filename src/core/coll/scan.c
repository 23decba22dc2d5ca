/* nodeshm core, node collectives: the scan family (scan.h says how it works). */
#include "core/coll/scan.h"

#include <string.h>

int nodeshm_scan(nodeshm_pub_t *p, const nodeshm_reduction_t *op, void *out, size_t count, int exclusive)
{
    nodeshm_pub_reduction_t c = nodeshm_pub_reduction(p, op);
    const nodeshm_reduction_t *r = &c.r;
    const size_t bytes = count * op->elem;
    const int me = p->me, last = p->n - 1;
    int rc = 0;
    p->post(p, NODESHM_PUB_DATA);
    /* member me waits only for members 0..me-1, which publish without waiting for anyone */
    for (int j = 0; j < me; j++) p->await(p, j, NODESHM_PUB_DATA);
    /* out = my node prefix: members 0..upto in member order (reduce.h) */
    const int upto = exclusive ? me - 1 : me, have = upto >= 0;
    if (have) nodeshm_reduce_ordered(r, out, 0, count, 0, upto);

    if (p->n_nodes > 1) {
        /* the node total into the shared buffer, the leaders' exclusive scan of the totals there */
        char *total = p->shared(p);
        if (me == last) {
            const char *mine = p->at(p, me);
            if (!exclusive) memcpy(total, out, bytes);
            else if (!have) {
                if (total != mine) memcpy(total, mine, bytes);
            } else if (total == mine) /* the face kept my contribution there: mine op prefix */
                nodeshm_reduce_combine(r, total, total, out, count);
            else nodeshm_reduce_combine(r, total, out, mine, count);
            p->post(p, NODESHM_PUB_SHARED);
        }
        if (me == 0) {
            if (last > 0) p->await(p, last, NODESHM_PUB_SHARED);
            rc = p->exscan(p, total, count);
            p->post(p, NODESHM_PUB_SHARED); /* after an error too: nobody waits forever */
        }
        if (p->my_node > 0) { /* the first node's members have no earlier node */
            if (me > 0) p->await(p, 0, NODESHM_PUB_SHARED);
            if (have) nodeshm_reduce_combine(r, out, out, total, count);
            else memcpy(out, total, bytes);
        }
    }
    p->done(p);
    return rc;
}
