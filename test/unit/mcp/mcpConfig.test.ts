import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { McpServer } from '../../../src/acp/schema';
import { type ConfiguredMcpServer, mcpJsonPath, parseMcpJson, readConfiguredServers, readSettingServers } from '../../../src/mcp/mcpConfig';
import { validateDefinition } from './officialSchema';

const folder = path.resolve('/work/app');
const file = mcpJsonPath(folder);
const env = { HOME_DIR: '/home/me', API_TOKEN: 'tok-from-env-123' };

/** Every server we produce is a valid ACP McpServer, for our zod schema and for the official JSON Schema. */
function assertValid(servers: readonly ConfiguredMcpServer[]): void {
  for (const { server } of servers) {
    assert.ok(McpServer.safeParse(server).success, JSON.stringify(server));
    assert.deepEqual(validateDefinition('McpServer', server), [], JSON.stringify(server));
  }
}

describe('MCP servers from the setting acpWorkspace.mcpServers', () => {
  it('reads stdio, http and sse servers into the ACP shape', () => {
    const { servers, problems } = readSettingServers(
      [
        { name: 'fs', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'], env: { LOG: 'debug', KEY: 'k-123' } },
        { name: 'bare', command: '/usr/bin/tool' },
        { name: 'typed', type: 'stdio', command: 'tool' },
        { name: 'github', type: 'http', url: 'https://api.example.com/mcp/', headers: { Authorization: 'Bearer abc' } },
        { name: 'events', type: 'sse', url: 'http://localhost:3001/sse' },
        { name: 'untyped-url', url: 'https://mcp.example.com/mcp' },
      ],
      {},
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      servers.map((s) => s.server),
      [
        {
          name: 'fs',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem'],
          env: [
            { name: 'LOG', value: 'debug' },
            { name: 'KEY', value: 'k-123' },
          ],
        },
        { name: 'bare', command: '/usr/bin/tool', args: [], env: [] },
        { name: 'typed', command: 'tool', args: [], env: [] },
        { type: 'http', name: 'github', url: 'https://api.example.com/mcp/', headers: [{ name: 'Authorization', value: 'Bearer abc' }] },
        { type: 'sse', name: 'events', url: 'http://localhost:3001/sse', headers: [] },
        { type: 'http', name: 'untyped-url', url: 'https://mcp.example.com/mcp', headers: [] },
      ],
    );
    assert.deepEqual(servers[0]!.source, { kind: 'setting', index: 0 });
    assert.ok(!('type' in servers[0]!.server), 'stdio servers are sent without "type"');
    assertValid(servers);
  });

  it('expands ${env:NAME} and notes a variable that is not set', () => {
    const { servers, problems } = readSettingServers(
      [
        { name: 'a', command: '${env:HOME_DIR}/bin/server', args: ['--home=${env:HOME_DIR}'], env: { TOKEN: '${env:API_TOKEN}' } },
        { name: 'b', type: 'http', url: 'https://x.example/mcp', headers: { Authorization: 'Bearer ${env:MISSING_TOKEN}' } },
      ],
      env,
    );
    assert.deepEqual(servers[0]!.server, {
      name: 'a',
      command: '/home/me/bin/server',
      args: ['--home=/home/me'],
      env: [{ name: 'TOKEN', value: 'tok-from-env-123' }],
    });
    assert.deepEqual(servers[1]!.server, { type: 'http', name: 'b', url: 'https://x.example/mcp', headers: [{ name: 'Authorization', value: 'Bearer ' }] });
    assert.deepEqual(problems, ['acpWorkspace.mcpServers[1] ("b"): ${env:MISSING_TOKEN} is not set, so it was replaced by an empty text.']);
  });

  it('skips bad entries with a readable reason and keeps the good ones', () => {
    const { servers, problems } = readSettingServers(
      [
        'just a string',
        { command: 'x' },
        { name: ' ', command: 'x' },
        { name: 'no-command' },
        { name: 'bad-args', command: 'x', args: 'not a list' },
        { name: 'bad-env', command: 'x', env: { A: 1 } },
        { name: 'typo', command: 'x', environment: { A: 'b' } },
        { name: 'bad-type', type: 'websocket', url: 'wss://x' },
        { name: 'no-url', type: 'http' },
        { name: 'ftp', type: 'sse', url: 'ftp://secret-host-value/x' },
        { name: 'not-a-url', type: 'http', url: 'not a url with secret-in-url' },
        { name: 'bad-header', type: 'http', url: 'https://x', headers: { 'Bad Header': 'secret-header-value' } },
        { name: 'crlf', type: 'http', url: 'https://x', headers: { 'X-Key': 'a\r\nInjected: secret-header-value' } },
        { name: 'folder', command: '${workspaceFolder}/server' },
        { name: 'input', command: 'x', env: { KEY: '${input:key}' } },
        { name: 'good', command: 'ok' },
      ],
      env,
    );
    assert.deepEqual(
      servers.map((s) => s.server.name),
      ['good'],
    );
    assert.deepEqual(servers[0]!.source, { kind: 'setting', index: 15 });
    assert.deepEqual(problems, [
      'acpWorkspace.mcpServers[0] was skipped: each server must be an object with a name and a command (stdio) or a type and a url (http, sse).',
      'acpWorkspace.mcpServers[1] was skipped: name: is missing',
      'acpWorkspace.mcpServers[2] was skipped: name: must not be empty',
      'acpWorkspace.mcpServers[3] ("no-command") was skipped: command: is missing',
      'acpWorkspace.mcpServers[4] ("bad-args") was skipped: args: must be a list of strings',
      'acpWorkspace.mcpServers[5] ("bad-env") was skipped: env.A: must be a string',
      'acpWorkspace.mcpServers[6] ("typo") was skipped: (root): Unrecognized key: "environment"',
      'acpWorkspace.mcpServers[7] ("bad-type") was skipped: type: must be "stdio", "http" or "sse"',
      'acpWorkspace.mcpServers[8] ("no-url") was skipped: url: is missing',
      'acpWorkspace.mcpServers[9] ("ftp") was skipped: url: must be an http:// or https:// address, not ftp://',
      'acpWorkspace.mcpServers[10] ("not-a-url") was skipped: url: is not a valid URL',
      'acpWorkspace.mcpServers[11] ("bad-header") was skipped: headers: "Bad Header" is not a valid HTTP header name',
      'acpWorkspace.mcpServers[12] ("crlf") was skipped: headers.X-Key: contains a line break or NUL character',
      'acpWorkspace.mcpServers[13] ("folder") was skipped: ${workspaceFolder} cannot be resolved here (supported: ${env:NAME}).',
      'acpWorkspace.mcpServers[14] ("input") was skipped: it uses ${input:key}, which only VS Code\'s own prompt can fill in. Use ${env:NAME} instead, or add the server to acpWorkspace.mcpServers.',
    ]);
    for (const problem of problems) assert.doesNotMatch(problem, /secret/);
  });

  it('ignores an unset setting and reports one that is not a list', () => {
    assert.deepEqual(readSettingServers(undefined, {}), { servers: [], problems: [] });
    assert.deepEqual(readSettingServers([], {}), { servers: [], problems: [] });
    assert.deepEqual(readSettingServers({ fs: { command: 'x' } }, {}), {
      servers: [],
      problems: ['acpWorkspace.mcpServers must be a list of servers; it was ignored.'],
    });
  });
});

describe('MCP servers from .vscode/mcp.json', () => {
  const noFiles = { userHome: '/home/me', readFile: (p: string): string => assert.fail(`unexpected read of ${p}`) };

  it("reads VS Code's format with comments and trailing commas", () => {
    const text = `{
      // Servers for this repository
      "servers": {
        "fs": {
          "type": "stdio",
          "command": "npx",
          "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}",], // trailing comma
          "env": { "LOG": "debug", "PORT": 3000, },
        },
        /* no type: stdio, as VS Code reads it */
        "plain": { "command": "node", "args": ["\${workspaceFolder}\${/}tools\${pathSeparator}server.js"] },
        "remote": { "type": "http", "url": "https://api.example.com/mcp", "headers": { "X-Api-Key": "\${env:API_TOKEN}" } },
        "events": { "type": "sse", "url": "http://localhost:3001/sse" },
        "url-only": { "url": "https://mcp.example.com/mcp", },
        "home": { "command": "\${userHome}/bin/mcp", "args": ["\${workspaceFolderBasename}"], "dev": { "watch": "src/**" } },
      },
      "inputs": [],
    }`;
    const { servers, problems } = parseMcpJson(text, folder, env, noFiles);
    assert.deepEqual(problems, []);
    assert.deepEqual(
      servers.map((s) => s.server),
      [
        {
          name: 'fs',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', folder],
          env: [
            { name: 'LOG', value: 'debug' },
            { name: 'PORT', value: '3000' },
          ],
        },
        { name: 'plain', command: 'node', args: [`${folder}${path.sep}tools${path.sep}server.js`], env: [] },
        { type: 'http', name: 'remote', url: 'https://api.example.com/mcp', headers: [{ name: 'X-Api-Key', value: 'tok-from-env-123' }] },
        { type: 'sse', name: 'events', url: 'http://localhost:3001/sse', headers: [] },
        { type: 'http', name: 'url-only', url: 'https://mcp.example.com/mcp', headers: [] },
        { name: 'home', command: '/home/me/bin/mcp', args: ['app'], env: [] },
      ],
    );
    for (const server of servers) assert.deepEqual(server.source, { kind: 'file', path: file });
    assertValid(servers);
  });

  it('skips servers using ${input:…} (or another variable it cannot resolve) with the reason', () => {
    const text = JSON.stringify({
      inputs: [{ type: 'promptString', id: 'github_pat', description: 'GitHub token', password: true }],
      servers: {
        github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${input:github_pat}' } },
        db: { command: 'db-mcp', env: { PASSWORD: '${input:db_password}', USER: '${input:db_user}' } },
        cfg: { command: '${config:editor.fontSize}' },
        other: { command: 'x', args: ['${workspaceFolder:lib}'] },
        ok: { command: 'fine' },
      },
    });
    const { servers, problems } = parseMcpJson(text, folder, env, noFiles);
    assert.deepEqual(
      servers.map((s) => s.server.name),
      ['ok'],
    );
    const supported = '${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${pathSeparator}, ${/}, ${env:NAME}';
    assert.deepEqual(problems, [
      `${file}: server "github" was skipped: it uses \${input:github_pat}, which only VS Code's own prompt can fill in. Use \${env:NAME} instead, or add the server to acpWorkspace.mcpServers.`,
      `${file}: server "db" was skipped: it uses \${input:db_password}, \${input:db_user}, which only VS Code's own prompt can fill in. Use \${env:NAME} instead, or add the server to acpWorkspace.mcpServers.`,
      `${file}: server "cfg" was skipped: \${config:editor.fontSize} cannot be resolved here (supported: ${supported}).`,
      `${file}: server "other" was skipped: \${workspaceFolder:lib} cannot be resolved here (supported: ${supported}).`,
    ]);
  });

  it('turns a file that is not valid JSONC into exactly one problem, never a throw', () => {
    const text = '{\n  "servers": {\n    "a": { "command": "x", "env": { "KEY": "secret-value-in-file" } }\n    "b": {}\n  }\n}';
    const result = parseMcpJson(text, folder, env, noFiles);
    assert.deepEqual(result.servers, []);
    assert.deepEqual(result.problems, [
      `${file} is not valid JSON (line 4, column 5: expected ',' or '}' after a property value); none of its servers were used.`,
    ]);
    for (const bad of ['{', '{"servers": {}} trailing', "{'servers': {}}", '/* only a comment */', 'null']) {
      const r = parseMcpJson(bad, folder, env, noFiles);
      assert.equal(r.servers.length, 0, bad);
      assert.equal(r.problems.length, 1, bad);
      assert.ok(r.problems[0]!.startsWith(file), r.problems[0]);
    }
  });

  it('reports a wrong file layout once, and an empty file or one without servers not at all', () => {
    assert.deepEqual(parseMcpJson('', folder, env, noFiles), { servers: [], problems: [] });
    assert.deepEqual(parseMcpJson('  \n', folder, env, noFiles), { servers: [], problems: [] });
    assert.deepEqual(parseMcpJson('{ "inputs": [] }', folder, env, noFiles), { servers: [], problems: [] });
    assert.deepEqual(parseMcpJson('[]', folder, env, noFiles).problems, [
      `${file} must hold a JSON object with a "servers" object; none of its servers were used.`,
    ]);
    assert.deepEqual(parseMcpJson('{ "servers": [] }', folder, env, noFiles).problems, [
      `${file}: servers: must be an object mapping server names to servers; none of its servers were used.`,
    ]);
    assert.deepEqual(parseMcpJson('{ "mcpServers": { "a": { "command": "x" } } }', folder, env, noFiles).problems, [
      `${file}: VS Code's mcp.json lists servers under "servers", not "mcpServers"; none of its servers were used.`,
    ]);
  });

  it('skips bad servers naming the file and the server, and keeps the rest', () => {
    const text = JSON.stringify({
      servers: {
        'not-an-object': 'npx server',
        'no-command': { args: ['x'] },
        'empty-command': { command: '  ' },
        'bad-args': { command: 'x', args: [1] },
        'bad-env': { command: 'x', env: { A: true } },
        'bad-type': { type: 'streamable-http', url: 'https://x' },
        'stdio-with-url': { type: 'stdio', url: 'https://x' },
        'bad-url': { type: 'http', url: 'unix:///tmp/mcp.sock' },
        'bad-headers': { type: 'sse', url: 'https://x', headers: { A: 1 } },
        sandboxed: { command: 'x', sandboxEnabled: true },
        '': { command: 'x' },
        good: { command: 'ok' },
      },
    });
    const { servers, problems } = parseMcpJson(text, folder, env, noFiles);
    assert.deepEqual(
      servers.map((s) => s.server.name),
      ['good'],
    );
    assert.deepEqual(problems, [
      `${file}: server "not-an-object" was skipped: each server must be an object with a command (stdio) or a type and a url (http, sse).`,
      `${file}: server "no-command" was skipped: command: is missing`,
      `${file}: server "empty-command" was skipped: command: must not be empty`,
      `${file}: server "bad-args" was skipped: args.0: must be a string`,
      `${file}: server "bad-env" was skipped: env.A: must be a string, a number or null`,
      `${file}: server "bad-type" was skipped: type: must be "stdio", "http" or "sse"`,
      `${file}: server "stdio-with-url" was skipped: command: is missing`,
      `${file}: server "bad-url" was skipped: url: must be an http:// or https:// address, not unix://`,
      `${file}: server "bad-headers" was skipped: headers.A: must be a string`,
      `${file}: server "sandboxed" was skipped: it asks for VS Code's sandbox ("sandboxEnabled"), which an agent does not apply; it would run unconfined.`,
      `${file}: server "" was skipped: a server needs a non-empty name.`,
    ]);
  });

  it('reads envFile relative to the folder, lets env override it, and skips the server when it cannot be read', () => {
    const reads: string[] = [];
    const readFile = (p: string): string => {
      reads.push(p);
      if (p === path.join(folder, '.env')) return 'TOKEN=from-file-secret\nSHARED=file\n';
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${p}'`), { code: 'ENOENT' });
    };
    const text = JSON.stringify({
      servers: {
        withFile: { command: 'x', envFile: '${workspaceFolder}/.env', env: { SHARED: 'env wins', EXTRA: '1' } },
        relative: { command: 'x', envFile: '.env', env: { TOKEN: null } },
        missing: { command: 'x', envFile: 'missing.env' },
      },
    });
    const { servers, problems } = parseMcpJson(text, folder, env, { userHome: '/home/me', readFile });
    assert.deepEqual(reads, [path.join(folder, '.env'), path.join(folder, '.env'), path.join(folder, 'missing.env')]);
    assert.deepEqual(
      servers.map((s) => s.server),
      [
        {
          name: 'withFile',
          command: 'x',
          args: [],
          env: [
            { name: 'TOKEN', value: 'from-file-secret' },
            { name: 'SHARED', value: 'env wins' },
            { name: 'EXTRA', value: '1' },
          ],
        },
        { name: 'relative', command: 'x', args: [], env: [{ name: 'SHARED', value: 'file' }] },
      ],
    );
    assert.deepEqual(problems, [
      `${file}: server "relative": env.TOKEN is null: VS Code removes it from the server's environment, which ACP cannot express; it was left out.`,
      `${file}: server "missing" was skipped: its envFile ${path.join(folder, 'missing.env')} could not be read (ENOENT).`,
    ]);
    assertValid(servers);
  });

  it('notes what cannot be passed over ACP (cwd) and unset ${env:…} variables, and still passes the server', () => {
    const text = JSON.stringify({ servers: { a: { command: 'x', cwd: '${workspaceFolder}/sub', args: ['${env:NOT_SET}'] } } });
    const { servers, problems } = parseMcpJson(text, folder, {}, noFiles);
    assert.deepEqual(
      servers.map((s) => s.server),
      [{ name: 'a', command: 'x', args: [''], env: [] }],
    );
    assert.deepEqual(problems, [
      `${file}: server "a": "cwd" was ignored: ACP cannot pass a working directory for an MCP server (the agent chooses it).`,
      `${file}: server "a": \${env:NOT_SET} is not set, so it was replaced by an empty text.`,
    ]);
  });

  it('never puts an env or header value into a problem', () => {
    const text = JSON.stringify({
      servers: {
        a: { command: 'x', env: { 'BAD=NAME': 'secret-env-value' } },
        b: { type: 'http', url: 'https://user:secret-password@host/mcp?key=secret-query', headers: { 'X Bad': 'secret-header-value' } },
        c: { type: 'http', url: 'https://host/mcp', headers: { Auth: 'secret-header-value\n' } },
      },
    });
    const { servers, problems } = parseMcpJson(text, folder, env, noFiles);
    assert.equal(servers.length, 0);
    assert.equal(problems.length, 3);
    for (const problem of problems) assert.doesNotMatch(problem, /secret/, problem);
  });
});

describe('both sources together', () => {
  const files = [
    { folderPath: path.resolve('/w/app'), text: '{ "servers": { "app-tool": { "command": "a" } } }' },
    { folderPath: path.resolve('/w/lib'), text: undefined },
    { folderPath: path.resolve('/w/docs'), text: '{ "servers": { "docs-tool": { "command": "d" } } }' },
  ];

  it('reads the setting first, then each folder mcp.json in folder order, in a trusted workspace', () => {
    const { servers, problems } = readConfiguredServers({ setting: [{ name: 'mine', command: 'm' }], files, trusted: true, env: {} });
    assert.deepEqual(problems, []);
    assert.deepEqual(
      servers.map((s) => [s.server.name, s.source.kind === 'file' ? s.source.path : 'setting']),
      [
        ['mine', 'setting'],
        ['app-tool', mcpJsonPath(path.resolve('/w/app'))],
        ['docs-tool', mcpJsonPath(path.resolve('/w/docs'))],
      ],
    );
  });

  it('does not read mcp.json files in an untrusted workspace, and says so', () => {
    const { servers, problems } = readConfiguredServers({ setting: [{ name: 'mine', command: 'm' }], files, trusted: false, env: {} });
    assert.deepEqual(
      servers.map((s) => s.server.name),
      ['mine'],
    );
    assert.deepEqual(problems, [
      `The workspace is not trusted, so its .vscode/mcp.json files were not read (${mcpJsonPath(path.resolve('/w/app'))}, ${mcpJsonPath(path.resolve('/w/docs'))}).`,
    ]);
  });
});
