import { Body, Controller, Logger, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentInstance } from '../common/current-instance.decorator';
import type { MessageWithParts } from '../messages/message.entity';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { CommandRunner } from './command-runner.service';
import { CompactionRunner } from './compaction-runner.service';
import type { SummarizeInput } from './compaction-runner.service';
import type { CommandInput } from './command-runner.service';
import { PromptLoop } from './prompt-loop.service';
import type { PromptInput } from './prompt-loop.service';
import { ShellRunner } from './shell-runner.service';
import type { ShellInput } from './shell-runner.service';

@Controller('session/:sessionID')
export class AssistantController {
  private readonly logger = new Logger('AssistantController');

  constructor(
    private readonly loop: PromptLoop,
    private readonly shell: ShellRunner,
    private readonly commands: CommandRunner,
    private readonly compaction: CompactionRunner,
  ) {}

  /** 200 and headers at once (clients see the request accepted); the body when the turn ends. */
  @Post('message')
  @Operation('session.prompt')
  async prompt(@CurrentInstance() instance: Instance, @Param('sessionID') sessionID: string, @Body() body: PromptInput, @Res() res: Response): Promise<void> {
    await this.loop.admit(sessionID, body);
    await this.streamBody(res, () => this.loop.prompt(instance, sessionID, body));
  }

  @Post('prompt_async')
  @Operation('session.prompt_async')
  async promptAsync(@CurrentInstance() instance: Instance, @Param('sessionID') sessionID: string, @Body() body: PromptInput, @Res() res: Response): Promise<void> {
    await this.loop.admit(sessionID, body);
    res.status(204).end();
    this.loop.prompt(instance, sessionID, body).catch((error: unknown) => this.logger.error({ msg: 'prompt_async failed', sessionID, error: String(error) }));
  }

  @Post('command')
  @Operation('session.command')
  async command(@CurrentInstance() instance: Instance, @Param('sessionID') sessionID: string, @Body() body: CommandInput): Promise<MessageWithParts> {
    return this.commands.run(instance, sessionID, body);
  }

  @Post('shell')
  @Operation('session.shell')
  async runShell(@CurrentInstance() instance: Instance, @Param('sessionID') sessionID: string, @Body() body: ShellInput): Promise<MessageWithParts> {
    return this.shell.run(instance, sessionID, body);
  }

  /** Always true, even when nothing runs (reference behaviour). */
  @Post('abort')
  @Operation('session.abort')
  abort(@Param('sessionID') sessionID: string): boolean {
    this.loop.abort(sessionID);
    return true;
  }

  @Post('init')
  @Operation('session.init')
  async init(@CurrentInstance() instance: Instance, @Param('sessionID') sessionID: string, @Body() body: { providerID: string; modelID: string; messageID: string }): Promise<boolean> {
    await this.commands.run(instance, sessionID, { command: 'init', arguments: '', model: `${body.providerID}/${body.modelID}`, messageID: body.messageID });
    return true;
  }

  /** Runs the compaction to the end, then `true`; a busy session is refused (400 BusyError). */
  @Post('summarize')
  @Operation('session.summarize')
  summarize(@CurrentInstance() instance: Instance, @Param('sessionID') sessionID: string, @Body() body: SummarizeInput): Promise<true> {
    return this.compaction.summarize(instance, sessionID, body);
  }

  private async streamBody(res: Response, run: () => Promise<MessageWithParts>): Promise<void> {
    res.status(200);
    res.setHeader('Content-Type', 'application/json');
    res.flushHeaders();
    try {
      res.end(JSON.stringify(await run()));
    } catch (error) {
      this.logger.error({ msg: 'prompt failed', error: String(error) });
      res.end();
    }
  }
}
