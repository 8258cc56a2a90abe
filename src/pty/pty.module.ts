import { Module } from '@nestjs/common';
import { PtyConnectGateway } from './pty-connect.gateway';
import { PtyController } from './pty.controller';
import { PtyService } from './pty.service';

/** Terminals (`/pty*`): node-pty processes per instance, attached over WebSocket. */
@Module({
  controllers: [PtyController],
  providers: [PtyService, PtyConnectGateway],
})
export class PtyModule {}
