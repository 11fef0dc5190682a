import { parseInline, parseMarkdown } from '../../apps/console/src/lib/markdown';

describe('the Markdown of the AsyncAPI descriptions', () => {
  it('reads headings, paragraphs, lists, tables and fenced code', () => {
    const blocks = parseMarkdown('Intro line one\nline two.\n\n## Keys\n* `a` — one\n  continued\n* b\n\n| x | y |\n|---|---|\n| `1` | 2 |\n\n```\ncode *not* parsed\n```');
    expect(blocks.map((b) => b.t)).toEqual(['p', 'heading', 'ul', 'table', 'pre']);
    expect(blocks[0]).toEqual({ t: 'p', children: [{ t: 'text', text: 'Intro line one line two.' }] });
    expect(blocks[1]).toEqual({ t: 'heading', level: 2, children: [{ t: 'text', text: 'Keys' }] });
    expect(blocks[2]).toEqual({
      t: 'ul',
      items: [
        [
          { t: 'code', text: 'a' },
          { t: 'text', text: ' — one continued' },
        ],
        [{ t: 'text', text: 'b' }],
      ],
    });
    expect(blocks[3]).toEqual({ t: 'table', head: [[{ t: 'text', text: 'x' }], [{ t: 'text', text: 'y' }]], rows: [[[{ t: 'code', text: '1' }], [{ t: 'text', text: '2' }]]] });
    expect(blocks[4]).toEqual({ t: 'pre', text: 'code *not* parsed' });
  });
  it('reads inline code, bold, emphasis and links; a script address stays text', () => {
    expect(parseInline('the **table id** and _this_ [doc](https://example.org/x)')).toEqual([
      { t: 'text', text: 'the ' },
      { t: 'strong', children: [{ t: 'text', text: 'table id' }] },
      { t: 'text', text: ' and ' },
      { t: 'em', children: [{ t: 'text', text: 'this' }] },
      { t: 'text', text: ' ' },
      { t: 'link', href: 'https://example.org/x', children: [{ t: 'text', text: 'doc' }] },
    ]);
    expect(parseInline('[x](javascript:alert(1))')).toEqual([
      { t: 'text', text: '[x](javascript:alert(1)' },
      { t: 'text', text: ')' },
    ]);
    expect(parseInline('snake_case_name stays')).toEqual([{ t: 'text', text: 'snake_case_name stays' }]);
  });
});
