/* libnodeshm_mpi: the MPI_Wait/MPI_Test family's part for the persistent collectives of ours
 * (persistent.h says why: the library's request of each stays inactive).  nonblocking_wait.c calls
 * these whenever some exist (one relaxed load otherwise); each finds ours among its arguments by
 * the one rule (nsm_persist_ours) and, with none, lets the call go on as before.  An inactive one
 * of ours is a null request (MPI); the library is given the array with MPI_REQUEST_NULL in place
 * of every one of ours (the view: same indices), so whatever it answers (indices, MPI_UNDEFINED,
 * statuses) is the standard's answer for its part.
 *   Wait, Test, Request_get_status   progress until (or say whether) ours has completed;
 *               inactive: at once, complete, empty status
 *   Waitall     progress until the active ones of ours have completed, the library's Waitall on
 *               the view, ours returned with empty statuses
 *   Testall     the library's Testall on the view once the active ones of ours have completed
 *               (if it then says no, none of ours is returned: MPI modifies no request then)
 *   Waitany, Waitsome, Testany, Testsome   active ones of ours that completed, besides what the
 *               library gives on the view (while ours are active, its "no active request" is
 *               not the answer); none of ours active: the library's call on the view
 * While waiting the library is polled every NSM_PERSIST_POLL_EVERY steps, so that its requests
 * (and those its peers wait for: point to point) progress as MPI promises. */
#include "mpi/persistent.h"
#include "nsm_bigcount_config.h" /* NSM_IF_GET_STATUS_N */

#include <stdio.h>
#include <stdlib.h>

/* The requests of ours among an array (their indices, entries), how many are active, and the
 * array as the library sees it (on the stack up to P_LOCAL requests). */
#define P_LOCAL 32
typedef struct p_set {
    int count, n, active;
    int *idx;
    nsm_persist_t **e;
    MPI_Request *view;
    int local_idx[P_LOCAL];
    nsm_persist_t *local_e[P_LOCAL];
    MPI_Request local_view[P_LOCAL];
} p_set_t;

/* 0 when the array holds none of ours (nothing to release) */
static int p_collect(p_set_t *set, int count, const MPI_Request requests[])
{
    set->count = count;
    set->n = set->active = 0;
    set->idx = set->local_idx;
    set->e = set->local_e;
    set->view = set->local_view;
    for (int i = 0; requests && i < count; i++) {
        nsm_persist_t *e = nsm_persist_ours(requests[i]);
        if (!e) continue;
        if (set->n == 0 && count > P_LOCAL) {
            set->idx = malloc(sizeof *set->idx * (size_t)count);
            set->e = malloc(sizeof *set->e * (size_t)count);
            set->view = malloc(sizeof *set->view * (size_t)count);
            if (!set->idx || !set->e || !set->view) {
                fprintf(stderr, "nodeshm_mpi: MPI_Wait/MPI_Test family: out of memory for %d requests\n", count);
                nodeshm_abort_job(1);
            }
        }
        set->idx[set->n] = i;
        set->e[set->n++] = e;
        set->active += nsm_persist_active_now(e);
    }
    if (!set->n) return 0;
    for (int i = 0, k = 0; i < count; i++) {
        int ours = k < set->n && set->idx[k] == i;
        set->view[i] = ours ? MPI_REQUEST_NULL : requests[i];
        k += ours;
    }
    return 1;
}

/* The library's handles back into the caller's array (it nulls those it completed); then frees. */
static void p_back(p_set_t *set, MPI_Request requests[])
{
    for (int i = 0, k = 0; i < set->count; i++) {
        if (k < set->n && set->idx[k] == i) k++;
        else requests[i] = set->view[i];
    }
    if (set->idx == set->local_idx) return;
    free(set->idx);
    free(set->e);
    free(set->view);
}

