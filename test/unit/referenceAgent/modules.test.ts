import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CursorCodec } from '../../fixtures/referenceAgent/cursor';
import { DEFAULT_PAGE_SIZE, OptionError, parseOptions } from '../../fixtures/referenceAgent/options';
import { permissionOptions } from '../../fixtures/referenceAgent/permission';
import { parseScript, splitCommandLine } from '../../fixtures/referenceAgent/script';
import { seedStore, SessionStore } from '../../fixtures/referenceAgent/store';
import { cleanup, tempDir } from './harness';

describe('reference agent modules (no process)', () => {
  afterEach(cleanup);

  describe('options', () => {
    it('has defaults', () => {
      const options = parseOptions([], {});
      assert.equal(options.store, undefined);
      assert.equal(options.pageSize, DEFAULT_PAGE_SIZE);
      assert.equal(options.name, 'reference-agent');
      assert.equal(options.protocolVersion, undefined);
      assert.equal(options.disabled.size, 0);
      assert.equal(options.faults.size, 0);
    });

    it('takes --flag value, --flag=value and env; the flag wins', () => {
      const options = parseOptions(['--store=/s', '--page-size', '7', '--disable', 'fork, list'], {
        ACP_REF_STORE: '/env',
        ACP_REF_PAGE_SIZE: '9',
        ACP_REF_FAULT: 'spawn-child,slow-initialize',
        ACP_REF_AUTH: 'login',
      });
      assert.equal(options.store, '/s');
      assert.equal(options.pageSize, 7);
      assert.deepEqual([...options.disabled], ['fork', 'list']);
      assert.deepEqual([...options.faults], ['spawn-child', 'slow-initialize']);
      assert.equal(options.auth, 'login');
    });

    it('--protocol: both by default, v1 or v2 by flag or ACP_REF_PROTOCOL, nothing else', () => {
      assert.equal(parseOptions([], {}).protocol, 'both');
      assert.equal(parseOptions(['--protocol', 'v1'], {}).protocol, 'v1');
      assert.equal(parseOptions(['--protocol=V2'], { ACP_REF_PROTOCOL: 'v1' }).protocol, 'v2');
      assert.equal(parseOptions([], { ACP_REF_PROTOCOL: 'v2' }).protocol, 'v2');
      assert.throws(() => parseOptions(['--protocol', '3'], {}), /--protocol: expected one of v1, v2, both, got "3"/);
    });

    it('rejects unknown flags, unknown list values and bad numbers', () => {
      assert.throws(() => parseOptions(['--nope'], {}), OptionError);
      assert.throws(() => parseOptions(['--disable', 'teleport'], {}), /unknown value "teleport"/);
      assert.throws(() => parseOptions([], { ACP_REF_FAULT: 'explode' }), OptionError);
      assert.throws(() => parseOptions(['--page-size', '0'], {}), /integer >= 1/);
      assert.throws(() => parseOptions(['--page-size', '2.5'], {}), OptionError);
      assert.throws(() => parseOptions(['--store'], {}), /needs a value/);
    });
  });

  describe('prompt keywords', () => {
    it('finds keywords case-insensitively as whole words and orders them', () => {
      const script = parseScript('PLAN then Stream, think; also permission and usage. unknown-update');
      assert.deepEqual(
        script.steps.map((s) => s.kind),
        ['think', 'stream', 'permission', 'plan', 'usage', 'unknown-update'],
      );
      assert.deepEqual(parseScript('streaming planner thinker').steps, []);
      assert.equal(parseScript('be SLOW').slow, true);
      assert.equal(parseScript('hang on').hang, true);
    });

    it('parses read/write/terminal/title arguments and does not look for keywords inside them', () => {
      const script = parseScript('read /a/b.txt line 3 limit 4\nwrite "/c d/e.txt" stream this\nterminal node -e "1"\n/title  A plan ');
      assert.deepEqual(script.steps, [
        { kind: 'read', path: '/a/b.txt', line: 3, limit: 4 },
        { kind: 'write', path: '/c d/e.txt', text: 'stream this' },
        { kind: 'terminal', commandLine: 'node -e "1"' },
        { kind: 'title', title: 'A plan' },
      ]);
      assert.deepEqual(parseScript('read the docs').steps, [], 'read needs an absolute path');
      assert.deepEqual(parseScript('run-in "/w/my app" node -e "1" stream').steps, [{ kind: 'run-in', cwd: '/w/my app', commandLine: 'node -e "1" stream' }]);
      assert.deepEqual(parseScript('run-in here ls').steps, [], 'run-in needs an absolute folder');
      assert.deepEqual(parseScript('oversized-unattributed').steps, [{ kind: 'oversized-unattributed' }], 'not also oversized');
      assert.deepEqual(parseScript('/help').steps, [{ kind: 'help' }]);
    });

    it('parses the *-direct keywords in prompt order, repeated, with relative paths, as one step', () => {
      const script = parseScript(
        'append-direct notes.txt one stream\nwrite-direct "/w/my app/a.txt" write /x plan\nappend-direct notes.txt two\nprepend-direct notes.txt zero\nrename-direct a.txt "sub/b c.txt"\ndelete-direct /w/old.txt usage',
      );
      assert.deepEqual(script.steps, [
        {
          kind: 'direct',
          ops: [
            { op: 'append', path: 'notes.txt', text: 'one stream' },
            { op: 'write', path: '/w/my app/a.txt', text: 'write /x plan' },
            { op: 'append', path: 'notes.txt', text: 'two' },
            { op: 'prepend', path: 'notes.txt', text: 'zero' },
            { op: 'rename', path: 'a.txt', to: 'sub/b c.txt' },
            { op: 'delete', path: '/w/old.txt' },
          ],
        },
        { kind: 'usage' },
      ]);
      assert.deepEqual(
        parseScript('write /a.txt x\nwrite-direct /b.txt y').steps.map((s) => s.kind),
        ['write', 'direct'],
        'write and write-direct are different keywords',
      );
      assert.deepEqual(parseScript('overwrite-direct a b').steps, [], 'whole words only');
    });

    it('splits command lines with quotes and escapes, keeping Windows backslashes', () => {
      assert.deepEqual(splitCommandLine(`node -e "console.log('x y')" 'a b' c\\ d`), ['node', '-e', "console.log('x y')", 'a b', 'c d']);
      assert.deepEqual(splitCommandLine('C:\\Tools\\run.exe /c'), ['C:\\Tools\\run.exe', '/c']);
      assert.deepEqual(splitCommandLine('  '), []);
    });
  });

  describe('permission options', () => {
    it('are deterministic, never start with allow_once and differ between seeds', () => {
      const orders = new Set<string>();
      for (let i = 0; i < 40; i++) {
        const options = permissionOptions(`seed ${i}`);
        assert.deepEqual(options, permissionOptions(`seed ${i}`));
        assert.notEqual(options[0].kind, 'allow_once');
        assert.equal(new Set(options.map((o) => o.optionId)).size, 4);
        orders.add(options.map((o) => o.kind).join());
      }
      assert.ok(orders.size > 5, 'the order varies with the seed');
    });
  });

  describe('cursors', () => {
    it('round-trip for the same filter only', () => {
      const codec = new CursorCodec();
      const key = { updatedAt: '2026-01-01T00:00:00.000Z', sessionId: 'ref_1' };
      const cursor = codec.encode(key, '/w');
      assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      assert.deepEqual(codec.decode(cursor, '/w'), key);
      assert.equal(codec.decode(cursor, undefined), undefined);
      assert.equal(codec.decode(cursor, '/x'), undefined);
      assert.equal(new CursorCodec().decode(cursor, '/w'), undefined);
      const [payload, mac] = cursor.split('.');
      const forged = Buffer.from(JSON.stringify(['2030-01-01T00:00:00.000Z', 'ref_1'])).toString('base64url');
      assert.equal(codec.decode(`${forged}.${mac}`, '/w'), undefined);
      assert.equal(codec.decode(payload, '/w'), undefined);
    });
  });

  describe('store', () => {
    it('seeds files that a store loads, writes atomically and deletes files', () => {
      const dir = tempDir();
      const [seeded] = seedStore(dir, [{ cwd: '/w', title: 'T' }]);
      assert.match(seeded.sessionId, /^ref_[0-9a-f]{32}$/);
      fs.writeFileSync(path.join(dir, 'broken.json'), '{');
      const store = new SessionStore(dir);
      const loaded = store.get(seeded.sessionId);
      assert.deepEqual(loaded, seeded);
      assert.ok(loaded);
      loaded.title = 'Changed';
      store.markDirty(loaded);
      store.flush();
      assert.equal(new SessionStore(dir).get(seeded.sessionId)?.title, 'Changed');
      assert.deepEqual(
        fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')),
        [],
      );
      assert.equal(store.delete(seeded.sessionId), true);
      assert.deepEqual(fs.readdirSync(dir), ['broken.json']);
    });
  });
});
