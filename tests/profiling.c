/* The profiling interface from a tool's point of view: a tool (tests/profiling_tool.c, preloaded
 * or linked before libnodeshm.a) wraps shmem_putmem and shmem_pcontrol.  This program makes a
 * known, random number of shmem_putmem calls at each profiling level, with fresh data into heap
 * and global buffers of its right neighbour, and checks that the tool counted exactly the calls
 * made while profiling was on (shmem_pcontrol(0) turns it off, 1 and 2 on), that the tool saw
 * every shmem_pcontrol, and that all the data arrived.  Calls through pshmem_putmem and the other
 * put calls are not counted.  Without the tool (not preloaded) it fails. */
#include <dlfcn.h>
#include <pshmem.h>
#include <shmem.h>

#include "common.h"

#define W 16     /* longs per call */
#define MAXC 64  /* calls per phase at most */
static long g_buf[3 * MAXC * W];

#ifdef NODESHM_TOOL_LINKED
long nodeshm_tool_putmem_calls(void);
long nodeshm_tool_pcontrol_calls(void);
int nodeshm_tool_level(void);
#define TOOL(name) name
#else
#define TOOL(name) ((__typeof__(&name))dlsym(RTLD_DEFAULT, #name))
long nodeshm_tool_putmem_calls(void);
long nodeshm_tool_pcontrol_calls(void);
int nodeshm_tool_level(void);
#endif

int main(void)
{
    shmem_init();
    test_seed();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long (*calls)(void) = TOOL(nodeshm_tool_putmem_calls);
    long (*pcalls)(void) = TOOL(nodeshm_tool_pcontrol_calls);
    int (*lvl)(void) = TOOL(nodeshm_tool_level);
    CHECK(calls && pcalls && lvl, "the profiling tool is not loaded (LD_PRELOAD it, or link it)");
    if (!calls || !pcalls || !lvl) return 1;

    long *heap = shmem_calloc(3 * MAXC * W, sizeof(long));
    static const int levels[3] = {1, 0, 2};
    int n[3];
    for (int ph = 0; ph < 3; ph++) n[ph] = 1 + (int)(test_value(0, 1, (uint64_t)ph) % MAXC);
    long before = calls();
    CHECK(before == 0, "tool counted %ld shmem_putmem calls before any", before);
    long src[W];
    for (int ph = 0; ph < 3; ph++) {
        shmem_pcontrol(levels[ph]);
        CHECK(lvl() == levels[ph], "tool's level %d after shmem_pcontrol(%d)", lvl(), levels[ph]);
        for (int c = 0; c < n[ph]; c++) {
            size_t slot = (size_t)(ph * MAXC + c) * W;
            for (int i = 0; i < W; i++) src[i] = (long)test_value(me, 2 + ph, (uint64_t)(c * W + i));
            long *dest = c % 2 ? heap : g_buf;
            shmem_putmem(dest + slot, src, sizeof src, right);
        }
    }
    /* not counted: the library's own name, and another call */
    shmem_pcontrol(1);
    pshmem_putmem(g_buf, g_buf, 0, right);
    shmem_putmem_nbi(heap, src, 0, right);
    shmem_barrier_all();
    long want = n[0] + n[2];
    CHECK(calls() == want, "tool counted %ld shmem_putmem calls, expected %ld (%d on, %d off, %d on)",
          calls(), want, n[0], n[1], n[2]);
    CHECK(pcalls() == 4, "tool saw %ld shmem_pcontrol calls, expected 4", pcalls());
    int bad = 0;
    for (int ph = 0; ph < 3; ph++)
        for (int c = 0; c < n[ph]; c++) {
            size_t slot = (size_t)(ph * MAXC + c) * W;
            long *got = (c % 2 ? heap : g_buf) + slot;
            for (int i = 0; i < W; i++) bad += got[i] != (long)test_value(left, 2 + ph, (uint64_t)(c * W + i));
        }
    CHECK(bad == 0, "%d words put through the tool's shmem_putmem did not arrive", bad);
    shmem_barrier_all();
    shmem_free(heap);
    int rc = test_finish("profiling");
    shmem_finalize();
    return rc;
}
