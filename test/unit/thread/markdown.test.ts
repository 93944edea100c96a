import * as assert from 'node:assert/strict';
import type { ViewEntry } from '../../../src/shared/chatModel';
import { closeOpenFence, fenced, transcriptMarkdown, unifiedDiff, type MarkdownHeader } from '../../../src/thread/markdown';

const header: MarkdownHeader = {
  title: 'Fix the *greeting*',
  agentName: 'Reference Agent',
  sessionId: 'sess-1',
  roots: [
    { name: 'app', path: '/work/app', primary: true },
    { name: 'lib', path: '/work/lib', primary: false, withdrawn: true },
  ],
  date: '2026-11-25T02:30:00.000Z',
};

/** One entry of every kind the chat shows. */
const every: ViewEntry[] = [
  {
    kind: 'user',
    id: 'u1',
    blocks: [
      { type: 'text', text: 'Please fix greet.ts' },
      { type: 'resource', uri: 'file:///work/app/greet.ts', text: 'export {}' },
      { type: 'image', mimeType: 'image/png' },
    ],
  },
  { kind: 'thought', id: 't1', text: 'The greeting lacks a comma.' },
  { kind: 'agent', id: 'a1', blocks: [{ type: 'text', text: 'I will **edit** it.' }] },
  {
    kind: 'tool',
    id: 'tool1',
    toolCallId: 'call-1',
    title: 'Edit greet.ts',
    toolKind: 'edit',
    status: 'completed',
    locations: [{ path: '/work/app/greet.ts', line: 2 }],
    rawInput: '{"path":"greet.ts"}',
    content: [
      { type: 'content', content: { type: 'text', text: 'Edited one line.' } },
      { type: 'diff', path: '/work/app/greet.ts', oldText: 'a\nhello world\nc\n', newText: 'a\nhello, world\nc\n', added: 1, removed: 1 },
      { type: 'terminal', terminalId: 'term-1', command: 'npm test', cwd: '/work/app', output: 'ok 1 passed\n', exitStatus: { exitCode: 0 } },
    ],
  },
  {
    kind: 'plan',
    id: 'p1',
    entries: [
      { content: 'Read greet.ts', priority: 'high', status: 'completed' },
      { content: 'Run tests', priority: 'low', status: 'pending' },
    ],
  },
  { kind: 'notice', id: 'n1', severity: 'warning', title: 'Context is almost full', description: 'Compact soon.' },
  {
    kind: 'permission',
    id: 'perm1',
    title: 'Run npm test',
    toolCallId: 'call-1',
    options: [],
    state: { chosen: 'allow', name: 'Allow once', kind: 'allow_once' },
  },
  { kind: 'permission', id: 'perm2', title: 'Delete dist', options: [], state: 'cancelled' },
  { kind: 'refusal', id: 'r1', operation: 'read', path: '/etc/passwd', message: 'outside the session’s folders' },
  { kind: 'terminal', id: 'term1', terminalId: 'term-2', command: 'ls', output: 'greet.ts\n', inToolCall: false, exitStatus: { exitCode: 0 } },
  { kind: 'terminal', id: 'term2', terminalId: 'term-1', command: 'npm test', output: 'shown in the tool call', inToolCall: true },
  {
    kind: 'changes',
    id: 'c1',
    checkpointId: 'cp1',
    state: 'done',
    files: [
      { root: 'app', rootPath: '/work/app', path: 'greet.ts', status: 'modified', added: 1, removed: 1, binary: false },
      { root: 'app', rootPath: '/work/app', path: 'logo.png', status: 'added', added: 0, removed: 0, binary: true },
    ],
    skipped: 2,
  },
  { kind: 'turnEnd', id: 'e1', stopReason: 'end_turn', durationMs: 1500 },
  { kind: 'error', id: 'err1', message: 'The agent exited.', actions: ['restart'] },
  { kind: 'info', id: 'i1', text: 'Session resumed.' },
  { kind: 'unknown', id: 'x1', tag: 'future_update', raw: '{"a":1}' },
];

