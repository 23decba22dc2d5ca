/*
 * symheap.c - deterministic offset allocator for the symmetric heap.
 *
 * Design
 * ------
 * Why private metadata.  The region is a shared mapping that other PEs can
 * read and write with one-sided operations, and most of it (a default 1 GiB,
 * possibly terabytes of reserved address space) is never touched.  Keeping
 * headers/footers inside the region would (a) let a stray remote put corrupt
 * the allocator, (b) touch and commit pages merely to manage them, and
 * (c) steal bytes from the user's alignment.  So every block is described by a
 * small node in private malloc'd memory and the allocator never dereferences
 * the region.  Metadata is O(number of blocks), never O(capacity).
 *
 * Blocks.  The region is always tiled exactly by blocks (used and free) kept in
 * an address-ordered doubly linked list.  Freeing coalesces immediately with
 * free neighbours, so two free blocks are never adjacent; a freshly freed
 * heap is therefore exactly one free block of the full capacity.
 *
 * Free lists.  Free blocks live in segregated lists, one per size class, with
 * 4 sub-classes per power of two (TLSF-style mapping: a class spans at most
 * 25% of its lower bound).  A bitmap of non-empty classes lets the search jump
 * straight to the next populated class.  Search starts at the request's own
 * class (whose members may be too small, so they are checked) and moves
 * upward; the first class containing any fitting block wins.  Within that
 * class we take the BEST fit (smallest block, ties broken by lowest offset):
 * classes are wide enough (up to 25%) that best fit noticeably reduces the
 * leftover fragments that first fit would create, and breaking ties on the
 * offset (never on list order or node addresses) keeps the choice a pure
 * function of the block layout.  The search is exhaustive over all classes
 * that could fit, so ENOMEM means no free block can hold the request.
 *
 * Low-address preference (wilderness preservation).  If the last block of the
 * region is free it is the "wilderness": the only free block that can extend
 * past the high-water mark, i.e. into memory nobody has touched.  It is kept
 * out of the segregated lists and used only when no other free block fits,
 * and then carved from its low end.  Holes below the high-water mark are thus
 * always reused first, the touched prefix of the region grows only when it
 * must, and untouched pages (which cost no physical memory) stay untouched.
 *
 * Alignment.  Sizes are rounded up to min_align, so all offsets and sizes are
 * multiples of it.  A larger alignment is satisfied by splitting off a
 * leading free fragment (itself a multiple of min_align, reusable later).
 * Any tail beyond the rounded request is split off as a free block too, so a
 * block's usable size is exactly the rounded request.
 *
 * Lookup.  Live blocks are found by offset through an open-addressing hash
 * table (linear probing, Fibonacci hashing, backward-shift deletion, load
 * factor <= 1/2, doubling growth): O(1) expected for free/resize/block_size.
 *
 * Determinism and failure atomicity.  No decision depends on malloc results,
 * pointer values or time.  Every operation first reserves whatever metadata
 * it may need (spare block nodes, hash capacity) and only then mutates the
 * heap, so a metadata malloc failure yields ENOMEM with the heap unchanged.
 * (Such a failure is local to one PE, so the caller must treat it as fatal
 * for symmetry; it does not corrupt this heap.)  No recursion is used.
 */
#include "symheap.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SH_NCLASSES 256 /* 4 sub-classes per power of two; max class is 251 */
#define SH_BITMAP_WORDS (SH_NCLASSES / 64)
#define SH_SPARE_MAX 64 /* recycled block nodes kept around */
#define SH_HASH_MIN_BITS 6

typedef struct sh_block {
    size_t off;
    size_t size;
    struct sh_block *prev, *next;   /* address order */
    struct sh_block *fprev, *fnext; /* size-class list; fnext also chains spares */
    unsigned cls;                   /* valid while in_list */
    unsigned char is_free;
    unsigned char in_list;
} sh_block_t;

struct symheap {
    size_t capacity;
    size_t min_align;
    unsigned align_shift;

    sh_block_t *head, *tail; /* address-ordered block list, never empty */

    sh_block_t *lists[SH_NCLASSES];
    uint64_t nonempty[SH_BITMAP_WORDS];

    sh_block_t **slots; /* hash table of live blocks, keyed by offset */
    size_t nslots;      /* 1 << hash_bits */
    unsigned hash_bits;
    size_t nlive;

    sh_block_t *spare; /* recycled nodes, chained through fnext */
    size_t nspare;

    size_t in_use;
    size_t high_water;
};

/* ------------------------------------------------------------------------ */
/* bit helpers                                                               */

