/** Shoe page: built in its own change (apps/console/README.md "Pages"). */
export function ShoePage() {
  return <h1>Shoe</h1>;
}
