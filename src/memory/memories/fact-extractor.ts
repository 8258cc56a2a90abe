import type { MemoryRelation } from './memory-entry.entity';

/** A fact to store: found by the deterministic extractor, by the memory model, or written directly. */
export interface ExtractedFact {
  memory: string;
  key: string;
  isStatic: boolean;
  /**
   * Set when the memory model related the fact itself (`new`: to no memory); the subject-key
   * heuristic that relates deterministic facts is then not used.
   */
  link?: { relation: MemoryRelation; memoryId: string } | 'new';
}

const MAX_FACTS = 12;
const IDENTITY = /\b(name is|named|i am|i'm|my (?:job|role|title|email|birthday|hometown)|born|grew up|live[sd]? in|from|work(?:s|ed)? (?:at|as|for)|allergic|prefer|favou?rite)\b/i;
const SPEAKER = /^(user|assistant|system|tool|human|ai)\s*:\s*/i;

const FIRST_PERSON: [RegExp, string][] = [
  [/\bI am\b/g, 'User is'],
  [/\bI'm\b/g, 'User is'],
  [/\bI've\b/g, 'User has'],
  [/\bI'll\b/g, 'User will'],
  [/\bI\b/g, 'User'],
  [/\b[Mm]y\b/g, "User's"],
  [/\b[Mm]e\b/g, 'User'],
];

function normaliseSpeaker(sentence: string): string {
  let s = sentence;
  for (const [pattern, replacement] of FIRST_PERSON) s = s.replace(pattern, replacement);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Subject and verb of the fact: "User lives in Berlin" and "User lives in Paris" share `user lives`. */
export function factKey(memory: string): string {
  const words = memory
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const stem = (w: string) => w.replace(/(ing|ed|es|s)$/, '');
  return words.slice(0, words[0] === "user's" || words[1] === 'is' ? 3 : 2).map(stem).join(' ').slice(0, 200);
}

/**
 * Atomic facts, one per informative sentence. Conversations keep only what the user said (the
 * assistant's replies are context, not facts about the user); questions and short chatter are skipped.
 */
export function extractFacts(text: string, options: { conversation?: boolean } = {}): ExtractedFact[] {
  const facts: ExtractedFact[] = [];
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    const speaker = SPEAKER.exec(line.trim());
    if (options.conversation && speaker && speaker[1].toLowerCase() !== 'user' && speaker[1].toLowerCase() !== 'human') continue;
    const body = line.trim().replace(SPEAKER, '');
    for (const raw of body.split(/(?<=[.!?])\s+/)) {
      const sentence = raw.trim().replace(/[.!]+$/, '');
      const words = sentence.split(/\s+/).length;
      if (sentence.endsWith('?') || words < 3 || words > 40 || !/[a-z]/i.test(sentence)) continue;
      const memory = normaliseSpeaker(sentence);
      const dedupe = memory.toLowerCase();
      if (seen.has(dedupe)) continue;
      seen.add(dedupe);
      facts.push({ memory, key: factKey(memory), isStatic: IDENTITY.test(sentence) });
      if (facts.length >= MAX_FACTS) return facts;
    }
  }
  return facts;
}
