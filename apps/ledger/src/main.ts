import 'reflect-metadata';
import { ConfigError, LedgerApiEnv, loadConfig } from '@ledger/config';
import { createLedgerApp } from './bootstrap';

/**
 * Starts the ledger API on `HOST`:`PORT` (default 127.0.0.1:3000). The configuration is read from
 * the environment once, here, and validated (docs/architecture.md §5): a bad or missing variable —
 * outside `LEDGER_ENV=development`, a missing signing key — stops the process with exit code 1 and
 * a message naming it.
 */
async function main(): Promise<void> {
  const config = loadConfig(LedgerApiEnv, process.env);
  const app = await createLedgerApp({ config });
  await app.listen(config.PORT, config.HOST);
}

main().catch((err: unknown) => {
  const text = err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`ledger-api: ${text}\n`);
  process.exit(1);
});
