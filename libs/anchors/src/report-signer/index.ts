export * from './requests';
export * from './server';
export * from './client';
