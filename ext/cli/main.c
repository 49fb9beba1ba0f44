#define _POSIX_C_SOURCE 200809L
/*
 * main.c — the `shorn` command: the core codec for shells and scripts.
 *
 *   shorn encode SCHEMA        a JSON value on stdin, its payload on stdout
 *   shorn decode SCHEMA        a payload on stdin, its JSON value on stdout
 *   shorn fingerprint SCHEMA   the fingerprint, in hex
 *   shorn signature SCHEMA     the canonical signature
 *
 * It is built on the core alone: the codec through shorn.h, and from the
 * core's internals only what it would otherwise write again (buffers, the
 * base64 a bytes shape spells its JSON with, and the hex writer).  Reading and writing
 * files lives here.
 *
 * A single value is converted in memory and written only once it has
 * succeeded, so a failure leaves stdout empty.  With --lines the input is
 * read in blocks and converted line by line into one output buffer that is
 * written whenever it grows past a block; the first bad line stops the run,
 * after the lines before it have been written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/text/base64.h"
#include "core/base/memory.h"
#include "core/text/text.h"
#include "shorn.h"


/* Input is read, and --lines output written, in blocks this large: few
 * system calls, and memory bounded by the longest line rather than the file. */
#define BLOCK_SIZE (1 << 20)

enum { STATUS_OK = 0, STATUS_FAILED = 1, STATUS_USAGE = 2 };

static const char help_text[] =
    "Usage: shorn COMMAND SCHEMA [OPTIONS]\n"
    "\n"
    "Convert between JSON and shorn payloads, the tagless binary encoding whose\n"
    "meaning comes from a JSON Schema. SCHEMA is a JSON Schema file (draft 2020-12,\n"
    "as Zod, Valibot and ArkType emit it), or - to read it from stdin.\n"
    "\n"
    "Commands:\n"
    "  encode SCHEMA        read a JSON value, write its payload\n"
    "  decode SCHEMA        read a payload, write its JSON value and a newline\n"
    "  fingerprint SCHEMA   write the schema's fingerprint in hex\n"
    "  signature SCHEMA     write the canonical signature the fingerprint hashes\n"
    "\n"
    "Options of encode and decode:\n"
    "  --base64             the payload is base64 text (standard alphabet, padded)\n"
    "                       and a newline, not raw bytes\n"
    "  --hex                the payload is hex text and a newline, not raw bytes;\n"
    "                       encode writes lowercase, decode reads either case\n"
    "  --fingerprint N      encode: write N fingerprint bytes (1-4) before the\n"
    "                       payload; decode: check and strip them\n"
    "  --lines              one value per line: JSON Lines in, base64 lines out\n"
    "                       (hex lines with --hex), and back; stops at the first\n"
    "                       bad line, naming it, after writing the lines before it\n"
    "  --in FILE            read the value from FILE, not stdin\n"
    "Options of encode:\n"
    "  --unchecked          check the value's structure alone, not the schema's\n"
    "                       validation keywords (maximum, pattern, ...)\n"
    "Options of fingerprint:\n"
    "  --bytes N            the fingerprint's width, 1-4 (default 3)\n"
    "Options of every command:\n"
    "  --out FILE           write to FILE, not stdout\n"
    "  -h, --help           print this help\n"
    "  -v, --version        print the version\n"
    "\n"
    "A failure prints one line on stderr (shorn: MESSAGE) and exits 1; a single\n"
    "value that fails writes nothing. A command line that cannot be read exits 2.\n";

/* ---- the command line ----------------------------------------------------- */

typedef enum command { ENCODE, DECODE, FINGERPRINT, SIGNATURE, COMMAND_COUNT } command;

static const char *const command_names[COMMAND_COUNT] = {"encode", "decode", "fingerprint", "signature"};

#define CODEC_COMMANDS (1u << ENCODE | 1u << DECODE)
#define EVERY_COMMAND (CODEC_COMMANDS | 1u << FINGERPRINT | 1u << SIGNATURE)

