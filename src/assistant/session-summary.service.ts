/**
 * SessionSummary — what a session changed in the worktree, refreshed after every model step
 * (reference `session/summary.ts`, §21).
 *
 *   summarize(instance, sessionID, userMessageID)
 *     session:  diffFull(first step-start snapshot, last step-finish snapshot) kept to the files named
 *               by `patch` parts → `session.summary = {additions, deletions, files}` (session.updated),
 *               stored for `GET /session/{id}/diff`, then `session.diff {sessionID, diff}`
 *     message:  the same diff over the user message and its replies → `UserMessage.summary.diffs`
 *               (message.updated). The small-model title/body of that summary is not generated.
 *
 * Snapshot failures read as "no change" (SnapshotService never throws); anything else is logged,
 * never fails the turn.
 */
import { Injectable, Logger } from '@nestjs/common';
import { relative, sep } from 'node:path';
import type { MessageWithParts, UserMessage } from '../messages/message.entity';
import { MessageService } from '../messages/message.service';
import type { Instance } from '../projects/instance.service';
import type { FileDiff } from '../sessions/session.entity';
import { SessionService } from '../sessions/session.service';
import { SnapshotService } from '../snapshots/snapshot.service';

@Injectable()
export class SessionSummary {
  private readonly logger = new Logger('SessionSummary');

  constructor(
    private readonly messages: MessageService,
    private readonly sessions: SessionService,
    private readonly snapshots: SnapshotService,
  ) {}

  async summarize(instance: Instance, sessionID: string, userMessageID: string): Promise<void> {
    try {
      const all = await this.messages.list(sessionID);
      await this.summarizeSession(instance, sessionID, all);
      await this.summarizeMessage(instance, userMessageID, all);
    } catch (error) {
      this.logger.warn({ msg: 'session summary failed', sessionID, error: String(error) });
    }
  }

  private async summarizeSession(instance: Instance, sessionID: string, all: MessageWithParts[]): Promise<void> {
    const files = new Set<string>();
    for (const { parts } of all) {
      for (const part of parts) {
        if (part.type !== 'patch' || !Array.isArray(part.files)) continue;
        for (const file of part.files as string[]) files.add(relative(instance.worktree, file).split(sep).join('/'));
      }
    }
    // Without patch parts nothing survives the filter: the git work can be skipped.
    const diffs = files.size === 0 ? [] : (await this.diff(instance, all)).filter((d) => files.has(d.file));
    await this.sessions.update(sessionID, {
      summary: {
        additions: diffs.reduce((sum, d) => sum + d.additions, 0),
        deletions: diffs.reduce((sum, d) => sum + d.deletions, 0),
        files: diffs.length,
      },
    });
    await this.sessions.setDiff(sessionID, diffs);
  }

  private async summarizeMessage(instance: Instance, messageID: string, all: MessageWithParts[]): Promise<void> {
    const turn = all.filter((m) => m.info.id === messageID || (m.info.role === 'assistant' && m.info.parentID === messageID));
    const user = turn.find((m) => m.info.id === messageID)?.info;
    if (user?.role !== 'user') return;
    const info: UserMessage = { ...user, summary: { ...user.summary, diffs: await this.diff(instance, turn) } };
    await this.messages.updateMessage(info, { directory: instance.directory });
  }

  /** From the first step-start snapshot to the last step-finish snapshot of `messages`. */
  private async diff(instance: Instance, messages: MessageWithParts[]): Promise<FileDiff[]> {
    let from: string | undefined;
    let to: string | undefined;
    for (const { parts } of messages) {
      for (const part of parts) {
        if (!from && part.type === 'step-start' && typeof part.snapshot === 'string') from = part.snapshot;
        if (part.type === 'step-finish' && typeof part.snapshot === 'string') to = part.snapshot;
      }
    }
    if (!from || !to || from === to) return [];
    return this.snapshots.diffFull(instance, from, to);
  }
}
