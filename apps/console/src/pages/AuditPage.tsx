/** Audit page: built in its own change (apps/console/README.md "Pages"). */
export function AuditPage() {
  return <h1>Audit</h1>;
}
