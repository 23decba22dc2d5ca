/* libnodeshm_mpi: the MPI_Wait/MPI_Test family's part for the persistent collectives of ours
 * (persistent.h says why: the library's request of each stays inactive).  nonblocking_wait.c calls
 * these while some are started (one relaxed load otherwise); each finds the started ones of ours
 * among its arguments and, with none, lets the call go on as before.
 *   Wait, Test, Request_get_status   progress until (or say whether) ours has completed
 *   Waitall     progress until all of ours have completed; ours are returned, then the library
 *               waits for the others (an array without ours: MPICH fails on them, persistent.h)
 *   Testall     the library's Testall on the others once all of ours have completed (if it then
 *               says no, none of ours is returned: MPI modifies no request then)
 *   Waitany, Waitsome, Testany, Testsome   ours that completed, besides what the library's
 *               Testany/Testsome give (where ours are active, "no active request" is not true)
 * The library sees ours as inactive requests: complete, with an empty status, which ours get too.
 * While waiting the library is polled every NSM_PERSIST_POLL_EVERY steps, so that its requests
 * (and those its peers wait for: point to point) progress as MPI promises. */
#include "mpi/persistent.h"

#include <stdio.h>
#include <stdlib.h>

/* The started requests of ours among an array: their indices (on the stack up to P_LOCAL). */
#define P_LOCAL 32
typedef struct p_set {
    int n;
    int *idx;
    nsm_persist_t **e;
    int local_idx[P_LOCAL];
    nsm_persist_t *local_e[P_LOCAL];
} p_set_t;

static int p_collect_as(p_set_t *set, int count, const MPI_Request requests[], int all)
{
    set->n = 0;
    set->idx = set->local_idx;
    set->e = set->local_e;
    for (int i = 0; requests && i < count; i++) {
        nsm_persist_t *e = all ? nsm_persist_hidden(requests[i]) : nsm_persist_started(requests[i]);
        if (!e) continue;
        if (set->n == P_LOCAL && set->idx == set->local_idx) {
            int *idx = malloc(sizeof *idx * (size_t)count);
            nsm_persist_t **es = malloc(sizeof *es * (size_t)count);
            if (!idx || !es) {
                fprintf(stderr, "nodeshm_mpi: MPI_Wait/MPI_Test family: out of memory for %d requests\n", count);
                nodeshm_abort_job(1);
            }
            for (int k = 0; k < P_LOCAL; k++) idx[k] = set->local_idx[k], es[k] = set->local_e[k];
            set->idx = idx;
            set->e = es;
        }
        set->idx[set->n] = i;
        set->e[set->n++] = e;
    }
    return set->n;
}

static int p_collect(p_set_t *set, int count, const MPI_Request requests[])
{
    return p_collect_as(set, count, requests, 0);
}
static int p_collect_all(p_set_t *set, int count, const MPI_Request requests[])
{
    return p_collect_as(set, count, requests, 1);
}

static void p_release(p_set_t *set)
{
    if (set->idx == set->local_idx) return;
    free(set->idx);
    free(set->e);
}