typedef enum option_id {
  OPTION_BASE64,
  OPTION_HEX,
  OPTION_FINGERPRINT,
  OPTION_LINES,
  OPTION_IN,
  OPTION_UNCHECKED,
  OPTION_BYTES,
  OPTION_OUT,
  OPTION_HELP,
  OPTION_VERSION,
  OPTION_COUNT
} option_id;

typedef struct option_spec {
  const char *name;
  char letter; /* the one-letter spelling, or 0 */
  bool takes_value;
  unsigned commands; /* the commands it applies to, a bit each */
  const char *commands_text;
} option_spec;

static const option_spec option_specs[OPTION_COUNT] = {
    [OPTION_BASE64] = {"base64", 0, false, CODEC_COMMANDS, "encode and decode"},
    [OPTION_HEX] = {"hex", 0, false, CODEC_COMMANDS, "encode and decode"},
    [OPTION_FINGERPRINT] = {"fingerprint", 0, true, CODEC_COMMANDS, "encode and decode"},
    [OPTION_LINES] = {"lines", 0, false, CODEC_COMMANDS, "encode and decode"},
    [OPTION_IN] = {"in", 0, true, CODEC_COMMANDS, "encode and decode"},
    [OPTION_UNCHECKED] = {"unchecked", 0, false, 1u << ENCODE, "encode"},
    [OPTION_BYTES] = {"bytes", 0, true, 1u << FINGERPRINT, "fingerprint"},
    [OPTION_OUT] = {"out", 0, true, EVERY_COMMAND, NULL},
    [OPTION_HELP] = {"help", 'h', false, EVERY_COMMAND, NULL},
    [OPTION_VERSION] = {"version", 'v', false, EVERY_COMMAND, NULL},
};

typedef struct invocation {
  const char *positional[3]; /* the command, the schema, the first extra one */
  int positional_count;
  const char *option[OPTION_COUNT]; /* the value given, "" for a flag, NULL when absent */
  command command;
  int width; /* --fingerprint for encode and decode (0: none), --bytes for fingerprint */
} invocation;

/* A command line that cannot be read: one line, and exit status 2. */
static int PRINTF_LIKE(1, 2) usage(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fputs("shorn: ", stderr);
  vfprintf(stderr, format, ap);
  fputs(". Run shorn --help.\n", stderr);
  va_end(ap);
  return STATUS_USAGE;
}

/* The option `arg` spells (--name, --name=value or -x), and its inline value. */
static const option_spec *find_option(const char *arg, const char **value) {
  *value = NULL;
  if (arg[1] != '-') {
    for (int i = 0; i < OPTION_COUNT; i++)
      if (option_specs[i].letter && arg[1] == option_specs[i].letter && arg[2] == 0) return &option_specs[i];
    return NULL;
  }
  const char *name = arg + 2, *equals = strchr(name, '=');
  size_t length = equals ? (size_t)(equals - name) : strlen(name);
  for (int i = 0; i < OPTION_COUNT; i++) {
    if (strlen(option_specs[i].name) == length && memcmp(option_specs[i].name, name, length) == 0) {
      if (equals) *value = equals + 1;
      return &option_specs[i];
    }
  }
  return NULL;
}

/* Options anywhere among the positionals, as Node's parseArgs reads them (the
 * published command's conventions); `--` ends the options. */
static int parse_options(int argc, char **argv, invocation *inv) {
  memset(inv, 0, sizeof *inv);
  bool options_ended = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (options_ended || arg[0] != '-' || arg[1] == 0) {
      if (inv->positional_count < 3) inv->positional[inv->positional_count++] = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_ended = true;
      continue;
    }
    const char *value;
    const option_spec *spec = find_option(arg, &value);
    if (!spec) return usage("unknown option \"%.*s\"", (int)strcspn(arg, "="), arg);
    if (value && !spec->takes_value) return usage("option --%s takes no value", spec->name);
    if (!value && spec->takes_value) {
      if (i + 1 == argc) return usage("option --%s needs a value", spec->name);
      value = argv[++i];
    }
    inv->option[spec - option_specs] = value ? value : "";
  }
  return STATUS_OK;
}