static MPI_Status *p_status_at(MPI_Status statuses[], int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

static int p_live_done(const nsm_persist_t *e) { return nsm_persist_active_now(e) && nsm_persist_done(e); }

/* ---------------------------------------------------------------- one request */

int nsm_persist_wait(MPI_Request *request, MPI_Status *status, int *rc)
{
    nsm_persist_t *e = request ? nsm_persist_ours(*request) : NULL;
    if (!e) return 0;
    if (nsm_persist_active_now(e)) {
        nsm_persist_finish(e);
        nsm_persist_return(e, status);
    } else {
        nsm_persist_empty_status(status);
    }
    *rc = MPI_SUCCESS;
    return 1;
}

/* Test (ret 1: the request goes back inactive when complete) and Request_get_status (0: it stays) */
static int p_test_one(MPI_Request request, int *flag, MPI_Status *status, int *rc, int ret)
{
    nsm_persist_t *e = nsm_persist_ours(request);
    if (!e) return 0;
    *rc = MPI_SUCCESS;
    *flag = 1;
    if (!nsm_persist_active_now(e)) {
        nsm_persist_empty_status(status);
        return 1;
    }
    nodeshm_nb_progress();
    *flag = nsm_persist_done(e);
    if (!*flag) nsm_persist_poke();
    else if (ret) nsm_persist_return(e, status);
    else nsm_persist_empty_status(status); /* it stays active until a Wait or Test returns it */
    return 1;
}

int nsm_persist_test(MPI_Request *request, int *flag, MPI_Status *status, int *rc)
{
    return request && p_test_one(*request, flag, status, rc, 1);
}

int nsm_persist_get_status(MPI_Request request, int *flag, MPI_Status *status, int *rc)
{
    return p_test_one(request, flag, status, rc, 0);
}

/* ---------------------------------------------------------------- all */

static int p_active_done(const p_set_t *set)
{
    for (int k = 0; k < set->n; k++)
        if (nsm_persist_active_now(set->e[k]) && !nsm_persist_done(set->e[k])) return 0;
    return 1;
}

/* ours complete for the caller: the active ones returned (before the library waits: a returned
 * one no longer holds the non-blocking wait loop), all with an empty status */
static void p_return_all(p_set_t *set, MPI_Status statuses[])
{
    for (int k = 0; k < set->n; k++) {
        MPI_Status *st = p_status_at(statuses, set->idx[k]);
        if (nsm_persist_active_now(set->e[k])) nsm_persist_return(set->e[k], st);
        else nsm_persist_empty_status(st);
    }
}
static void p_empty_all(const p_set_t *set, MPI_Status statuses[])
{
    for (int k = 0; k < set->n; k++) nsm_persist_empty_status(p_status_at(statuses, set->idx[k]));
}

int nsm_persist_waitall(int count, MPI_Request requests[], MPI_Status statuses[], int *rc)
{
    p_set_t set;
    if (!p_collect(&set, count, requests)) return 0;
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (unsigned steps = 1; nodeshm_nb_progress(), !p_active_done(&set); steps++) {
        if (steps % NSM_PERSIST_POLL_EVERY == 0) nsm_persist_poke();
        nodeshm_wait_step(&w);
    }
    p_return_all(&set, statuses);
    /* through MPI_Waitall again: with none of ours in the view, its usual path (non-blocking ops
     * of ours progress while the library waits); it writes statuses in our places too */
    *rc = MPI_Waitall(count, set.view, statuses);
    p_empty_all(&set, statuses);
    p_back(&set, requests);
    return 1;
}

int nsm_persist_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[], int *rc)
{
    p_set_t set;
    if (!p_collect(&set, count, requests)) return 0;
    nodeshm_nb_progress();
    *rc = MPI_SUCCESS;
    *flag = 0;
    if (!p_active_done(&set)) {
        nsm_persist_poke(); /* MPI: no request is modified unless all are complete */
    } else {
        *rc = PMPI_Testall(count, set.view, flag, statuses);
        /* MPICH 5.0.2 says MPI_ERR_IN_STATUS on persistent collectives it runs, also complete ones:
         * ours are complete with the others, or pending */
        if ((*rc == MPI_SUCCESS || *rc == MPI_ERR_IN_STATUS) && *flag) p_return_all(&set, statuses);
        else if (*rc == MPI_ERR_IN_STATUS)
            for (int k = 0; statuses != MPI_STATUSES_IGNORE && k < set.n; k++)
                statuses[set.idx[k]].MPI_ERROR = nsm_persist_active_now(set.e[k]) ? MPI_ERR_PENDING : MPI_SUCCESS;
    }
    p_back(&set, requests);
    return 1;
}

/* ---------------------------------------------------------------- any, some */

/* The first active one of ours that has completed, returned: its index, else -1. */
static int p_return_one(p_set_t *set, MPI_Status *status)
{
    for (int k = 0; k < set->n; k++)
        if (p_live_done(set->e[k])) {
            nsm_persist_return(set->e[k], status);
            return set->idx[k];
        }
    return -1;
}

int nsm_persist_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status, int *rc)
{
    p_set_t set;
    if (!p_collect(&set, count, requests)) return 0;
    *rc = MPI_SUCCESS;
    if (!set.active) { /* the library's wait (its MPI_UNDEFINED when nothing of its own is active) */
        *rc = MPI_Waitany(count, set.view, index, status);
        p_back(&set, requests);
        return 1;
    }
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (unsigned steps = 1;; steps++) {
        nodeshm_nb_progress();
        int i = p_return_one(&set, status);
        if (i >= 0) {
            *index = i;
            break;
        }
        if (steps % NSM_PERSIST_POLL_EVERY == 0) {
            int flag = 0;
            *rc = PMPI_Testany(count, set.view, index, &flag, status);
            if (*rc != MPI_SUCCESS || (flag && *index != MPI_UNDEFINED)) break;
        }
        nodeshm_wait_step(&w);
    }
    p_back(&set, requests);
    return 1;
}

