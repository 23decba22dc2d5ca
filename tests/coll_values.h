/* nodeshm tests: value generators and reference operators shared by the reduction tests
 * (tests/coll.c, tests/coll_aset.c).  V_*: a test value of type T from a 64-bit random v, kept
 * small where sums or products must not overflow; F_*: the reference of each reduction op. */
#ifndef NODESHM_TEST_COLL_VALUES_H
#define NODESHM_TEST_COLL_VALUES_H

#define V_BITS(T, v) ((T)(v))
#define V_SMALL(T, v) ((T)((long)((v) % 201) - 100))
#define V_PROD(T, v) ((T)((long)((v) % 4) - 2 + ((v) % 4 >= 2)))
#define V_CSMALL(T, v) ((T)((long)((v) % 201) - 100) + (T)((long)(((v) >> 20) % 21) - 10) * I)
#define V_CPROD(T, v) ((T)((long)((v) % 3) - 1) + (T)((long)(((v) >> 20) % 2) + 1) * I)
#define F_and(a, b) ((a) & (b))
#define F_or(a, b) ((a) | (b))
#define F_xor(a, b) ((a) ^ (b))
#define F_max(a, b) ((a) > (b) ? (a) : (b))
#define F_min(a, b) ((a) < (b) ? (a) : (b))
#define F_sum(a, b) ((a) + (b))
#define F_prod(a, b) ((a) * (b))

#endif