static unsigned sh_log2_64(uint64_t x) /* x != 0 */
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)(sizeof(unsigned long long) * CHAR_BIT - 1) -
           (unsigned)__builtin_clzll((unsigned long long)x);
#else
    unsigned r = 0;
    while (x >>= 1)
        r++;
    return r;
#endif
}

static unsigned sh_log2(size_t x) { return sh_log2_64((uint64_t)x); } /* x != 0 */

static unsigned sh_ctz64(uint64_t x) /* x != 0 */
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll((unsigned long long)x);
#else
    unsigned r = 0;
    while (!(x & 1)) {
        x >>= 1;
        r++;
    }
    return r;
#endif
}

static int is_pow2(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

/* Size class: sizes < 4 map to themselves; otherwise, with b = floor(log2 s),
 * class = 4*(b-1) + the two bits below the leading one.  Monotone in s. */
static unsigned size_class(size_t s)
{
    unsigned b;
    if (s < 4)
        return (unsigned)s;
    b = sh_log2(s);
    return (b - 1) * 4 + (unsigned)((s >> (b - 2)) & 3);
}

/* ------------------------------------------------------------------------ */
/* segregated free lists                                                     */

static void list_insert(symheap_t *h, sh_block_t *b)
{
    unsigned c = size_class(b->size);
    b->cls = c;
    b->fprev = NULL;
    b->fnext = h->lists[c];
    if (b->fnext)
        b->fnext->fprev = b;
    h->lists[c] = b;
    h->nonempty[c >> 6] |= (uint64_t)1 << (c & 63);
    b->in_list = 1;
}

static void list_remove(symheap_t *h, sh_block_t *b)
{
    unsigned c = b->cls;
    if (b->fprev)
        b->fprev->fnext = b->fnext;
    else
        h->lists[c] = b->fnext;
    if (b->fnext)
        b->fnext->fprev = b->fprev;
    if (!h->lists[c])
        h->nonempty[c >> 6] &= ~((uint64_t)1 << (c & 63));
    b->fprev = b->fnext = NULL;
    b->in_list = 0;
}

/* Mark b free and file it: the last block (wilderness) stays out of the lists.
 * Must be called after b's address links are final. */
static void make_free(symheap_t *h, sh_block_t *b)
{
    b->is_free = 1;
    if (b->next)
        list_insert(h, b);
}

/* Take a free block out of whatever free structure holds it. */
static void take_free(symheap_t *h, sh_block_t *b)
{
    if (b->in_list)
        list_remove(h, b);
    b->is_free = 0;
}

/* smallest non-empty class >= c, or SH_NCLASSES */
static unsigned next_nonempty(const symheap_t *h, unsigned c)
{
    while (c < SH_NCLASSES) {
        unsigned w = c >> 6;
        uint64_t bits = h->nonempty[w] & (~(uint64_t)0 << (c & 63));
        if (bits)
            return (w << 6) + sh_ctz64(bits);
        c = (w + 1) << 6;
    }
    return SH_NCLASSES;
}

/* ------------------------------------------------------------------------ */
/* address list and node pool                                                */

static void link_before(symheap_t *h, sh_block_t *b, sh_block_t *n)
{
    n->next = b;
    n->prev = b->prev;
    if (b->prev)
        b->prev->next = n;
    else
        h->head = n;
    b->prev = n;
}

static void link_after(symheap_t *h, sh_block_t *a, sh_block_t *n)
{
    n->prev = a;
    n->next = a->next;
    if (a->next)
        a->next->prev = n;
    else
        h->tail = n;
    a->next = n;
}

static void unlink_block(symheap_t *h, sh_block_t *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        h->head = b->next;
    if (b->next)
        b->next->prev = b->prev;
    else
        h->tail = b->prev;
}

static int reserve_nodes(symheap_t *h, size_t n)
{
    while (h->nspare < n) {
        sh_block_t *b = (sh_block_t *)malloc(sizeof *b);
        if (!b)
            return SYMHEAP_ENOMEM;
        b->fnext = h->spare;
        h->spare = b;
        h->nspare++;
    }
    return SYMHEAP_OK;
}

/* caller must have reserved */
static sh_block_t *node_get(symheap_t *h, size_t off, size_t size)
{
    sh_block_t *b = h->spare;
    h->spare = b->fnext;
    h->nspare--;
    memset(b, 0, sizeof *b);
    b->off = off;
    b->size = size;
    return b;
}

static void node_put(symheap_t *h, sh_block_t *b)
{
    if (h->nspare >= SH_SPARE_MAX) {
        free(b);
        return;
    }
    b->fnext = h->spare;
    h->spare = b;
    h->nspare++;
}

/* ------------------------------------------------------------------------ */
/* live-block hash table                                                     */

static size_t hash_home(const symheap_t *h, size_t off)
{
    uint64_t k = (uint64_t)(off >> h->align_shift);
    k *= UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(k >> (64 - h->hash_bits));
}

static void hash_put(symheap_t *h, sh_block_t *b) /* room guaranteed */
{
    size_t mask = h->nslots - 1;
    size_t i = hash_home(h, b->off);
    while (h->slots[i])
        i = (i + 1) & mask;
    h->slots[i] = b;
    h->nlive++;
}

/* ensure one more insertion keeps load factor <= 1/2 */
static int hash_reserve(symheap_t *h)
{
    sh_block_t **old = h->slots;
    size_t oldn = h->nslots, i;
    sh_block_t **ns;

    if ((h->nlive + 1) * 2 <= h->nslots)
        return SYMHEAP_OK;
    if (h->hash_bits >= sizeof(size_t) * CHAR_BIT - 2 || h->hash_bits >= 62)
        return SYMHEAP_ENOMEM;
    ns = (sh_block_t **)calloc(oldn * 2, sizeof *ns);
    if (!ns)
        return SYMHEAP_ENOMEM;
    h->slots = ns;
    h->nslots = oldn * 2;
    h->hash_bits++;
    h->nlive = 0;
    for (i = 0; i < oldn; i++)
        if (old[i])
            hash_put(h, old[i]);
    free(old);
    return SYMHEAP_OK;
}

/* slot index of the live block at off, or (size_t)-1 */
static size_t hash_find(const symheap_t *h, size_t off)
{
    size_t mask = h->nslots - 1;
    size_t i;
    if (off >= h->capacity || (off & (h->min_align - 1)))
        return (size_t)-1;
    i = hash_home(h, off);
    while (h->slots[i]) {
        if (h->slots[i]->off == off)
            return i;
        i = (i + 1) & mask;
    }
    return (size_t)-1;
}

/* backward-shift deletion: keeps probe chains intact without tombstones */
static void hash_remove_slot(symheap_t *h, size_t i)
{
    size_t mask = h->nslots - 1;
    size_t j = i;
    h->slots[i] = NULL;
    for (;;) {
        size_t k;
        j = (j + 1) & mask;
        if (!h->slots[j])
            break;
        k = hash_home(h, h->slots[j]->off);
        /* move slots[j] into the hole at i unless its home lies cyclically in (i, j] */
        if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
            h->slots[i] = h->slots[j];
            h->slots[j] = NULL;
            i = j;
        }
    }
    h->nlive--;
}

