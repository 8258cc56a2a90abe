import { Body, Controller, Param, Post } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import type { Session } from '../sessions/session.entity';
import { RevertService } from './revert.service';
import type { RevertInput } from './revert.service';

@Controller('session')
export class RevertController {
  constructor(private readonly reverts: RevertService) {}

  @Post(':sessionID/revert')
  @Operation('session.revert')
  revert(
    @CurrentInstance() instance: Instance,
    @Param('sessionID') sessionID: string,
    @Body() body: RevertInput,
  ): Promise<Session> {
    return this.reverts.revert(instance, sessionID, { messageID: body.messageID, partID: body.partID });
  }

  @Post(':sessionID/unrevert')
  @Operation('session.unrevert')
  unrevert(@CurrentInstance() instance: Instance, @Param('sessionID') sessionID: string): Promise<Session> {
    return this.reverts.unrevert(instance, sessionID);
  }
}
