import { Inject, Injectable } from '@nestjs/common';
import type { LanguageModel } from 'ai';
import type { z } from 'zod';
import { aiSdk, zod } from '../../providers/ai-sdk';
import { INGESTION_SETTINGS } from '../ingestion-settings';
import type { IngestionSettings } from '../ingestion-settings';
import { LIMITS } from '../validation';
import type { MemoryEntry, MemoryRelation } from './memory-entry.entity';

/** A memory of the container the model may relate new facts to. */
export type KnownMemory = Pick<MemoryEntry, 'id' | 'memory' | 'isStatic'>;

/** One fact as the model returned it, with `relatedTo` mapped back to a real memory id. */
interface ModelFact {
  memory: string;
  isStatic: boolean;
  relation: MemoryRelation | null;
  relatedTo: string | null;
}

/** The model could not be used for this document (unreachable, refused, or answered something unusable). */
export class MemoryModelError extends Error {}

/** Facts one call may return: a runaway answer is treated as invalid rather than flooding the store. */
const MAX_FACTS_PER_WINDOW = 50;

// Every field is required (nullable where optional) so the schema is valid in OpenAI's strict mode.
const answerSchemaOf = (z: typeof import('zod').z) =>
  z.object({
    facts: z.array(
      z.object({
        memory: z.string(),
        isStatic: z.boolean(),
        relation: z.enum(['new', 'updates', 'extends', 'derives']),
        relatedTo: z.string().nullable(),
      }),
    ),
  });
type AnswerSchema = ReturnType<typeof answerSchemaOf>;
let answerSchema: AnswerSchema | undefined;

const SYSTEM = `You extract long-term memories from a document for a memory store, and relate them to the memories already stored.
Answer with JSON only: {"facts":[{"memory":string,"isStatic":boolean,"relation":"new"|"updates"|"extends"|"derives","relatedTo":string|null}]}.
- memory: one atomic, self-contained fact of about ten words, in the third person. In conversations the person speaking as "user" is "User"; take facts the user states, the assistant's turns are context only.
- isStatic: true for lasting traits (name, hometown, profession, employer, family, allergies, lasting preferences); false for recent or episodic context (plans, current tasks, moods).
- relation and relatedTo (the id of an existing memory, e.g. "m3"):
  "updates" when the fact replaces an existing memory (same subject, new value: a move, a new job);
  "extends" when it adds detail to an existing memory that stays true;
  "derives" when it is an inference from existing memories together with the document;
  "new" with relatedTo null otherwise.
- Skip questions, greetings, chatter, and facts already stored with the same meaning. Return {"facts":[]} when nothing is worth remembering.`;

// The organisation's filter prompt (settings `shouldLLMFilter`) decides what is worth remembering at all.
const FILTER_INTRO = `The organisation filters what is remembered with the instructions below. Extract only facts from content they say to keep; return {"facts":[]} for content they say to skip.`;

/**
 * The configured memory LLM (an OpenAI-compatible chat endpoint, through the AI SDK with structured
 * output). Unconfigured means deterministic extraction; any failure here is for the caller to fall back on.
 */
@Injectable()
export class MemoryModel {
  private model?: LanguageModel;

  constructor(@Inject(INGESTION_SETTINGS) private readonly settings: IngestionSettings) {}

  get configured(): boolean {
    return !!this.settings.memoryModelUrl;
  }

  get contextSize(): number {
    return this.settings.memoryModelContext;
  }

  private languageModel(): LanguageModel {
    if (!this.model) {
      // Loaded on first use, as the assistant's providers are: most servers never configure a memory model.
      const { createOpenAICompatible } =
        require('@ai-sdk/openai-compatible') as typeof import('@ai-sdk/openai-compatible');
      this.model = createOpenAICompatible({
        name: 'memory',
        baseURL: this.settings.memoryModelUrl!,
        apiKey: this.settings.memoryModelApiKey,
        supportsStructuredOutputs: this.settings.memoryModelJsonSchema,
      }).chatModel(this.settings.memoryModel);
    }
    return this.model;
  }

