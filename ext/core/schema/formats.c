/*
 * formats.c — the string formats the validated mode checks where no
 * pattern carries them: email, ipv4, ipv6, date and time as Valibot checks
 * them, and a uri as RFC 3986 defines an absolute URI.
 */
#include <string.h>

#include "formats.h"

#include "core/text/text.h"

static bool is_ascii_alnum(char c) { return is_digit(c) || is_letter(c); }
static bool is_hex(char c) { return hex_digit(c, true) >= 0; }

/* Two digits at s, their value in *v. */
static bool two_digits(const char *s, int *v) {
  if (!is_digit(s[0]) || !is_digit(s[1])) return false;
  *v = (s[0] - '0') * 10 + (s[1] - '0');
  return true;
}

/* v.email(): a local part of [A-Za-z0-9_+-] runs joined by single dots,
 * "@", then [A-Za-z0-9] runs joined by single dots or hyphens, the last
 * run, after a dot, two or more letters. */
static bool email_format(const char *s, size_t n) {
  const char *at = memchr(s, '@', n);
  if (!at) return false;
  size_t local = (size_t)(at - s), run = 0;
  for (size_t i = 0; i < local; i++) {
    char c = s[i];
    if (c == '.') {
      if (!run) return false;
      run = 0;
    } else if (is_ascii_alnum(c) || c == '_' || c == '+' || c == '-') {
      run++;
    } else {
      return false;
    }
  }
  if (!run) return false;
  const char *d = at + 1, *end = s + n, *dot = NULL;
  for (const char *p = d; p < end; p++)
    if (*p == '.') dot = p;
  if (!dot || end - dot < 3) return false;
  for (const char *p = dot + 1; p < end; p++)
    if (!is_letter(*p)) return false;
  run = 0;
  for (const char *p = d; p < dot; p++) {
    if (*p == '.' || *p == '-') {
      if (!run) return false;
      run = 0;
    } else if (is_ascii_alnum(*p)) {
      run++;
    } else {
      return false;
    }
  }
  return run > 0;
}

/* One dotted-quad part: 0 to 255; with `zeros`, two digits may start with
 * 0 (Valibot's IPv6 takes "01", its IPv4 does not). */
static bool formats_octet(const char *s, size_t n, bool zeros) {
  if (n < 1 || n > 3) return false;
  int v = 0;
  for (size_t i = 0; i < n; i++) {
    if (!is_digit(s[i])) return false;
    v = v * 10 + (s[i] - '0');
  }
  if (n == 3) return s[0] != '0' && v <= 255;
  return n == 1 || zeros || s[0] != '0';
}

static bool ipv4_parts(const char *s, size_t n, bool zeros) {
  size_t start = 0, parts = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && s[i] != '.') continue;
    if (++parts > 4 || !formats_octet(s + start, i - start, zeros)) return false;
    start = i + 1;
  }
  return parts == 4;
}

static bool ipv4_format(const char *s, size_t n) { return ipv4_parts(s, n, false); }

/* Hex groups of one to four digits joined by ':', s[0..n): their count,
 * or -1.  An empty text has none. */
static int hex_groups(const char *s, size_t n) {
  if (!n) return 0;
  int groups = 0;
  size_t run = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && is_hex(s[i])) {
      if (++run > 4) return -1;
    } else if (i == n || s[i] == ':') {
      if (!run) return -1;
      groups++;
      run = 0;
    } else {
      return -1;
    }
  }
  return groups;
}

static bool ascii_equal_folded(const char *s, const char *lower, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((s[i] | 0x20) != lower[i]) return false;
  return true;
}

/* v.ipv6(): eight groups; or groups before and after one "::", seven at
 * most; "fe80:" with up to four ":"-led groups of up to four digits, then
 * "%" and a zone; "::" with an optional "ffff:" or "ffff:0…:", then a
 * dotted quad; or one to four groups, "::", then a dotted quad.  Letters in
 * either case; the zone's letters with `i` and `u`, which also take ſ and
 * the Kelvin sign for s and k. */
