/**
 * The AsyncAPI document of `GET /asyncapi` made ready to draw (apps/console/src/pages/TopicsPage.tsx,
 * which says why the console draws it itself rather than with @asyncapi/react-component). The API
 * already inlined the document's file `$ref`s; here its local `$ref`s (`#/components/messages/X`,
 * `#/channels/…`, `#/…/definitions/Y`) are resolved to the objects they point at, and the document
 * is marked parsed (`x-parser-spec-parsed`, as the AsyncAPI parser marks what it has resolved).
 * Nothing is validated here: the document is the API's own, checked by its tests (test/asyncapi).
 * Pure (no DOM): unit-tested in test/console/asyncapi.unit.spec.ts.
 */

/** Reads a local JSON pointer (`#/a/b~1c`) in `root`. @throws Error when it names nothing */
function pointer(root: unknown, ref: string): unknown {
  const tokens = ref
    .slice(2)
    .split('/')
    .map((t) => decodeURIComponent(t).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = root;
  for (const t of ref === '#' || ref === '#/' ? [] : tokens) {
    if (!node || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, t)) throw new Error(`$ref ${ref}: not in the document`);
    node = (node as Record<string, unknown>)[t];
  }
  return node;
}

/**
 * `doc` with every local `$ref` replaced by (a resolved copy of) its target, siblings of the
 * `$ref` kept. The same target is resolved once and shared, so a schema that refers to itself
 * becomes a cycle of objects, not an endless copy.
 * @throws Error on a `$ref` to a file or URL (the API inlines those) or to nothing
 */
export function dereference<T>(doc: T): T {
  const done = new Map<string, unknown>();
  const resolving = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const o = node as Record<string, unknown>;
    if (typeof o.$ref === 'string') {
      const ref = o.$ref;
      if (!ref.startsWith('#')) throw new Error(`$ref ${ref}: only local refs are resolved (the API inlines files)`);
      const { $ref: _r, ...siblings } = o;
      let target = done.get(ref);
      if (target === undefined) {
        if (resolving.has(ref)) throw new Error(`$ref ${ref}: refers to itself through refs alone`);
        resolving.add(ref);
        const raw = pointer(doc, ref);
        if (raw && typeof raw === 'object' && !Array.isArray(raw) && typeof (raw as { $ref?: unknown }).$ref !== 'string') {
          const shell: Record<string, unknown> = {};
          done.set(ref, shell);
          Object.assign(shell, walk(raw));
          target = shell;
        } else {
          target = walk(raw);
          done.set(ref, target);
        }
        resolving.delete(ref);
      }
      return Object.keys(siblings).length && target && typeof target === 'object' ? { ...(target as object), ...(walk(siblings) as object) } : target;
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, walk(v)]));
  };
  return walk(doc) as T;
}

/** The document ready to draw: dereferenced and marked parsed. @throws Error when it is not an AsyncAPI document */
export function forRenderer(doc: unknown): Record<string, unknown> {
  if (!doc || typeof doc !== 'object' || typeof (doc as { asyncapi?: unknown }).asyncapi !== 'string') throw new Error('not an AsyncAPI document (no "asyncapi" version)');
  return { ...(dereference(doc) as Record<string, unknown>), 'x-parser-spec-parsed': true };
}
