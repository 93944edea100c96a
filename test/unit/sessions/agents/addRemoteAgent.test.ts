import * as assert from 'node:assert/strict';
import type { RemoteCredentials } from '../../../../src/acp/transport/remote';
import { RemoteHttpError } from '../../../../src/acp/transport/httpProblem';
import { silentLogger } from '../../../../src/common/logger';
import { ServerUnreachableError } from '../../../../src/remote/sandboxAgentServer';
import { httpError } from '../../../../src/acp/transport/httpProblem';
import {
  AddRemoteAgent,
  type MappableFolder,
  type RemoteAgentUi,
  type SandboxAgentSummary,
  type SandboxServers,
  type SettingsPlace,
} from '../../../../src/sessions/agents/addRemoteAgent';

/** Answers in order; records what was asked. */
class ScriptedUi implements RemoteAgentUi {
  readonly asked: string[] = [];
  readonly errors: string[] = [];
  addedAs?: { name: string; detail: string };
  url = 'http://127.0.0.1:2468';
  insecure = true;
  tokens: (string | undefined)[] = [];
  pick: (agents: readonly SandboxAgentSummary[]) => SandboxAgentSummary | undefined = (agents) => agents[0];
  install = true;
  name: (suggested: string) => string | undefined = (s) => s;
  mapping: (folder: MappableFolder, suggested: string) => string | undefined = (_f, s) => s;

  async askUrl(validate: (text: string) => string | undefined) {
    this.asked.push('url');
    assert.equal(validate(this.url), undefined, 'the scripted URL passes the box validation');
    return this.url;
  }
  async confirmInsecure() {
    this.asked.push('insecure');
    return this.insecure;
  }
  async askToken(_server: string, reason: string) {
    this.asked.push(`token: ${reason}`);
    return this.tokens.shift();
  }
  async pickSandboxAgent(_server: string, agents: readonly SandboxAgentSummary[]) {
    this.asked.push(`pick ${agents.map((a) => a.id).join(',')}`);
    return this.pick(agents);
  }
  async confirmInstall(_server: string, id: string) {
    this.asked.push(`install ${id}`);
    return this.install;
  }
  withProgress<T>(_title: string, task: (signal: AbortSignal) => Promise<T>) {
    return task(new AbortController().signal);
  }
  async askName(suggested: string, validate: (text: string) => string | undefined) {
    this.asked.push(`name ${suggested}`);
    const name = this.name(suggested);
    if (name !== undefined) assert.equal(validate(name), undefined);
    return name;
  }
  async askMapping(agentName: string, folder: MappableFolder, suggested: string) {
    this.asked.push(`map ${agentName} ${folder.name}=${suggested}`);
    return this.mapping(folder, suggested);
  }
  unreachable = true;
  async confirmUnreachable(url: string, reason: string) {
    this.asked.push(`unreachable ${url}: ${reason}`);
    return this.unreachable;
  }
  error(message: string) {
    this.errors.push(message);
  }
  added(name: string, message: string) {
    this.addedAs = { name, detail: message };
  }
}

/** A Sandbox Agent server in memory: wants `token` when set. */
class FakeServers implements SandboxServers {
  readonly calls: string[] = [];
  token: string | undefined;
  sandbox = true;
  agentList: SandboxAgentSummary[] = [
    { id: 'opencode', installed: true, version: '1.18', capabilities: { sessionLifecycle: true } },
    { id: 'claude', installed: false, credentialsAvailable: false, capabilities: {} },
  ];
  installFails: string | undefined;

  private check(credentials: RemoteCredentials) {
    if (this.token !== undefined && credentials.token !== this.token)
      throw new RemoteHttpError('The server refused the credentials (HTTP 401).', 401, 'Unauthorized', undefined);
  }
  down = false;
  async health(url: string, credentials: RemoteCredentials) {
    this.calls.push(`health ${url} ${credentials.token ?? '-'}`);
    if (this.down) throw new ServerUnreachableError(`Cannot reach the Sandbox Agent server at ${url} for the health check: ECONNREFUSED`);
    if (!this.sandbox) throw new RemoteHttpError('HTTP 404', 404, undefined, undefined);
    this.check(credentials);
  }
  async agents(_url: string, credentials: RemoteCredentials) {
    this.calls.push('agents');
    this.check(credentials);
    return this.agentList;
  }
  async install(_url: string, credentials: RemoteCredentials, _insecure: boolean, id: string) {
    this.calls.push(`install ${id}`);
    this.check(credentials);
    if (this.installFails) throw new Error(this.installFails);
  }
}

