import { Global, Module } from '@nestjs/common';
import { EventBus } from './event-bus.service';
import { EventRelay } from './event-relay.service';
import { EventsController } from './events.controller';

@Global()
@Module({
  controllers: [EventsController],
  providers: [EventBus, EventRelay],
  exports: [EventBus, EventRelay],
})
export class EventsModule {}
