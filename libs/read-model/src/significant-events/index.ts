export * from './projection';
export * from './tables';