function setup(options: { settings?: unknown; trusted?: boolean; folders?: MappableFolder[]; stored?: RemoteCredentials; place?: SettingsPlace } = {}) {
  const ui = new ScriptedUi();
  const servers = new FakeServers();
  const reached: string[] = [];
  const reach = { down: false };
  const stored = new Map<string, RemoteCredentials>();
  if (options.stored) stored.set('http://127.0.0.1:2468', options.stored);
  const written: unknown[][] = [];
  const flow = new AddRemoteAgent({
    ui: () => ui,
    servers,
    secrets: { get: async (url) => stored.get(url) ?? {}, set: async (url, c) => void stored.set(url, c) },
    settings: { read: () => options.settings, write: async (list) => void written.push(list), place: () => options.place ?? { kind: 'user' } },
    reach: async (url) => {
      reached.push(url);
      if (reach.down) throw new ServerUnreachableError(`Cannot reach ${url}: ECONNREFUSED — the connection was refused (is the server running?)`);
    },
    agentNames: () => ['Claude Code', 'Codex'],
    folders: () =>
      options.folders ?? [
        { name: 'app', path: '/home/me/app' },
        { name: 'docs', path: '/home/me/docs' },
      ],
    isTrusted: () => options.trusted ?? true,
    logger: silentLogger,
  });
  return { ui, servers, stored, written, flow, reached, reach };
}

