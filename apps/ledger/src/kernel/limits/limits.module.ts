import { Global, Module, type DynamicModule } from '@nestjs/common';
import { LIMITS, LimitsLifecycle, type LimitsBackend } from './limits-backend';

/**
 * Serves the API's {@link LimitsBackend} (in memory or shared through Redis, docs/architecture.md
 * §10) to every module under {@link LIMITS}, and closes it when the app shuts down.
 */
@Global()
@Module({})
export class LimitsModule {
  /** @param limits the backend `createLedgerApp` built from the configuration (`limitsBackend`) */
  static forRoot(limits: LimitsBackend): DynamicModule {
    return { module: LimitsModule, providers: [{ provide: LIMITS, useValue: limits }, LimitsLifecycle], exports: [LIMITS] };
  }
}
