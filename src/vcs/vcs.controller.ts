import { Controller, Get, Query } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import type { VcsDiffMode, VcsFileDiff, VcsFileStatus, VcsInfo } from './vcs.service';
import { VcsService } from './vcs.service';

/** Version control of the request's directory, as opencode 1.18.33 answers it (its TUI's `/diff` reads `/vcs/diff`). */
@Controller('vcs')
export class VcsController {
  constructor(private readonly vcs: VcsService) {}

  @Get()
  @Operation('vcs.get')
  info(@CurrentInstance() instance: Instance): Promise<VcsInfo> {
    return this.vcs.info(instance);
  }

  @Get('status')
  @Operation('vcs.status')
  status(@CurrentInstance() instance: Instance): Promise<VcsFileStatus[]> {
    return this.vcs.status(instance);
  }

  /** `mode` and `context` are checked against the reference (`git`|`branch`, an integer ≥ 0) before this runs. */
  @Get('diff')
  @Operation('vcs.diff')
  diff(@CurrentInstance() instance: Instance, @Query('mode') mode: VcsDiffMode, @Query('context') context?: string): Promise<VcsFileDiff[]> {
    return this.vcs.diff(instance, mode, context === undefined ? undefined : Number(context));
  }
}
