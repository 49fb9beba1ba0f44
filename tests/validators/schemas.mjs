// Schemas written as Zod, Valibot and ArkType users write them, their JSON
// Schema from each library's own converter, and what each validator says of
// sample values: one JSON line per library and case, on standard output.
// check.py judges the lines against the extension; this script only reports.
import { z } from "zod";
import * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";

// How each library emits JSON Schema and validates a value (null: refused).
// Valibot's converter writes draft-07 unless told: tuples become `items: [...]`.
const libraries = {
  zod: {
    emit: (schema) => z.toJSONSchema(schema),
    validate: (schema, x) => { const r = schema.safeParse(x); return r.success ? { output: r.data } : null; },
  },
  valibot: {
    emit: (schema) => toJsonSchema(schema, { target: "draft-2020-12" }),
    validate: (schema, x) => { const r = v.safeParse(schema, x); return r.success ? { output: r.output } : null; },
  },
  arktype: {
    emit: (schema) => schema.toJsonSchema(),
    validate: (schema, x) => { const out = schema(x); return out instanceof type.errors ? null : { output: out }; },
  },
};

// A schema whose JSON Schema comes from other converter options.
class Emitted {
  constructor(schema, emit) { this.schema = schema; this.emit = emit; }
}

// z.bigint() has no JSON Schema; its JSON spelling is a decimal string.
const bigintAsString = (ctx) => {
  if (ctx.zodSchema._zod.def.type === "bigint") Object.assign(ctx.jsonSchema, { type: "string", "x-shorn": "bigint" });
};

const ZodNode = z.object({ value: z.string(), get children() { return z.array(ZodNode); } });
const ValibotNode = v.object({ value: v.string(), children: v.array(v.lazy(() => ValibotNode)) });
const vUint = v.pipe(v.number(), v.integer(), v.minValue(0));

// Signatures, spelled in shorn_signature's key order.
const field = (key, value, optional = false) => ({ key, optional, value });
const object = (...fields) => ({ object: fields });
const PERSON = object(
  field("address", object(field("city", "string"), field("zip", { nullable: "string" }))),
  field("age", "uint"), field("name", "string"), field("nick", "string", true),
  field("sex", { enum: ["F", "M", "X"] }), field("tags", { array: "string" }));
const GRACE = { name: "Grace", age: 45, sex: "F", address: { city: "Arlington", zip: null }, tags: ["navy", "cobol"] };

