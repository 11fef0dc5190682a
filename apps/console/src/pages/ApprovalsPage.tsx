/** Approvals page: built in its own change (apps/console/README.md "Pages"). */
export function ApprovalsPage() {
  return <h1>Approvals</h1>;
}