/* A fingerprint width: one digit, 1 to 4; 0 for anything else. */
static int parse_width(const char *text) {
  return text[0] >= '1' && text[0] <= '4' && text[1] == 0 ? text[0] - '0' : 0;
}

/* No path, or `-`: stdin for input, stdout for output. */
static bool is_standard_stream(const char *path) { return !path || strcmp(path, "-") == 0; }

/* What the options cannot tell until the command is known. */
static int check_arguments(invocation *inv) {
  if (inv->positional_count == 0) return usage("no command");
  const char *name = inv->positional[0];
  int c = 0;
  while (c < COMMAND_COUNT && strcmp(command_names[c], name) != 0) c++;
  if (c == COMMAND_COUNT)
    return usage("unknown command \"%s\". Expected encode, decode, fingerprint or signature", name);
  inv->command = (command)c;
  if (inv->positional_count == 1) return usage("%s needs a schema file", name);
  if (inv->positional_count == 3) return usage("unexpected argument \"%s\"", inv->positional[2]);
  for (int i = 0; i < OPTION_COUNT; i++)
    if (inv->option[i] && !(option_specs[i].commands & 1u << c))
      return usage("--%s applies only to %s", option_specs[i].name, option_specs[i].commands_text);
  if (inv->option[OPTION_BASE64] && inv->option[OPTION_HEX]) return usage("--base64 and --hex exclude each other");

  option_id width_option = inv->command == FINGERPRINT ? OPTION_BYTES : OPTION_FINGERPRINT;
  const char *width = inv->option[width_option];
  if (width && !(inv->width = parse_width(width)))
    return usage("--%s takes 1, 2, 3 or 4, not \"%s\"", option_specs[width_option].name, width);
  if (!width && inv->command == FINGERPRINT) inv->width = SHORN_FINGERPRINT_DEFAULT;
  if ((1u << c & CODEC_COMMANDS) && is_standard_stream(inv->positional[1]) && is_standard_stream(inv->option[OPTION_IN]))
    return usage("the schema and the value cannot both come from stdin; give the value with --in FILE");
  return STATUS_OK;
}

/* ---- failures, buffers, files --------------------------------------------- */

typedef unsigned long long line_number; /* 0 when not reading lines */

/* One line on stderr, "shorn: line 3: message" with --lines. */
static int PRINTF_LIKE(2, 3) failure(line_number line, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fputs("shorn: ", stderr);
  if (line) fprintf(stderr, "line %llu: ", line);
  vfprintf(stderr, format, ap);
  fputc('\n', stderr);
  va_end(ap);
  return STATUS_FAILED;
}

static int report(line_number line, const char *context, const shorn_error *error) {
  char text[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 16];
  shorn_error_format(error, text, sizeof text);
  return context ? failure(line, "%s: %s", context, text) : failure(line, "%s", text);
}

static int out_of_memory(line_number line) { return failure(line, "Out of memory"); }

static const char *display_name(const char *path, const char *standard_stream) {
  return is_standard_stream(path) ? standard_stream : path;
}

/* An empty buffer may have no storage; the codec wants a pointer all the same. */
static const unsigned char *bytes_of(const shorn_buffer *b) { return b->data ? b->data : (const unsigned char *)""; }

static int open_input(const char *path) { return is_standard_stream(path) ? STDIN_FILENO : open(path, O_RDONLY); }

/* One read(2) into the buffer's free space, a block or more of it;
 * `*got` is 0 at the end of the input. */
