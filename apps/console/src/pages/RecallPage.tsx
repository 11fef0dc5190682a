/** Recall page: built in its own change (apps/console/README.md "Pages"). */
export function RecallPage() {
  return <h1>Recall</h1>;
}