  /** Facts of `text`, in windows when it is long; throws MemoryModelError when any window fails. */
  async extract(
    text: string,
    options: { conversation: boolean; known: KnownMemory[]; filterPrompt?: string },
  ): Promise<ModelFact[]> {
    const aliases = new Map(options.known.map((m, i) => [`m${i + 1}`, m]));
    const existing = [...aliases].map(([id, { memory, isStatic }]) => ({ id, memory, isStatic }));
    const facts: ModelFact[] = [];
    const seen = new Set<string>();
    for (const window of windows(text, this.settings.memoryModelWindowChars)) {
      const answer = await this.call(
        JSON.stringify({
          kind: options.conversation ? 'conversation' : 'document',
          existingMemories: existing,
          document: window,
        }),
        options.filterPrompt,
      );
      if (answer.facts.length > MAX_FACTS_PER_WINDOW)
        throw new MemoryModelError(
          `model returned ${answer.facts.length} facts for one window (at most ${MAX_FACTS_PER_WINDOW})`,
        );
      for (const [i, fact] of answer.facts.entries()) {
        const memory = fact.memory.trim();
        if (!memory || memory.length > LIMITS.memoryContentLength)
          throw new MemoryModelError(`model returned an empty or oversized memory (facts[${i}])`);
        let relatedTo: string | null = null;
        if (fact.relation !== 'new') {
          const target = fact.relatedTo ? aliases.get(fact.relatedTo.trim()) : undefined;
          if (!target)
            throw new MemoryModelError(`model related facts[${i}] to unknown memory "${fact.relatedTo}"`);
          relatedTo = target.id;
        }
        const dedupe = memory.toLowerCase();
        if (seen.has(dedupe)) continue;
        seen.add(dedupe);
        facts.push({
          memory,
          isStatic: fact.isStatic,
          relation: fact.relation === 'new' ? null : fact.relation,
          relatedTo,
        });
      }
    }
    return facts;
  }

  private async call(prompt: string, filterPrompt?: string): Promise<z.infer<AnswerSchema>> {
    try {
      // The SDK (loaded with the first call) retries 408/409/429/5xx and connection failures with exponential backoff (honouring retry-after).
      const { generateText, Output } = aiSdk();
      const result = await generateText({
        model: this.languageModel(),
        output: Output.object({ schema: (answerSchema ??= answerSchemaOf(zod().z)), name: 'memories' }),
        system: filterPrompt ? `${SYSTEM}\n${FILTER_INTRO}\n${filterPrompt}` : SYSTEM,
        prompt,
        temperature: 0,
        maxRetries: this.settings.memoryModelRetries,
        abortSignal: AbortSignal.timeout(this.settings.memoryModelTimeoutMs),
      });
      return result.output;
    } catch (error) {
      throw new MemoryModelError(describe(error));
    }
  }
}

/** A short, single-line reason for the document's record (no stack, no response body dump). */
function describe(error: unknown): string {
  const e = error as { name?: string; message?: string; statusCode?: number; lastError?: unknown };
  if (e?.name === 'AI_RetryError' && e.lastError) return describe(e.lastError);
  if (e?.name === 'AI_NoObjectGeneratedError') return 'model output is not valid memory JSON';
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'model did not answer in time';
  const status = typeof e?.statusCode === 'number' ? `HTTP ${e.statusCode}: ` : '';
  return `${status}${String(e?.message ?? error)}`.replace(/\s+/g, ' ').slice(0, 300);
}

/** Splits at paragraph or sentence ends where possible so a fact is not cut in two. */
function windows(text: string, size: number): string[] {
  const out: string[] = [];
  let rest = text.trim();
  while (rest.length > size) {
    const slice = rest.slice(0, size);
    const cut = Math.max(slice.lastIndexOf('\n\n'), slice.search(/[.!?]\s(?![\s\S]*[.!?]\s)/) + 1);
    const end = cut > size / 2 ? cut : size;
    out.push(rest.slice(0, end).trim());
    rest = rest.slice(end).trim();
  }
  if (rest) out.push(rest);
  return out;
}
