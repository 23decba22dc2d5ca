/* nodeshm: the OpenSHMEM type tables, as X-macros.
 *
 * Every typed API family (put/get/atomics/waits ...) is generated from these tables, in the
 * public header (declarations, C11 generic selections) and in the library (definitions), so a
 * type is added or removed in one place only.  X(TYPE, TYPENAME, ARG): ARG is passed through. */
#ifndef NODESHM_TYPETABLES_H
#define NODESHM_TYPETABLES_H

#include <stddef.h>
#include <stdint.h>

/* Table "Standard RMA Types and Names" */
#define NODESHM_RMA_TYPES(X, A)                                                                    \
    X(float, float, A) X(double, double, A) X(long double, longdouble, A) X(char, char, A)         \
    X(signed char, schar, A) X(short, short, A) X(int, int, A) X(long, long, A)                    \
    X(long long, longlong, A) X(unsigned char, uchar, A) X(unsigned short, ushort, A)              \
    X(unsigned int, uint, A) X(unsigned long, ulong, A) X(unsigned long long, ulonglong, A)        \
    X(int8_t, int8, A) X(int16_t, int16, A) X(int32_t, int32, A) X(int64_t, int64, A)              \
    X(uint8_t, uint8, A) X(uint16_t, uint16, A) X(uint32_t, uint32, A) X(uint64_t, uint64, A)      \
    X(size_t, size, A) X(ptrdiff_t, ptrdiff, A)

/* The same, restricted to distinct C types: a _Generic selection must not name a type twice
 * (int64_t is long, size_t is unsigned long ...). */
#define NODESHM_RMA_GENERIC_TYPES(X, A)                                                            \
    X(float, float, A) X(double, double, A) X(long double, longdouble, A) X(char, char, A)         \
    X(signed char, schar, A) X(short, short, A) X(int, int, A) X(long, long, A)                    \
    X(long long, longlong, A) X(unsigned char, uchar, A) X(unsigned short, ushort, A)              \
    X(unsigned int, uint, A) X(unsigned long, ulong, A) X(unsigned long long, ulonglong, A)

/* Table "Standard AMO Types and Names" */
#define NODESHM_AMO_STANDARD_TYPES(X, A)                                                           \
    X(int, int, A) X(long, long, A) X(long long, longlong, A) X(unsigned int, uint, A)             \
    X(unsigned long, ulong, A) X(unsigned long long, ulonglong, A) X(int32_t, int32, A)            \
    X(int64_t, int64, A) X(uint32_t, uint32, A) X(uint64_t, uint64, A) X(size_t, size, A)          \
    X(ptrdiff_t, ptrdiff, A)
#define NODESHM_AMO_STANDARD_GENERIC_TYPES(X, A)                                                   \
    X(int, int, A) X(long, long, A) X(long long, longlong, A) X(unsigned int, uint, A)             \
    X(unsigned long, ulong, A) X(unsigned long long, ulonglong, A)

/* Table "Extended AMO Types and Names": the standard ones plus float and double */
#define NODESHM_AMO_EXTENDED_TYPES(X, A)                                                           \
    X(float, float, A) X(double, double, A) NODESHM_AMO_STANDARD_TYPES(X, A)
#define NODESHM_AMO_EXTENDED_GENERIC_TYPES(X, A)                                                   \
    X(float, float, A) X(double, double, A) NODESHM_AMO_STANDARD_GENERIC_TYPES(X, A)

/* Table "Bitwise AMO Types and Names" */
#define NODESHM_AMO_BITWISE_TYPES(X, A)                                                            \
    X(unsigned int, uint, A) X(unsigned long, ulong, A) X(unsigned long long, ulonglong, A)        \
    X(int32_t, int32, A) X(int64_t, int64, A) X(uint32_t, uint32, A) X(uint64_t, uint64, A)
#define NODESHM_AMO_BITWISE_GENERIC_TYPES(X, A)                                                    \
    X(unsigned int, uint, A) X(unsigned long, ulong, A) X(unsigned long long, ulonglong, A)        \
    X(int32_t, int32, A) X(int64_t, int64, A)

/* Table "Point-to-Point Synchronization Types and Names" */
#define NODESHM_P2P_TYPES(X, A)                                                                    \
    X(short, short, A) X(int, int, A) X(long, long, A) X(long long, longlong, A)                   \
    X(unsigned short, ushort, A) X(unsigned int, uint, A) X(unsigned long, ulong, A)               \
    X(unsigned long long, ulonglong, A) X(int32_t, int32, A) X(int64_t, int64, A)                  \
    X(uint32_t, uint32, A) X(uint64_t, uint64, A) X(size_t, size, A) X(ptrdiff_t, ptrdiff, A)
#define NODESHM_P2P_GENERIC_TYPES(X, A)                                                            \
    X(short, short, A) X(int, int, A) X(long, long, A) X(long long, longlong, A)                   \
    X(unsigned short, ushort, A) X(unsigned int, uint, A) X(unsigned long, ulong, A)               \
    X(unsigned long long, ulonglong, A)

