/* A first look: put, p, g, atomics, put_signal on heap and global variables. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
long gvar[4];
static int counter;
uint64_t sig;
int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  long *h = shmem_malloc(100 * sizeof(long));
  for (int i = 0; i < 100; i++) h[i] = -1;
  shmem_barrier_all();
  long src[100]; for (int i=0;i<100;i++) src[i] = me*1000+i;
  shmem_put(h, src, 100, (me+1)%n);
  shmem_long_p(&gvar[1], me+7, (me+1)%n);
  shmem_atomic_add(&counter, 1, 0);
  shmem_barrier_all();
  int left = (me+n-1)%n; int bad=0;
  for (int i=0;i<100;i++) if (h[i] != left*1000+i) bad++;
  if (gvar[1] != left+7) bad++;
  if (me==0 && counter != n) { printf("counter %d\n", counter); bad++; }
  long g = shmem_long_g(&gvar[1], (me+1)%n); if (g != me+7) bad++;
  shmem_long_put_signal(h, src, 10, &sig, 1, SHMEM_SIGNAL_ADD, (me+1)%n);
  shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
  printf("PE %d/%d bad=%d\n", me, n, bad);
  shmem_free(h);
  shmem_finalize();
  return bad != 0;
}
