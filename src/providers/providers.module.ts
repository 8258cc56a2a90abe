import { Module } from '@nestjs/common';
import { ConfigModule } from '../config/config.module';
import { AuthStore } from './auth-store';
import { ProvidersController } from './providers.controller';
import { ProviderService } from './provider.service';

/** LLM providers, the model catalog and stored credentials: `/config/providers`, `/provider`, `/auth/{id}`. */
@Module({
  imports: [ConfigModule],
  controllers: [ProvidersController],
  providers: [ProviderService, AuthStore],
  exports: [ProviderService],
})
export class ProvidersModule {}
