/** Reconciliation page: built in its own change (apps/console/README.md "Pages"). */
export function ReconciliationPage() {
  return <h1>Reconciliation</h1>;
}