static bool read_block(int fd, shorn_buffer *b, size_t *got) {
  if (!buffer_reserve(b, BLOCK_SIZE)) {
    errno = ENOMEM;
    return false;
  }
  ssize_t n;
  do n = read(fd, b->data + b->length, b->capacity - b->length);
  while (n < 0 && errno == EINTR);
  if (n < 0) return false;
  b->length += (size_t)n;
  *got = (size_t)n;
  return true;
}

/* The whole of a file (`-`: stdin), for a schema or a single value. */
static int read_file(const char *path, const char *standard_name, shorn_buffer *b) {
  int fd = open_input(path);
  size_t got = 0;
  bool ok = fd >= 0;
  while (ok && (ok = read_block(fd, b, &got)) && got) {}
  int saved = errno;
  if (fd > STDIN_FILENO) close(fd);
  return ok ? STATUS_OK
            : failure(0, "cannot read %s: %s", display_name(path, standard_name), strerror(saved));
}

typedef struct output {
  const char *path; /* NULL: stdout */
  int fd;
} output;

static int open_output(output *o, const char *path) {
  o->path = path;
  o->fd = is_standard_stream(path) ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  return o->fd >= 0 ? STATUS_OK : failure(0, "cannot write %s: %s", path, strerror(errno));
}

static int write_output(const output *o, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    ssize_t w = write(o->fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return failure(0, "cannot write %s: %s", display_name(o->path, "stdout"), strerror(errno));
    p += w;
    n -= (size_t)w;
  }
  return STATUS_OK;
}

static int flush_output(const output *o, shorn_buffer *b) {
  int status = write_output(o, bytes_of(b), b->length);
  b->length = 0;
  return status;
}

/* A file's close can report a write that failed late (a full disk over NFS). */
static int close_output(const output *o, int status) {
  if (o->fd == STDOUT_FILENO || o->fd < 0) return status;
  if (close(o->fd) != 0 && status == STATUS_OK)
    return failure(0, "cannot write %s: %s", o->path, strerror(errno));
  return status;
}

/* ---- converting values ----------------------------------------------------- */

/* How the payload is spelled on the byte side. */
typedef enum spelling { RAW, BASE64, HEX } spelling;

typedef struct converter {
  const shorn_schema *schema;
  int width;            /* fingerprint prefix, 0 for none */
  bool checked;         /* encode: the validation keywords too */
  spelling spelling;    /* BASE64 and HEX: text and a newline */
  shorn_buffer out;     /* converted, not yet written */
  shorn_buffer payload; /* the bytes between the text and the codec */
} converter;

/* n bytes as lowercase hex digits at the end of b. */
static bool hex_encode(shorn_buffer *b, const unsigned char *bytes, size_t n) {
  if (n > SIZE_MAX / 2 || !buffer_reserve(b, 2 * n)) return false;
  hex_bytes((char *)b->data + b->length, bytes, n);
  b->length += 2 * n;
  return true;
}

/* text[0..n) as bytes into out (2 digits a byte); else false with *bad the
 * offset of the first non-hex character, or n when the count is odd. */
static bool hex_decode(const unsigned char *text, size_t n, unsigned char *out, size_t *bad) {
  for (size_t i = 0; i < n; i++) {
    int v = hex_digit(text[i], true);
    if (v < 0) {
      *bad = i;
      return false;
    }
    if (i & 1)
      out[i / 2] = (unsigned char)(out[i / 2] | v);
    else
      out[i / 2] = (unsigned char)(v << 4);
  }
  *bad = n;
  return n % 2 == 0;
}