/* ------------------------------------------------------------------------ */
/* public API                                                                */

int symheap_create(symheap_t **heap, size_t capacity, size_t min_align)
{
    symheap_t *h;
    sh_block_t *b;

    if (!heap)
        return SYMHEAP_EINVAL;
    *heap = NULL;
    if (!is_pow2(min_align))
        return SYMHEAP_EINVAL;
    capacity &= ~(min_align - 1);
    if (capacity == 0)
        return SYMHEAP_EINVAL;

    h = (symheap_t *)calloc(1, sizeof *h);
    if (!h)
        return SYMHEAP_ENOMEM;
    h->capacity = capacity;
    h->min_align = min_align;
    h->align_shift = sh_log2(min_align);
    h->hash_bits = SH_HASH_MIN_BITS;
    h->nslots = (size_t)1 << SH_HASH_MIN_BITS;
    h->slots = (sh_block_t **)calloc(h->nslots, sizeof *h->slots);
    if (!h->slots || reserve_nodes(h, 1) != SYMHEAP_OK) {
        symheap_destroy(h);
        return SYMHEAP_ENOMEM;
    }
    b = node_get(h, 0, capacity);
    h->head = h->tail = b;
    make_free(h, b); /* the whole region is the wilderness */
    *heap = h;
    return SYMHEAP_OK;
}

void symheap_destroy(symheap_t *h)
{
    sh_block_t *b, *n;
    if (!h)
        return;
    for (b = h->head; b; b = n) {
        n = b->next;
        free(b);
    }
    for (b = h->spare; b; b = n) {
        n = b->fnext;
        free(b);
    }
    free(h->slots);
    free(h);
}

