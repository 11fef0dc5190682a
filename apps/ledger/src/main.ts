import 'reflect-metadata';
import { LedgerApiEnv, loadConfig, startFailureText } from '@ledger/config';
import { assertDatabaseReachable } from '@ledger/infra';
import { createLedgerApp } from './bootstrap';
import { httpTracingMiddleware, initTracing } from '@ledger/tracing';

/**
 * Starts the ledger API on `HOST`:`PORT` (default 127.0.0.1:3000). The configuration is read from
 * the environment once, here, and validated (docs/architecture.md §5): a bad or missing variable —
 * outside `LEDGER_ENV=development`, a missing signing key — stops the process with exit code 1 and
 * a message naming it; a database that does not answer (`DATABASE_URL`, and `MIGRATIONS_DATABASE_URL`
 * when it migrates) stops it the same way, with `STARTUP.DATABASE_UNREACHABLE`. SIGTERM/SIGINT: no new connections, the in-flight requests finish (at most
 * 10 s), the pools close, exit 0 (1 if requests had to be cut; docs/api-versioning.md "Shutdown").
 */
async function main(): Promise<void> {
  const config = loadConfig(LedgerApiEnv, process.env);
  await assertDatabaseReachable(config.DATABASE_URL, 'DATABASE_URL');
  if (config.RUN_MIGRATIONS) await assertDatabaseReachable(config.MIGRATIONS_DATABASE_URL, process.env.MIGRATIONS_DATABASE_URL ? 'MIGRATIONS_DATABASE_URL' : 'DATABASE_URL');
  const tracing = initTracing('ledger-api', config); // OpenTelemetry, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/architecture.md §11)
  const app = await createLedgerApp({ config, gracefulShutdown: true });
  if (tracing) app.use(httpTracingMiddleware());
  await app.listen(config.PORT, config.HOST);
}

main().catch((err: unknown) => {
  process.stderr.write(`ledger-api: ${startFailureText(err)}\n`);
  process.exit(1);
});
