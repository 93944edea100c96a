import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { McpServerConfig } from '../../../src/acp/port/mcp';
import { type ConfiguredMcpServer, mcpJsonPath, type McpSource, parseMcpJson, readSettingServers } from '../../../src/mcp/mcpConfig';
import { describeMcpSelection, describeMcpServer, httpNotSupported, selectMcpServers, sseNotSupported } from '../../../src/mcp/mcpSelection';
import { validateAgainstOfficialSchema } from '../../helpers/conformance';
import { validateDefinition } from './officialSchema';

const setting = (index: number): McpSource => ({ kind: 'setting', index });
const fileA = mcpJsonPath(path.resolve('/w/app'));
const fileB = mcpJsonPath(path.resolve('/w/lib'));
const inFile = (p: string): McpSource => ({ kind: 'file', path: p });

const stdio = (name: string, command = name): McpServerConfig => ({ name, command, args: [], env: [] });
const http = (name: string): McpServerConfig => ({ type: 'http', name, url: `https://${name}.example/mcp`, headers: [] });
const sse = (name: string): McpServerConfig => ({ type: 'sse', name, url: `https://${name}.example/sse`, headers: [] });

const ALL = { http: true, sse: true };
const NONE = { http: false, sse: false };

/** Every passed server validates against the official `McpServer` definition and inside a session/new request. */
function assertOfficial(passed: readonly McpServerConfig[]): void {
  for (const server of passed) assert.deepEqual(validateDefinition('McpServer', server), [], JSON.stringify(server));
  assert.deepEqual(validateAgainstOfficialSchema('session/new', 'agent', 'Request', { cwd: '/w/app', mcpServers: passed }), []);
}

describe('selecting the MCP servers an agent gets', () => {
  const configured: ConfiguredMcpServer[] = [
    { source: setting(0), server: stdio('fs') },
    { source: setting(1), server: http('github') },
    { source: inFile(fileA), server: sse('events') },
    { source: inFile(fileA), server: stdio('local') },
  ];

  it('passes http and sse servers only when the agent advertises them', () => {
    const all = selectMcpServers(configured, ALL);
    assert.deepEqual(
      all.passed.map((s) => s.name),
      ['fs', 'github', 'events', 'local'],
    );
    assert.deepEqual(all.notPassed, []);
    assertOfficial(all.passed);

    const none = selectMcpServers(configured, NONE);
    assert.deepEqual(
      none.passed.map((s) => s.name),
      ['fs', 'local'],
    );
    assert.deepEqual(none.notPassed, [
      { name: 'github', source: setting(1), reason: 'the agent does not support HTTP MCP servers' },
      { name: 'events', source: inFile(fileA), reason: 'the agent does not support SSE MCP servers' },
    ]);
    assertOfficial(none.passed);

    const httpOnly = selectMcpServers(configured, { http: true, sse: false });
    assert.deepEqual(
      httpOnly.passed.map((s) => s.name),
      ['fs', 'github', 'local'],
    );
    assert.deepEqual(
      httpOnly.notPassed.map((n) => n.reason),
      [sseNotSupported()],
    );
    const sseOnly = selectMcpServers(configured, { http: false, sse: true });
    assert.deepEqual(
      sseOnly.notPassed.map((n) => n.reason),
      [httpNotSupported()],
    );
  });

  it('uses each name once: the setting wins over files, the first file over later ones, the first setting entry over later ones', () => {
    const duplicates: ConfiguredMcpServer[] = [
      { source: inFile(fileA), server: stdio('tool', 'from-file-a') },
      { source: setting(0), server: stdio('tool', 'from-setting') },
      { source: inFile(fileB), server: stdio('tool', 'from-file-b') },
      { source: setting(1), server: stdio('tool', 'from-setting-again') },
      { source: inFile(fileA), server: stdio('shared', 'a') },
      { source: inFile(fileB), server: stdio('shared', 'b') },
    ];
    const { passed, notPassed } = selectMcpServers(duplicates, ALL);
    assert.deepEqual(
      passed.map((s) => [s.name, 'command' in s ? s.command : '']),
      [
        ['tool', 'from-setting'],
        ['shared', 'a'],
      ],
    );
    assert.deepEqual(notPassed, [
      { name: 'tool', source: inFile(fileA), reason: 'another server named "tool" (acpWorkspace.mcpServers[0]) is used instead' },
      { name: 'tool', source: inFile(fileB), reason: 'another server named "tool" (acpWorkspace.mcpServers[0]) is used instead' },
      { name: 'tool', source: setting(1), reason: 'another server named "tool" (acpWorkspace.mcpServers[0]) is used instead' },
      { name: 'shared', source: inFile(fileB), reason: `another server named "shared" (${fileA}) is used instead` },
    ]);
    assertOfficial(passed);
  });

  it('resolves duplicate names among the servers the agent can take', () => {
    const configuredTwice: ConfiguredMcpServer[] = [
      { source: setting(0), server: http('github') },
      { source: inFile(fileA), server: { ...stdio('github', 'github-mcp-server') } },
    ];
    const { passed, notPassed } = selectMcpServers(configuredTwice, NONE);
    assert.deepEqual(passed, [stdio('github', 'github-mcp-server')]);
    assert.deepEqual(notPassed, [{ name: 'github', source: setting(0), reason: httpNotSupported() }]);
    const both = selectMcpServers(configuredTwice, ALL);
    assert.deepEqual(both.passed, [http('github')]);
    assert.equal(both.notPassed[0]!.reason, 'another server named "github" (acpWorkspace.mcpServers[0]) is used instead');
  });

  it('checks against the official definition for real (it rejects what ACP does not allow)', () => {
    assert.notDeepEqual(validateDefinition('McpServer', { name: 'x', command: 'y', args: [], env: { KEY: 'v' } }), []);
    assert.notDeepEqual(validateDefinition('McpServer', { name: 'x', command: 'y' }), []);
    assert.notDeepEqual(validateDefinition('McpServer', { type: 'http', name: 'x', url: 'https://x' }), []);
  });

  it('passes nothing when nothing is configured', () => {
    assert.deepEqual(selectMcpServers([], ALL), { passed: [], notPassed: [] });
  });

  it('end to end: what the setting and a file configure validates against the official schema', () => {
    const fromSetting = readSettingServers(
      [
        { name: 'fs', command: 'npx', args: ['-y', 'server-fs'], env: { KEY: 'v' } },
        { name: 'remote', type: 'http', url: 'https://r.example/mcp', headers: { Authorization: 'Bearer t' } },
      ],
      {},
    );
    const fromFile = parseMcpJson(
      '{ "servers": { "fs": { "command": "other" }, "events": { "type": "sse", "url": "https://e.example/sse", "headers": { "X-K": "v" } }, "local": { "command": "node", "env": { "N": 1 } } } }',
      path.resolve('/w/app'),
      {},
    );
    const configuredAll = [...fromSetting.servers, ...fromFile.servers];
    for (const caps of [ALL, NONE, { http: true, sse: false }, { http: false, sse: true }]) {
      const { passed, notPassed } = selectMcpServers(configuredAll, caps);
      assertOfficial(passed);
      assert.equal(passed.length + notPassed.length, configuredAll.length);
      assert.equal(new Set(passed.map((s) => s.name)).size, passed.length, 'names are unique');
    }
  });
});

