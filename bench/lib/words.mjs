// Text for the memory benches: words of a 5,000-word vocabulary drawn with a Zipf distribution (s = 1),
// like natural text: a few words are everywhere, most are rare. (A tiny uniform vocabulary would put
// every query word in every chunk.) Deterministic for a seed.
//   const { rand, word, vocabulary } = wordSource(42);

const SYLLABLES =
  'ka lo mi ne ru sa te vo zi pa de fu gi ho ju ba ce di fo ga hi ko lu ma no pe ri so tu va we xi yo za'.split(
    ' ',
  );
export const vocabulary = Array.from({ length: 5000 }, (_, i) => {
  let n = i + 7;
  let w = '';
  do {
    w += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  return w;
});
const CUMULATIVE = [];
vocabulary.reduce((sum, _, r) => (CUMULATIVE[r] = sum + 1 / (r + 1)), 0);

/**
 * mulberry32: a deterministic 32-bit generator of numbers in [0, 1) (plain float LCG arithmetic would
 * lose precision and cycle).
 */
export function mulberry32(seed) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `rand()` in [0, 1) and `word()`, both from one mulberry32 generator seeded with `seed`. */
export function wordSource(seed = 42) {
  const rand = mulberry32(seed);
  const word = () => {
    const x = rand() * CUMULATIVE[CUMULATIVE.length - 1];
    let lo = 0;
    let hi = CUMULATIVE.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (CUMULATIVE[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo];
  };
  return { rand, word, vocabulary };
}
