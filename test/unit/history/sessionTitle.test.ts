import * as assert from 'node:assert/strict';
import type { ViewEntry } from '../../../src/shared/chatModel';
import { firstPromptText } from '../../../src/history/transcript';
import { cleanTitle, datedTitle, forkTitle, MAX_TITLE_CHARS, promptTitle, resolveTitle, untitled } from '../../../src/history/sessionTitle';

const STARTED = new Date(2026, 10, 24, 22, 45).getTime();
const SAME_DAY = new Date(2026, 10, 24, 23, 59).getTime();

describe('the title rule (history/sessionTitle.ts): one title per session everywhere', () => {
  describe('precedence', () => {
    const all = { userTitle: 'Mine', agentTitle: 'The agent’s', firstPrompt: 'Fix the build\nplease', startedAt: STARTED };

    it('the user’s rename wins over the agent’s title, which wins over the first prompt, which wins over the date', () => {
      assert.deepEqual(resolveTitle(all, SAME_DAY), { text: 'Mine', source: 'user' });
      assert.deepEqual(resolveTitle({ ...all, userTitle: undefined }, SAME_DAY), { text: 'The agent’s', source: 'agent' });
      assert.deepEqual(resolveTitle({ ...all, userTitle: undefined, agentTitle: undefined }, SAME_DAY), { text: 'Fix the build', source: 'prompt' });
      assert.deepEqual(resolveTitle({ startedAt: STARTED }, SAME_DAY), { text: datedTitle(STARTED, SAME_DAY), source: 'date' });
      assert.deepEqual(resolveTitle({}, SAME_DAY), { text: untitled(), source: 'none' });
    });

    it('a blank source does not count: the next one decides', () => {
      assert.equal(
        resolveTitle({ userTitle: '   ', agentTitle: '\n\t', firstPrompt: '\n\n  \nSecond line is the first with words', startedAt: STARTED }, SAME_DAY).text,
        'Second line is the first with words',
      );
      assert.equal(resolveTitle({ userTitle: '\u200b\u200b', agentTitle: 'Agent' }).source, 'agent', 'invisible characters are not a title');
      assert.equal(resolveTitle({ startedAt: Number.NaN }).source, 'none');
      assert.equal(resolveTitle({ startedAt: 0 }).source, 'none', 'no start time known');
    });

    it('the dated fallback says the time, and the day when it was not today', () => {
      assert.match(datedTitle(STARTED, SAME_DAY), /^Session from \S+/);
      assert.doesNotMatch(datedTitle(STARTED, SAME_DAY), /,/, 'today: the time only');
      const nextWeek = STARTED + 7 * 86_400_000;
      assert.match(datedTitle(STARTED, nextWeek), /^Session from .+, .+$/, 'another day: the day too');
      assert.match(datedTitle(STARTED, SAME_DAY, 'lib'), /^Session in lib from [^,]+$/, 'sessions started at once in different folders are told apart');
      assert.equal(resolveTitle({ startedAt: STARTED, folder: 'docs' }, SAME_DAY).text, datedTitle(STARTED, SAME_DAY, 'docs'));
      assert.match(datedTitle(STARTED, nextWeek, ' \n '), /^Session from /, 'a blank folder name is left out');
    });
  });

  describe('forks', () => {
    const forkOf = { sessionId: 'parent', title: 'Parent renamed', agentTitle: 'Parent by the agent' };

    it('a fork is “<parent’s title> (fork)” until the agent or the user names it', () => {
      assert.deepEqual(resolveTitle({ forkOf, startedAt: STARTED }), { text: 'Parent renamed (fork)', source: 'fork' });
      assert.deepEqual(
        resolveTitle({ forkOf, firstPrompt: 'a prompt in the fork' }),
        { text: 'Parent renamed (fork)', source: 'fork' },
        'the fork’s origin says more than a later prompt',
      );
      assert.deepEqual(resolveTitle({ forkOf, agentTitle: 'A new name from the agent' }), { text: 'A new name from the agent', source: 'agent' });
      assert.deepEqual(resolveTitle({ forkOf, agentTitle: 'A new name from the agent', userTitle: 'Mine' }), { text: 'Mine', source: 'user' });
    });

    it('the parent’s title that an agent copied into the fork does not name it (before and after a reload alike)', () => {
      assert.equal(resolveTitle({ forkOf, agentTitle: 'Parent by the agent' }).text, 'Parent renamed (fork)');
      assert.equal(resolveTitle({ forkOf, agentTitle: '  Parent   by the agent ' }).text, 'Parent renamed (fork)', 'compared as shown');
      assert.equal(resolveTitle({ forkOf, agentTitle: 'Parent renamed' }).text, 'Parent renamed (fork)');
    });

    it('the fork’s title stays bounded and clean', () => {
      const long = forkTitle('x'.repeat(1000));
      assert.equal(long.length, MAX_TITLE_CHARS);
      assert.ok(long.endsWith('… (fork)'));
      assert.equal(forkTitle('  Two\nlines  '), 'Two lines (fork)');
      assert.equal(forkTitle(''), `${untitled()} (fork)`);
    });
  });

  describe('clean, bounded text', () => {
    it('collapses whitespace, newlines, tabs, control and invisible characters to single spaces', () => {
      assert.equal(cleanTitle('  Fix\tthe\r\n\nbuild  '), 'Fix the build');
      assert.equal(cleanTitle('a\u0000b\u0007c\u001bd'), 'a b c d');
      assert.equal(cleanTitle('left\u202eright\u200bzero\ufeff'), 'left right zero');
      assert.equal(cleanTitle('a\u2028b\u2029c'), 'a b c');
      assert.equal(cleanTitle(' \n '), undefined);
      assert.equal(cleanTitle(undefined), undefined);
      assert.equal(cleanTitle(null), undefined);
    });

    it('cuts a very long title at the limit with an ellipsis, without splitting a surrogate pair', () => {
      const cut = cleanTitle('word '.repeat(100_000))!;
      assert.equal(cut.length <= MAX_TITLE_CHARS, true);
      assert.ok(cut.endsWith('…'));
      const emoji = cleanTitle('😀'.repeat(200))!;
      assert.ok(emoji.length <= MAX_TITLE_CHARS);
      assert.doesNotMatch(emoji.slice(0, -1), /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/, 'no lone surrogate');
      assert.equal(cleanTitle('x'.repeat(MAX_TITLE_CHARS)), 'x'.repeat(MAX_TITLE_CHARS), 'exactly the limit is kept whole');
    });

    it('keeps markup in an agent’s title as text (the views never interpret it)', () => {
      const html = '<img src=x onerror="alert(1)"><b>Bold?</b> **md** [link](http://x) $(zap)';
      assert.equal(resolveTitle({ agentTitle: html }).text, html);
    });

    it('the first prompt gives its first line with words, cleaned and bounded', () => {
      assert.equal(promptTitle('Refactor the parser\nso that it streams\n'), 'Refactor the parser');
      assert.equal(promptTitle('\r\n   \r\n  indented first line  \r\nsecond'), 'indented first line');
      assert.equal(promptTitle('   \n\t\n'), undefined);
      assert.equal(promptTitle(undefined), undefined);
      assert.equal(promptTitle(`${'long '.repeat(10_000)}\nsecond`)!.length <= MAX_TITLE_CHARS, true);
      assert.equal(promptTitle('\n'.repeat(1_000_000)), undefined, 'a huge blank prompt is cheap and gives nothing');
    });

    it('a slash command is no title: the first prompt that is not one gives it, else the date', () => {
      assert.equal(promptTitle('/help'), undefined);
      assert.equal(promptTitle('  /compact keep the API notes\nmore'), undefined, 'a command with its arguments');
      assert.equal(promptTitle('/etc/hosts is missing localhost'), '/etc/hosts is missing localhost', 'a path is words');
      const startedAt = new Date(2026, 10, 29, 4, 40).getTime();
      assert.deepEqual(resolveTitle({ firstPrompt: '/help', startedAt, folder: 'app' }, startedAt), {
        text: datedTitle(startedAt, startedAt, 'app'),
        source: 'date',
      });
      const user = (text: string): ViewEntry => ({ kind: 'user', id: text, blocks: [{ type: 'text', text }] }) as unknown as ViewEntry;
      assert.equal(firstPromptText([user('/help'), user('/model fast'), user('Fix the greeting')]), 'Fix the greeting');
      assert.equal(firstPromptText([user('/help')]), undefined);
    });
  });
});

