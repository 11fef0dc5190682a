/**
 * Mints a bearer token of the ledger API (docs/architecture.md §10):
 *   npm run -s token -- --role table-device --sub d1 --tables T-CLASSIC-01 [--ttl 8h]
 *   npm run -s token -- --role pit-manager --sub pm-1
 * Roles: table-device (must name its tables), betting-platform (optionally restricted to tables),
 * pit-manager, auditor. Claims `sub`, `role`, `tables`, `iss` (JWT_ISSUER), `aud` (JWT_AUDIENCE),
 * `iat`, `exp` (the lifetime at most JWT_MAX_LIFETIME_SECONDS). Signed RS256 with
 * JWT_PRIVATE_KEY_FILE (kid JWT_KEY_ID) or HS256 with JWT_SECRET; with neither, only in development
 * mode (LEDGER_ENV=development), with the public development secret and a warning on stderr.
 * Prints the token alone on stdout; a bad configuration or option exits 1 naming it.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, TokenToolEnv } from '@ledger/config';
import { loadSigningKey, mintToken } from '@ledger/tokens';
import { TOKEN_ROLES } from '../apps/ledger/src/kernel/auth/principal';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `90`, `90s`, `15m`, `8h`, `1d` → seconds. */
function parseTtl(value: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(value);
  if (!m || Number(m[1]) === 0) throw new InvalidArgumentError('expected a duration such as 900, 15m, 8h or 1d');
  return Number(m[1]) * UNIT_SECONDS[m[2] || 's'];
}

function parseTables(value: string): string[] {
  const ids = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length === 0 || !ids.every((id) => /^[A-Za-z0-9_.-]{1,64}$/.test(id))) throw new InvalidArgumentError('expected comma-separated table ids');
  return ids;
}

const program = new Command('token')
  .description('mint a bearer token for the ledger API')
  .addOption(new Option('--role <role>', 'role of the caller').choices(TOKEN_ROLES as string[]).makeOptionMandatory())
  .requiredOption('--sub <id>', 'actor id: device id, platform id or manager id')
  .option('--tables <ids>', 'comma-separated table ids the caller may act on (required for table-device)', parseTables)
  .option('--ttl <ttl>', 'lifetime, e.g. 15m, 8h (at most JWT_MAX_LIFETIME_SECONDS)', parseTtl, 8 * 3600)
  .action((o: { role: string; sub: string; tables?: string[]; ttl: number }) => {
    try {
      const config = loadConfig(TokenToolEnv, process.env);
      if (o.role === 'table-device' && !o.tables) program.error('error: a table-device token must name its tables (--tables T-CLASSIC-01,...)');
      if (o.ttl > config.JWT_MAX_LIFETIME_SECONDS) program.error(`error: --ttl ${o.ttl} s exceeds JWT_MAX_LIFETIME_SECONDS (${config.JWT_MAX_LIFETIME_SECONDS} s)`);
      const { key, developmentSecret } = loadSigningKey(config);
      if (developmentSecret) process.stderr.write('token: WARNING signed with the public development secret (LEDGER_ENV=development): only a development API accepts it\n');
      const token = mintToken({ sub: o.sub, role: o.role, tables: o.tables }, key, { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: o.ttl });
      process.stdout.write(token + '\n');
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      process.stderr.write(`token: ${err.message}\n`);
      process.exit(1);
    }
  });
program.parse();