static bool ipv6_format(const char *s, size_t n) {
  const char *percent = memchr(s, '%', n);
  if (percent) {
    if (n < 6 || !ascii_equal_folded(s, "fe80:", 5)) return false;
    const char *p = s + 5;
    for (int groups = 0; p < percent && *p == ':' && groups < 4; groups++) {
      const char *q = ++p;
      while (q < percent && q - p < 4 && is_hex(*q)) q++;
      p = q;
    }
    if (p != percent || percent + 1 == s + n) return false;
    for (p = percent + 1; p < s + n; p++) {
      if (is_ascii_alnum(*p)) continue;
      if (s + n - p >= 2 && (uint8_t)p[0] == 0xC5 && (uint8_t)p[1] == 0xBF) { /* ſ */
        p++;
        continue;
      }
      if (s + n - p >= 3 && (uint8_t)p[0] == 0xE2 && (uint8_t)p[1] == 0x84 && (uint8_t)p[2] == 0xAA) { /* K */
        p += 2;
        continue;
      }
      return false;
    }
    return true;
  }
  const char *gap = NULL;
  for (size_t i = 0; i + 1 < n; i++)
    if (s[i] == ':' && s[i + 1] == ':') {
      gap = s + i;
      break;
    }
  const char *last_colon = NULL;
  for (size_t i = 0; i < n; i++)
    if (s[i] == ':') last_colon = s + i;
  if (last_colon && memchr(last_colon, '.', (size_t)(s + n - last_colon))) {
    /* A dotted quad after "::". */
    if (!gap || last_colon < gap + 1 || !ipv4_parts(last_colon + 1, (size_t)(s + n - last_colon - 1), true))
      return false;
    if (gap == s) {
      const char *middle = s + 2;
      size_t m = (size_t)(last_colon + 1 - middle); /* "", "ffff:" or "ffff:0…:" */
      if (!m) return true;
      if (m < 5 || !ascii_equal_folded(middle, "ffff:", 5)) return false;
      if (m == 5) return true;
      for (size_t i = 5; i + 1 < m; i++)
        if (middle[i] != '0') return false;
      return m >= 7 && m <= 10 && middle[m - 1] == ':';
    }
    int before = hex_groups(s, (size_t)(gap - s));
    return last_colon == gap + 1 && before >= 1 && before <= 4;
  }
  if (!gap) return hex_groups(s, n) == 8;
  int before = hex_groups(s, (size_t)(gap - s)), after = hex_groups(gap + 2, (size_t)(s + n - gap - 2));
  return before >= 0 && after >= 0 && before + after <= 7;
}

/* v.isoDate(): YYYY-MM-DD, month 01-12, day 01-31 (February 30 too). */
static bool date_format(const char *s, size_t n) {
  int month, day;
  return n == 10 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) &&
         is_digit(s[3]) && s[4] == '-' && two_digits(s + 5, &month) && month >= 1 && month <= 12 &&
         s[7] == '-' && two_digits(s + 8, &day) && day >= 1 && day <= 31;
}

/* v.isoTime(): HH:mm. */
static bool time_format(const char *s, size_t n) {
  int hours, minutes;
  return n == 5 && two_digits(s, &hours) && hours <= 23 && s[2] == ':' && two_digits(s + 3, &minutes) &&
         minutes <= 59;
}

/* ---- RFC 3986's absolute URI ------------------------------------------------ */

/* unreserved and sub-delims, with the characters `extra` adds. */
static bool uri_plain(char c, const char *extra) {
  return c && (is_ascii_alnum(c) || strchr("-._~!$&'()*+,;=", c) || strchr(extra, c));
}

/* Whether s[0..n) is made of uri_plain characters and "%" HEXDIG HEXDIG. */
static bool uri_text(const char *s, size_t n, const char *extra) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '%') {
      if (n - i < 3 || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
      i += 2;
    } else if (!uri_plain(s[i], extra)) {
      return false;
    }
  }
  return true;
}

/* h16 groups ending, perhaps, in a dotted quad that counts as two: their
 * count, or -1. */
static int groups_to_quad(const char *s, size_t n) {
  const char *last_colon = NULL;
  for (size_t i = 0; i < n; i++)
    if (s[i] == ':') last_colon = s + i;
  const char *tail = last_colon ? last_colon + 1 : s;
  if (!memchr(tail, '.', (size_t)(s + n - tail))) return hex_groups(s, n);
  if (!ipv4_parts(tail, (size_t)(s + n - tail), false)) return -1;
  if (!last_colon) return 2;
  int before = hex_groups(s, (size_t)(last_colon - s));
  return before > 0 ? before + 2 : -1;
}

