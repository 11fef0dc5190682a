import { CommonEnv } from './common';
import { WithSigningSecret, WithTokenPolicy, WithTokenSigning } from './tokens';

/**
 * The configuration of the tools that mint tokens (`npm run token`, the simulator's and the
 * replayer's clients; docs/architecture.md §10): the same policy as the API, and a signing key —
 * `JWT_SECRET` (HS256) or `JWT_PRIVATE_KEY_FILE` (RS256), the development secret in development mode only.
 */
export class TokenToolEnv extends WithTokenSigning(WithSigningSecret(WithTokenPolicy(CommonEnv))) {}
