import { Inject, Injectable } from '@nestjs/common';
import type { ReadModel } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { camel } from '../kernel/camel';
import { READ_MODEL } from '../kernel/tokens';

/** A shoe's views as projected (`roads`, `shoe_state`, through the read model, `READ_MODEL`), in camelCase. */
@Injectable()
export class ShoeViewsService {
  constructor(@Inject(READ_MODEL) private readonly readModel: ReadModel) {}

  /** The roads of a shoe (schema `RoadsResponse`). @throws ApiError 404 `SHOE.NOT_FOUND` */
  async roads(shoeId: string) {
    const row = await this.readModel.roads.ofShoe(shoeId);
    if (!row) throw new ApiError('SHOE.NOT_FOUND', `no roads for shoe ${shoeId} (or not projected yet)`);
    // the big road as its type (libs/projections/src/roads/roads.ts `BigRoad`): the table holds its columns and leading ties apart
    return { ...camel(row), bigRoad: { leadingTies: row.leading_ties, columns: row.big_road } };
  }

  /** The projected state of a shoe. @throws ApiError 404 `SHOE.NOT_FOUND` */
  async shoeState(shoeId: string) {
    const row = await this.readModel.shoes.one(shoeId);
    if (!row) throw new ApiError('SHOE.NOT_FOUND', `no shoe ${shoeId} (or not projected yet)`);
    return camel(row);
  }
}
