import 'reflect-metadata';
import { createLedgerApp } from './bootstrap';

/** Starts the ledger API on 127.0.0.1:`PORT` (default 3000). */
async function main(): Promise<void> {
  const app = await createLedgerApp();
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, process.env.HOST ?? '127.0.0.1');
}

void main();
