import { Module } from '@nestjs/common';
import { AsyncApiController } from './asyncapi.controller';
import { ConsoleStaticController } from './console-static.controller';

/** The files the API serves besides its data: the built console (`/console`) and the AsyncAPI document (`/asyncapi`). */
@Module({ controllers: [AsyncApiController, ConsoleStaticController] })
export class StaticModule {}
