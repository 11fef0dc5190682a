/** Topics page: built in its own change (apps/console/README.md "Pages"). */
export function TopicsPage() {
  return <h1>Topics</h1>;
}
