import { DynamicModule, Inject, Logger, Module, OnModuleInit } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TokenVerifier } from '@ledger/tokens';
import { RateLimitGuard } from './rate-limit.guard';
import { JwtAuthGuard } from './jwt-auth.guard';
import { announceKeys, type TokenAuthentication } from './token-authentication';

/** Injection token of the {@link TokenAuthentication} built at start. */
export const TOKEN_AUTHENTICATION = Symbol('TOKEN_AUTHENTICATION');

/**
 * Bearer-token authentication and role checks for every route (docs/architecture.md §10;
 * docs/guarantees.md §12). The keys are read once at start (`createLedgerApp`) and passed in; the
 * start logs where they came from, with a warning when it is the development secret.
 */
@Module({})
export class AuthModule implements OnModuleInit {
  constructor(@Inject(TOKEN_AUTHENTICATION) private readonly auth: TokenAuthentication) {}

  /** The module for one {@link TokenAuthentication}. */
  static forRoot(auth: TokenAuthentication): DynamicModule {
    return {
      module: AuthModule,
      providers: [
        { provide: TOKEN_AUTHENTICATION, useValue: auth },
        { provide: TokenVerifier, useValue: auth.verifier },
        // in this order: the rate limits count a request before its token is checked (an address without a token is limited too)
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: JwtAuthGuard },
      ],
      exports: [TokenVerifier],
    };
  }

  onModuleInit(): void {
    announceKeys(this.auth, new Logger('Auth'));
  }
}
