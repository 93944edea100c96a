import * as assert from 'node:assert/strict';
import { resolveAgentList } from '../../../../src/agents/agentConfig';
import {
  buildRemoteAgentEntry,
  checkAgentName,
  checkMappingPath,
  checkRemoteUrl,
  defaultMappingPath,
  defaultRemoteName,
  entryNames,
  isInsecureRemote,
  parseHeaderLines,
  parseStoredCredentials,
  remoteSecretKey,
  storedCredentialsValue,
  uniqueName,
  withRemoteAgentEntry,
} from '../../../../src/sessions/agents/remoteAgentEntry';

describe('remote agent entries (what Add Remote Agent… writes)', () => {
  describe('remoteSecretKey', () => {
    it('is the origin and path, without query or fragment, so a server and its agents share one key', () => {
      assert.equal(remoteSecretKey('https://box.example:2468/acp?token=x#frag'), 'acpWorkspace.remote:https://box.example:2468/acp');
      assert.equal(remoteSecretKey('http://127.0.0.1:2468'), remoteSecretKey('http://127.0.0.1:2468/'));
      assert.equal(remoteSecretKey('  wss://Box.Example/ws '), 'acpWorkspace.remote:wss://box.example/ws');
      assert.notEqual(remoteSecretKey('https://a.example/x'), remoteSecretKey('https://a.example/y'));
    });
    it('keeps an unparsable URL apart but without its query', () => {
      assert.equal(remoteSecretKey('not a url?secret=1'), 'acpWorkspace.remote:not a url');
    });
  });

  describe('stored credentials', () => {
    it('round-trips a token and headers; nothing to store is no value', () => {
      const value = storedCredentialsValue({ token: ' t0k ', headers: { 'X-Team': 'a' } });
      assert.deepEqual(parseStoredCredentials(value), { credentials: { token: 't0k', headers: { 'X-Team': 'a' } } });
      assert.equal(storedCredentialsValue({}), undefined);
      assert.equal(storedCredentialsValue({ token: '  ', headers: {} }), undefined);
    });
    it('treats an unreadable value as none, and never quotes it', () => {
      for (const bad of ['sekret{', '"sekret"', '{"token":42}', '{"token":"a\\nb"}', '{"headers":{"bad name":"sekret"}}', '{"token":"x","extra":"sekret"}']) {
        const read = parseStoredCredentials(bad);
        assert.deepEqual(read.credentials, {}, bad);
        assert.ok(read.problem, bad);
        assert.ok(!read.problem.includes('sekret'), `the problem does not quote the value: ${read.problem}`);
      }
      assert.deepEqual(parseStoredCredentials(undefined), { credentials: {} });
    });
  });

  describe('parseHeaderLines', () => {
    it('reads "Name: value" pairs separated by ; or new lines, Authorization included', () => {
      assert.deepEqual(parseHeaderLines('X-Api-Key: abc; Authorization: Basic Zm9v\nX-Empty:'), {
        headers: { 'X-Api-Key': 'abc', Authorization: 'Basic Zm9v', 'X-Empty': '' },
      });
      assert.deepEqual(parseHeaderLines('  '), { headers: {} });
      assert.deepEqual(parseHeaderLines('X-Url: https://a.example:1/x'), { headers: { 'X-Url': 'https://a.example:1/x' } });
    });
    it('refuses names that are not HTTP tokens, missing colons, twice-given and connection headers, without quoting a value', () => {
      const error = (text: string) => {
        const parsed = parseHeaderLines(text);
        assert.ok('error' in parsed, `${text} is refused`);
        return parsed.error;
      };
      assert.match(error('Bad Name: sekret'), /not a valid header name/);
      assert.match(error('just-a-value'), /is not "Name: value"/);
      assert.match(error(': sekret'), /is not "Name: value"/);
      assert.match(error('X-A: 1; x-a: 2'), /given twice/);
      assert.match(error('Host: evil.example'), /set by the connection/);
      assert.match(error('Sec-WebSocket-Protocol: x'), /set by the connection/);
      assert.match(error('X-A: one\rtwo'), /one line/);
      for (const text of ['Bad Name: sekret', ': sekret', 'X-A: sek\rret']) assert.ok(!error(text).includes('sekret'));
    });
  });

  describe('URL, names and mappings', () => {
    it('checks the URL: schemes, user info, query; plain http off this machine passes (asked next)', () => {
      assert.equal(checkRemoteUrl('https://box.example:2468'), undefined);
      assert.equal(checkRemoteUrl('ws://10.0.0.5:9000/acp'), undefined);
      assert.match(checkRemoteUrl('ftp://box') ?? '', /ws:\/\/, wss:\/\/, http:\/\/ or https:\/\//);
      assert.match(checkRemoteUrl('https://me:pw@box') ?? '', /user name or password/);
      assert.match(checkRemoteUrl('https://box/acp?token=x') ?? '', /query/);
      assert.match(checkRemoteUrl('') ?? '', /Enter the URL/);
      assert.equal(isInsecureRemote('http://10.0.0.5:2468'), true);
      assert.equal(isInsecureRemote('ws://localhost:1'), false);
      assert.equal(isInsecureRemote('http://[::1]:1'), false);
      assert.equal(isInsecureRemote('https://10.0.0.5'), false);
    });
    it('names the agent after the server and keeps names unique', () => {
      assert.equal(defaultRemoteName('http://127.0.0.1:2468', 'opencode'), 'opencode on 127.0.0.1:2468');
      assert.equal(defaultRemoteName('wss://box.example/acp'), 'box.example');
      assert.equal(uniqueName('box', ['box', 'box (2)']), 'box (3)');
      assert.equal(uniqueName('box', []), 'box');
      assert.match(checkAgentName('Codex', ['Codex']) ?? '', /exists already/);
      assert.match(checkAgentName('  ', []) ?? '', /Enter a name/);
      assert.equal(checkAgentName('new', ['Codex']), undefined);
    });
    it('prefills a folder with its own path only for a server on this machine; a typed path is absolute or empty', () => {
      assert.equal(defaultMappingPath('/home/me/app', true), '/home/me/app');
      assert.equal(defaultMappingPath('/home/me/app', false), '');
      assert.equal(defaultMappingPath('C:\\work\\app', true), '');
      assert.equal(checkMappingPath(''), undefined);
      assert.equal(checkMappingPath('/workspace/app'), undefined);
      assert.match(checkMappingPath('workspace/app') ?? '', /absolute path/);
    });
  });

  describe('buildRemoteAgentEntry', () => {
    it('writes the folders with a path as mappings, the Sandbox Agent id, and no transport or allowInsecure unless needed', () => {
      const entry = buildRemoteAgentEntry({
        name: ' opencode on box ',
        url: 'http://127.0.0.1:2468',
        sandboxAgent: 'opencode',
        allowInsecure: false,
        folders: [
          { local: '/home/me/app', remote: '/workspace/app ' },
          { local: '/home/me/docs', remote: '' },
        ],
      });
      assert.deepEqual(entry, {
        name: 'opencode on box',
        remote: { url: 'http://127.0.0.1:2468', sandboxAgent: 'opencode', pathMappings: [{ local: '/home/me/app', remote: '/workspace/app' }] },
      });
      // The agent list reads it back as the remote agent it is.
      const { agents, problems } = resolveAgentList([entry]);
      assert.deepEqual(problems, []);
      const added = agents.find((a) => a.name === 'opencode on box');
      assert.equal(added?.remote?.sandboxAgent, 'opencode');
    });
    it('writes allowInsecure only for plain http off this machine, and no folders means "same paths"', () => {
      const entry = buildRemoteAgentEntry({ name: 'lan', url: 'ws://10.0.0.5:9000', allowInsecure: true, folders: [{ local: '/a', remote: '' }] });
      assert.deepEqual(entry, { name: 'lan', remote: { url: 'ws://10.0.0.5:9000', pathMappings: [], allowInsecure: true } });
      const refused = buildRemoteAgentEntry({ name: 'lan', url: 'ws://10.0.0.5:9000', allowInsecure: false, folders: [] });
      assert.ok(refused instanceof Error);
      assert.match(refused.message, /not encrypted/);
    });
    it('refuses what the schema refuses: an empty name, a relative remote path, a bad agent id, a query', () => {
      const base = { name: 'x', url: 'https://box.example', allowInsecure: false, folders: [] };
      assert.ok(buildRemoteAgentEntry({ ...base, name: ' ' }) instanceof Error);
      assert.ok(buildRemoteAgentEntry({ ...base, folders: [{ local: '/a', remote: 'rel/path' }] }) instanceof Error);
      assert.ok(buildRemoteAgentEntry({ ...base, folders: [{ local: 'rel', remote: '/a' }] }) instanceof Error);
      assert.ok(buildRemoteAgentEntry({ ...base, sandboxAgent: 'no spaces' }) instanceof Error);
      assert.ok(buildRemoteAgentEntry({ ...base, url: 'https://box.example/?token=sekret' }) instanceof Error);
    });
  });

  describe('withRemoteAgentEntry', () => {
    const entry = { name: 'box', remote: { url: 'https://box.example', pathMappings: [] } };
    it('adds at the end and keeps every other entry as it was, unknown shapes included', () => {
      const other = { name: 'Local', command: 'x', args: ['--y'], custom: true };
      assert.deepEqual(withRemoteAgentEntry([other, 'junk'], entry), [other, 'junk', entry]);
      assert.deepEqual(withRemoteAgentEntry(undefined, entry), [entry]);
    });
    it('refuses a setting that is not a list, and a name already taken there', () => {
      assert.ok(withRemoteAgentEntry({ name: 'x' }, entry) instanceof Error);
      assert.ok(withRemoteAgentEntry([{ name: 'box', command: 'y' }], entry) instanceof Error);
      assert.deepEqual(entryNames([{ name: ' a ' }, 3, { name: 4 }, { name: 'b' }]), ['a', 'b']);
    });
  });
});