describe('describing MCP servers for the log', () => {
  const secretValues = ['env-secret-value-1', 'Bearer header-secret-2', 'sk-live-ABCDEF', 'p@ss"word\\x'];
  const server: McpServerConfig = {
    name: 'fs',
    command: '/usr/bin/mcp-server',
    args: ['--root', '/w/app', '--token=argtoken123', '--api-key', 'argkey456', 'sk-live-ABCDEF', 'with space', 'p@ss"word\\x'],
    env: [
      { name: 'API_KEY', value: 'env-secret-value-1' },
      { name: 'OTHER', value: 'sk-live-ABCDEF' },
      { name: 'QUOTED', value: 'p@ss"word\\x' },
    ],
  };
  const remote: McpServerConfig = {
    type: 'http',
    name: 'github',
    url: 'https://user:pw-secret@api.example.com/mcp/s/a1b2c3d4e5f6g7h8i9j0k1l2/x?key=query-secret&mode=fast#frag',
    headers: [
      { name: 'Authorization', value: 'Bearer header-secret-2' },
      { name: 'X-Tenant', value: 'sk-live-ABCDEF' },
    ],
  };

  it('shows names, command and URL shape, and never an env or header value', () => {
    const stdioLine = describeMcpServer(server, { kind: 'setting', index: 0 });
    const remoteLine = describeMcpServer(remote, { kind: 'file', path: fileA });
    for (const line of [stdioLine, remoteLine]) {
      for (const secret of [...secretValues, 'argtoken123', 'argkey456', 'pw-secret', 'query-secret', 'a1b2c3d4e5f6g7h8i9j0k1l2', 'frag', 'user:']) {
        assert.ok(!line.includes(secret), `${JSON.stringify(secret)} appears in ${line}`);
        assert.ok(!line.includes(JSON.stringify(secret).slice(1, -1)), `${JSON.stringify(secret)} (escaped) appears in ${line}`);
      }
    }
    assert.equal(
      stdioLine,
      '"fs" (stdio from acpWorkspace.mcpServers[0]): /usr/bin/mcp-server --root /w/app --token=«redacted» --api-key «redacted» «redacted» "with space" "«redacted»"; env: API_KEY, OTHER, QUOTED',
    );
    assert.equal(
      remoteLine,
      `"github" (http from ${fileA}): https://«redacted»@api.example.com/mcp/s/«redacted»/x?key=«redacted»&mode=«redacted»#«redacted»; headers: Authorization, X-Tenant`,
    );
    assert.equal(describeMcpServer(stdio('plain')), '"plain" (stdio): plain');
    assert.equal(describeMcpServer(sse('events')), '"events" (sse): https://events.example/sse');
  });

  it('describes a whole selection, one line per server, with the reasons', () => {
    const configured: ConfiguredMcpServer[] = [
      { source: setting(0), server },
      { source: inFile(fileA), server: remote },
      { source: inFile(fileB), server: stdio('fs', 'other') },
    ];
    const selection = selectMcpServers(configured, NONE);
    const lines = describeMcpSelection(selection, configured);
    assert.deepEqual(lines.slice(1), [
      `MCP server not passed: "github" from ${fileA}: the agent does not support HTTP MCP servers`,
      `MCP server not passed: "fs" from ${fileB}: another server named "fs" (acpWorkspace.mcpServers[0]) is used instead`,
    ]);
    assert.match(lines[0]!, /^MCP server passed: "fs" \(stdio from acpWorkspace\.mcpServers\[0\]\): \/usr\/bin\/mcp-server/);
    for (const line of lines) for (const secret of secretValues) assert.ok(!line.includes(secret), line);
  });
});