// A case: a schema per library, and what is expected of it:
//   signature  what shorn_signature gives (or compileError, what it refuses with),
//   throws     the converter's error instead (message, or ArkType's code),
//   jsonSchema the emitted JSON Schema, $schema aside, where the case is about it;
// and samples, each checked with the validator first:
//   values     accepted, and shorn_decode(shorn_encode(output)) is the output,
//   changed    [value, decoded]: accepted, and decodes as `decoded`,
//   refused    [value, error]: accepted, and shorn_encode refuses it,
//   rejected   refused by the validator.
const cases = [
  {
    name: "person",
    zod: z.object({
      name: z.string(),
      age: z.int().min(0),
      nick: z.string().optional(),
      sex: z.enum(["M", "F", "X"]),
      address: z.object({ city: z.string(), zip: z.string().nullable() }),
      tags: z.array(z.string()),
    }),
    valibot: v.object({
      name: v.string(),
      age: v.pipe(v.number(), v.integer(), v.minValue(0)),
      nick: v.optional(v.string()),
      sex: v.picklist(["M", "F", "X"]),
      address: v.object({ city: v.string(), zip: v.nullable(v.string()) }),
      tags: v.array(v.string()),
    }),
    arktype: type({
      name: "string",
      age: "number.integer >= 0",
      "nick?": "string",
      sex: "'M' | 'F' | 'X'",
      address: { city: "string", zip: "string | null" },
      tags: "string[]",
    }),
    signature: PERSON,
    values: [GRACE, { name: "Ada", nick: "Countess", age: 36, sex: "F", address: { city: "London", zip: "W1" }, tags: [] }],
    rejected: [{ ...GRACE, age: -1 }, { ...GRACE, sex: "f" }],
  },
  {
    name: "unknown keys dropped",
    zod: z.object({ a: z.string() }),
    valibot: v.object({ a: v.string() }),
    arktype: type({ "+": "delete", a: "string" }),
    signature: object(field("a", "string")),
    values: [{ a: "x", extra: 1 }],
  },
  {
    name: "unknown keys kept",
    zod: z.looseObject({ a: z.string() }),
    valibot: v.objectWithRest({ a: v.string() }, v.unknown()),
    arktype: type({ a: "string", "[string]": "unknown" }),
    signature: { ...object(field("a", "string")), extras: "any" },
    values: [{ a: "x", extra: [1, "y"] }],
  },
  {
    name: "unknown keys kept, schema closed",
    valibot: v.looseObject({ a: v.string() }),
    arktype: type({ a: "string" }),
    signature: object(field("a", "string")),
    values: [{ a: "x" }],
    refused: [[{ a: "x", extra: 1 }, 'Unknown object property "extra" at $']],
  },
  {
    name: "int",
    zod: z.int(),
    valibot: v.pipe(v.number(), v.safeInteger()),
    signature: "int",
    values: [-5, 9007199254740991],
    rejected: [2 ** 60, 1.5],
  },
  {
    name: "int, unsafe",
    valibot: v.pipe(v.number(), v.integer()),
    arktype: type("number.integer"),
    signature: "int",
    values: [-5],
    refused: [[2 ** 60, "Expected a safe integer (at most 2^53 - 1 in magnitude) at $"]],
  },
  {
    name: "union",
    zod: z.union([z.string(), z.number()]),
    valibot: v.union([v.string(), v.number()]),
    arktype: type("string | number"),
    signature: { types: ["number", "string"], union: ["float64", "string"] },
    values: ["a", 1.5],
  },
  {
    name: "discriminated union",
    zod: z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("click"), x: z.int(), y: z.int() }),
      z.object({ kind: z.literal("key"), code: z.string() }),
    ]),
    valibot: v.variant("kind", [
      v.object({ kind: v.literal("click"), x: v.pipe(v.number(), v.safeInteger()), y: v.pipe(v.number(), v.safeInteger()) }),
      v.object({ kind: v.literal("key"), code: v.string() }),
    ]),
    arktype: type({ kind: "'click'", x: "number.integer", y: "number.integer" }).or({ kind: "'key'", code: "string" }),
    signature: {
      on: "kind", cases: ["click", "key"],
      union: [object(field("kind", { literal: "click" }), field("x", "int"), field("y", "int")),
        object(field("code", "string"), field("kind", { literal: "key" }))],
    },
    values: [{ kind: "click", x: 3, y: -4 }, { kind: "key", code: "Enter" }],
    rejected: [{ kind: "scroll", x: 3, y: -4 }],
  },
  {
    name: "union without a discriminant",
    zod: z.union([z.object({ a: z.string() }), z.object({ b: z.int() })]),
    compileError: "shorn_signature: Only nullable, discriminated and type-disjoint unions are supported: give the branches "
      + "one property that is a distinct const in each, or make no two branches share a JSON type (integer counts as number) at #",
  },
  {
    name: "tuple",
    zod: z.tuple([z.string(), z.number()]),
    valibot: v.tuple([v.string(), v.number()]),
    arktype: type(["string", "number"]),
    signature: { tuple: ["string", "float64"] },
    values: [["a", 1.5]],
  },
  {
    name: "tuple, draft-07",
    valibot: new Emitted(v.tuple([v.string(), v.number()]), (schema) => toJsonSchema(schema)),
    compileError: "shorn_signature: Expected a JSON Schema object here, found an array at #/items",
  },
  {
    name: "record",
    zod: z.record(z.string(), z.int().min(0)),
    valibot: v.record(v.string(), vUint),
    arktype: type({ "[string]": "number.integer >= 0" }),
    signature: { record: "uint" },
    values: [{ b: 2, a: 1 }, {}],
  },
  {
    name: "recursive",
    zod: ZodNode,
    valibot: ValibotNode,
    arktype: type({ value: "string", children: "this[]" }),
    signature: { defs: [object(field("children", { array: { ref: 0 } }), field("value", "string"))], root: { ref: 0 } },
    values: [{ value: "root", children: [{ value: "leaf", children: [] }] }],
  },
  {
    name: "uuid",
    zod: z.uuid(),
    valibot: v.pipe(v.string(), v.uuid()),
    arktype: type("string.uuid"),
    signature: "uuid",
    values: ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"],
    refused: [["A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "Expected a lowercase UUID at $"]],
  },
  {
    name: "date-time",
    zod: z.iso.datetime({ precision: 3 }),
    signature: "datetime",
    values: ["2026-09-03T12:00:00.000Z", "2000-02-29T23:59:59.999Z"],
    rejected: ["2026-01-02T00:00:00Z", "2026-01-02T00:00:00.000+01:00", "2026-02-30T00:00:00.000Z"],
  },
  {
    name: "date-time, pattern",
    valibot: v.pipe(v.string(), v.isoTimestamp(), v.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)),
    arktype: type(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/).configure({ format: "date-time" }),
    signature: "datetime",
    values: ["2026-09-03T12:00:00.000Z"],
    rejected: ["2026-01-02T00:00:00Z"],
    refused: [["2026-02-30T00:00:00.000Z", "Expected a date-time as toISOString writes it (YYYY-MM-DDTHH:mm:ss.sssZ) at $"]],
  },
  {
    name: "date-time, any precision",
    zod: z.iso.datetime(),
    valibot: v.pipe(v.string(), v.isoTimestamp()),
    signature: "datetime",
    values: ["2026-09-03T12:00:00.000Z"],
    refused: [["2026-01-02T00:00:00Z", "Expected a date-time as toISOString writes it (YYYY-MM-DDTHH:mm:ss.sssZ) at $"]],
  },
  {
    name: "date-time, offset",
    valibot: v.pipe(v.string(), v.isoTimestamp()),
    signature: "datetime",
    refused: [["2026-01-02T00:00:00.000+01:00", "Expected a date-time as toISOString writes it (YYYY-MM-DDTHH:mm:ss.sssZ) at $"]],
  },
  {
    name: "date-time, no seconds",
    valibot: v.pipe(v.string(), v.isoDateTime()),
    signature: "datetime",
    refused: [["2026-01-02T00:00", "Expected a date-time as toISOString writes it (YYYY-MM-DDTHH:mm:ss.sssZ) at $"]],
  },
  {
    name: "date-time, as the library 0.4.0 writes it",
    zod: z.iso.datetime().meta({ "x-shorn": "string" }),
    valibot: v.pipe(v.string(), v.isoTimestamp(), v.metadata({ "x-shorn": "string" })),
    signature: "string",
    values: ["2026-09-03T12:00:00.000Z", "2026-01-02T00:00:00Z", "2026-01-02T00:00:00.123456Z"],
  },
  {
    name: "date-time, x-shorn string without the format",
    zod: z.string().meta({ "x-shorn": "string" }),
    compileError: 'shorn_signature: "x-shorn":"string" needs "format":"date-time" at #',
  },
  {
    name: "date-time, no format",
    arktype: type("string.date.iso"),
    signature: "string",
    values: ["2026-01-02T00:00:00Z"],
  },
  {
    name: "bigint",
    zod: z.string().regex(/^(0|-?[1-9]\d*)$/).meta({ "x-shorn": "bigint" }),
    valibot: v.pipe(v.string(), v.regex(/^(0|-?[1-9]\d*)$/), v.metadata({ "x-shorn": "bigint" })),
    arktype: type(/^(0|-?[1-9]\d*)$/).configure({ "x-shorn": "bigint" }),
    jsonSchema: { type: "string", pattern: "^(0|-?[1-9]\\d*)$", "x-shorn": "bigint" },
    signature: "bigint",
    values: ["-256", "0", "123456789012345678901234567890"],
    rejected: ["-0", "007", "1e3"],
  },
  {
    name: "bigint, z.bigint()",
    zod: z.bigint(),
    throws: "BigInt cannot be represented in JSON Schema",
  },
  {
    name: "bigint, override",
    zod: new Emitted(z.bigint(), (schema) => z.toJSONSchema(schema, { unrepresentable: "any", override: bigintAsString })),
    jsonSchema: { type: "string", "x-shorn": "bigint" },
    signature: "bigint",
    values: [2n ** 70n, -1n],
  },
  {
    name: "bytes",
    zod: z.base64().meta({ "x-shorn": "bytes" }),
    valibot: v.pipe(v.string(), v.base64(), v.metadata({ "x-shorn": "bytes" })),
    arktype: type("string.base64").configure({ contentEncoding: "base64", "x-shorn": "bytes" }),
    signature: "bytes",
    values: ["CQk=", "aGVsbG8=", ""],
    refused: [["CQl=", "Expected standard base64 with padding at $"]],
  },
  {
    name: "float32",
    zod: z.float32().meta({ "x-shorn": "float32" }),
    valibot: v.pipe(v.number(), v.metadata({ "x-shorn": "float32" })),
    arktype: type("number").configure({ "x-shorn": "float32" }),
    signature: "float32",
    values: [1.5, -0.25],
    changed: [[0.1, Math.fround(0.1)]],
  },
  {
    name: "set",
    zod: z.array(z.string()).meta({ uniqueItems: true, "x-shorn": "set" }),
    valibot: v.pipe(v.array(v.string()), v.metadata({ uniqueItems: true, "x-shorn": "set" })),
    arktype: type("string[]").configure({ uniqueItems: true, "x-shorn": "set" }),
    signature: { set: "string" },
    values: [["a", "b"], []],
    refused: [[["a", "a"], "Set element repeats an earlier element at $[1]"]],
  },
  {
    name: "set, as a Set",
    zod: z.set(z.string()),
    valibot: v.set(v.string()),
    arktype: type("Set"),
    throws: { zod: "Set cannot be represented in JSON Schema", valibot: 'The "set" schema cannot be converted to JSON Schema.', arktype: "proto" },
  },
  {
    name: "map",
    zod: z.array(z.tuple([z.string(), z.int().min(0)])).meta({ "x-shorn": "map" }),
    valibot: v.pipe(v.array(v.tuple([v.string(), vUint])), v.metadata({ "x-shorn": "map" })),
    arktype: type(["string", "number.integer >= 0"]).array().configure({ "x-shorn": "map" }),
    signature: { map: ["string", "uint"] },
    values: [[["x", 1], ["y", 300]], []],
    refused: [[[["x", 1], ["x", 2]], "Map key repeats an earlier key at $[1][0]"]],
  },
  {
    name: "regex flags",
    zod: z.string().regex(/^a/i),
    valibot: v.pipe(v.string(), v.regex(/^a/i)),
    arktype: type(/^a/i),
    jsonSchema: { type: "string", pattern: "^a" },
    throws: { valibot: "RegExp flags are not supported by JSON Schema." },
    signature: "string",
    values: ["Abc"],
  },
  {
    name: "refine",
    zod: z.string().refine((s) => s.length > 2),
    valibot: v.pipe(v.string(), v.check((s) => s.length > 2)),
    arktype: type("string").narrow((s) => s.length > 2),
    jsonSchema: { type: "string" },
    throws: { valibot: 'The "check" action cannot be converted to JSON Schema.', arktype: "predicate" },
    signature: "string",
    values: ["abc"],
    rejected: ["ab"],
  },
  {
    name: "refine, left out",
    valibot: new Emitted(v.pipe(v.string(), v.check((s) => s.length > 2)),
      (schema) => toJsonSchema(schema, { target: "draft-2020-12", errorMode: "ignore" })),
    arktype: new Emitted(type("string").narrow((s) => s.length > 2),
      (schema) => schema.toJsonSchema({ fallback: { predicate: (ctx) => ctx.base } })),
    jsonSchema: { type: "string" },
    signature: "string",
    values: ["abc"],
    rejected: ["ab"],
  },
  {
    name: "transform",
    zod: z.string().transform((s) => s.length),
    valibot: v.pipe(v.string(), v.transform((s) => s.length)),
    arktype: type("string").pipe((s) => s.length),
    throws: {
      zod: "Transforms cannot be represented in JSON Schema",
      valibot: 'The "transform" action cannot be converted to JSON Schema.',
      arktype: "morph",
    },
  },
  {
    name: "url",
    zod: z.url(),
    valibot: v.pipe(v.string(), v.url()),
    arktype: type("string.url"),
    jsonSchema: { type: "string", format: "uri" },
    throws: { arktype: "predicate" },
    signature: "string",
    values: ["https://example.com/a"],
    rejected: ["https://"],
  },
];

