import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * The OpenAPI version the API publishes (docs/api-versioning.md §6): 3.1, whose schemas are JSON
 * Schema 2020-12, so that "or null" is said the way every validator and generator reads it.
 */
export const OPENAPI_VERSION = '3.1.0';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys whose value is a map of name → schema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs']);
/** Keys whose value is one schema. */
const SCHEMA_ONE = new Set(['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else']);
/** Keys whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(['allOf', 'oneOf', 'anyOf', 'prefixItems']);
/** What describes a schema rather than constrains it: kept beside a `oneOf` wrapper, not inside it. */
const ANNOTATIONS = ['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly'] as const;

/**
 * One schema in OpenAPI 3.1 form (a deep copy; the input is not changed):
 * - `nullable: true` beside a `type` becomes `type: [type, "null"]` (and `null` joins an `enum`);
 * - `nullable: true` beside a reference (`$ref`, or @nestjs/swagger's `type: object, allOf: [$ref]`)
 *   becomes `oneOf: [<the reference>, {type: "null"}]`, its description kept beside the `oneOf` —
 *   OpenAPI 3.0's `nullable` never widened a referenced schema, so strict validators refused null there;
 * - `example: x` becomes `examples: [x]` (JSON Schema's keyword; `example` is deprecated in 3.1).
 * Nested schemas (properties, items, allOf/oneOf/anyOf, additionalProperties, …) are converted too.
 */
export function schemaTo31(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(k) && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, schemaTo31(s)]));
    else if (SCHEMA_ONE.has(k)) out[k] = schemaTo31(v);
    else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(schemaTo31);
    else out[k] = v;
  }
  if ('example' in out) {
    if (!('examples' in out)) out.examples = [out.example];
    delete out.example;
  }
  if (out.nullable !== true) {
    delete out.nullable;
    return out;
  }
  delete out.nullable;
  const reference = typeof out.$ref === 'string' || (Array.isArray(out.allOf) && out.allOf.length === 1 && out.type === 'object' && !out.properties);
  if (reference || out.type === undefined) {
    const inner: Json = typeof out.$ref === 'string' ? { $ref: out.$ref } : Array.isArray(out.allOf) && out.allOf.length === 1 ? (out.allOf[0] as Json) : withoutAnnotations(out);
    const wrapper: Json = { oneOf: [inner, { type: 'null' }] };
    for (const a of ANNOTATIONS) if (a in out) wrapper[a] = out[a];
    return wrapper;
  }
  out.type = Array.isArray(out.type) ? [...new Set([...(out.type as unknown[]), 'null'])] : [out.type, 'null'];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

const withoutAnnotations = (s: Json): Json => Object.fromEntries(Object.entries(s).filter(([k]) => !(ANNOTATIONS as readonly string[]).includes(k)));

/** Every schema of a map of media types (`content`), converted. */
function contentTo31(content: unknown): void {
  if (!isObject(content)) return;
  for (const media of Object.values(content)) {
    if (!isObject(media)) continue;
    if ('schema' in media) media.schema = schemaTo31(media.schema);
  }
}

/** The schemas of a parameter, request body, response or header (in place). */
function holderTo31(h: unknown): void {
  if (!isObject(h)) return;
  if ('schema' in h) h.schema = schemaTo31(h.schema);
  contentTo31(h.content);
  if (isObject(h.headers)) for (const header of Object.values(h.headers)) holderTo31(header);
}

/**
 * `doc` (as @nestjs/swagger writes it, OpenAPI 3.0) in OpenAPI 3.1 form (docs/api-versioning.md §6):
 * `openapi: 3.1.0`, and every schema — components, parameters, request bodies, responses, headers —
 * converted by {@link schemaTo31}. Changed in place and returned.
 */
export function toOpenApi31(doc: OpenAPIObject): OpenAPIObject {
  doc.openapi = OPENAPI_VERSION;
  const c = doc.components ?? {};
  if (c.schemas) for (const [name, s] of Object.entries(c.schemas)) c.schemas[name] = schemaTo31(s) as (typeof c.schemas)[string];
  for (const group of [c.parameters, c.requestBodies, c.responses, c.headers]) if (group) for (const h of Object.values(group)) holderTo31(h);
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Json)) {
      if (!isObject(op)) continue;
      if (Array.isArray(op.parameters)) op.parameters.forEach(holderTo31);
      holderTo31(op.requestBody);
      if (isObject(op.responses)) for (const r of Object.values(op.responses)) holderTo31(r);
    }
  }
  return doc;
}
