/* person.h — README's person schema and Grace, for the build tests. */
#ifndef SHORN_TESTS_PERSON_H
#define SHORN_TESTS_PERSON_H

static const char person[] =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"age\":{\"type\":\"integer\",\"minimum\":0},\"sex\":{\"enum\":[\"M\",\"F\",\"X\"]}},"
    "\"required\":[\"name\",\"age\",\"sex\"],\"additionalProperties\":false}";
static const char grace[] = "{\"name\":\"Grace\",\"age\":45,\"sex\":\"F\"}";
static const char grace_decoded[] = "{\"age\":45,\"name\":\"Grace\",\"sex\":\"F\"}";

/* The person with the bounds a real schema carries: the same wire shape,
 * so the same fingerprint and bytes. */
static const char person_bounded[] =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":40,"
    "\"pattern\":\"^\\\\p{Lu}\"},\"age\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":150},"
    "\"sex\":{\"enum\":[\"M\",\"F\",\"X\"]}},\"required\":[\"name\",\"age\",\"sex\"],"
    "\"additionalProperties\":false}";
static const char grace_at_500[] = "{\"name\":\"Grace\",\"age\":500,\"sex\":\"F\"}";

#endif
