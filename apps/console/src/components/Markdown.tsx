import { createElement, type ReactNode } from 'react';
import { parseMarkdown, type Block, type Inline } from '../lib/markdown';

function inline(nodes: readonly Inline[]): ReactNode[] {
  return nodes.map((n, i) => {
    switch (n.t) {
      case 'text':
        return n.text;
      case 'code':
        return <code key={i}>{n.text}</code>;
      case 'strong':
        return <strong key={i}>{inline(n.children)}</strong>;
      case 'em':
        return <em key={i}>{inline(n.children)}</em>;
      case 'link':
        return (
          <a key={i} href={n.href} rel="noopener noreferrer">
            {inline(n.children)}
          </a>
        );
    }
  });
}

function block(b: Block, i: number, headingBase: number): ReactNode {
  switch (b.t) {
    case 'heading':
      return createElement(`h${Math.min(6, headingBase + b.level - 1)}`, { key: i }, inline(b.children));
    case 'p':
      return <p key={i}>{inline(b.children)}</p>;
    case 'pre':
      return (
        <pre key={i} className="json">
          {b.text}
        </pre>
      );
    case 'table':
      return (
        <div key={i} className="scroll" role="region" aria-label="Table of the description" tabIndex={0}>
          <table className="data">
            <thead>
              <tr>
                {b.head.map((c, j) => (
                  <th key={j} scope="col">
                    {inline(c)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {b.rows.map((r, j) => (
                <tr key={j}>
                  {r.map((c, k) => (
                    <td key={k}>{inline(c)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    default: {
      const items = b.items.map((it, j) => <li key={j}>{inline(it)}</li>);
      return b.t === 'ul' ? <ul key={i}>{items}</ul> : <ol key={i}>{items}</ol>;
    }
  }
}

/**
 * Markdown rendered as React elements (src/lib/markdown.ts: never as an HTML string); its headings
 * start at `headingBase` (default h4) so that they sit under the page's own.
 */
export function Markdown({ text, headingBase = 4 }: { text: string; headingBase?: number }) {
  return <div className="markdown">{parseMarkdown(text).map((b, i) => block(b, i, headingBase))}</div>;
}
