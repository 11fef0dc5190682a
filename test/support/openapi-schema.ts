import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** An OpenAPI 3.0 document, as far as the checks need it. */
export interface OpenApiDoc {
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: { readonly schemas: Record<string, unknown> };
}

/**
 * OpenAPI 3.0 schema → JSON Schema 2020-12: `nullable: true` becomes "or null" (with an `allOf`
 * `$ref` too, which Ajv's own `nullable` does not cover), refs point at `$defs`, and an object with
 * declared properties and no `additionalProperties` admits no others (so a field the API answers
 * but the document does not name fails the check).
 */
function toJsonSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toJsonSchema);
  if (!s || typeof s !== 'object') return s;
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s as Record<string, unknown>)) {
    if (k === 'nullable' || k === 'example') continue;
    if (k === '$ref' && typeof v === 'string') o.$ref = v.replace('#/components/schemas/', '#/$defs/');
    else if (k === 'properties' || k === '$defs') o[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([p, x]) => [p, toJsonSchema(x)]));
    else o[k] = toJsonSchema(v);
  }
  if (o.properties && o.additionalProperties === undefined) o.additionalProperties = false;
  if (o.allOf && o.type === 'object') delete o.type;
  if ((s as { nullable?: boolean }).nullable) {
    if (Array.isArray(o.enum)) o.enum = [...(o.enum as unknown[]), null];
    return { anyOf: [{ type: 'null' }, o] };
  }
  return o;
}

/**
 * Validates answers of the API against the schemas of its own OpenAPI document
 * (`components.schemas`), strictly: every field named and typed, no field undocumented.
 * @returns `check(name, value)`: the Ajv errors as text, `[]` when the value fits
 */
export function schemaChecker(doc: OpenApiDoc): (name: string, value: unknown) => string[] {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const defs = Object.fromEntries(Object.entries(doc.components.schemas).map(([n, x]) => [n, toJsonSchema(x)]));
  const cache = new Map<string, ValidateFunction>();
  return (name, value) => {
    if (!(name in defs)) return [`no schema ${name} in the document`];
    let v = cache.get(name);
    if (!v) {
      v = ajv.compile({ $defs: defs, $ref: `#/$defs/${name}` });
      cache.set(name, v);
    }
    return v(value) ? [] : (v.errors ?? []).slice(0, 20).map((e) => `${name}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  };
}

/** The schema name a route's 2xx JSON answer refers to (`GET /shoes` → `ShoesPage`), or null. */
export function responseSchemaOf(doc: OpenApiDoc, method: string, path: string): string | null {
  const op = doc.paths[path]?.[method.toLowerCase()] as { responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> } | undefined;
  for (const [status, r] of Object.entries(op?.responses ?? {})) {
    const ref = status.startsWith('2') ? r.content?.['application/json']?.schema?.$ref : undefined;
    if (ref) return ref.replace('#/components/schemas/', '');
  }
  return null;
}
