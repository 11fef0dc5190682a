/**
 * Mints a bearer token for local use:
 *   npm run -s token -- --role pit-manager --sub pm-1 [--ttl 8h]
 * Roles: table-device, betting-platform, pit-manager, auditor. Signed HS256 with env JWT_SECRET
 * (or the development secret the service also falls back to). Prints the token alone on stdout.
 */
import { Command, Option } from 'commander';
import { sign } from 'jsonwebtoken';
import { jwtSecret } from '@ledger/tokens';
import { TOKEN_ROLES } from '../apps/ledger/src/auth/principal';

const program = new Command('token')
  .description('mint a bearer token for the ledger API (local use)')
  .addOption(new Option('--role <role>', 'role of the caller').choices(TOKEN_ROLES as string[]).makeOptionMandatory())
  .requiredOption('--sub <id>', 'actor id: device id, platform id or manager id')
  .option('--ttl <ttl>', 'lifetime, e.g. 15m, 8h, 30d', '8h')
  .action((o: { role: string; sub: string; ttl: string }) => {
    process.stdout.write(sign({ role: o.role }, jwtSecret(), { subject: o.sub, expiresIn: o.ttl as any, algorithm: 'HS256' }) + '\n');
  });
program.parse();
