import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { WalletController } from './wallet.controller';
import { WalletService } from './wallet.service';
import { WalletRetentionSweeper } from './wallet-retention';

/** Wallet matching (docs/reports.md §4): `POST/GET /reconciliation/wallet-files`, and the retention of the runs' items (docs/reports.md §4.5). */
@Module({
  controllers: [WalletController],
  providers: [WalletService, WalletRetentionSweeper, QueryLogInterceptor],
})
export class WalletModule {}
