/* A profiling tool, as the OpenSHMEM profiling interface means it: it defines shmem_putmem and
 * shmem_pcontrol, counts, and calls the library through their pshmem_ names.  Built as a shared
 * library (LD_PRELOAD) and, for the static-style link, as an object linked before the library.
 * Profiling levels as the specification recommends: <= 0 off, >= 1 on. */
#include <pshmem.h>

static long putmem_calls;
static int level = 1; /* on at the default detail after shmem_init, as recommended */
static long pcontrol_calls;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    if (__atomic_load_n(&level, __ATOMIC_RELAXED) > 0)
        __atomic_fetch_add(&putmem_calls, 1, __ATOMIC_RELAXED);
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_pcontrol(const int new_level, ...)
{
    __atomic_store_n(&level, new_level, __ATOMIC_RELAXED);
    pcontrol_calls++;
    pshmem_pcontrol(new_level); /* the library's own no-op, reached by its second name */
}

/* for the test program (dlsym when preloaded, a direct call when linked in) */
long nodeshm_tool_putmem_calls(void) { return putmem_calls; }
long nodeshm_tool_pcontrol_calls(void) { return pcontrol_calls; }
int nodeshm_tool_level(void) { return level; }