static int to_payload(converter *c, const unsigned char *json, size_t n, line_number line) {
  shorn_error error;
  shorn_buffer *payload = c->spelling != RAW ? &c->payload : &c->out;
  shorn_code rc = c->checked ? shorn_encode(c->schema, (const char *)json, n, c->width, payload, &error)
                             : shorn_encode_unchecked(c->schema, (const char *)json, n, c->width, payload, &error);
  if (rc != SHORN_OK) return report(line, NULL, &error);
  if (c->spelling != RAW) {
    bool ok = (c->spelling == HEX ? hex_encode(&c->out, bytes_of(payload), payload->length)
                                  : base64_encode(&c->out, bytes_of(payload), payload->length)) &&
              buffer_byte(&c->out, '\n');
    payload->length = 0;
    if (!ok) return out_of_memory(line);
  }
  return STATUS_OK;
}

static bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* Base64 or hex text may come with white space around it (a newline, a CR). */
static int to_json(converter *c, const unsigned char *data, size_t n, line_number line) {
  if (c->spelling != RAW) {
    size_t start = 0, end = n, bad = 0;
    while (start < end && is_space(data[start])) start++;
    while (end > start && is_space(data[end - 1])) end--;
    c->payload.length = 0;
    size_t most = c->spelling == HEX ? (end - start) / 2 : (end - start) / 4 * 3;
    if (!buffer_reserve(&c->payload, most + 1)) return out_of_memory(line);
    if (c->spelling == HEX) {
      if (!hex_decode(data + start, end - start, c->payload.data, &bad))
        return failure(line, bad < end - start ? "Expected a hex digit at byte %zu"
                                               : "Expected an even number of hex digits at byte %zu",
                       start + bad);
      c->payload.length = (end - start) / 2;
    } else if (!base64_decode((const char *)data + start, end - start, c->payload.data, &c->payload.length, &bad)) {
      return failure(line, "Expected standard base64 with padding at byte %zu", start + bad);
    }
    data = c->payload.data;
    n = c->payload.length;
  }
  shorn_error error;
  if (shorn_decode(c->schema, data, n, c->width, &c->out, &error) != SHORN_OK)
    return report(line, NULL, &error);
  return buffer_byte(&c->out, '\n') ? STATUS_OK : out_of_memory(line);
}

typedef int (*value_converter)(converter *, const unsigned char *, size_t, line_number);

/* The whole input as one value, written only once it converted. */
static int convert_one(const invocation *inv, converter *c, value_converter convert) {
  shorn_buffer in = {0};
  int status = read_file(inv->option[OPTION_IN], "stdin", &in);
  if (status == STATUS_OK) status = convert(c, bytes_of(&in), in.length, 0);
  shorn_buffer_free(&in);
  output o = {NULL, -1};
  if (status == STATUS_OK) status = open_output(&o, inv->option[OPTION_OUT]);
  if (status == STATUS_OK) status = flush_output(&o, &c->out);
  return close_output(&o, status);
}

/* One value per line.  A partial line stays at the front of the input
 * buffer while the next block is read behind it; `scanned` remembers how far
 * it has been searched for a newline, so a long line is searched once. */
static int convert_lines(const invocation *inv, converter *c, value_converter convert) {
  const char *in_name = display_name(inv->option[OPTION_IN], "stdin");
  int in_fd = open_input(inv->option[OPTION_IN]);
  if (in_fd < 0) return failure(0, "cannot read %s: %s", in_name, strerror(errno));
  output o = {NULL, -1};
  int status = open_output(&o, inv->option[OPTION_OUT]);
  shorn_buffer in = {0};
  size_t start = 0, scanned = 0;
  line_number line = 0;
  bool at_end = false;
  while (status == STATUS_OK) {
    unsigned char *newline = scanned < in.length ? memchr(in.data + scanned, '\n', in.length - scanned) : NULL;
    if (newline) {
      status = convert(c, in.data + start, (size_t)(newline - in.data) - start, ++line);
      start = scanned = (size_t)(newline - in.data) + 1;
      if (status == STATUS_OK && c->out.length >= BLOCK_SIZE) status = flush_output(&o, &c->out);
    } else if (at_end) {
      if (start < in.length) status = convert(c, in.data + start, in.length - start, ++line);
      break;
    } else {
      if (start) memmove(in.data, in.data + start, in.length - start);
      in.length -= start;
      scanned = in.length;
      start = 0;
      size_t got = 0;
      if (!read_block(in_fd, &in, &got)) status = failure(0, "cannot read %s: %s", in_name, strerror(errno));
      at_end = got == 0;
    }
  }
  /* The lines before a bad one are written all the same. */
  if (o.fd >= 0 && c->out.length) {
    int written = flush_output(&o, &c->out);
    if (status == STATUS_OK) status = written;
  }
  shorn_buffer_free(&in);
  if (in_fd > STDIN_FILENO) close(in_fd);
  return close_output(&o, status);
}

