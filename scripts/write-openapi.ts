/**
 * Writes the API's OpenAPI document to `docs/openapi.json` (`npm run -s openapi:write`, after
 * `npm run -s build`): the file the console's types are generated from (`npm run -s console:types`)
 * and the contract published for integrators. The app is built in Nest's preview mode: its routes
 * and schemas without connecting to PostgreSQL or Kafka. test/e2e/openapi-file.e2e.spec.ts checks
 * the file equals the document a running API serves at `/docs-json`.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { SwaggerModule } from '@nestjs/swagger';
import { loadConfig, LedgerApiEnv } from '@ledger/config';
import { AppModule } from '../apps/ledger/src/app.module';
import { tokenAuthentication } from '../apps/ledger/src/kernel/auth/token-authentication';
import { openApiDocument } from '../apps/ledger/src/bootstrap';

async function main(): Promise<void> {
  const config = loadConfig(LedgerApiEnv, { ...process.env, LEDGER_ENV: 'development' });
  const app = await NestFactory.create(AppModule.forRoot(config, tokenAuthentication(config)), { preview: true, logger: false });
  const doc = openApiDocument(app, SwaggerModule);
  const out = resolve(__dirname, '../../docs/openapi.json').replace('/dist/docs/', '/docs/');
  writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
  await app.close();
  console.log(`${out}: ${Object.keys(doc.paths).length} paths`);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
