import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { ValidationError, issue } from '../common/errors';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import type { Session } from '../sessions/session.entity';
import type { MessageWithParts, Part } from './message.entity';
import { MessageService } from './message.service';

@Controller('session/:sessionID')
export class MessagesController {
  constructor(private readonly messages: MessageService) {}

  @Get('message')
  @Operation('session.messages')
  list(@Param('sessionID') sessionID: string, @Query('limit') limit?: string): Promise<MessageWithParts[]> {
    return this.messages.list(sessionID, { limit: limit === undefined ? undefined : Number(limit) });
  }

  @Get('message/:messageID')
  @Operation('session.message')
  get(@Param('sessionID') sessionID: string, @Param('messageID') messageID: string): Promise<MessageWithParts> {
    return this.messages.get(sessionID, messageID);
  }

  @Delete('message/:messageID/part/:partID')
  @Operation('part.delete')
  async deletePart(
    @Param('sessionID') sessionID: string,
    @Param('messageID') messageID: string,
    @Param('partID') partID: string,
  ): Promise<boolean> {
    await this.messages.removePart(sessionID, messageID, partID);
    return true;
  }

  @Patch('message/:messageID/part/:partID')
  @Operation('part.update')
  async updatePart(
    @Param('sessionID') sessionID: string,
    @Param('messageID') messageID: string,
    @Param('partID') partID: string,
    @Body() part: Part,
  ): Promise<Part> {
    const expected = { id: partID, messageID, sessionID };
    const mismatched = (Object.keys(expected) as (keyof typeof expected)[]).filter((key) => part[key] !== expected[key]);
    if (mismatched.length > 0) {
      throw new ValidationError(mismatched.map((key) => issue([key], `Part mismatch: must equal the path's ${key === 'id' ? 'partID' : key}`)), part);
    }
    await this.messages.get(sessionID, messageID);
    return this.messages.updatePart(part);
  }

  @Post('fork')
  @Operation('session.fork')
  fork(
    @CurrentInstance() instance: Instance,
    @Param('sessionID') sessionID: string,
    @Body() body: { messageID?: string } | undefined,
  ): Promise<Session> {
    return this.messages.fork(instance, sessionID, body?.messageID);
  }
}