describe('cleanTitle at scale', () => {
  /** The rule written out plainly: what cleanTitle did before its fast path. */
  function reference(raw: string): string | undefined {
    const text = raw
      .slice(0, MAX_TITLE_CHARS * 8)
      .replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (!text) return undefined;
    if (text.length <= MAX_TITLE_CHARS) return text;
    let end = MAX_TITLE_CHARS - 1;
    if (/[\ud800-\udbff]/.test(text.charAt(end - 1))) end--;
    return `${text.slice(0, end).trimEnd()}…`;
  }

  it('returns a title that needs no cleaning as it is (the same string), and cleans the rest as the rule says', () => {
    const clean = 'Fix the login bug in auth.ts (#42) — über café 漢字 😀';
    assert.equal(cleanTitle(clean), clean);
    let seed = 11;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const alphabet = [
      'a',
      'B',
      ' ',
      '  ',
      '\t',
      '\n',
      '\u00a0',
      '\u200b',
      '\u2028',
      '\u202f',
      '\u3000',
      '\ufeff',
      '\u00ad',
      '\u1680',
      '\u205f',
      'é',
      '😀',
      '\u0000',
      '\u007f',
    ];
    for (let i = 0; i < 5000; i++) {
      const length = Math.floor(random() * (random() < 0.1 ? 200 : 20));
      const raw = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]!).join('');
      assert.equal(cleanTitle(raw), reference(raw), JSON.stringify(raw));
    }
  });
});
