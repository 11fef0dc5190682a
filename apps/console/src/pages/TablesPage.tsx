/** Tables page: built in its own change (apps/console/README.md "Pages"). */
export function TablesPage() {
  return <h1>Tables</h1>;
}
