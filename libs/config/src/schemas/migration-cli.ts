import { CommonEnv, WithDatabase } from './common';

/** The configuration of `npm run migration:run` (the TypeORM CLI; docs/architecture.md §5). */
export class MigrationCliEnv extends WithDatabase(CommonEnv) {}
