import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { ClockAttestor } from './clock-attestor';

/** The API's clock attestation at start and daily (docs/architecture.md §9, "Time the ledger vouches for"). */
@Module({
  imports: [KernelModule],
  providers: [ClockAttestor],
})
export class ClockModule {}
