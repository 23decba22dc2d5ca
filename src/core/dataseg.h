/* nodeshm core: the symmetric data segment (the executable's initialized and zeroed globals).
 *
 * OpenSHMEM makes global and static variables remotely accessible.  We find the main
 * executable's writable PT_LOAD range (less its RELRO part), and at init replace those pages,
 * contents preserved, by a node-shared segment (nodeshm_segment_create with `fixed`), so node
 * peers reach our globals with plain loads and stores, exactly like the heap. */
#ifndef NODESHM_DATASEG_H
#define NODESHM_DATASEG_H
#include <stddef.h>

/* Page-aligned range of the executable's writable data (.data and .bss). */
int nodeshm_dataseg_range(void **start, size_t *size);

#endif
