/* nodeshm core: copy engines, the ways one process of a node moves bytes to or from another's
 * memory (copy_engine.c).
 *
 *   memcpy  through memory both processes map (segments, MPI shared windows): always there.
 *   CMA     Cross Memory Attach, process_vm_readv/writev: single copy from/to the peer's PRIVATE
 *           memory, by pid.  Needs ptrace permission (Yama ptrace_scope, containers' seccomp);
 *           a probe at start-up tries it for real on every node peer and disables it cleanly
 *           (one NODESHM_DEBUG/SHMEM_DEBUG line says why) when it does not work.
 *   XPMEM   maps a peer's private pages into this process (kernel module + libxpmem): built
 *           when xpmem.h exists at build time, used when /dev/xpmem opens at run time.
 *
 * Engines are probed collectively over a node communicator; afterwards each call is local.
 * Large transfers loop over partial copies (the kernel may move fewer bytes than asked). */
#ifndef NODESHM_COPY_ENGINE_H
#define NODESHM_COPY_ENGINE_H

#include <mpi.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* The engines: X(NAME, "name") */
#define NODESHM_COPY_ENGINES(X) X(MEMCPY, "memcpy") X(CMA, "cma") X(XPMEM, "xpmem")
typedef enum nodeshm_copy_kind {
#define NODESHM_COPY_ENUM_(id, name) NODESHM_COPY_##id,
    NODESHM_COPY_ENGINES(NODESHM_COPY_ENUM_)
#undef NODESHM_COPY_ENUM_
    NODESHM_COPY_KINDS
} nodeshm_copy_kind_t;

/* What works on this node, after nodeshm_copy_probe. */
typedef struct nodeshm_copy_caps {
    int cma;            /* process_vm_readv/writev work between every pair of node peers */
    int xpmem;          /* XPMEM attach works */
    char cma_why[160];  /* why not, when !cma (for the debug line and the benchmark report) */
    char xpmem_why[160];
} nodeshm_copy_caps_t;

/* One peer's identity for single-copy engines: exchanged over the node communicator. */
typedef struct nodeshm_copy_peer {
    pid_t pid;
    int pe;                /* its rank in MPI_COMM_WORLD (= its PE), for messages */
    long long xpmem_segid; /* XPMEM segment id of the peer's whole address space; -1: none */
} nodeshm_copy_peer_t;

/* Collective over node_comm (every rank of one node).  Allows this process to be read/written
 * by CMA from its node peers (prctl PR_SET_PTRACER where Yama needs it), tries CMA and XPMEM
 * between every pair for real, fills *caps (identical on all ranks) and peers[node_size].
 * Honours NODESHM_CMA=0 / NODESHM_XPMEM=0 (switch off).  Prints one debug line per engine
 * (node rank 0 prints).  caps and peers may be NULL: the result is also kept for the getters
 * below (shmem_init probes over the node team, so benchmarks and faces just ask).  A bad
 * NODESHM_CMA/NODESHM_XPMEM is reported and returned, after the collective part completed. */
int nodeshm_copy_probe(const char *call, MPI_Comm node_comm, nodeshm_copy_caps_t *caps,
                       nodeshm_copy_peer_t *peers);
/* The latest probe's result: NULL before any probe.  peer: by rank in that probe's node_comm
 * (= node index for the runtime's probe), NULL when out of range. */
const nodeshm_copy_caps_t *nodeshm_copy_caps(void);
const nodeshm_copy_peer_t *nodeshm_copy_peer(int node_rank);
int nodeshm_copy_n_peers(void);
/* Releases XPMEM attachments and segments and forgets the probe (shmem_finalize). */
void nodeshm_copy_fini(void);

/* Single-copy transfers with a node peer's private memory; loop until `len` bytes moved.
 * Return NODESHM_OK or report (naming `call`) and return an error. */
int nodeshm_cma_read(const char *call, const nodeshm_copy_peer_t *peer, void *local,
                     const void *remote, size_t len);
int nodeshm_cma_write(const char *call, const nodeshm_copy_peer_t *peer, void *remote,
                      const void *local, size_t len);
/* Scatter/gather forms: the local and remote lists must hold the same number of bytes; any
 * number of elements (batched by IOV_MAX), elements of any size (split below the kernel's
 * per-call limit), partial transfers resumed where they stopped. */
int nodeshm_cma_readv(const char *call, const nodeshm_copy_peer_t *peer, const struct iovec *local,
                      size_t n_local, const struct iovec *remote, size_t n_remote);
int nodeshm_cma_writev(const char *call, const nodeshm_copy_peer_t *peer,
                       const struct iovec *remote, size_t n_remote, const struct iovec *local,
                       size_t n_local);
/* XPMEM: a local pointer to [remote, remote+len) of the peer, valid until
 * nodeshm_xpmem_release (attachments are cached per peer).  NULL when XPMEM is unavailable. */
void *nodeshm_xpmem_attach(const nodeshm_copy_peer_t *peer, const void *remote, size_t len);
void nodeshm_xpmem_release(const nodeshm_copy_peer_t *peer);

/* Name of an engine ("memcpy", "cma", "xpmem"). */
const char *nodeshm_copy_name(nodeshm_copy_kind_t kind);

#endif
