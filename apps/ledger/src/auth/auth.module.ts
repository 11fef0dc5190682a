import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { jwtSecret } from './jwt-secret';
import { JwtAuthGuard } from './jwt-auth.guard';

/** Bearer-token authentication and role checks for every route (architecture.md guarantee 12). */
@Module({
  imports: [JwtModule.register({ secret: jwtSecret(), signOptions: { algorithm: 'HS256' }, verifyOptions: { algorithms: ['HS256'] } })],
  providers: [{ provide: APP_GUARD, useClass: JwtAuthGuard }],
  exports: [JwtModule],
})
export class AuthModule {}