static MPI_Status *p_status_at(MPI_Status statuses[], int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

int nsm_persist_wait(MPI_Request *request, MPI_Status *status, int *rc)
{
    nsm_persist_t *e = request ? nsm_persist_started(*request) : NULL;
    if (!e) return 0;
    nsm_persist_finish(e);
    nsm_persist_return(e, status);
    *rc = MPI_SUCCESS;
    return 1;
}

int nsm_persist_test(MPI_Request *request, int *flag, MPI_Status *status, int *rc)
{
    nsm_persist_t *e = request ? nsm_persist_started(*request) : NULL;
    if (!e) return 0;
    nodeshm_nb_progress();
    *flag = nsm_persist_done(e);
    if (*flag)
        nsm_persist_return(e, status);
    else
        nsm_persist_poke();
    *rc = MPI_SUCCESS;
    return 1;
}

int nsm_persist_get_status(MPI_Request request, int *flag, MPI_Status *status, int *rc)
{
    nsm_persist_t *e = nsm_persist_started(request);
    if (!e) return 0;
    nodeshm_nb_progress();
    *flag = nsm_persist_done(e);
    if (*flag)
        nsm_persist_empty_status(status); /* it stays active until a Wait or Test returns it */
    else
        nsm_persist_poke();
    *rc = MPI_SUCCESS;
    return 1;
}

/* Waitall, Testall: the library's call on the others alone (MPICH 5.0.2 fails on persistent
 * collective requests it never started: persistent.h), through MPI_Waitall/MPI_Testall again
 * (with none of ours in it, their usual path: non-blocking ops of ours progress); handles and
 * statuses copied back into place.  flag: NULL for Waitall. */
static int p_rest(int count, MPI_Request requests[], MPI_Status statuses[], const p_set_t *set, int *flag)
{
    int n = count - set->n, rc;
    MPI_Request local_req[P_LOCAL], *sub = n <= P_LOCAL ? local_req : malloc(sizeof *sub * (size_t)n);
    MPI_Status local_st[P_LOCAL], *st = MPI_STATUSES_IGNORE; /* NULL in Open MPI */
    int no_memory = !sub;
    if (statuses != MPI_STATUSES_IGNORE) {
        st = n <= P_LOCAL ? local_st : malloc(sizeof *st * (size_t)(n ? n : 1));
        no_memory |= !st;
    }
    if (no_memory) {
        fprintf(stderr, "nodeshm_mpi: MPI_Waitall/MPI_Testall: out of memory for %d requests\n", count);
        nodeshm_abort_job(1);
    }
    for (int i = 0, k = 0, j = 0; i < count; i++) {
        if (k < set->n && set->idx[k] == i) k++;
        else sub[j++] = requests[i];
    }
    rc = flag ? MPI_Testall(n, sub, flag, st) : MPI_Waitall(n, sub, st);
    for (int i = 0, k = 0, j = 0; i < count; i++) {
        if (k < set->n && set->idx[k] == i) {
            k++;
            continue;
        }
        requests[i] = sub[j];
        if (st != MPI_STATUSES_IGNORE) statuses[i] = st[j];
        j++;
    }
    if (sub != local_req) free(sub);
    if (st != MPI_STATUSES_IGNORE && st != local_st) free(st);
    return rc;
}

/* set: the requests of ours in the array the library must not see (nsm_persist_hidden);
 * whether all active ones are done */
static int p_collect_all(p_set_t *set, int count, const MPI_Request requests[]);
static int p_active_done(const p_set_t *set)
{
    for (int k = 0; k < set->n; k++)
        if (nsm_persist_active_now(set->e[k]) && !nsm_persist_done(set->e[k])) return 0;
    return 1;
}
/* ours complete for the caller: the active ones returned, all with an empty status */
static void p_return_all(p_set_t *set, MPI_Status statuses[])
{
    for (int k = 0; k < set->n; k++) {
        MPI_Status *st = p_status_at(statuses, set->idx[k]);
        if (nsm_persist_active_now(set->e[k])) nsm_persist_return(set->e[k], st);
        else nsm_persist_empty_status(st);
    }
}

int nsm_persist_waitall(int count, MPI_Request requests[], MPI_Status statuses[], int *rc)
{
    p_set_t set;
    if (!p_collect_all(&set, count, requests)) return 0;
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (unsigned steps = 1; nodeshm_nb_progress(), !p_active_done(&set); steps++) {
        if (steps % NSM_PERSIST_POLL_EVERY == 0) nsm_persist_poke();
        nodeshm_wait_step(&w);
    }
    p_return_all(&set, statuses);
    *rc = p_rest(count, requests, statuses, &set, NULL);
    p_release(&set);
    return 1;
}

int nsm_persist_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[], int *rc)
{
    p_set_t set;
    if (!p_collect_all(&set, count, requests)) return 0;
    nodeshm_nb_progress();
    *rc = MPI_SUCCESS;
    *flag = 0;
    if (!p_active_done(&set))
        nsm_persist_poke(); /* MPI: no request is modified unless all are complete */
    else if ((*rc = p_rest(count, requests, statuses, &set, flag)) == MPI_SUCCESS && *flag)
        p_return_all(&set, statuses);
    else if (*rc == MPI_ERR_IN_STATUS && *flag) /* ours: complete with the others, else pending */
        p_return_all(&set, statuses);
    else if (*rc == MPI_ERR_IN_STATUS)
        for (int k = 0; statuses != MPI_STATUSES_IGNORE && k < set.n; k++)
            statuses[set.idx[k]].MPI_ERROR = MPI_ERR_PENDING;
    p_release(&set);
    return 1;
}

/* The first of ours in set that has completed, returned: its index, else -1. */
static int p_return_one(p_set_t *set, MPI_Status *status)
{
    for (int k = 0; k < set->n; k++)
        if (nsm_persist_done(set->e[k])) {
            nsm_persist_return(set->e[k], status);
            return set->idx[k];
        }
    return -1;
}

int nsm_persist_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status, int *rc)
{
    p_set_t set;
    if (!p_collect(&set, count, requests)) return 0;
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    *rc = MPI_SUCCESS;
    for (unsigned steps = 1;; steps++) {
        nodeshm_nb_progress();
        int i = p_return_one(&set, status);
        if (i >= 0) {
            *index = i;
            break;
        }
        if (steps % NSM_PERSIST_POLL_EVERY == 0) {
            int flag = 0;
            *rc = PMPI_Testany(count, requests, index, &flag, status);
            if (*rc != MPI_SUCCESS || (flag && *index != MPI_UNDEFINED)) break;
        }
        nodeshm_wait_step(&w);
    }
    p_release(&set);
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
        *rc = PMPI_Testany(count, requests, index, flag, status);
        if (*rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED) *flag = 0; /* ours are active */
    }
    p_release(&set);
    return 1;
}

/* Appends ours that have completed after the *outcount the library gave (MPI_UNDEFINED: 0). */
static void p_append_done(p_set_t *set, int *outcount, int indices[], MPI_Status statuses[])
{
    int out = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    for (int k = 0; k < set->n; k++)
        if (nsm_persist_done(set->e[k])) {
            indices[out] = set->idx[k];
            nsm_persist_return(set->e[k], p_status_at(statuses, out));
            out++;
        }
    *outcount = out;
}

static int p_any_done(const p_set_t *set)
{
    for (int k = 0; k < set->n; k++)
        if (nsm_persist_done(set->e[k])) return 1;
    return 0;
}

int nsm_persist_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[],
                         int *rc)
{
    p_set_t set;
    if (!p_collect(&set, incount, requests)) return 0;
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (unsigned steps = 1;; steps++) {
        nodeshm_nb_progress();
        if (p_any_done(&set) || steps % NSM_PERSIST_POLL_EVERY == 0) {
            *rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
            if (*rc != MPI_SUCCESS) break;
            p_append_done(&set, outcount, indices, statuses);
            if (*outcount) break;
        }
        nodeshm_wait_step(&w);
    }
    p_release(&set);
    return 1;
}

int nsm_persist_testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[],
                         int *rc)
{
    p_set_t set;
    if (!p_collect(&set, incount, requests)) return 0;
    nodeshm_nb_progress();
    *rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    if (*rc == MPI_SUCCESS) p_append_done(&set, outcount, indices, statuses);
    p_release(&set);
    return 1;
}
