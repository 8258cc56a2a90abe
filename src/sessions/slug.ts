import { createHash, randomInt } from 'node:crypto';

// A session's readable name, as opencode 1.18 gives one (`misty-forest`): an adjective and a noun.
const ADJECTIVES = [
  'amber', 'bold', 'brave', 'bright', 'calm', 'clever', 'cosmic', 'crisp', 'curious', 'eager', 'gentle', 'glowing',
  'golden', 'happy', 'hidden', 'jolly', 'keen', 'kind', 'lucky', 'misty', 'mighty', 'nimble', 'proud', 'quick',
  'quiet', 'shiny', 'silent', 'silver', 'steady', 'sunny', 'swift', 'tidy', 'witty', 'young', 'zesty', 'wandering',
];
const NOUNS = [
  'anchor', 'brook', 'canyon', 'cedar', 'comet', 'coral', 'dune', 'falcon', 'fern', 'forest', 'garden', 'glacier',
  'harbor', 'island', 'lagoon', 'lantern', 'meadow', 'mesa', 'moon', 'orchid', 'otter', 'panda', 'pebble', 'pine',
  'planet', 'prairie', 'river', 'rocket', 'sparrow', 'star', 'summit', 'tide', 'valley', 'willow', 'wolf', 'harvest',
];

/** A new session's slug. */
export function newSlug(): string {
  return `${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${NOUNS[randomInt(NOUNS.length)]}`;
}

/** The slug of a session written before slugs were stored: stable, derived from its id. */
export function slugOf(id: string): string {
  const hash = createHash('sha256').update(id).digest();
  return `${ADJECTIVES[hash.readUInt16BE(0) % ADJECTIVES.length]}-${NOUNS[hash.readUInt16BE(2) % NOUNS.length]}`;
}
