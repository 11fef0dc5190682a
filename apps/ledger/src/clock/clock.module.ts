import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { ClockAttestor } from './clock-attestor';
import { ConfigurationAttestor } from './configuration-attestor';

/**
 * The API's attestations (ledger-wide events of the gaming day's stream): its clocks at start and
 * daily (docs/architecture.md §9, "Time the ledger vouches for"), and its configuration at start
 * (docs/significant-events.md, "Configuration at start").
 */
@Module({
  imports: [KernelModule],
  providers: [ClockAttestor, ConfigurationAttestor],
})
export class ClockModule {}
