import { Module } from '@nestjs/common';
import { AsyncApiController } from './asyncapi.controller';
import { ConsoleStaticController } from './console-static.controller';
import { SchemasController } from './schemas.controller';

/** The files the API serves besides its data: the built console (`/console`), the AsyncAPI document (`/asyncapi`) and the topics' JSON Schemas (`/schemas`). */
@Module({ controllers: [AsyncApiController, ConsoleStaticController, SchemasController] })
export class StaticModule {}