describe('Add Remote Agent… (the flow, over a scripted UI and an in-memory server)', () => {
  it('a Sandbox Agent server behind a token: asks for it on 401, retries, picks an agent, writes the entry, stores the token apart', async () => {
    const { ui, servers, stored, written, flow } = setup({ settings: [{ name: 'Mine', command: 'x' }] });
    servers.token = 's3cret';
    ui.tokens = ['s3cret'];
    ui.mapping = (folder, suggested) => (folder.name === 'docs' ? '' : suggested);
    const outcome = await flow.run();
    assert.equal(outcome.kind, 'added');
    assert.deepEqual(written, [
      [
        { name: 'Mine', command: 'x' },
        {
          name: 'opencode on 127.0.0.1:2468',
          remote: { url: 'http://127.0.0.1:2468', sandboxAgent: 'opencode', pathMappings: [{ local: '/home/me/app', remote: '/home/me/app' }] },
        },
      ],
    ]);
    assert.ok(!JSON.stringify(written).includes('s3cret'), 'the token is not in the settings');
    assert.deepEqual(stored.get('http://127.0.0.1:2468'), { token: 's3cret' });
    assert.deepEqual(servers.calls, ['health http://127.0.0.1:2468 -', 'health http://127.0.0.1:2468 s3cret', 'agents']);
    assert.deepEqual(ui.asked.slice(0, 3), ['url', 'token: The server refused the credentials (HTTP 401).', 'pick opencode,claude']);
    assert.ok(ui.asked.includes('map opencode on 127.0.0.1:2468 app=/home/me/app'), 'a loopback server gets the same paths offered');
    assert.deepEqual(ui.addedAs, {
      name: 'opencode on 127.0.0.1:2468',
      detail: 'opencode on 127.0.0.1:2468 was added to your user settings. It sees 1 workspace folder; 1 is not shared with it.',
    });
  });

  it('uses a token already stored for the server without asking', async () => {
    const { ui, servers, written, flow } = setup({ stored: { token: 'kept' } });
    servers.token = 'kept';
    assert.equal((await flow.run()).kind, 'added');
    assert.ok(!ui.asked.some((q) => q.startsWith('token')));
    assert.equal(written.length, 1);
  });

  it("installs an agent that is not installed, after asking; a failed install says the server's words and writes nothing", async () => {
    const { ui, servers, written, flow } = setup();
    ui.pick = (agents) => agents.find((a) => a.id === 'claude');
    assert.equal((await flow.run()).kind, 'added');
    assert.ok(servers.calls.includes('install claude'));
    assert.ok(ui.asked.includes('install claude'));
    assert.equal((written[0]![0] as { remote: { sandboxAgent: string } }).remote.sandboxAgent, 'claude');

    const failing = setup();
    failing.ui.pick = (agents) => agents.find((a) => a.id === 'claude');
    failing.servers.installFails = 'Install failed: no network';
    const outcome = await failing.flow.run();
    assert.equal(outcome.kind, 'failed');
    assert.match(failing.ui.errors[0] ?? '', /claude could not be installed on .*: Install failed: no network/);
    assert.deepEqual(failing.written, []);
  });

  it('refuses to install on the server in Restricted Mode, saying why', async () => {
    const { ui, servers, written, flow } = setup({ trusted: false });
    ui.pick = (agents) => agents.find((a) => a.id === 'claude');
    assert.equal((await flow.run()).kind, 'failed');
    assert.match(ui.errors[0] ?? '', /Restricted Mode/);
    assert.ok(!servers.calls.includes('install claude'));
    assert.ok(!ui.asked.includes('install claude'), 'not even asked');
    assert.deepEqual(written, []);
  });

  it('a URL where no Sandbox Agent answers is a plain ACP endpoint: no agent pick, named after the host', async () => {
    const { ui, servers, written, flow } = setup();
    servers.sandbox = false;
    ui.url = 'https://agents.example/acp';
    assert.equal((await flow.run()).kind, 'added');
    assert.ok(!ui.asked.some((q) => q.startsWith('pick')));
    assert.ok(ui.asked.includes('map agents.example app='), 'a server elsewhere gets no path offered');
    assert.deepEqual(written[0], [{ name: 'agents.example', remote: { url: 'https://agents.example/acp', pathMappings: [] } }]);
  });

  it('an address where nothing answers is said so before anything is written: added only when the user says so', async () => {
    const declined = setup();
    declined.servers.down = true;
    declined.ui.unreachable = false;
    declined.ui.url = 'https://agents.example/acp';
    assert.equal((await declined.flow.run()).kind, 'cancelled');
    assert.ok(
      declined.ui.asked.some((q) => /^unreachable https:\/\/agents\.example\/acp: Cannot reach .*ECONNREFUSED/.test(q)),
      declined.ui.asked.join('\n'),
    );
    assert.deepEqual(declined.written, [], 'nothing written');

    const accepted = setup();
    accepted.servers.down = true;
    accepted.ui.url = 'https://agents.example/acp';
    assert.equal((await accepted.flow.run()).kind, 'added');
    assert.ok(!accepted.ui.asked.some((q) => q.startsWith('pick')));
    assert.deepEqual(accepted.written[0], [{ name: 'agents.example', remote: { url: 'https://agents.example/acp', pathMappings: [] } }]);
  });

  it('WebSocket URLs are not probed for a Sandbox Agent server; plain ws to another machine is asked about and written with allowInsecure', async () => {
    const { ui, servers, written, flow, reached } = setup();
    ui.url = 'ws://10.1.2.3:9000';
    ui.mapping = (folder) => `/srv/${folder.name}`;
    assert.equal((await flow.run()).kind, 'added');
    assert.deepEqual(servers.calls, []);
    assert.deepEqual(reached, ['ws://10.1.2.3:9000'], 'only whether anything answers there, after the user allowed it');
    assert.equal(ui.asked[1], 'insecure');
    assert.deepEqual(written[0], [
      {
        name: '10.1.2.3:9000',
        remote: {
          url: 'ws://10.1.2.3:9000',
          pathMappings: [
            { local: '/home/me/app', remote: '/srv/app' },
            { local: '/home/me/docs', remote: '/srv/docs' },
          ],
          allowInsecure: true,
        },
      },
    ]);

    const declined = setup();
    declined.ui.url = 'http://10.1.2.3:2468';
    declined.ui.insecure = false;
    assert.equal((await declined.flow.run()).kind, 'cancelled');
    assert.deepEqual(declined.servers.calls, [], 'nothing is sent unencrypted before the user allowed it');
  });

  it('a WebSocket address where nothing answers is said so too (ws:// and wss://): added only when the user says so', async () => {
    for (const url of ['ws://127.0.0.1:9', 'wss://agents.example/acp']) {
      const declined = setup();
      declined.reach.down = true;
      declined.ui.unreachable = false;
      declined.ui.url = url;
      assert.equal((await declined.flow.run()).kind, 'cancelled', url);
      assert.ok(
        declined.ui.asked.some((q) => q.startsWith(`unreachable ${url}: Cannot reach ${url}: ECONNREFUSED`)),
        declined.ui.asked.join('\n'),
      );
      assert.deepEqual(declined.written, [], `${url}: nothing written`);

      const accepted = setup();
      accepted.reach.down = true;
      accepted.ui.url = url;
      assert.equal((await accepted.flow.run()).kind, 'added', url);
      assert.equal(accepted.written.length, 1);
    }
  });

  it("does not offer Sandbox Agent's own mock agent (its test double, which does not start)", async () => {
    const { ui, servers, flow } = setup();
    servers.agentList = [{ id: 'mock', installed: true, capabilities: {} }, ...servers.agentList];
    assert.equal((await flow.run()).kind, 'added');
    assert.ok(ui.asked.includes('pick opencode,claude'), ui.asked.join('\n'));
  });

  it('the token prompt says what the server answered, without pointing at the command that asks for the token', async () => {
    const { ui, servers, flow } = setup();
    servers.token = 't';
    const refusal = httpError(
      401,
      'application/problem+json',
      JSON.stringify({ title: 'Token Invalid', detail: 'token invalid' }),
      'The Sandbox Agent server at http://127.0.0.1:2468',
      'the agent list',
    );
    assert.match(refusal.message, /Set the token with "ACP: Set Remote Agent Token…"/, 'elsewhere the words name the command');
    servers.health = async (url, credentials) => {
      servers.calls.push(`health ${url} ${credentials.token ?? '-'}`);
      if (credentials.token !== 't') throw refusal;
    };
    ui.tokens = ['t'];
    assert.equal((await flow.run()).kind, 'added');
    const asked = ui.asked.find((q) => q.startsWith('token: '));
    assert.equal(
      asked,
      'token: The Sandbox Agent server at http://127.0.0.1:2468 refused the credentials for the agent list (HTTP 401: Token Invalid: token invalid).',
    );
  });

  it('says how many folders it sees in whole words (one, several, none left out), and where the entry was written', async () => {
    const cases: [MappableFolder[], (folder: MappableFolder, suggested: string) => string, string][] = [
      [[{ name: 'app', path: '/home/me/app' }], (_f, s) => s, 'It sees the workspace folder at the path you gave.'],
      [
        [
          { name: 'app', path: '/home/me/app' },
          { name: 'docs', path: '/home/me/docs' },
        ],
        (_f, s) => s,
        'It sees all 2 workspace folders at the paths you gave.',
      ],
      [
        [
          { name: 'app', path: '/a' },
          { name: 'b', path: '/b' },
          { name: 'c', path: '/c' },
        ],
        (f, s) => (f.name === 'app' ? s : ''),
        'It sees 1 workspace folder; 2 are not shared with it.',
      ],
      [
        [
          { name: 'app', path: '/a' },
          { name: 'b', path: '/b' },
          { name: 'c', path: '/c' },
        ],
        (f, s) => (f.name === 'c' ? '' : s),
        'It sees 2 workspace folders; 1 is not shared with it.',
      ],
    ];
    for (const [folders, mapping, detail] of cases) {
      const run = setup({ folders });
      run.ui.mapping = mapping;
      assert.equal((await run.flow.run()).kind, 'added');
      assert.equal(run.ui.addedAs?.detail, `opencode on 127.0.0.1:2468 was added to your user settings. ${detail}`);
    }
    const remote = setup({ place: { kind: 'remote', name: 'ssh-remote+box' } });
    assert.equal((await remote.flow.run()).kind, 'added');
    assert.match(
      remote.ui.addedAs?.detail ?? '',
      /^opencode on 127\.0\.0\.1:2468 was added to the Remote \[ssh-remote\+box\] settings \(acpWorkspace\.agents is a machine setting\)\. /,
    );
  });

  it('a name already taken is offered with a number; cancelling anywhere writes and stores nothing', async () => {
    const { ui, written, flow } = setup({
      settings: [{ name: 'opencode on 127.0.0.1:2468', remote: { url: 'http://127.0.0.1:2468', sandboxAgent: 'opencode' } }],
    });
    assert.equal((await flow.run()).kind, 'added');
    assert.ok(ui.asked.includes('name opencode on 127.0.0.1:2468 (2)'));
    assert.equal(written.length, 1);

    for (const cancelAt of ['token', 'pick', 'name', 'map'] as const) {
      const run = setup();
      run.servers.token = 't';
      run.ui.tokens = cancelAt === 'token' ? [undefined] : ['t'];
      if (cancelAt === 'pick') run.ui.pick = () => undefined;
      if (cancelAt === 'name') run.ui.name = () => undefined;
      if (cancelAt === 'map') run.ui.mapping = (folder, s) => (folder.name === 'docs' ? undefined : s);
      assert.equal((await run.flow.run()).kind, 'cancelled', cancelAt);
      assert.deepEqual(run.written, [], cancelAt);
      assert.equal(run.stored.size, 0, `${cancelAt}: the token is kept only with the entry`);
    }
  });

  it("a wrong token asked again gives up after the third refusal with the server's words", async () => {
    const { ui, servers, written, flow } = setup();
    servers.token = 'right';
    ui.tokens = ['wrong', 'wrong again', 'still wrong'];
    const outcome = await flow.run();
    assert.equal(outcome.kind, 'failed');
    assert.match(ui.errors[0] ?? '', /refused the credentials/);
    assert.equal(ui.asked.filter((q) => q.startsWith('token')).length, 2);
    assert.deepEqual(written, []);
  });

  it('a setting that is not a list is not overwritten', async () => {
    const { ui, written, flow } = setup({ settings: { oops: true } });
    assert.equal((await flow.run()).kind, 'failed');
    assert.match(ui.errors[0] ?? '', /not a list/);
    assert.deepEqual(written, []);
  });
});
