import { Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service';
import type { Instance } from '../projects/instance.service';
import { readSkill, SkillInfo, skillLocations } from './skill-files';

/**
 * SkillService — the skills of an Instance (opencode 1.18's `/skill`, `/api/skill`, and its skills
 * as slash commands).
 *
 *   list(instance): Promise<SkillInfo[]>                 every skill found (see skillLocations), read at call time
 *   asCommandTemplate(skill): string                     the prompt running a skill as `/name` sends
 */
@Injectable()
export class SkillService {
  constructor(private readonly config: ConfigService) {}

  async list(instance: Instance): Promise<SkillInfo[]> {
    const [config, directories] = await Promise.all([this.config.get(instance), this.config.directories(instance)]);
    const paths = config.skills?.paths ?? [];
    const skills = new Map<string, SkillInfo>();
    for (const location of await skillLocations(instance.directory, instance.worktree, directories, paths)) {
      const skill = await readSkill(location);
      if (skill) skills.set(skill.name, skill);
    }
    return [...skills.values()];
  }

  /** opencode 1.18's command for a skill: its instructions and where its files are. */
  asCommandTemplate(skill: SkillInfo): string {
    const base = skill.location.replace(/\/SKILL\.md$/, '');
    return `${skill.content}\n\nBase directory for this skill: ${base}\nRelative paths in this skill (e.g., scripts/, references/) are relative to this base directory.`;
  }
}
