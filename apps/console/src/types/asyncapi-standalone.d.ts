/**
 * The prebuilt browser bundle of @asyncapi/react-component (`browser/standalone/index.js`, UMD, with
 * its own React and the AsyncAPI parser bundled for the browser): the package's ES module build
 * imports `@asyncapi/parser`'s Node entry (`fs`, `util.promisify`), which Vite cannot bundle for the
 * browser (apps/console/src/pages/TopicsPage.tsx).
 */
declare module '@asyncapi/react-component/browser/standalone' {
  interface StandaloneProps {
    /** The AsyncAPI document (an object or its JSON/YAML text). */
    schema: unknown;
    config?: Record<string, unknown>;
  }
  const AsyncApiStandalone: {
    /** Renders into `container` (its own React root). */
    render(props: StandaloneProps, container: Element): void;
  };
  export default AsyncApiStandalone;
}
