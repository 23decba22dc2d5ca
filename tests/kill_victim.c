/* The victim of tests/kill_test.sh: after shmem_init every PE prints "ready PE <n> pid <pid>"
 * once, then loops forever doing puts, atomics and barriers (on heap and global variables) with
 * its neighbours, so that when one PE is killed the others are blocked on it.  An alarm ends a
 * PE after NODESHM_VICTIM_SECONDS (default 120 s) in case the launcher fails to, so a broken
 * run cannot leave processes spinning forever.  Extra arguments are ignored (the script passes
 * a unique tag to find the processes of its run). */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long g_slots[64];
static long g_counter;

int main(void)
{
    const char *env = getenv("NODESHM_VICTIM_SECONDS");
    alarm(env ? (unsigned)atoi(env) : 120u);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *h = shmem_malloc(64 * sizeof(long));
    if (!h) shmem_global_exit(1);
    shmem_barrier_all();
    printf("ready PE %d pid %ld\n", me, (long)getpid());
    fflush(stdout);
    for (long it = 0;; it++) {
        int right = (me + 1) % npes;
        shmem_long_p(&g_slots[me % 64], it, right);
        shmem_long_put(&h[me % 64], &it, 1, right);
        shmem_long_atomic_inc(&g_counter, 0);
        if (it % 16 == 0) (void)shmem_long_atomic_fetch(&g_counter, right);
        shmem_barrier_all();
    }
}
