import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../shoe-stream.writer';
import { TablesRegistry } from '../../kernel/tables/tables.registry';
import { OpenShoeCommand } from './open-shoe.command';

/**
 * Thin handler of {@link OpenShoeCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `OpenShoe`, append ShoeOpened (libs/shoe/src/decide/shoe-lifecycle.ts) with the expected
 * version.
 */
@CommandHandler(OpenShoeCommand)
export class OpenShoeHandler implements ICommandHandler<OpenShoeCommand, ShoeCommandResult> {
  constructor(
    private readonly stream: ShoeStreamWriter,
    private readonly tables: TablesRegistry,
  ) {}

  /** @throws ApiError 404 `TABLE.UNKNOWN` for a table the configuration lacks; what {@link ShoeStreamWriter.write} throws */
  async execute({ request, tableId, dealerId }: OpenShoeCommand): Promise<ShoeCommandResult> {
    const settings = this.tables.settingsOf(tableId);
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'OpenShoe', shoeId: request.shoeId, tableId, dealerId, settings }, ctx));
  }
}