/* ---- the commands ---------------------------------------------------------- */

static int compile_schema(const char *path, shorn_schema **schema) {
  shorn_buffer text = {0};
  int status = read_file(path, "stdin", &text);
  shorn_error error;
  if (status == STATUS_OK &&
      shorn_schema_compile((const char *)bytes_of(&text), text.length, NULL, schema, &error) != SHORN_OK)
    status = report(0, display_name(path, "stdin"), &error);
  shorn_buffer_free(&text);
  return status;
}

static int describe(const invocation *inv, const shorn_schema *schema) {
  shorn_buffer out = {0};
  bool ok;
  if (inv->command == SIGNATURE) {
    size_t length;
    const char *signature = shorn_schema_signature(schema, &length);
    ok = buffer_append(&out, signature, length);
  } else {
    unsigned char fingerprint[4];
    shorn_error error;
    if (shorn_schema_fingerprint(schema, inv->width, fingerprint, &error) != SHORN_OK)
      return report(0, NULL, &error);
    char hex[8];
    hex_bytes(hex, fingerprint, (size_t)inv->width);
    ok = buffer_append(&out, hex, 2 * (size_t)inv->width);
  }
  output o = {NULL, -1};
  int status = ok && buffer_byte(&out, '\n') ? STATUS_OK : out_of_memory(0);
  if (status == STATUS_OK) status = open_output(&o, inv->option[OPTION_OUT]);
  if (status == STATUS_OK) status = flush_output(&o, &out);
  shorn_buffer_free(&out);
  return close_output(&o, status);
}

static int run(const invocation *inv) {
  shorn_schema *schema;
  int status = compile_schema(inv->positional[1], &schema);
  if (status != STATUS_OK) return status;
  if (inv->command == FINGERPRINT || inv->command == SIGNATURE) {
    status = describe(inv, schema);
  } else {
    bool lines = inv->option[OPTION_LINES] != NULL;
    /* --lines implies base64, unless it is hex. */
    spelling text = inv->option[OPTION_HEX] ? HEX : lines || inv->option[OPTION_BASE64] ? BASE64 : RAW;
    converter c = {schema, inv->width, !inv->option[OPTION_UNCHECKED], text, {0}, {0}};
    value_converter convert = inv->command == ENCODE ? to_payload : to_json;
    status = lines ? convert_lines(inv, &c, convert) : convert_one(inv, &c, convert);
    shorn_buffer_free(&c.out);
    shorn_buffer_free(&c.payload);
  }
  shorn_schema_free(schema);
  return status;
}

static int print(const char *text) {
  output o = {NULL, STDOUT_FILENO};
  return write_output(&o, text, strlen(text));
}

int main(int argc, char **argv) {
  invocation inv;
  if (parse_options(argc, argv, &inv) != STATUS_OK) return STATUS_USAGE;
  /* As the published command does: help and version win over everything but
   * an unreadable option, and read no input. */
  if (inv.option[OPTION_HELP]) return print(help_text);
  if (inv.option[OPTION_VERSION]) return print(SHORN_VERSION "\n");
  if (check_arguments(&inv) != STATUS_OK) return STATUS_USAGE;
  return run(&inv);
}
