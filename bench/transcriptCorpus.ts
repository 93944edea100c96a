/**
 * Realistic transcript text for the full-text benchmarks: a conversation between a user and a coding agent in
 * English and code, words drawn with a Zipf-like distribution from a vocabulary of common English words, code
 * keywords, camelCase and snake_case identifiers, file paths, numbers, versions, hashes and error messages.
 * Deterministic for a seed.
 */

const ENGLISH =
  'the be to of and a in that have i it for not on with he as you do at this but his by from they we say her she or an will my one all would there their what so up out if about who get which go me when make can like time no just him know take people into year your good some could them see other than then now look only come its over think also back after use two how our work first well way even new want because any these give day most us is are was were been has had did said made found used called may should must need find here where why each few more less very much many still own same such long great little right old big high small large next early young important different following last able bad best better sure free true whole full clear open close start stop run build test fix change add remove update read write file line code function class method value type error issue problem question answer thing part place case point group number fact hand world week month system program set order move try ask tell show call keep let begin seem help talk turn put mean become leave feel'.split(
    ' ',
  );

const CODE =
  'const let var function return if else for while switch case break continue class interface type enum import export default async await promise new this null undefined true false string number boolean object array map set json yaml http https api url path config options settings args env process buffer stream error exception throw catch try finally test describe expect assert mock stub spy fixture build lint format compile bundle deploy release version commit branch merge rebase diff patch hunk review pull request issue ticket bug regression crash stack trace log debug info warn timeout retry cache index query search schema migration database table column row key value token session user auth login logout password secret permission role admin server client request response header body status cookie socket worker thread queue job task event listener handler callback emitter dispose subscription'.split(
    ' ',
  );

const PARTS = [
  'get',
  'set',
  'parse',
  'load',
  'save',
  'read',
  'write',
  'create',
  'update',
  'delete',
  'find',
  'make',
  'build',
  'render',
  'handle',
  'validate',
  'format',
  'resolve',
  'fetch',
  'open',
  'close',
  'start',
  'stop',
  'apply',
];
const NOUNS = [
  'Config',
  'File',
  'Session',
  'User',
  'Token',
  'Index',
  'Request',
  'Response',
  'Handler',
  'Model',
  'View',
  'Store',
  'Cache',
  'Item',
  'List',
  'Entry',
  'Path',
  'Root',
  'Folder',
  'Agent',
  'Thread',
  'Message',
  'Event',
  'Error',
  'Result',
  'Query',
  'Schema',
  'Options',
  'State',
  'Context',
  'Manager',
  'Provider',
  'Service',
  'Client',
];
const DIRS = [
  'src',
  'lib',
  'test',
  'docs',
  'app',
  'components',
  'utils',
  'common',
  'history',
  'sessions',
  'server',
  'client',
  'api',
  'models',
  'views',
  'scripts',
];
const EXTS = ['ts', 'tsx', 'js', 'json', 'md', 'py', 'rs', 'go', 'css', 'yaml'];

/** A deterministic pseudo-random generator (mulberry32). */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ter',
  'an',
  'vel',
  'so',
  'ri',
  'dun',
  'pra',
  'ex',
  'ion',
  'tor',
  'ble',
  'cha',
  'nu',
  'gen',
  'ly',
  'sta',
  'pe',
  'wor',
  'quin',
  'fal',
  'mo',
  'zen',
  'dra',
  'it',
  'ous',
  'ment',
  'cal',
];

/** The vocabulary, most frequent first: English and code words, then identifiers, then rarer made-up words. */
function vocabulary(random: () => number): string[] {
  const words: string[] = [];
  for (let i = 0; i < Math.max(ENGLISH.length, CODE.length); i++) {
    if (i < ENGLISH.length) words.push(ENGLISH[i]!);
    if (i < CODE.length) words.push(CODE[i]!);
  }
  for (const part of PARTS) for (const noun of NOUNS) words.push(part + noun);
  const seen = new Set(words);
  while (words.length < 60_000) {
    const n = 2 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < n; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)]!;
    if (seen.has(word)) continue;
    seen.add(word);
    // A third of the rarer words are identifiers too.
    const shape = random();
    words.push(
      shape < 0.15
        ? `${PARTS[Math.floor(random() * PARTS.length)]}${word[0]!.toUpperCase()}${word.slice(1)}`
        : shape < 0.3
          ? `${word}_${NOUNS[Math.floor(random() * NOUNS.length)]!.toLowerCase()}`
          : word,
    );
  }
  return words;
}

/** Draws ranks with probability ∝ 1 / (rank + 1) (Zipf, s = 1) by inverting the harmonic sum's approximation. */
function zipf(random: () => number, size: number): () => number {
  const total = Math.log(size + 1);
  return () => Math.min(size - 1, Math.floor(Math.exp(random() * total) - 1));
}

export interface Corpus {
  /** A transcript of about `chars` characters, deterministic for `index`. */
  transcript(index: number, chars: number): string;
  /** A word that occurs in many transcripts, one in few, and a rare identifier: for queries. */
  readonly vocabulary: readonly string[];
}

export function makeCorpus(seed = 7): Corpus {
  const words = vocabulary(randomSource(seed));
  return {
    vocabulary: words,
    transcript(index, chars) {
      const random = randomSource(seed * 1_000_003 + index);
      const rank = zipf(random, words.length);
      const pick = () => words[rank()]!;
      const parts: string[] = [];
      let length = 0;
      let user = true;
      while (length < chars) {
        let turn = user ? 'User: ' : 'Agent: ';
        const sentences = user ? 1 + Math.floor(random() * 3) : 3 + Math.floor(random() * 8);
        for (let s = 0; s < sentences; s++) {
          const n = 6 + Math.floor(random() * 14);
          const sentence: string[] = [];
          for (let w = 0; w < n; w++) {
            const r = random();
            if (r < 0.03)
              sentence.push(
                `${DIRS[Math.floor(random() * DIRS.length)]}/${DIRS[Math.floor(random() * DIRS.length)]}/${pick()}.${EXTS[Math.floor(random() * EXTS.length)]}`,
              );
            else if (r < 0.05) sentence.push(String(Math.floor(random() * 100_000)));
            else if (r < 0.055) sentence.push(`v${Math.floor(random() * 10)}.${Math.floor(random() * 30)}.${Math.floor(random() * 100)}`);
            else if (r < 0.058)
              sentence.push(
                Math.floor(random() * 2 ** 32)
                  .toString(16)
                  .padStart(8, '0') +
                  Math.floor(random() * 2 ** 32)
                    .toString(16)
                    .padStart(8, '0'),
              );
            else if (r < 0.06) sentence.push(`${NOUNS[Math.floor(random() * NOUNS.length)]}Error: cannot ${pick()} '${pick()}'`);
            else sentence.push(pick());
          }
          const text = sentence.join(' ');
          turn += `${text[0]!.toUpperCase()}${text.slice(1)}. `;
          if (!user && random() < 0.15)
            turn += `\n\n\`\`\`ts\nconst ${pick()} = ${PARTS[Math.floor(random() * PARTS.length)]}${NOUNS[Math.floor(random() * NOUNS.length)]}(${pick()}, '${pick()}');\n\`\`\`\n`;
        }
        parts.push(turn.trimEnd());
        length += turn.length + 2;
        user = !user;
      }
      return parts.join('\n\n');
    },
  };
}
