/* lanes.h — text scanned eight bytes at a time, a byte per lane. */
#ifndef SHORN_LANES_H
#define SHORN_LANES_H

#include "core/base/platform.h"

/* Text is scanned a 64-bit word at a time, a byte per lane.  The word is
 * loaded little-endian (load_le64) on every host so that lane order is
 * memory order.  Each lanes_ test sets the high bit of the lanes it
 * matches; a borrow can also flag lanes above a true match, never below
 * one, so the lowest flag (first_lane) is exact and so is "any flag". */
#define LANES(c) (0x0101010101010101ull * (uint8_t)(c))
/* Lanes below c, for c <= 0x80. */
static inline uint64_t lanes_below(uint64_t w, uint8_t c) { return (w - LANES(c)) & ~w & LANES(0x80); }
static inline uint64_t lanes_equal(uint64_t w, uint8_t c) { return lanes_below(w ^ LANES(c), 1); }
/* Lanes a string's body cannot hold as they are: '"', '\\' and control
 * bytes, which JSON escapes, and bytes above ASCII, which need a closer
 * look.  Only the lowest flagged lane is exact.  lanes_below's and
 * lanes_equal's masks of lanes above ASCII are left out: those lanes are
 * flagged anyway, so the test costs a few operations a word less. */
static inline uint64_t plain_stops(uint64_t w) {
  return ((w - LANES(0x20)) | ((w ^ LANES('"')) - LANES(1)) | ((w ^ LANES('\\')) - LANES(1)) | w) & LANES(0x80);
}
/* The bits k < n of 64: the lanes of a 64-byte block before its n-th. */
static inline uint64_t lanes_before(size_t n) { return n < 64 ? (1ull << n) - 1 : ~0ull; }
/* The index of the lowest flagged lane; `flags` is not zero. */
static inline size_t first_lane(uint64_t flags) { return (size_t)__builtin_ctzll(flags) / 8; }

#endif
