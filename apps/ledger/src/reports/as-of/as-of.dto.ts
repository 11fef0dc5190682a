import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, registerDecorator, type ValidationOptions } from 'class-validator';
import { isAsOfText } from './as-of';

/** The OpenAPI description of every `asOf` parameter (docs/reports.md §3). */
export const AS_OF_DESCRIPTION =
  'as the ledger knew it then (docs/reports.md §3): a global position (integer ≥ 0) or an ISO-8601 time (the greatest global position recorded at or before it); 409 ASOF.NOT_PROJECTED while the read model has not applied every event up to it';

/** An `asOf` value (see {@link isAsOfText}). */
export const IsAsOf = (o?: ValidationOptions) => (object: object, propertyName: string) =>
  registerDecorator({
    name: 'isAsOf',
    target: object.constructor,
    propertyName,
    options: { message: `${propertyName} must be a global position (integer 0..2^63-1) or an ISO-8601 time`, ...o },
    validator: { validate: isAsOfText },
  });

/** Query of a read route whose only parameter is `asOf` (recall, one settlement). */
export class AsOfQuery {
  @ApiPropertyOptional({ description: AS_OF_DESCRIPTION, example: '2026-01-31T23:59:59Z' }) @IsOptional() @IsAsOf() asOf?: string;
}
