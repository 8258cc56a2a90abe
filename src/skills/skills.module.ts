import { Module } from '@nestjs/common';
import { ConfigModule } from '../config/config.module';
import { SkillService } from './skill.service';
import { SkillsController } from './skills.controller';

/** Skills (`SKILL.md` files) of each Instance: `/skill`, `/api/skill`, and `SkillService` for `/command`. */
@Module({
  imports: [ConfigModule],
  controllers: [SkillsController],
  providers: [SkillService],
  exports: [SkillService],
})
export class SkillsModule {}
