/*
 * public_api.c — the core through its public header alone, as a program
 * that links libshorn.a sees it; built as C and as C++.  The person schema
 * and its payload are README's.
 */
#include "shorn.h"

#include "../unit/check.h"
#include "person.h"

/* A zeroed struct as each language spells it without warnings. */
#ifdef __cplusplus
#define ZEROED {}
#else
#define ZEROED {0}
#endif

static const unsigned char grace_payload[] = {0x2d, 0x05, 'G', 'r', 'a', 'c', 'e', 0x00};

int main(void) {
  shorn_schema *schema = NULL;
  shorn_error error;
  CHECK(shorn_schema_compile(person, sizeof person - 1, NULL, &schema, &error) == SHORN_OK);

  shorn_buffer payload = ZEROED;
  CHECK(shorn_encode(schema, grace, sizeof grace - 1, 0, &payload, &error) == SHORN_OK);
  CHECK(payload.length == sizeof grace_payload && memcmp(payload.data, grace_payload, payload.length) == 0);

  shorn_buffer json = ZEROED;
  CHECK(shorn_decode(schema, payload.data, payload.length, 0, &json, &error) == SHORN_OK);
  CHECK(json.length == sizeof grace_decoded - 1 && memcmp(json.data, grace_decoded, json.length) == 0);

  unsigned char fingerprint[4];
  CHECK(shorn_schema_fingerprint(schema, SHORN_FINGERPRINT_DEFAULT, fingerprint, &error) == SHORN_OK);
  CHECK(fingerprint[0] == 0x72 && fingerprint[1] == 0x36 && fingerprint[2] == 0xd1);
  size_t length = 0;
  CHECK(shorn_schema_signature(schema, &length) != NULL && length > 0);

  /* A failure fills the error, and leaves the output as long as it was. */
  size_t before = payload.length;
  CHECK(shorn_encode(schema, "{\"name\":\"Grace\",\"age\":-1,\"sex\":\"F\"}", 35, 0, &payload, &error) ==
        SHORN_ERROR_ENCODE);
  CHECK(payload.length == before);
  char message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX];
  shorn_error_format(&error, message, sizeof message);
  CHECK_STR(message, "Too small: expected at least 0 at $.age");

  /* The validation keywords: checked by shorn_encode, not by
   * shorn_encode_unchecked, and no part of the fingerprint. */
  shorn_schema *bounded = NULL;
  CHECK(shorn_schema_compile(person_bounded, sizeof person_bounded - 1, NULL, &bounded, &error) == SHORN_OK);
  unsigned char same[4];
  CHECK(shorn_schema_fingerprint(bounded, SHORN_FINGERPRINT_DEFAULT, same, &error) == SHORN_OK);
  CHECK(memcmp(same, fingerprint, 3) == 0);
  CHECK(shorn_encode(bounded, grace, sizeof grace - 1, 0, NULL, &error) == SHORN_OK);
  CHECK(shorn_encode(bounded, grace_at_500, sizeof grace_at_500 - 1, 0, NULL, &error) == SHORN_ERROR_ENCODE);
  shorn_error_format(&error, message, sizeof message);
  CHECK_STR(message, "Too big: expected at most 150 at $.age");
  shorn_buffer unchecked = ZEROED;
  CHECK(shorn_encode_unchecked(bounded, grace_at_500, sizeof grace_at_500 - 1, 0, &unchecked, &error) == SHORN_OK);
  CHECK(unchecked.length == sizeof grace_payload + 1);
  shorn_buffer_free(&unchecked);
  shorn_schema_free(bounded);

  /* The version's string and numbers are one definition. */
  char version[32];
  snprintf(version, sizeof version, "%d.%d.%d", SHORN_VERSION_MAJOR, SHORN_VERSION_MINOR, SHORN_VERSION_PATCH);
  CHECK_STR(version, SHORN_VERSION);
  shorn_buffer_free(&json);
  shorn_buffer_free(&payload);
  shorn_schema_free(schema);
#ifdef __cplusplus
  return check_report("public_api (C++)");
#else
  return check_report("public_api (C)");
#endif
}
