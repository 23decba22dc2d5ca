/* nodeshm core: locating the executable's data segment. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/dataseg.h"
#include "core/status.h"

#include <link.h>
#include <stdint.h>
#include <unistd.h>

struct range { uintptr_t start, end, relro_end; int found; };

static int visit(struct dl_phdr_info *info, size_t len, void *arg)
{
    (void)len;
    struct range *r = arg;
    /* the first object reported is the main program */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
            if (!r->found || lo < r->start) r->start = lo;
            if (!r->found || hi > r->end) r->end = hi;
            r->found = 1;
        } else if (ph->p_type == PT_GNU_RELRO) {
            r->relro_end = hi;
        }
    }
    return 1;
}

int nodeshm_dataseg_range(void **start, size_t *size)
{
    struct range r = {0, 0, 0, 0};
    dl_iterate_phdr(visit, &r);
    if (!r.found) {
        *start = NULL;
        *size = 0;
        return NODESHM_OK;
    }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    /* ld.so protects RELRO up to its end rounded down to a page: the rest stays writable */
    uintptr_t lo = r.start;
    if (r.relro_end > lo) lo = r.relro_end & ~(page - 1);
    lo &= ~(page - 1);
    uintptr_t hi = (r.end + page - 1) & ~(page - 1);
    *start = (void *)lo;
    *size = hi > lo ? hi - lo : 0;
    return NODESHM_OK;
}
