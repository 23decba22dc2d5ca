/* nodeshm core, node collectives: non-blocking operations and their progress (progress.h). */
#include "core/coll/progress.h"
#include "core/lock.h"

#include <pthread.h>

long nodeshm_nb_outstanding;
unsigned long nodeshm_nb_completions;
static nodeshm_lock_t nb_lock = NODESHM_LOCK_INIT;
static nodeshm_nb_lane_t *nb_active; /* lanes with outstanding ops */

int nodeshm_nb_all_arrived(nodeshm_nb_t *op)
{
    const nodeshm_flags_t *f = &op->lane->area->flags;
    for (; op->next_peer < (unsigned)f->n; op->next_peer++)
        if (nodeshm_flag_load(&f->lines[op->next_peer].arrive) < op->seq) return 0;
    return 1;
}

/* Whether the op's buffers are free: every member done with the op that used them last
 * (area.c's test, without the wait).  The lowest done flag seen is remembered as area.c does. */
static int nb_bufs_free(const nodeshm_nb_t *op)
{
    nodeshm_coll_area_t *a = op->lane->area;
    if (op->seq <= op->reused || op->seq - op->reused <= a->done_seen) return 1;
    uint64_t need = op->seq - op->reused, low = UINT64_MAX;
    for (int i = 0; i < a->flags.n; i++) {
        uint64_t seen = nodeshm_flag_load(&a->flags.lines[i].done);
        if (seen < need) return 0;
        if (seen < low) low = seen;
    }
    a->done_seen = low;
    return 1;
}

/* An op's remote part (progress.h): started when every earlier one has, tested when every
 * earlier one is over (*start_ok, *test_ok: whether they have, for the ops after this one).
 * Returns whether it is over (1 also for an op without one). */
static int nb_remote(nodeshm_nb_t *op, int *start_ok, int *test_ok)
{
    if (!op->remote_start || op->remote_done) return 1;
    if (!op->remote_started) {
        if (*start_ok && op->published && op->remote_start(op)) {
            op->remote_started = 1;
        } else {
            *start_ok = *test_ok = 0;
            return 0;
        }
    }
    if (*test_ok && op->remote_test(op)) return op->remote_done = 1;
    *test_ok = 0;
    return 0;
}

/* One pass over a lane, lock held: publish in order (stop at the first that cannot), the
 * remote parts in order, complete whatever can, then move the done flag over the completed
 * prefix and drop it. */
static void nb_lane_pass(nodeshm_nb_lane_t *lane)
{
    int in_order = 1, start_ok = 1, test_ok = 1;
    for (nodeshm_nb_t *op = lane->head; op; op = op->next) {
        if (!op->published) {
            if (in_order && (!op->writes || nb_bufs_free(op)) && op->publish(op))
                op->published = 1;
            else
                in_order = 0;
        }
        if (!nb_remote(op, &start_ok, &test_ok)) continue;
        if (op->published && !op->completed && op->complete(op)) {
            op->completed = 1;
            op->finished(op);
            nodeshm_count_add(&nodeshm_nb_completions, 1UL);
        }
    }
    uint64_t done = 0;
    while (lane->head && lane->head->completed) {
        nodeshm_nb_t *op = lane->head;
        done = op->seq;
        lane->head = op->next;
        if (!lane->head) lane->tail = NULL;
        nodeshm_count_add(&lane->pending, -1L);
        nodeshm_count_add(&nodeshm_nb_outstanding, -1L);
        op->release(op);
    }
    if (done) nodeshm_flags_done(&lane->area->flags, done);
}

static void nb_pass_locked(void)
{
    for (nodeshm_nb_lane_t **l = &nb_active; *l;) {
        nb_lane_pass(*l);
        if (!(*l)->head)
            *l = (*l)->next_active; /* empty: off the active list */
        else
            l = &(*l)->next_active;
    }
}

void nodeshm_nb_start(nodeshm_nb_lane_t *lane, nodeshm_nb_t *op, size_t need)
{
    nodeshm_lock(&nb_lock);
    nodeshm_coll_area_t *a = lane->area;
    op->seq = ++a->seq;
    op->reused = nodeshm_area_use(a, op->seq, need);
    op->bufs = a->cur;
    op->lane = lane;
    op->next = NULL;
    op->published = op->completed = 0;
    op->remote_started = op->remote_done = 0;
    op->next_peer = 0;
    if (lane->tail) {
        lane->tail->next = op;
    } else {
        lane->head = op;
        lane->next_active = nb_active;
        nb_active = lane;
    }
    lane->tail = op;
    nodeshm_count_add(&lane->pending, 1L);
    nodeshm_count_add(&nodeshm_nb_outstanding, 1L);
    nb_pass_locked(); /* publishes this op if it can, and moves the others on */
    nodeshm_unlock(&nb_lock);
}

long nodeshm_nb_progress(void)
{
    if (!nodeshm_nb_any()) return 0;
    /* another thread passing now does the same work: no need to queue behind it */
    if (nodeshm_lock_try(&nb_lock)) {
        nb_pass_locked();
        nodeshm_unlock(&nb_lock);
    }
    return __atomic_load_n(&nodeshm_nb_outstanding, __ATOMIC_RELAXED);
}

void nodeshm_nb_drain(nodeshm_nb_lane_t *lane)
{
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    while (__atomic_load_n(&lane->pending, __ATOMIC_RELAXED)) {
        nodeshm_nb_progress();
        if (__atomic_load_n(&lane->pending, __ATOMIC_RELAXED)) nodeshm_wait_step(&w);
    }
}
