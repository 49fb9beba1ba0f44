/*
 * canonical.h — whether decoded JSON is in canonical key order, for the
 * vector driver and the fuzz harnesses.  Include after core/text/text.h.
 */
#ifndef SHORN_TESTS_CANONICAL_H
#define SHORN_TESTS_CANONICAL_H

/* Every object lists its keys in strictly ascending UTF-16 order. */
static inline bool json_canonical(const json_value *v) {
  if (v->type == JSON_ARRAY) {
    for (uint32_t i = 0; i < v->length; i++)
      if (!json_canonical(&v->u.items[i])) return false;
  } else if (v->type == JSON_OBJECT) {
    for (uint32_t i = 0; i < v->length; i++) {
      const json_value *k = &v->u.items[2 * i];
      if (i && utf16_compare(k[-2].u.string, k[-2].length, k->u.string, k->length) >= 0) return false;
      if (!json_canonical(k + 1)) return false;
    }
  }
  return true;
}

#endif
