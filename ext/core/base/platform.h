/*
 * platform.h — what every file of the core assumes of the compiler and the
 * host: branch hints, inlining, the linkage of internal functions,
 * little-endian loads and stores, and the hash tables' FNV-1a.
 *
 * Strings inside the core are WTF-8: UTF-8 that may also hold a lone
 * surrogate (ED A0..BF xx), because a JSON escape such as "\ud800" can put
 * one in a JavaScript string and the format must treat it as JavaScript does.
 */
#ifndef SHORN_PLATFORM_H
#define SHORN_PLATFORM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shorn.h"

#if defined(__GNUC__)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
/* For a loop the compiler would otherwise call, where the call was measured
 * to cost more than the loop. */
#define ALWAYS_INLINE inline __attribute__((always_inline))
/* For a path that would otherwise burden its caller's other paths with
 * its frame, or a rare path kept out of a hot loop. */
#define NOINLINE __attribute__((noinline))
/* A hook only the tests call: static and uncalled in the amalgamation. */
#define TEST_HOOK __attribute__((unused))
#else
#define likely(x) (x)
#define unlikely(x) (x)
#define PRINTF_LIKE(f, a)
#define ALWAYS_INLINE inline
#define NOINLINE
#define TEST_HOOK
#endif

/* Functions and tables one file of the library defines for others: hidden
 * from the shared object's exports (a DLL exports only what is marked
 * dllexport anyway).  The amalgamation defines both as
 * `static`, so a library built from it exports nothing but the public API. */
#ifndef SHORN_PRIVATE
#if defined(__GNUC__) && !defined(_WIN32)
#define SHORN_PRIVATE __attribute__((visibility("hidden")))
#else
#define SHORN_PRIVATE
#endif
#define SHORN_PRIVATE_DATA extern SHORN_PRIVATE
#endif

/* The number of elements of an array (not a pointer). */
#define COUNT_OF(a) (sizeof(a) / sizeof *(a))

/* A number macro's value as a string literal, for a message that states it. */
#define TEXT_OF(x) #x
#define NUMBER_TEXT(x) TEXT_OF(x)

#define MAX_SAFE_INTEGER 9007199254740991.0 /* 2^53 - 1 */

/* Little-endian words, whatever the host's order: one load or store where
 * the host is little-endian (compilers do not turn a loop of byte shifts
 * into one). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_TO_LE64(x) __builtin_bswap64(x)
#define HOST_TO_LE32(x) __builtin_bswap32(x)
#else
#define HOST_TO_LE64(x) (x)
#define HOST_TO_LE32(x) (x)
#endif
static inline uint64_t load_le64(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return HOST_TO_LE64(w);
}
static inline uint32_t load_le32(const uint8_t *p) {
  uint32_t w;
  memcpy(&w, p, 4);
  return HOST_TO_LE32(w);
}
static inline void store_le64(uint8_t *p, uint64_t w) {
  w = HOST_TO_LE64(w);
  memcpy(p, &w, 8);
}
static inline void store_le32(uint8_t *p, uint32_t w) {
  w = HOST_TO_LE32(w);
  memcpy(p, &w, 4);
}

/* IEEE-754 values stored little-endian, whatever the host's order. */
static inline double load_f64_le(const uint8_t *b) {
  uint64_t bits = load_le64(b);
  double v;
  memcpy(&v, &bits, 8);
  return v;
}
static inline double load_f32_le(const uint8_t *b) {
  uint32_t bits = load_le32(b);
  float v;
  memcpy(&v, &bits, 4);
  return v;
}

/* 32-bit FNV-1a: from FNV1A32_BASIS, each unit xored in, then multiplied
 * by the prime.  The hash tables' hash, and the fingerprints'. */
#define FNV1A32_BASIS 0x811C9DC5u
static inline uint32_t fnv1a32_step(uint32_t h, uint32_t unit) { return (h ^ unit) * 0x01000193u; }
static inline uint32_t fnv1a32(const void *bytes, size_t n) {
  const uint8_t *p = bytes;
  uint32_t h = FNV1A32_BASIS;
  for (size_t i = 0; i < n; i++) h = fnv1a32_step(h, p[i]);
  return h;
}

#endif
