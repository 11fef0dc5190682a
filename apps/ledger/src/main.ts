import 'reflect-metadata';
import { ConfigError, LedgerApiEnv, loadConfig } from '@ledger/config';
import { createLedgerApp } from './bootstrap';
import { httpTracingMiddleware, initTracing } from '@ledger/tracing';

/**
 * Starts the ledger API on `HOST`:`PORT` (default 127.0.0.1:3000). The configuration is read from
 * the environment once, here, and validated (docs/architecture.md §5): a bad or missing variable —
 * outside `LEDGER_ENV=development`, a missing signing key — stops the process with exit code 1 and
 * a message naming it. SIGTERM/SIGINT: no new connections, the in-flight requests finish (at most
 * 10 s), the pools close, exit 0 (1 if requests had to be cut; docs/api-versioning.md "Shutdown").
 */
async function main(): Promise<void> {
  const config = loadConfig(LedgerApiEnv, process.env);
  const tracing = initTracing('ledger-api', config); // OpenTelemetry, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/architecture.md §11)
  const app = await createLedgerApp({ config, gracefulShutdown: true });
  if (tracing) app.use(httpTracingMiddleware());
  await app.listen(config.PORT, config.HOST);
}

main().catch((err: unknown) => {
  const text = err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`ledger-api: ${text}\n`);
  process.exit(1);
});