describe('transcriptMarkdown (a session exported as Markdown)', () => {
  it('starts with the title, agent, session, folders and date', () => {
    const text = transcriptMarkdown(header, []);
    assert.ok(text.startsWith('# Fix the \\*greeting\\*\n'), text);
    assert.match(text, /- \*\*Agent:\*\* Reference Agent/);
    assert.match(text, /- \*\*Session:\*\* `sess-1`/);
    assert.match(text, /- app \(`\/work\/app`\) — primary/);
    assert.match(text, /- lib \(`\/work\/lib`\) — withdrawn/);
    assert.match(text, /- \*\*Exported:\*\* 2026-11-25T02:30:00.000Z/);
  });

  it('writes every kind of entry', () => {
    const text = transcriptMarkdown(header, every);
    const expected = [
      '## User\n\nPlease fix greet.ts\n\n**Attached:**\n- `file:///work/app/greet.ts`\n- image (image/png)',
      '<details>\n<summary>Thought</summary>\n\n```text\nThe greeting lacks a comma.\n```\n\n</details>',
      '## Agent\n\nI will **edit** it.',
      '### Tool: Edit greet.ts\n\n- **Kind:** edit\n- **Status:** completed\n- **Location:** `/work/app/greet.ts:2`',
      'Input:\n\n```json\n{"path":"greet.ts"}\n```',
      '```text\nEdited one line.\n```',
      'Diff of `/work/app/greet.ts` (+1 −1):\n\n```diff\n--- /work/app/greet.ts\n+++ /work/app/greet.ts\n@@ -1,3 +1,3 @@\n a\n-hello world\n+hello, world\n c\n```',
      'Terminal `npm test` in `/work/app`:\n\n```text\nok 1 passed\n```\n\nExit code 0.',
      '**Plan**\n\n- [x] Read greet.ts (completed, high priority)\n- [ ] Run tests (pending, low priority)',
      '> **Warning:** Context is almost full\n> Compact soon.',
      '**Permission:** Run npm test — Allow once (allow_once)',
      '**Permission:** Delete dist — cancelled',
      '> **Refused** read `/etc/passwd`: outside the session’s folders',
      'Terminal `ls`:\n\n```text\ngreet.ts\n```\n\nExit code 0.',
      '**Files changed in this turn:**\n\n- `app/greet.ts` — modified, +1 −1\n- `app/logo.png` — added, binary\n- 2 more files too large to capture',
      '*Turn ended: done after 1.5 s.*',
      '> **Error:** The agent exited.',
      '*Session resumed.*',
      '**Unknown entry (future\\_update)**\n\n```json\n{"a":1}\n```',
    ];
    let from = 0;
    for (const part of expected) {
      const at = text.indexOf(part, from);
      assert.ok(at >= 0, `missing, or out of order:\n${part}\n\nin:\n${text}`);
      from = at + part.length;
    }
    assert.ok(!text.includes('shown in the tool call'), 'a terminal a tool call shows is written once, in the tool call');
  });

  it('fences content with a fence longer than any backtick run in it', () => {
    const output = 'before\n```\nnot the end\n````\nafter';
    const text = transcriptMarkdown(header, [
      {
        kind: 'tool',
        id: 't',
        toolCallId: 'c',
        title: 'Print',
        toolKind: 'execute',
        status: 'completed',
        locations: [],
        content: [{ type: 'content', content: { type: 'text', text: output } }],
      },
    ]);
    assert.ok(text.includes(`\`\`\`\`\`text\n${output}\n\`\`\`\`\``), text);
    assert.equal(fenced('a `b` c'), '```\na `b` c\n```');
    assert.equal(fenced('``````'), '```````\n``````\n```````');
  });

  it('closes a code fence a message leaves open, so the rest of the document stays outside it', () => {
    assert.equal(closeOpenFence('see:\n```ts\nconst a = 1;'), 'see:\n```ts\nconst a = 1;\n```');
    assert.equal(closeOpenFence('````\n```\n'), '````\n```\n\n````');
    assert.equal(closeOpenFence('```\nclosed\n```\ndone'), '```\nclosed\n```\ndone');
    assert.equal(closeOpenFence('~~~\nx'), '~~~\nx\n~~~');
    const text = transcriptMarkdown(header, [
      { kind: 'agent', id: 'a', blocks: [{ type: 'text', text: 'Here:\n```js\nlet x;' }] },
      { kind: 'info', id: 'i', text: 'after' },
    ]);
    assert.match(text, /let x;\n```\n\n\*after\*/);
  });

  it('escapes inline code holding backticks and keeps titles on one line', () => {
    const text = transcriptMarkdown({ ...header, title: 'Two\nlines `x`' }, [
      { kind: 'tool', id: 't', toolCallId: 'c', title: 'Run `ls`', toolKind: 'execute', status: 'failed', locations: [{ path: 'a`b' }], content: [] },
    ]);
    assert.ok(text.startsWith('# Two lines \\`x\\`\n'), text);
    assert.ok(text.includes('### Tool: Run \\`ls\\`'), text);
    assert.ok(text.includes('- **Location:** ``a`b``'), text);
  });

  it('writes a new file as a diff from /dev/null', () => {
    assert.equal(unifiedDiff('n.txt', undefined, 'one\ntwo\n'), '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two');
  });

  it('bounds each block and the whole document, and says what was left out', () => {
    const long = 'x'.repeat(5000);
    const entries: ViewEntry[] = Array.from({ length: 50 }, (_, i) => ({ kind: 'agent', id: `a${i}`, blocks: [{ type: 'text', text: long }] }));
    const text = transcriptMarkdown(header, entries, { block: 1000, total: 10_000 });
    assert.ok(text.length <= 10_000 + 200, `${text.length}`);
    assert.match(text, /… \(4000 more characters not included\)/);
    assert.match(text, /The transcript is cut here: \d+ more entries are not included/);
    const unbounded = transcriptMarkdown(header, entries);
    assert.ok(unbounded.includes(long));
  });

  it('diffs a huge rewrite in bounded time: past the edit bound it gives up and shows the whole file replaced', () => {
    // Every other line changed: a line-by-line diff would keep the others as context in 15,000 small hunks. That
    // it shows none says the search stopped at its bound (what bounds its time; the time itself is not asserted).
    const before = Array.from({ length: 30_000 }, (_, i) => `line ${i}`).join('\n');
    const after = Array.from({ length: 30_000 }, (_, i) => (i % 2 === 1 ? `other ${i}` : `line ${i}`)).join('\n');
    const diff = unifiedDiff('big.txt', before, after);
    assert.ok(diff.startsWith('--- a/big.txt\n+++ b/big.txt\n@@ -1,30000 +1,30000 @@\n-line 0\n-line 1\n'), diff.slice(0, 100));
    assert.equal(diff.split('\n').filter((line) => line.startsWith(' ')).length, 0, 'no context lines: the whole file replaced');
  });

  it('is deterministic: the same entries give the same text', () => {
    assert.equal(transcriptMarkdown(header, every), transcriptMarkdown(header, structuredClone(every)));
  });
});