/* RFC 3986's IPv6address: eight groups, or fewer around one "::", the last
 * two perhaps a dotted quad; no zone. */
static bool uri_ipv6(const char *s, size_t n) {
  const char *gap = NULL;
  for (size_t i = 0; !gap && i + 1 < n; i++)
    if (s[i] == ':' && s[i + 1] == ':') gap = s + i;
  if (!gap) return groups_to_quad(s, n) == 8;
  int before = hex_groups(s, (size_t)(gap - s)), after = groups_to_quad(gap + 2, (size_t)(s + n - gap - 2));
  return before >= 0 && after >= 0 && before + after <= 7;
}

/* IP-literal without its brackets: an IPv6address, or IPvFuture ("v",
 * hex digits, ".", then unreserved, sub-delims and ":"). */
static bool uri_ip_literal(const char *s, size_t n) {
  if (n == 0 || (s[0] | 0x20) != 'v') return uri_ipv6(s, n);
  size_t i = 1;
  while (i < n && is_hex(s[i])) i++;
  if (i == 1 || i + 1 >= n || s[i] != '.') return false;
  for (i++; i < n; i++)
    if (!uri_plain(s[i], ":")) return false;
  return true;
}

/* authority = [ userinfo "@" ] host [ ":" port ]. */
static bool uri_authority(const char *s, size_t n) {
  const char *at = memchr(s, '@', n);
  if (at) {
    if (!uri_text(s, (size_t)(at - s), ":")) return false;
    n -= (size_t)(at + 1 - s);
    s = at + 1;
  }
  size_t host = 0;
  if (n && s[0] == '[') {
    const char *close = memchr(s, ']', n);
    if (!close || !uri_ip_literal(s + 1, (size_t)(close - s - 1))) return false;
    host = (size_t)(close + 1 - s);
  } else {
    while (host < n && s[host] != ':') host++;
    if (!uri_text(s, host, "")) return false;
  }
  if (host == n) return true;
  if (s[host] != ':') return false;
  for (size_t i = host + 1; i < n; i++)
    if (!is_digit(s[i])) return false;
  return true;
}

/* RFC 3986's URI: scheme ":" hier-part [ "?" query ] [ "#" fragment ], in
 * ASCII (an IRI's other characters percent-encoded), as JSON Schema's
 * "uri" asks; a relative reference has no scheme and is refused. */
static bool uri_format(const char *s, size_t n) {
  if (!is_letter(s[0])) return false;
  size_t i = 1;
  while (i < n && (is_ascii_alnum(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')) i++;
  if (i == n || s[i] != ':') return false;
  const char *rest = s + i + 1, *end = s + n;
  const char *hash = memchr(rest, '#', (size_t)(end - rest));
  if (hash && !uri_text(hash + 1, (size_t)(end - hash - 1), ":@/?")) return false;
  if (hash) end = hash;
  const char *question = memchr(rest, '?', (size_t)(end - rest));
  if (question && !uri_text(question + 1, (size_t)(end - question - 1), ":@/?")) return false;
  if (question) end = question;
  if (end - rest >= 2 && rest[0] == '/' && rest[1] == '/') {
    const char *authority = rest + 2, *slash = memchr(authority, '/', (size_t)(end - authority));
    if (!uri_authority(authority, (size_t)((slash ? slash : end) - authority))) return false;
    rest = slash ? slash : end;
  }
  return uri_text(rest, (size_t)(end - rest), ":@/");
}

SHORN_PRIVATE const char *const format_names[FORMAT_COUNT] = {
    [FORMAT_EMAIL] = "email", [FORMAT_IPV4] = "ipv4", [FORMAT_IPV6] = "ipv6",
    [FORMAT_DATE] = "date",   [FORMAT_TIME] = "time", [FORMAT_URI] = "uri"};

bool format_holds(format_kind f, const char *s, size_t n) {
  if (!n) return false; /* none of them is empty */
  switch (f) {
    case FORMAT_EMAIL: return email_format(s, n);
    case FORMAT_IPV4: return ipv4_format(s, n);
    case FORMAT_IPV6: return ipv6_format(s, n);
    case FORMAT_DATE: return date_format(s, n);
    case FORMAT_TIME: return time_format(s, n);
    default: return uri_format(s, n);
  }
}
