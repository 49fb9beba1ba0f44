/* person.h — README's person schema and Grace, for the build tests. */
#ifndef SHORN_TESTS_PERSON_H
#define SHORN_TESTS_PERSON_H

static const char person[] =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"age\":{\"type\":\"integer\",\"minimum\":0},\"sex\":{\"enum\":[\"M\",\"F\",\"X\"]}},"
    "\"required\":[\"name\",\"age\",\"sex\"],\"additionalProperties\":false}";
static const char grace[] = "{\"name\":\"Grace\",\"age\":45,\"sex\":\"F\"}";
static const char grace_decoded[] = "{\"age\":45,\"name\":\"Grace\",\"sex\":\"F\"}";

#endif
