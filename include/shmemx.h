/* nodeshm extensions to OpenSHMEM. */
#ifndef SHMEMX_H
#define SHMEMX_H
#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of PEs whose memory this PE can load and store (its node, or pseudo-node), and this
 * PE's index among them.  The same sets as SHMEM_TEAM_SHARED once teams exist. */
int shmemx_node_n_pes(void);
int shmemx_node_my_pe(void);
/* Number of nodes (or pseudo-nodes) in the job. */
int shmemx_n_nodes(void);

#ifdef __cplusplus
}
#endif
#endif