/* Sized RMA: X(BITS, A) */
#define NODESHM_RMA_SIZES(X, A) X(8, A) X(16, A) X(32, A) X(64, A) X(128, A)

/* Deprecated (pre-1.4) atomic names still called by existing codes */
#define NODESHM_DEPRECATED_AMO_TYPES(X, A) X(int, int, A) X(long, long, A) X(long long, longlong, A)
#define NODESHM_DEPRECATED_AMO_EXTENDED_TYPES(X, A)                                                \
    X(float, float, A) X(double, double, A) NODESHM_DEPRECATED_AMO_TYPES(X, A)
#define NODESHM_DEPRECATED_WAIT_TYPES(X, A)                                                        \
    X(short, short, A) X(int, int, A) X(long, long, A) X(long long, longlong, A)

/* ---- collectives ---------------------------------------------------------------------------- */
/* Table "Reduction Types, Names, and Supporting Operations for Team-Based Reductions", split by
 * the operations a type supports.  AND, OR, XOR: */
#define NODESHM_REDUCE_BITWISE_TYPES(X, A)                                                         \
    X(unsigned char, uchar, A) X(unsigned short, ushort, A) X(unsigned int, uint, A)               \
    X(unsigned long, ulong, A) X(unsigned long long, ulonglong, A) X(int8_t, int8, A)              \
    X(int16_t, int16, A) X(int32_t, int32, A) X(int64_t, int64, A) X(uint8_t, uint8, A)            \
    X(uint16_t, uint16, A) X(uint32_t, uint32, A) X(uint64_t, uint64, A) X(size_t, size, A)
/* The C11 generic selections (shmem_and_reduce ...) name distinct types only: the unsigned base
 * types, which uint8_t ... uint64_t and size_t are, and the four signed fixed-width types, which
 * are distinct from each other and from every unsigned type whatever base types they are (int8_t
 * is signed char, int64_t long here, long long elsewhere), so they select the int8 ... int64
 * routines portably.  char, short, int, long and long long are not in the AND, OR, XOR column. */
#define NODESHM_REDUCE_UNSIGNED_GENERIC_TYPES(X, A)                                                \
    X(unsigned char, uchar, A) X(unsigned short, ushort, A) X(unsigned int, uint, A)               \
    X(unsigned long, ulong, A) X(unsigned long long, ulonglong, A)
#define NODESHM_REDUCE_BITWISE_GENERIC_TYPES(X, A)                                                 \
    NODESHM_REDUCE_UNSIGNED_GENERIC_TYPES(X, A) X(int8_t, int8, A) X(int16_t, int16, A)            \
    X(int32_t, int32, A) X(int64_t, int64, A)
/* MAX, MIN (and SUM, PROD): the integer and real types */
#define NODESHM_REDUCE_MINMAX_TYPES(X, A)                                                          \
    X(char, char, A) X(signed char, schar, A) X(short, short, A) X(int, int, A) X(long, long, A)   \
    X(long long, longlong, A) X(ptrdiff_t, ptrdiff, A) NODESHM_REDUCE_BITWISE_TYPES(X, A)          \
    X(float, float, A) X(double, double, A) X(long double, longdouble, A)
/* every C base type of it, once: the fixed-width names, size_t and ptrdiff_t are among them */
#define NODESHM_REDUCE_MINMAX_GENERIC_TYPES(X, A)                                                  \
    X(char, char, A) X(signed char, schar, A) X(short, short, A) X(int, int, A) X(long, long, A)   \
    X(long long, longlong, A) NODESHM_REDUCE_UNSIGNED_GENERIC_TYPES(X, A) X(float, float, A)       \
    X(double, double, A) X(long double, longdouble, A)
/* SUM, PROD also take the complex types (C only: C++ has no _Complex) */
#define NODESHM_REDUCE_COMPLEX_TYPES(X, A)                                                         \
    X(double _Complex, complexd, A) X(float _Complex, complexf, A)
/* The same for the generic selections: a table macro is not expanded again inside its own
 * expansion, so a program (or test) that runs the table above over its own X-macro calling
 * shmem_sum_reduce needs the selection to use another name. */
#define NODESHM_REDUCE_COMPLEX_GENERIC_TYPES(X, A)                                                 \
    X(double _Complex, complexd, A) X(float _Complex, complexf, A)

/* Table "Reduction Types, Names and Supporting Operations for Active-Set-Based Reductions"
 * (the deprecated shmem_TYPENAME_OP_to_all): AND, OR, XOR, then MAX, MIN, SUM, PROD (and SUM,
 * PROD on NODESHM_REDUCE_COMPLEX_TYPES) */
#define NODESHM_TOALL_BITWISE_TYPES(X, A)                                                          \
    X(short, short, A) X(int, int, A) X(long, long, A) X(long long, longlong, A)
#define NODESHM_TOALL_MINMAX_TYPES(X, A)                                                           \
    NODESHM_TOALL_BITWISE_TYPES(X, A) X(float, float, A) X(double, double, A)                      \
    X(long double, longdouble, A)

#endif
