/**
 * A small Markdown reader for the AsyncAPI document's descriptions (CommonMark as the project writes
 * them): headings, paragraphs, bullet and numbered lists, pipe tables, fenced code, and inline code, bold,
 * emphasis and links. It returns a tree of plain data that the page renders as React elements: no
 * HTML string is ever produced or injected, so a description cannot run script. Anything else is
 * kept as text. Pure: unit-tested in test/console/markdown.unit.spec.ts.
 */

/** An inline run of text. */
export type Inline =
  | { readonly t: 'text'; readonly text: string }
  | { readonly t: 'code'; readonly text: string }
  | { readonly t: 'strong' | 'em'; readonly children: Inline[] }
  | { readonly t: 'link'; readonly href: string; readonly children: Inline[] };

/** A block of a description. */
export type Block =
  | { readonly t: 'heading'; readonly level: number; readonly children: Inline[] }
  | { readonly t: 'p'; readonly children: Inline[] }
  | { readonly t: 'ul' | 'ol'; readonly items: Inline[][] }
  | { readonly t: 'pre'; readonly text: string }
  | { readonly t: 'table'; readonly head: Inline[][]; readonly rows: Inline[][][] };

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)|(?<![\w*])[*_]([^*_]+)[*_](?![\w*])/;

/** Only web and relative addresses become links (never `javascript:` and the like). */
function safeHref(href: string): string | null {
  return /^(https?:\/\/|\/|#|\.{0,2}\/)/i.test(href) || /^[\w.-]+(\/[\w.#-]*)*$/.test(href) ? href : null;
}

/** Inline Markdown of one block's text. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let rest = text;
  for (let m = INLINE.exec(rest); m; m = INLINE.exec(rest)) {
    if (m.index > 0) out.push({ t: 'text', text: rest.slice(0, m.index) });
    if (m[1] !== undefined) out.push({ t: 'code', text: m[1] });
    else if (m[2] !== undefined) out.push({ t: 'strong', children: parseInline(m[2]) });
    else if (m[3] !== undefined) {
      const href = safeHref(m[4]);
      out.push(href ? { t: 'link', href, children: parseInline(m[3]) } : { t: 'text', text: m[0] });
    } else out.push({ t: 'em', children: parseInline(m[5]) });
    rest = rest.slice(m.index + m[0].length);
  }
  if (rest) out.push({ t: 'text', text: rest });
  return out;
}

const BULLET = /^\s*[-*+]\s+(.*)$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;

/** The cells of a pipe-table row (`| a | b |`), inline-parsed. */
function cells(line: string): Inline[][] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => parseInline(c.trim()));
}
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;

/** The blocks of a Markdown text. */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
    } else if (/^\s*```/.test(line)) {
      const body: string[] = [];
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) body.push(lines[i]);
      i++;
      blocks.push({ t: 'pre', text: body.join('\n') });
    } else if (/^#{1,6}\s/.test(line)) {
      const m = /^(#{1,6})\s+(.*?)\s*#*$/.exec(line)!;
      blocks.push({ t: 'heading', level: m[1].length, children: parseInline(m[2]) });
      i++;
    } else if (TABLE_ROW.test(line)) {
      const rows: string[] = [];
      for (; i < lines.length && TABLE_ROW.test(lines[i]); i++) rows.push(lines[i]);
      const body = rows.slice(1).filter((r) => !/^\s*\|[\s:|-]+\|\s*$/.test(r));
      blocks.push({ t: 'table', head: cells(rows[0]), rows: body.map(cells) });
    } else if (BULLET.test(line) || NUMBERED.test(line)) {
      const kind = BULLET.test(line) ? BULLET : NUMBERED;
      const items: string[] = [];
      for (; i < lines.length && lines[i].trim() !== ''; i++) {
        const m = kind.exec(lines[i]);
        if (m) items.push(m[1]);
        else if (items.length) items[items.length - 1] += ` ${lines[i].trim()}`;
      }
      blocks.push({ t: kind === BULLET ? 'ul' : 'ol', items: items.map(parseInline) });
    } else {
      const para: string[] = [];
      for (; i < lines.length && lines[i].trim() !== '' && !/^\s*```/.test(lines[i]) && !/^#{1,6}\s/.test(lines[i]) && !BULLET.test(lines[i]) && !TABLE_ROW.test(lines[i]); i++) para.push(lines[i].trim());
      blocks.push({ t: 'p', children: parseInline(para.join(' ')) });
    }
  }
  return blocks;
}