/* Does b hold s bytes at an offset aligned to a?  Overflow-free. */
static int block_fits(const sh_block_t *b, size_t s, size_t a, size_t *pad_out)
{
    size_t rem = b->off & (a - 1);
    size_t pad = rem ? a - rem : 0;
    if (pad > b->size || b->size - pad < s)
        return 0;
    *pad_out = pad;
    return 1;
}

static sh_block_t *find_fit(const symheap_t *h, size_t s, size_t a)
{
    unsigned c;
    size_t pad;

    for (c = next_nonempty(h, size_class(s)); c < SH_NCLASSES;
         c = next_nonempty(h, c + 1)) {
        sh_block_t *b, *best = NULL;
        for (b = h->lists[c]; b; b = b->fnext) {
            if (!block_fits(b, s, a, &pad))
                continue;
            if (!best || b->size < best->size ||
                (b->size == best->size && b->off < best->off))
                best = b;
        }
        if (best)
            return best;
    }
    /* last resort: the wilderness */
    if (h->tail->is_free && block_fits(h->tail, s, a, &pad))
        return h->tail;
    return NULL;
}

static void bump_high_water(symheap_t *h, const sh_block_t *b)
{
    size_t end = b->off + b->size;
    if (end > h->high_water)
        h->high_water = end;
}

int symheap_alloc(symheap_t *h, size_t size, size_t align, size_t *offset)
{
    size_t s, pad = 0;
    sh_block_t *b;

    if (!h || !offset || size == 0)
        return SYMHEAP_EINVAL;
    if (align == 0)
        align = h->min_align;
    if (!is_pow2(align))
        return SYMHEAP_EINVAL;
    if (align < h->min_align)
        align = h->min_align;
    if (size > h->capacity)
        return SYMHEAP_ENOMEM;
    s = (size + h->min_align - 1) & ~(h->min_align - 1); /* <= capacity */

    b = find_fit(h, s, align);
    if (!b)
        return SYMHEAP_ENOMEM;
    /* reserve before mutating: up to 2 split nodes + 1 hash entry */
    if (reserve_nodes(h, 2) != SYMHEAP_OK || hash_reserve(h) != SYMHEAP_OK)
        return SYMHEAP_ENOMEM;
    (void)block_fits(b, s, align, &pad);

    take_free(h, b);
    if (pad) { /* leading fragment stays free; its next is b, so never wilderness */
        sh_block_t *f = node_get(h, b->off, pad);
        link_before(h, b, f);
        b->off += pad;
        b->size -= pad;
        make_free(h, f);
    }
    if (b->size > s) { /* trailing remainder (wilderness if b was last) */
        sh_block_t *t = node_get(h, b->off + s, b->size - s);
        link_after(h, b, t);
        b->size = s;
        make_free(h, t);
    }
    hash_put(h, b);
    h->in_use += s;
    bump_high_water(h, b);
    *offset = b->off;
    return SYMHEAP_OK;
}

int symheap_free(symheap_t *h, size_t offset)
{
    size_t slot;
    sh_block_t *b, *n, *p;

    if (!h)
        return SYMHEAP_EINVAL;
    slot = hash_find(h, offset);
    if (slot == (size_t)-1)
        return SYMHEAP_EINVAL;
    b = h->slots[slot];
    hash_remove_slot(h, slot);
    h->in_use -= b->size;

    n = b->next;
    if (n && n->is_free) {
        take_free(h, n);
        b->size += n->size;
        unlink_block(h, n);
        node_put(h, n);
    }
    p = b->prev;
    if (p && p->is_free) {
        take_free(h, p);
        p->size += b->size;
        unlink_block(h, b);
        node_put(h, b);
        b = p;
    }
    make_free(h, b);
    return SYMHEAP_OK;
}

int symheap_resize_in_place(symheap_t *h, size_t offset, size_t new_size)
{
    size_t slot, s;
    sh_block_t *b, *n;

    if (!h)
        return SYMHEAP_EINVAL;
    slot = hash_find(h, offset);
    if (slot == (size_t)-1 || new_size == 0)
        return SYMHEAP_EINVAL;
    b = h->slots[slot];
    if (new_size > h->capacity)
        return SYMHEAP_ENOMEM;
    s = (new_size + h->min_align - 1) & ~(h->min_align - 1);
    n = b->next;

    if (s == b->size)
        return SYMHEAP_OK;

    if (s > b->size) { /* grow into the following free block */
        size_t need = s - b->size;
        if (!n || !n->is_free || n->size < need)
            return SYMHEAP_ENOMEM;
        take_free(h, n);
        if (n->size == need) {
            unlink_block(h, n);
            node_put(h, n);
        } else {
            n->off += need;
            n->size -= need;
            make_free(h, n);
        }
        b->size = s;
        h->in_use += need;
        bump_high_water(h, b);
        return SYMHEAP_OK;
    }

    /* shrink: give the tail back, merging with a free successor */
    {
        size_t d = b->size - s;
        if (n && n->is_free) {
            take_free(h, n);
            n->off -= d;
            n->size += d;
            make_free(h, n);
        } else {
            sh_block_t *t;
            if (reserve_nodes(h, 1) != SYMHEAP_OK)
                return SYMHEAP_ENOMEM;
            t = node_get(h, b->off + s, d);
            link_after(h, b, t);
            make_free(h, t);
        }
        b->size = s;
        h->in_use -= d;
        return SYMHEAP_OK;
    }
}

