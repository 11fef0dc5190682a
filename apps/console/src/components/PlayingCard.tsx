import { parseCard } from '../lib/cards';

/**
 * A card drawn as a card: rank and suit symbol, red for hearts and diamonds, with an accessible
 * name ("9 of spades"). An unreadable code is shown as it is. `size="sm"` for dense tables.
 */
export function PlayingCard({ code, size = 'md' }: { code: string; size?: 'sm' | 'md' }) {
  const f = parseCard(code);
  if (!f)
    return (
      <span className={`card card-${size} card-unknown`} role="img" aria-label={`card ${code}`}>
        {code}
      </span>
    );
  return (
    <span className={`card card-${size} ${f.red ? 'card-red' : 'card-black'}`} role="img" aria-label={f.label} title={f.label} data-card={f.code}>
      <span aria-hidden="true" className="card-rank">
        {f.rank}
      </span>
      <span aria-hidden="true" className="card-suit">
        {f.symbol}
      </span>
    </span>
  );
}

/** A hand of cards in a row, labelled for screen readers by `label` ("Player"). */
export function Hand({ cards, label, size = 'md' }: { cards: readonly string[] | null | undefined; label: string; size?: 'sm' | 'md' }) {
  if (!cards || cards.length === 0) return <span className="muted">–</span>;
  return (
    <span className="hand" role="group" aria-label={label}>
      {cards.map((c, i) => (
        <PlayingCard key={`${i}-${c}`} code={c} size={size} />
      ))}
    </span>
  );
}
