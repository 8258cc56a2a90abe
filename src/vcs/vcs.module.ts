import { Module } from '@nestjs/common';
import { VcsController } from './vcs.controller';
import { VcsService } from './vcs.service';

/** `/vcs`, `/vcs/status` and `/vcs/diff`: branch, changed files and their diffs of the Instance's repository. */
@Module({
  controllers: [VcsController],
  providers: [VcsService],
  exports: [VcsService],
})
export class VcsModule {}
