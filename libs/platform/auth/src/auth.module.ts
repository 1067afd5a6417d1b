import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { AuthGuard } from './auth.guard';
import { type AuthOptions, ServiceTokenProvider, TokenVerifier } from './token-verifier';

/** Registers the global AuthGuard, the token verifier and this service's service-token provider. */
@Global()
@Module({})
export class AuthModule {
  static forRoot(options: AuthOptions & { service: string }): DynamicModule {
    const secret = options.serviceSecret ?? options.jwtSecret;
    return {
      module: AuthModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: TokenVerifier, useValue: new TokenVerifier(options) },
        { provide: ServiceTokenProvider, useValue: secret ? new ServiceTokenProvider(options.service, secret) : null },
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
      exports: [TokenVerifier, ServiceTokenProvider],
    };
  }
}
