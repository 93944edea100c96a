import * as assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { PathMappingError, checkPathMappings, createPathMapper } from '../../../src/acp/pathMapping';

describe('PathMapper', () => {
  const mapper = createPathMapper(
    [
      { local: '/home/me/app', remote: '/workspace/app' },
      { local: '/home/me/lib/', remote: '/workspace/lib/' },
    ],
    { localPlatform: 'posix' },
  );

  it('maps paths inside a folder both ways, the folder itself included', () => {
    assert.equal(mapper.toRemote('/home/me/app/src/a.ts'), '/workspace/app/src/a.ts');
    assert.equal(mapper.toRemote('/home/me/app'), '/workspace/app');
    assert.equal(mapper.toLocal('/workspace/lib/x/y.ts'), '/home/me/lib/x/y.ts');
    assert.equal(mapper.toLocal('/workspace/lib'), '/home/me/lib');
  });

  it('matches whole segments only', () => {
    assert.equal(mapper.toRemote('/home/me/app2/a.ts'), undefined);
    assert.equal(mapper.toLocal('/workspace/application'), undefined);
    assert.equal(mapper.toLocal('/workspace'), undefined);
  });

  it('ignores trailing slashes and repeated separators, on the mappings and the paths', () => {
    assert.equal(mapper.toRemote('/home/me/app/'), '/workspace/app');
    assert.equal(mapper.toRemote('/home/me//app///src/'), '/workspace/app/src');
    assert.equal(mapper.toLocal('/workspace/lib/'), '/home/me/lib');
    assert.deepEqual(mapper.remoteRoots.slice().sort(), ['/workspace/app', '/workspace/lib']);
  });

  it('normalises . and .. before matching, so .. cannot climb out of a folder', () => {
    assert.equal(mapper.toLocal('/workspace/app/../secret'), undefined);
    assert.equal(mapper.toLocal('/workspace/app/../lib/a'), '/home/me/lib/a');
    assert.equal(mapper.toLocal('/workspace/app/./src/../b.ts'), '/home/me/app/b.ts');
    assert.equal(mapper.toRemote('/home/me/app/../../../etc/passwd'), undefined);
    assert.equal(mapper.toLocal('/workspace/app/../../../..'), undefined);
  });

  it('refuses relative paths, NUL bytes and non-strings', () => {
    assert.equal(mapper.toLocal('workspace/app/a'), undefined);
    assert.equal(mapper.toRemote('home/me/app'), undefined);
    assert.equal(mapper.toLocal('/workspace/app/a\0.ts'), undefined);
    assert.equal(mapper.toRemote('/home/me/app/a\0'), undefined);
    assert.equal(mapper.toLocal(42 as unknown as string), undefined);
  });

  it('takes the longest folder when one local folder lies inside another', () => {
    const nested = createPathMapper(
      [
        { local: '/home/me', remote: '/root-home' },
        { local: '/home/me/app', remote: '/workspace/app' },
      ],
      { localPlatform: 'posix' },
    );
    assert.equal(nested.toRemote('/home/me/app/a.ts'), '/workspace/app/a.ts');
    assert.equal(nested.toRemote('/home/me/notes.md'), '/root-home/notes.md');
    assert.equal(nested.toLocal('/workspace/app/a.ts'), '/home/me/app/a.ts');
    assert.equal(nested.toLocal('/root-home/app/a.ts'), '/home/me/app/a.ts');
  });

  it('keeps a backslash in a POSIX name as part of the name', () => {
    assert.equal(mapper.toLocal('/workspace/app/a\\b.ts'), '/home/me/app/a\\b.ts');
    assert.equal(mapper.toRemote('/home/me/app/a\\b.ts'), '/workspace/app/a\\b.ts');
  });

  it('maps the identity to the same strings', () => {
    const identity = createPathMapper([{ local: '/a', remote: '/a' }], { localPlatform: 'posix' });
    assert.equal(identity.toRemote('/a/b/c'), '/a/b/c');
    assert.equal(identity.toLocal('/a/b/c'), '/a/b/c');
    assert.equal(identity.toLocal('/b'), undefined);
  });

  describe('file: URIs', () => {
    it('maps file URIs with spaces, percent signs, # and non-ASCII names, keeping the fragment', () => {
      const local = pathToFileURL('/home/me/app/my dir/100% done #1 é.ts').href + '#L3-L5';
      const remote = mapper.toRemoteUri(local);
      assert.equal(remote, 'file:///workspace/app/my%20dir/100%25%20done%20%231%20%C3%A9.ts#L3-L5');
      assert.equal(mapper.toLocalUri(remote!), local);
    });

    it('keeps the encoding of what lies below the folder, and writes the folder itself as pathToFileURL does', () => {
      assert.equal(mapper.toLocalUri('file:///workspace/app/a%2Bb%3Ac.ts'), 'file:///home/me/app/a%2Bb%3Ac.ts');
      assert.equal(mapper.toLocalUri('file://localhost/workspace/app/x'), 'file:///home/me/app/x');
      const spaced = createPathMapper([{ local: '/home/me/my app#1', remote: '/w/app' }], { localPlatform: 'posix' });
      assert.equal(spaced.toRemoteUri('file:///home/me/my%20app%231/x%20y.ts?q=1'), 'file:///w/app/x%20y.ts?q=1');
      assert.equal(spaced.toLocalUri('file:///w/app/x%20y.ts'), 'file:///home/me/my%20app%231/x%20y.ts');
      assert.equal(spaced.toLocalUri('file:///w/app'), 'file:///home/me/my%20app%231');
    });

    it('writes a URI that had to be normalised afresh', () => {
      assert.equal(mapper.toLocalUri('file:///workspace/app/x/../a%20b%3A.ts'), 'file:///home/me/app/a%20b:.ts');
      assert.equal(mapper.toLocalUri('file:///workspace/app//a'), 'file:///home/me/app/a');
      assert.equal(mapper.toLocalUri('file:///workspace/app/a%2Fb'), 'file:///home/me/app/a/b');
    });

    it('writes every printable ASCII and some non-ASCII names exactly as pathToFileURL does', () => {
      const names = [...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).filter((c) => c !== '/'), 'é', '日本', '😀'];
      for (const name of names) {
        const local = pathToFileURL(`/home/me/app/a${name}b`).href;
        const remote = mapper.toRemoteUri(local);
        assert.equal(remote, local.replace('file:///home/me/app/', 'file:///workspace/app/'), `name with ${JSON.stringify(name)}`);
        assert.equal(mapper.toLocalUri(remote!), local);
      }
    });

    it('does not let encoded separators or dots climb out', () => {
      assert.equal(mapper.toLocalUri('file:///workspace/app/..%2F..%2Fetc%2Fpasswd'), undefined);
      assert.equal(mapper.toLocalUri('file:///workspace/app/%2E%2E/secret'), undefined);
      assert.equal(mapper.toLocalUri('file:///workspace/app/a%00b'), undefined);
    });

    it('leaves other schemes unchanged and refuses what is not a local file URI', () => {
      assert.equal(mapper.toRemoteUri('https://example.com/a'), 'https://example.com/a');
      assert.equal(mapper.toLocalUri('untitled:Untitled-1'), 'untitled:Untitled-1');
      assert.equal(mapper.toLocalUri('file:///elsewhere/a'), undefined);
      assert.equal(mapper.toLocalUri('file://otherhost/workspace/app/a'), undefined);
      assert.equal(mapper.toLocalUri('file:///workspace/app/%E0%A4%A'), undefined);
    });
  });

  describe('a Windows client', () => {
    const windows = createPathMapper(
      [
        { local: 'C:\\Users\\me\\app', remote: '/workspace/app' },
        { local: '\\\\server\\share\\lib', remote: '/workspace/lib' },
      ],
      { localPlatform: 'win32' },
    );

    it('maps with backslashes or slashes and any drive-letter case', () => {
      assert.equal(windows.toRemote('C:\\Users\\me\\app\\src\\a.ts'), '/workspace/app/src/a.ts');
      assert.equal(windows.toRemote('c:/users/ME/app/src/a.ts'), '/workspace/app/src/a.ts');
      assert.equal(windows.toLocal('/workspace/app/src/a.ts'), 'C:\\Users\\me\\app\\src\\a.ts');
      assert.equal(windows.toRemote('C:\\Users\\me\\app2\\a.ts'), undefined);
    });

    it('maps UNC shares', () => {
      assert.equal(windows.toRemote('\\\\server\\share\\lib\\x.ts'), '/workspace/lib/x.ts');
      assert.equal(windows.toLocal('/workspace/lib/x.ts'), '\\\\server\\share\\lib\\x.ts');
    });

    it('refuses agent names Windows would read as separators, drives or ..', () => {
      assert.equal(windows.toLocal('/workspace/app/..\\..\\secret'), undefined);
      assert.equal(windows.toLocal('/workspace/app/C:x'), undefined);
      assert.equal(windows.toLocal('/workspace/app/.. /secret'), undefined);
      assert.equal(windows.toLocal('/workspace/app/../secret'), undefined);
      assert.equal(windows.toRemote('C:\\Users\\me\\app\\..\\secret'), undefined);
      assert.equal(windows.toRemote('\\Users\\me\\app\\a'), undefined, 'a path on the current drive is not absolute');
    });

    it('maps file URIs, drive letters in either form', () => {
      assert.equal(windows.toRemoteUri('file:///c%3A/Users/me/app/a%20b.ts'), 'file:///workspace/app/a%20b.ts');
      assert.equal(windows.toLocalUri('file:///workspace/app/a%20b.ts#L1'), 'file:///C:/Users/me/app/a%20b.ts#L1');
      assert.equal(windows.toRemoteUri('file://server/share/lib/x.ts'), 'file:///workspace/lib/x.ts');
      assert.equal(windows.toLocalUri('file:///workspace/lib/x.ts'), 'file://server/share/lib/x.ts');
    });
  });

  describe('checking mappings', () => {
    it('accepts good mappings, nested local folders included', () => {
      assert.deepEqual(
        checkPathMappings(
          [
            { local: '/home/me', remote: '/h' },
            { local: '/home/me/app', remote: '/workspace/app' },
          ],
          { localPlatform: 'posix' },
        ),
        [],
      );
    });

    it('names every problem in words', () => {
      const problems = checkPathMappings(
        [
          { local: 'relative/app', remote: '/workspace/a' },
          { local: '/home/me/b', remote: 'C:\\workspace\\b' },
          { local: '/home/me/c', remote: '/workspace/c' },
          { local: '/home/me/c/', remote: '/workspace/c2' },
          { local: '/home/me/d', remote: '/workspace/c' },
          { local: '/home/me/e', remote: '/workspace/c/e' },
        ],
        { localPlatform: 'posix' },
      );
      assert.deepEqual(problems, [
        'The folder "relative/app" is not an absolute path on this machine.',
        'The agent path "C:\\workspace\\b" is not an absolute POSIX path (such as /workspace/app).',
        'The folder "/home/me/c" is mapped twice.',
        'The folders "/home/me/c" and "/home/me/d" are both mapped to "/workspace/c".',
        'The agent path "/workspace/c/e" lies inside "/workspace/c", so it must be mapped from "/home/me/c/e", not "/home/me/e": otherwise files of one folder would be taken for files of the other.',
        'The agent path "/workspace/c/e" lies inside "/workspace/c", so it must be mapped from "/home/me/d/e", not "/home/me/e": otherwise files of one folder would be taken for files of the other.',
      ]);
    });

    it('accepts an agent path nested to match its folder', () => {
      assert.deepEqual(
        checkPathMappings(
          [
            { local: '/home/me', remote: '/h' },
            { local: '/home/me/app', remote: '/h/app' },
          ],
          { localPlatform: 'posix' },
        ),
        [],
      );
    });

    it('compares Windows folders case-insensitively', () => {
      assert.deepEqual(
        checkPathMappings(
          [
            { local: 'C:\\App', remote: '/a' },
            { local: 'c:/app/', remote: '/b' },
          ],
          { localPlatform: 'win32' },
        ),
        ['The folder "C:\\App" is mapped twice.'],
      );
    });

    it('createPathMapper throws with the problems', () => {
      assert.throws(
        () => createPathMapper([{ local: '/a', remote: 'a' }], { localPlatform: 'posix' }),
        (error: unknown) => error instanceof PathMappingError && error.problems.length === 1 && error.message.includes('"a" is not an absolute POSIX path'),
      );
    });
  });
});
