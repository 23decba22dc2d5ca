/* Error paths: errors <mode> [ignored words...]
 *
 * Each mode makes one erroneous call; the library must print a clear message naming the call and
 * the bad value and end the whole job with a nonzero status, without hanging.  Where the error
 * is local to one PE, only the last PE makes the bad call while the others wait in a barrier
 * that can never complete: the job must still end.  If the bad call returns, the program says
 * so and exits 0, which tests/expect_failure.sh reports as a failure.
 *
 *   bad_pe             shmem_int_p to PE n_pes                 (last PE)
 *   not_symmetric      shmem_putmem to a stack and a malloc address (last PE)
 *   heap_exhausted     shmem_malloc beyond SHMEM_SYMMETRIC_SIZE (all PEs; the library returns
 *                      NULL and reports; the program then exits with status 3)
 *   bad_symmetric_size shmem_init with SHMEM_SYMMETRIC_SIZE set by the caller (e.g. 12xyz)
 *   bad_cmp            shmem_int_wait_until with comparison 99  (last PE)
 *   bad_free           shmem_free of a malloc pointer          (all PEs: it is collective)
 *
 * Extra words after the mode are ignored: the scripts pass a unique tag to find leftover
 * processes of this run. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int target_int;
static char target_bytes[64];

static void returned(const char *call)
{
    printf("errors: PE %d: %s returned: the error was not caught\n", shmem_my_pe(), call);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    static const char *modes[] = {"bad_pe", "not_symmetric", "heap_exhausted",
                                  "bad_symmetric_size", "bad_cmp", "bad_free"};
    int known = 0;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) known |= strcmp(mode, modes[i]) == 0;
    if (!known) {
        fprintf(stderr, "usage: errors bad_pe|not_symmetric|heap_exhausted|bad_symmetric_size|"
                        "bad_cmp|bad_free\n");
        return 2;
    }

    shmem_init();
    if (strcmp(mode, "bad_symmetric_size") == 0) {
        returned("shmem_init");
        shmem_finalize();
        return 0;
    }
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    shmem_barrier_all();

    if (strcmp(mode, "bad_pe") == 0) {
        if (me == last) {
            shmem_int_p(&target_int, 1, npes);
            returned("shmem_int_p");
        }
    } else if (strcmp(mode, "not_symmetric") == 0) {
        if (me == last) {
            char on_stack[16] = "0123456789abcde";
            char *on_malloc = malloc(64);
            /* either one must be refused: the stack first, then the malloc block */
            shmem_putmem(on_stack, target_bytes, sizeof on_stack, 0);
            returned("shmem_putmem to a stack address");
            shmem_putmem(on_malloc, target_bytes, 64, 0);
            returned("shmem_putmem to a malloc address");
            free(on_malloc);
        }
    } else if (strcmp(mode, "heap_exhausted") == 0) {
        const char *env = getenv("SHMEM_SYMMETRIC_SIZE");
        size_t want = (size_t)2 << 20; /* twice the 1M the test sets */
        void *p = shmem_malloc(want);
        if (p) {
            printf("errors: PE %d: shmem_malloc(%zu) succeeded with SHMEM_SYMMETRIC_SIZE=%s\n", me,
                   want, env ? env : "(unset)");
            shmem_free(p);
            shmem_finalize();
            return 0;
        }
        printf("errors: PE %d: shmem_malloc(%zu) returned NULL\n", me, want);
        fflush(stdout);
        shmem_finalize();
        return 3;
    } else if (strcmp(mode, "bad_cmp") == 0) {
        if (me == last) {
            shmem_int_wait_until(&target_int, 99, 0);
            returned("shmem_int_wait_until");
        }
    } else if (strcmp(mode, "bad_free") == 0) {
        void *p = malloc(64);
        shmem_free(p);
        returned("shmem_free");
        free(p);
    }
    /* the other PEs wait here for the faulty one, which never comes */
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