int symheap_block_size(const symheap_t *h, size_t offset, size_t *size)
{
    size_t slot;
    if (!h || !size)
        return SYMHEAP_EINVAL;
    slot = hash_find(h, offset);
    if (slot == (size_t)-1)
        return SYMHEAP_EINVAL;
    *size = h->slots[slot]->size;
    return SYMHEAP_OK;
}

size_t symheap_bytes_in_use(const symheap_t *h) { return h ? h->in_use : 0; }

size_t symheap_high_water(const symheap_t *h) { return h ? h->high_water : 0; }

size_t symheap_largest_free(const symheap_t *h)
{
    size_t best = 0;
    int w;
    if (!h)
        return 0;
    if (h->tail->is_free)
        best = h->tail->size;
    for (w = SH_BITMAP_WORDS - 1; w >= 0; w--) {
        if (h->nonempty[w]) {
            unsigned c = (unsigned)w * 64 + sh_log2_64(h->nonempty[w]);
            const sh_block_t *b;
            for (b = h->lists[c]; b; b = b->fnext)
                if (b->size > best)
                    best = b->size;
            break;
        }
    }
    return best;
}

int symheap_check(const symheap_t *h)
{
    const sh_block_t *b, *prev = NULL;
    size_t expect_off = 0, used = 0, nused = 0, nfree_listed = 0, in_lists = 0;
    size_t i, live_in_table = 0;
    unsigned c;

    if (!h || !h->head || !h->tail || h->head->prev || h->tail->next)
        return SYMHEAP_EINVAL;
    for (b = h->head; b; prev = b, b = b->next) {
        if (b->prev != prev || b->off != expect_off || b->size == 0 ||
            (b->size & (h->min_align - 1)) || b->size > h->capacity - b->off)
            return SYMHEAP_EINVAL;
        expect_off += b->size;
        if (b->is_free) {
            if (prev && prev->is_free)
                return SYMHEAP_EINVAL; /* missed coalesce */
            if (b->next) {
                if (!b->in_list || b->cls != size_class(b->size))
                    return SYMHEAP_EINVAL;
                nfree_listed++;
            } else if (b->in_list) {
                return SYMHEAP_EINVAL; /* wilderness must not be listed */
            }
        } else {
            size_t slot = hash_find(h, b->off);
            if (b->in_list || slot == (size_t)-1 || h->slots[slot] != b)
                return SYMHEAP_EINVAL;
            if (b->off + b->size > h->high_water)
                return SYMHEAP_EINVAL;
            used += b->size;
            nused++;
        }
    }
    if (prev != h->tail || expect_off != h->capacity)
        return SYMHEAP_EINVAL;
    if (used != h->in_use || nused != h->nlive || h->high_water > h->capacity)
        return SYMHEAP_EINVAL;
    for (c = 0; c < SH_NCLASSES; c++) {
        int bit = (int)((h->nonempty[c >> 6] >> (c & 63)) & 1);
        const sh_block_t *fp = NULL;
        if (bit != (h->lists[c] != NULL))
            return SYMHEAP_EINVAL;
        for (b = h->lists[c]; b; fp = b, b = b->fnext) {
            if (b->fprev != fp || !b->is_free || !b->in_list || b->cls != c)
                return SYMHEAP_EINVAL;
            if (++in_lists > nfree_listed)
                return SYMHEAP_EINVAL; /* cycle or stray node */
        }
    }
    if (in_lists != nfree_listed)
        return SYMHEAP_EINVAL;
    for (i = 0; i < h->nslots; i++)
        if (h->slots[i]) {
            if (h->slots[i]->is_free)
                return SYMHEAP_EINVAL;
            live_in_table++;
        }
    if (live_in_table != h->nlive || h->nlive * 2 > h->nslots)
        return SYMHEAP_EINVAL;
    return SYMHEAP_OK;
}
