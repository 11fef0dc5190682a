import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { WalletController } from './wallet.controller';
import { WalletService } from './wallet.service';

/** Wallet matching (docs/reports.md §4): `POST/GET /reconciliation/wallet-files`. */
@Module({
  controllers: [WalletController],
  providers: [WalletService, QueryLogInterceptor],
})
export class WalletModule {}
