import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BET_CODES, builtInPaytable, MAX_STAKE_MINOR } from '@ledger/rules';
import type { TableSettings } from '@ledger/events';
import type { LedgerApiEnv } from '@ledger/config';
import { ApiError } from '../api-error';
import { TableConfigDto, TablesFileDto } from './table-config.dto';

/**
 * The configured tables (file `config/tables.json`, or env `TABLES_FILE`), validated at start:
 * every limit names a bet of the variant with 1 ≤ min ≤ max ≤ 2^53−1 minor units, and the
 * paytable exists for the variant. A shoe snapshots its table's settings when it opens.
 */
@Injectable()
export class TablesRegistry {
  private readonly logger = new Logger(TablesRegistry.name);
  private readonly tables = new Map<string, TableConfigDto>();

  constructor(config: ConfigService<LedgerApiEnv, true>) {
    const file = resolve(config.get('TABLES_FILE', { infer: true }));
    const parsed = plainToInstance(TablesFileDto, JSON.parse(readFileSync(file, 'utf8')));
    const errors = validateSync(parsed, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length) throw new Error(`invalid tables file ${file}: ${errors.map((e) => e.toString()).join('; ')}`);
    for (const t of parsed.tables) {
      const pt = builtInPaytable(t.paytableRef);
      if (pt.variant !== t.variant) throw new Error(`table ${t.tableId}: paytable ${t.paytableRef} is for ${pt.variant}`);
      for (const code of BET_CODES[t.variant]) {
        const l = t.limits[code];
        if (!l) throw new Error(`table ${t.tableId}: no limits for ${code}`);
        const min = BigInt(l.min);
        const max = BigInt(l.max);
        if (min < 1n || max < min || max > MAX_STAKE_MINOR) throw new Error(`table ${t.tableId}: bad limits for ${code}`);
      }
      this.tables.set(t.tableId, t);
    }
    this.logger.log(`loaded ${this.tables.size} tables from ${file}`);
  }

  /** All configured tables. */
  list(): TableConfigDto[] {
    return [...this.tables.values()];
  }

  /** A table's configuration. @throws ApiError 404 `TABLE.UNKNOWN` */
  get(tableId: string): TableConfigDto {
    const t = this.tables.get(tableId);
    if (!t) throw new ApiError('TABLE.UNKNOWN', `no table ${tableId}`, { tableId });
    return t;
  }

  /** The settings a new shoe of this table snapshots into its ShoeOpened event. @throws ApiError `TABLE.UNKNOWN` */
  settingsOf(tableId: string): TableSettings {
    const t = this.get(tableId);
    return {
      variant: t.variant,
      decks: t.decks,
      virtualTable: t.virtualTable,
      paytableRef: t.paytableRef,
      pairBetsRequireMainBet: t.pairBetsRequireMainBet,
      currency: t.currency,
      limits: t.limits,
    };
  }
}
