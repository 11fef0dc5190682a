export * from './projection';
export * from './tables';
export * from './roads';