int nsm_persist_testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status, int *rc)
{
    p_set_t set;
    if (!p_collect(&set, count, requests)) return 0;
    nodeshm_nb_progress();
    int i = p_return_one(&set, status);
    if (i >= 0) {
        *index = i;
        *flag = 1;
        *rc = MPI_SUCCESS;
    } else {
        *rc = PMPI_Testany(count, set.view, index, flag, status);
        if (*rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && set.active) *flag = 0; /* ours are active */
    }
    p_back(&set, requests);
    return 1;
}

/* Appends the active ones of ours that have completed after the *outcount the library gave
 * (MPI_UNDEFINED: 0, as ours are active); ret: returned (Testsome), else they stay active
 * (Request_get_status_some). */
static void p_append_done(p_set_t *set, int *outcount, int indices[], MPI_Status statuses[], int ret)
{
    int out = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    for (int k = 0; k < set->n; k++)
        if (p_live_done(set->e[k])) {
            indices[out] = set->idx[k];
            if (ret) nsm_persist_return(set->e[k], p_status_at(statuses, out));
            else nsm_persist_empty_status(p_status_at(statuses, out));
            out++;
        }
    *outcount = out;
}

static int p_any_done(const p_set_t *set)
{
    for (int k = 0; k < set->n; k++)
        if (p_live_done(set->e[k])) return 1;
    return 0;
}

int nsm_persist_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[],
                         int *rc)
{
    p_set_t set;
    if (!p_collect(&set, incount, requests)) return 0;
    if (!set.active) {
        *rc = MPI_Waitsome(incount, set.view, outcount, indices, statuses);
        p_back(&set, requests);
        return 1;
    }
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (unsigned steps = 1;; steps++) {
        nodeshm_nb_progress();
        if (p_any_done(&set) || steps % NSM_PERSIST_POLL_EVERY == 0) {
            *rc = PMPI_Testsome(incount, set.view, outcount, indices, statuses);
            if (*rc != MPI_SUCCESS) break;
            p_append_done(&set, outcount, indices, statuses, 1);
            if (*outcount) break;
        }
        nodeshm_wait_step(&w);
    }
    p_back(&set, requests);
    return 1;
}

int nsm_persist_testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[],
                         int *rc)
{
    p_set_t set;
    if (!p_collect(&set, incount, requests)) return 0;
    nodeshm_nb_progress();
    *rc = PMPI_Testsome(incount, set.view, outcount, indices, statuses);
    if (*rc == MPI_SUCCESS && set.active) p_append_done(&set, outcount, indices, statuses, 1);
    p_back(&set, requests);
    return 1;
}

int nsm_persist_cancel(MPI_Request request, MPI_Comm *comm)
{
    nsm_persist_t *e = nsm_persist_ours(request);
    if (e) *comm = nsm_persist_comm(e);
    return e != NULL;
}

/* ---------------------------------------------------------------- MPI-4.1 Request_get_status_*
 * As Testany, Testsome, Testall, but nothing is returned: a completed one of ours stays active
 * until a Wait or Test returns it. */

NSM_IF_GET_STATUS_N(
int nsm_persist_get_status_any(int count, const MPI_Request requests[], int *index, int *flag, MPI_Status *status,
                               int *rc)
{
    p_set_t set;
    if (!p_collect(&set, count, requests)) return 0;
    nodeshm_nb_progress();
    *rc = MPI_SUCCESS;
    *flag = 0;
    for (int k = 0; k < set.n && !*flag; k++)
        if (p_live_done(set.e[k])) *index = set.idx[k], *flag = 1;
    if (*flag) {
        nsm_persist_empty_status(status);
    } else {
        *rc = PMPI_Request_get_status_any(count, set.view, index, flag, status);
        if (*rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && set.active) *flag = 0; /* ours are active */
    }
    p_back(&set, (MPI_Request *)requests); /* the library changes no handle here */
    return 1;
}

int nsm_persist_get_status_some(int incount, const MPI_Request requests[], int *outcount, int indices[],
                                MPI_Status statuses[], int *rc)
{
    p_set_t set;
    if (!p_collect(&set, incount, requests)) return 0;
    nodeshm_nb_progress();
    *rc = PMPI_Request_get_status_some(incount, set.view, outcount, indices, statuses);
    if (*rc == MPI_SUCCESS && set.active) p_append_done(&set, outcount, indices, statuses, 0);
    p_back(&set, (MPI_Request *)requests);
    return 1;
}

int nsm_persist_get_status_all(int count, const MPI_Request requests[], int *flag, MPI_Status statuses[], int *rc)
{
    p_set_t set;
    if (!p_collect(&set, count, requests)) return 0;
    nodeshm_nb_progress();
    *rc = MPI_SUCCESS;
    *flag = 0;
    if (!p_active_done(&set)) {
        nsm_persist_poke();
    } else {
        *rc = PMPI_Request_get_status_all(count, set.view, flag, statuses);
        if (*rc == MPI_SUCCESS && *flag) p_empty_all(&set, statuses);
    }
    p_back(&set, (MPI_Request *)requests);
    return 1;
})