// JSON text of a validator's output; a BigInt is its decimal string.
const json = (x) => JSON.stringify(x, (_, y) => (typeof y === "bigint" ? String(y) : y));
// As shorn_decode writes it: keys in UTF-16 order (JavaScript's sort).
const sortKeys = (x) => Array.isArray(x) ? x.map(sortKeys)
  : x !== null && typeof x === "object" ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sortKeys(x[k])])) : x;
const canonical = (x) => json(sortKeys(JSON.parse(json(x))));

const pick = (expected, lib) => (typeof expected === "object" ? expected[lib] : expected);

for (const c of cases) {
  for (const [lib, { emit, validate }] of Object.entries(libraries)) {
    if (!(lib in c)) continue;
    const { schema, emit: emitHere } = c[lib] instanceof Emitted ? c[lib] : { schema: c[lib], emit };
    const line = { lib, name: c.name, throws: pick(c.throws, lib) ?? null };
    try {
      line.schema = JSON.stringify(emitHere(schema)); // the text a user passes to SQL
    } catch (e) {
      line.error = e.code ?? e.message; // ArkType's message is a dump of the context; its code names the cause.
      console.log(json(line));
      continue;
    }
    Object.assign(line, { signature: c.signature ?? null, compileError: c.compileError ?? null, jsonSchema: c.jsonSchema ?? null });
    const sample = (kind, x, expect) => {
      const result = validate(schema, x);
      const output = result ? result.output : x;
      return { kind, accepted: result !== null, json: json(output), expect: kind === "value" ? canonical(output) : expect };
    };
    line.samples = [
      ...(c.values ?? []).map((x) => sample("value", x, null)),
      ...(c.changed ?? []).map(([x, decoded]) => sample("changed", x, canonical(decoded))),
      ...(c.refused ?? []).map(([x, error]) => sample("refused", x, error)),
      ...(c.rejected ?? []).map((x) => sample("rejected", x, null)),
    ];
    console.log(json(line));
  }
}
