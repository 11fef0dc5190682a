export * from './projection';
export * from './tables';
export * from './ledger-entries';
export * from './entry-folder';
