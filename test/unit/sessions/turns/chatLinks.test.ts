import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AcpConnection } from '../../../../src/acp/connection';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import { AgentSession } from '../../../../src/sessions/routing/agentSession';
import type { OutsideFileQuestion } from '../../../../src/sessions/ports';
import { linkTarget, openChatTarget, type LinkOpener } from '../../../../src/sessions/turns/chatLinks';
import { tempDir } from '../../../helpers/referenceAgent';

describe('chat links: what a click on something the agent wrote opens', () => {
  it('tells web links, files (with a #L line) and everything else apart; relative paths are under the cwd', () => {
    assert.deepEqual(linkTarget('https://example.com/a?b#c', '/w/app'), { kind: 'web', uri: 'https://example.com/a?b#c' });
    assert.deepEqual(linkTarget('mailto:a@b.c', '/w/app'), { kind: 'web', uri: 'mailto:a@b.c' });
    assert.deepEqual(linkTarget(pathToFileURL('/w/lib/a b.ts').href + '#L12', '/w/app'), { kind: 'file', path: '/w/lib/a b.ts', line: 12 });
    assert.deepEqual(linkTarget('/etc/passwd', '/w/app'), { kind: 'file', path: '/etc/passwd' });
    assert.deepEqual(linkTarget('src/my%20file.ts#L3', '/w/app'), { kind: 'file', path: '/w/app/src/my file.ts', line: 3 });
    assert.deepEqual(linkTarget('../../etc/passwd', '/w/app'), { kind: 'file', path: '/etc/passwd' });
    for (const href of ['command:workbench.action.terminal.new', 'vscode://file/etc/passwd', 'javascript:alert(1)', '#top', '']) {
      assert.deepEqual(linkTarget(href, '/w/app'), { kind: 'none' }, href);
    }
  });

  describe('opening', () => {
    let folder: { dir: string; cleanup: () => void };
    let root: string;
    let outside: string;
    let session: AgentSession;
    let opened: string[];
    let asked: OutsideFileQuestion[];
    let answer: boolean;
    const opener: LinkOpener = {
      openFile: async (file, line) => void opened.push(`${file}${line ? `:${line}` : ''}`),
      openExternal: async (uri) => void opened.push(uri),
      confirmOutside: async (question) => {
        asked.push(question);
        return answer;
      },
    };

    beforeEach(() => {
      folder = tempDir();
      const base = fs.realpathSync.native(folder.dir);
      root = path.join(base, 'app');
      outside = path.join(base, 'outside');
      fs.mkdirSync(path.join(root, 'src'), { recursive: true });
      fs.mkdirSync(outside);
      fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'a');
      fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link'));
      session = new AgentSession('Agent', 's1', {} as AcpConnection, rootSetFromPaths(root));
      opened = [];
      asked = [];
      answer = false;
    });
    afterEach(() => folder.cleanup());

    it('opens a file inside the session’s folders without asking', async () => {
      assert.equal(await openChatTarget(session, linkTarget('src/a.ts#L4', root), opener), 'opened');
      assert.deepEqual(opened, [`${path.join(root, 'src', 'a.ts')}:4`]);
      assert.deepEqual(asked, []);
    });

    it('asks before opening a file outside them, naming it, and opens it only when the user agrees', async () => {
      const secret = path.join(outside, 'secret.txt');
      assert.equal(await openChatTarget(session, linkTarget(pathToFileURL(secret).href, root), opener), 'declined');
      assert.deepEqual(opened, []);
      assert.equal(asked.length, 1);
      assert.equal(asked[0]!.path, secret);
      assert.equal(asked[0]!.agentName, 'Agent');
      assert.match(asked[0]!.reason, /is outside this session’s folder/);
      answer = true;
      assert.equal(await openChatTarget(session, linkTarget(secret, root), opener), 'opened');
      assert.deepEqual(opened, [secret]);
    });

    it('asks for a symlink in a folder that leads outside, and for a folder no longer shared', async () => {
      assert.equal(await openChatTarget(session, { kind: 'file', path: path.join(root, 'link') }, opener), 'declined');
      assert.match(asked[0]!.reason, /resolves to .*secret\.txt/);
      session.withdraw([root], 'taken back');
      assert.equal(await openChatTarget(session, linkTarget('src/a.ts', root), opener), 'declined');
      assert.deepEqual(opened, []);
      assert.equal(asked.length, 2);
    });

    it('hands web links to the browser and ignores other schemes', async () => {
      assert.equal(await openChatTarget(session, linkTarget('https://example.com', root), opener), 'opened');
      assert.equal(await openChatTarget(session, linkTarget('command:rm', root), opener), 'ignored');
      assert.deepEqual(opened, ['https://example.com']);
      assert.deepEqual(asked, []);
    });
  });
});
