import type { ReactNode } from 'react';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** Keywords shown as facts next to a schema's type (JSON Schema draft-07). */
const FACTS = ['format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'uniqueItems', 'default'] as const;

/** Deepest nesting drawn; deeper parts (and cycles) are cut with a note. */
const MAX_DEPTH = 10;

function typeOf(s: Obj): string {
  if (Array.isArray(s.type)) return s.type.join(' | ');
  if (typeof s.type === 'string') return s.type;
  if (s.const !== undefined) return 'const';
  if (s.enum) return 'enum';
  if (s.oneOf) return 'one of';
  if (s.anyOf) return 'any of';
  if (s.allOf) return 'all of';
  if (s.properties) return 'object';
  return 'any';
}

/**
 * A JSON Schema drawn as a nested list (the Topics page's payload and headers schemas): each
 * property with its type, required mark, facts (format, bounds, pattern), enum or const,
 * description; `items`, `oneOf` / `anyOf` / `allOf`, `additionalProperties` and `definitions`
 * nested (definitions collapsed). Text only: descriptions are never rendered as HTML. Cycles and
 * nesting beyond {@link MAX_DEPTH} are cut with a note.
 */
export function SchemaView({ schema, name }: { schema: Obj; name: string }) {
  return (
    <ul className="schema" aria-label={`Schema of ${name}`}>
      <SchemaNode schema={schema} name={name} required={false} depth={0} seen={new Set()} />
    </ul>
  );
}

function SchemaNode({ schema: s, name, required, depth, seen }: { schema: Obj; name: string; required: boolean; depth: number; seen: ReadonlySet<object> }): ReactNode {
  if (seen.has(s) || depth > MAX_DEPTH)
    return (
      <li>
        <code>{name}</code> <span className="muted">(as above: {seen.has(s) ? 'refers to itself' : 'nested deeper'})</span>
      </li>
    );
  const inner = new Set(seen).add(s);
  const props = Object.entries(obj(s.properties));
  const req = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const facts = FACTS.filter((k) => s[k] !== undefined).map((k) => `${k} ${JSON.stringify(s[k])}`);
  const combos = (['oneOf', 'anyOf', 'allOf'] as const).filter((k) => Array.isArray(s[k]));
  const defs = Object.entries(obj(s.definitions ?? s.$defs));
  const items = obj(s.items);
  const extra = s.additionalProperties;
  return (
    <li>
      <code>{name}</code> <span className="schema-type">{typeOf(s)}</span>
      {required ? <span className="bad"> required</span> : null}
      {facts.length ? <span className="muted"> · {facts.join(' · ')}</span> : null}
      {s.const !== undefined ? (
        <>
          {' '}
          = <code>{JSON.stringify(s.const)}</code>
        </>
      ) : null}
      {Array.isArray(s.enum) ? (
        <span>
          {' '}
          one of{' '}
          {(s.enum as unknown[]).map((v, i) => (
            <span key={i}>
              {i ? ', ' : ''}
              <code>{JSON.stringify(v)}</code>
            </span>
          ))}
        </span>
      ) : null}
      {typeof s.title === 'string' ? <strong> {s.title}</strong> : null}
      {typeof s.description === 'string' ? (
        <div className="muted" style={{ whiteSpace: 'pre-wrap' }}>
          {s.description}
        </div>
      ) : null}
      {props.length || Object.keys(items).length || combos.length || defs.length || (extra && typeof extra === 'object') ? (
        <ul>
          {props.map(([k, v]) => (
            <SchemaNode key={k} schema={obj(v)} name={k} required={req.has(k)} depth={depth + 1} seen={inner} />
          ))}
          {Object.keys(items).length ? <SchemaNode schema={items} name="[items]" required={false} depth={depth + 1} seen={inner} /> : null}
          {extra && typeof extra === 'object' ? <SchemaNode schema={obj(extra)} name="[other keys]" required={false} depth={depth + 1} seen={inner} /> : null}
          {combos.map((k) => (s[k] as unknown[]).map((v, i) => <SchemaNode key={`${k}${i}`} schema={obj(v)} name={`${k}[${i}]`} required={false} depth={depth + 1} seen={inner} />))}
          {defs.length ? (
            <li>
              <details>
                <summary>
                  Definitions ({defs.length}): {defs.map(([k]) => k).join(', ')}
                </summary>
                <ul>
                  {defs.map(([k, v]) => (
                    <SchemaNode key={k} schema={obj(v)} name={k} required={false} depth={depth + 1} seen={inner} />
                  ))}
                </ul>
              </details>
            </li>
          ) : null}
        </ul>
      ) : null}
    </li>
  );
}
