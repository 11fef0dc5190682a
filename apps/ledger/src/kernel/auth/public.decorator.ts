import { SetMetadata } from '@nestjs/common';
import { PUBLIC_KEY } from './jwt-auth.guard';

/** Marks a route as open without a token (health check only). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);
