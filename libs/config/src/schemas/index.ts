import { LedgerApiEnv } from './ledger-api';
import { MigrationCliEnv } from './migration-cli';
import { ProjectorEnv } from './projector';
import { RelayEnv } from './relay';
import { RepublishEnv } from './republish';
import { SignerEnv } from './signer';
import { TokenToolEnv } from './token-tool';
import { VerifyEnv } from './verify';

export * from './common';
export * from './tracing';
export * from './anchors';
export * from './edge';
export * from './limits';
export * from './tokens';
export * from './record-signing';
export * from './ledger-api';
export * from './gaming-day-close';
export * from './wallet';
export * from './relay';
export * from './republish';
export * from './projector';
export * from './token-tool';
export * from './migration-cli';
export * from './verify';
export * from './signer';

/** Every process's schema and the name docs/configuration.md gives it ("used by"). */
export const CONFIG_SCHEMAS: ReadonlyArray<{ readonly schema: Function; readonly usedBy: string }> = [
  { schema: LedgerApiEnv, usedBy: 'API' },
  { schema: RelayEnv, usedBy: 'relay' },
  { schema: ProjectorEnv, usedBy: 'projector' },
  { schema: TokenToolEnv, usedBy: '`npm run token`' },
  { schema: MigrationCliEnv, usedBy: '`npm run migration:run`' },
  { schema: VerifyEnv, usedBy: '`npm run -s verify`' },
  { schema: RepublishEnv, usedBy: '`npm run -s republish`' },
  { schema: SignerEnv, usedBy: '`npm run signer`' },
];
