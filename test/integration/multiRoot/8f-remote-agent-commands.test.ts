/**
 * "Add Remote Agent…" in the real VS Code: the command runs with a scripted UI against a Sandbox Agent server
 * stand-in on 127.0.0.1 (`/v1/health`, `/v1/agents` refusing a request without the token with problem+json,
 * `/v1/agents/x/install`), asks for the token after the 401, installs the agent, and writes the entry to the user
 * settings; the token lands in SecretStorage and in no settings file. The Agents view lists the agent as remote.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { MappableFolder, RemoteAgentUi, SandboxAgentSummary } from '../../../src/sessions/agents/addRemoteAgent';
import type { RemoteTokenUi, TokenAction } from '../../../src/vscode/remoteCommands';
import { activate, waitFor } from '../shared/extension';

const TOKEN = 'tok-8f-not-for-settings';

interface Stub {
  readonly url: string;
  readonly requests: string[];
  installed: boolean;
  close(): Promise<void>;
}

/** Answers like Sandbox Agent 0.4.2 does, errors as problem+json. */
function serveSandboxAgent(): Promise<Stub> {
  const stub = { requests: [] as string[], installed: false } as Stub & { url: string; close: () => Promise<void> };
  const problem = (response: http.ServerResponse, status: number, title: string, detail: string) => {
    response.writeHead(status, { 'content-type': 'application/problem+json' });
    response.end(JSON.stringify({ type: 'about:blank', title, status, detail }));
  };
  const server = http.createServer((request, response) => {
    const authorized = request.headers.authorization === `Bearer ${TOKEN}`;
    stub.requests.push(`${request.method} ${request.url} ${authorized ? 'token' : 'no-token'}`);
    if (request.method === 'GET' && request.url === '/v1/health') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok' }));
    } else if (!authorized) {
      problem(response, 401, 'Unauthorized', 'missing or invalid bearer token');
    } else if (request.method === 'GET' && request.url === '/v1/agents') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          agents: [
            { id: 'mock', installed: true, credentialsAvailable: true, capabilities: { sessionLifecycle: true } },
            { id: 'x', installed: stub.installed, credentialsAvailable: false, capabilities: { images: true, fileAttachments: false } },
          ],
        }),
      );
    } else if (request.method === 'POST' && request.url === '/v1/agents/x/install') {
      stub.installed = true;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ alreadyInstalled: false, artifacts: [] }));
    } else {
      problem(response, 404, 'Not Found', `no route ${request.method ?? ''} ${request.url ?? ''}`);
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      stub.close = () => new Promise<void>((done) => server.close(() => done()));
      resolve(stub);
    }),
  );
}

/** Answers the questions as a user would, recording them. */
class ScriptedRemoteAgentUi implements RemoteAgentUi {
  readonly asked: string[] = [];
  readonly errors: string[] = [];
  addedName?: string;
  addedMessage?: string;
  constructor(private readonly url: string) {}
  async askUrl(validate: (text: string) => string | undefined) {
    this.asked.push('url');
    assert.equal(validate(this.url), undefined);
    return this.url;
  }
  async confirmInsecure() {
    this.asked.push('insecure');
    return false;
  }
  async askToken(_server: string, reason: string) {
    this.asked.push(`token (${reason})`);
    return TOKEN;
  }
  async pickSandboxAgent(_server: string, agents: readonly SandboxAgentSummary[]) {
    this.asked.push(`pick ${agents.map((a) => `${a.id}${a.installed ? '' : '*'}`).join(' ')}`);
    return agents.find((a) => a.id === 'x');
  }
  async confirmInstall(_server: string, id: string) {
    this.asked.push(`install ${id}`);
    return true;
  }
  withProgress<T>(_title: string, task: (signal: AbortSignal) => Promise<T>) {
    return task(new AbortController().signal);
  }
  async askName(suggested: string) {
    this.asked.push(`name ${suggested}`);
    return suggested;
  }
  async askMapping(_agent: string, folder: MappableFolder, suggested: string) {
    this.asked.push(`map ${folder.name}`);
    // The first folder as offered (a loopback server: its own path), the others not shared.
    return this.asked.filter((q) => q.startsWith('map')).length === 1 ? suggested : '';
  }
  async confirmUnreachable(url: string) {
    this.asked.push(`unreachable ${url}`);
    return false;
  }
  error(message: string) {
    this.errors.push(message);
  }
  added(name: string, message: string) {
    this.addedName = name;
    this.addedMessage = message;
  }
}

describe('Add Remote Agent… in the real extension host (a Sandbox Agent server on loopback)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let stub: Stub;
  let name: string | undefined;

  before(async () => {
    api = await activate();
    stub = await serveSandboxAgent();
  });

  after(async () => {
    api.setRemoteAgentUi(undefined);
    api.setRemoteTokenUi(undefined);
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    const left = (config.inspect<unknown[]>('agents')?.globalValue ?? []).filter((a) => (a as { name?: string }).name !== name);
    await config.update('agents', left.length > 0 ? left : undefined, vscode.ConfigurationTarget.Global);
    await api.remoteSecrets.clear(stub.url);
    await stub.close();
  });

  it('probes, asks for the token after the 401, installs the agent, writes the entry and keeps the token in SecretStorage only', async () => {
    const ui = new ScriptedRemoteAgentUi(stub.url);
    api.setRemoteAgentUi(ui);
    await vscode.commands.executeCommand('acpWorkspace.addRemoteAgent');

    const folders = vscode.workspace.workspaceFolders!;
    const host = new URL(stub.url).host;
    name = `x on ${host}`;
    assert.deepEqual(ui.errors, []);
    assert.equal(ui.addedName, name);
    assert.deepEqual(ui.asked, [
      'url',
      // What the server said, not "Set the token with …" (this is where it is set); Sandbox Agent's mock is not offered.
      `token (The Sandbox Agent server at ${stub.url} refused the credentials for the agent list (HTTP 401: Unauthorized: missing or invalid bearer token).)`,
      'pick x*',
      'install x',
      `name ${name}`,
      ...folders.map((f) => `map ${path.basename(f.uri.fsPath)}`),
    ]);
    assert.deepEqual(stub.requests, [
      'GET /v1/health no-token',
      'GET /v1/agents no-token',
      'GET /v1/health token',
      'GET /v1/agents token',
      'POST /v1/agents/x/install token',
    ]);

    const written = (vscode.workspace.getConfiguration('acpWorkspace').inspect<unknown[]>('agents')?.globalValue ?? []).find(
      (a) => (a as { name?: string }).name === name,
    );
    assert.deepEqual(written, {
      name,
      remote: { url: stub.url, sandboxAgent: 'x', pathMappings: [{ local: folders[0]!.uri.fsPath, remote: folders[0]!.uri.fsPath }] },
    });
    assert.deepEqual(await api.remoteSecrets.get(stub.url), { token: TOKEN });
    // A Sandbox Agent server's agents share its key: another path on it is another endpoint.
    assert.deepEqual(await api.remoteSecrets.get(`${stub.url}/elsewhere`), {});

    // The agent list reads it back as a remote agent, and the view marks it so (Set Token… in its menu).
    await waitFor(() => api.agents.find(name!) !== undefined, 'the new agent in the agent list');
    const status = api.agents.find(name)!;
    assert.equal(status.definition.remote?.sandboxAgent, 'x');
    assert.match(String(api.agentsView.getTreeItem(status).contextValue), /^agent\.[a-z]+\.remote$/);
    const tooltip = api.agentsView.getTreeItem(status).tooltip as vscode.MarkdownString;
    assert.match(tooltip.value, /Sandbox Agent server, agent x/);
    if (folders.length > 1) assert.match(tooltip.value, /Not shared with it/);

    // No settings file holds the token (the user's and, in a remote window, the Machine settings).
    let dir = api.logUri.fsPath;
    while (!fs.existsSync(path.join(dir, 'User')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    const files = ['User', 'Machine'].map((d) => path.join(dir, d, 'settings.json')).filter((f) => fs.existsSync(f));
    const texts = files.map((f) => fs.readFileSync(f, 'utf8'));
    assert.ok(
      texts.some((t) => t.includes(`x on ${host}`)),
      `the entry is in one of ${files.join(', ')}`,
    );
    // Said where it went: the user settings, or in a remote window (code-server's) the remote's machine settings.
    const inMachine =
      fs.existsSync(path.join(dir, 'Machine', 'settings.json')) && fs.readFileSync(path.join(dir, 'Machine', 'settings.json'), 'utf8').includes(`x on ${host}`);
    assert.equal(inMachine, vscode.env.remoteName !== undefined, `remoteName ${String(vscode.env.remoteName)}, files ${files.join(', ')}`);
    assert.match(
      ui.addedMessage ?? '',
      inMachine
        ? new RegExp(
            `^x on ${host.replace(/\./g, '\\.')} was added to the Remote \\[.+\\] settings \\(acpWorkspace\\.agents is a machine setting\\)\\. It sees 1 workspace folder; 2 are not shared with it\\.$`,
          )
        : /was added to your user settings\. It sees 1 workspace folder; 2 are not shared with it\.$/,
    );
    for (const [i, text] of texts.entries()) assert.ok(!text.includes(TOKEN), `${files[i]!} does not contain the token`);
  });

  it('a WebSocket address where nothing answers is said before anything is written (as an http one is)', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `ws://127.0.0.1:${(closed.address() as AddressInfo).port}/acp`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const ui = new ScriptedRemoteAgentUi(url);
    api.setRemoteAgentUi(ui);
    const before = JSON.stringify(vscode.workspace.getConfiguration('acpWorkspace').inspect<unknown[]>('agents')?.globalValue ?? []);
    await vscode.commands.executeCommand('acpWorkspace.addRemoteAgent');
    assert.deepEqual(ui.asked, ['url', `unreachable ${url}`]);
    assert.equal(JSON.stringify(vscode.workspace.getConfiguration('acpWorkspace').inspect<unknown[]>('agents')?.globalValue ?? []), before, 'nothing written');
  });

  it('Set Remote Agent Token… sets headers beside the token, removes the token, clears, and checks what is typed', async () => {
    assert.ok(name, 'the agent of the first test');
    const said: string[] = [];
    const script: { action: TokenAction; answer?: string; refused?: string }[] = [];
    const ui: RemoteTokenUi = {
      pickAction: async (agentName, _where, current) => {
        said.push(`${agentName}: token ${current.token ? 'set' : 'unset'}, headers ${current.headers.join(',') || '-'}`);
        return script[0]?.action;
      },
      askToken: async (_where, validate) => {
        const step = script.shift()!;
        if (step.refused !== undefined) assert.ok(validate(step.refused), `"${step.refused}" is refused`);
        return step.answer;
      },
      askHeaders: async (_where, validate) => {
        const step = script.shift()!;
        if (step.refused !== undefined) assert.match(validate(step.refused) ?? '', /set by the connection|not a valid header name/);
        assert.equal(validate(step.answer ?? ''), undefined);
        return step.answer;
      },
      done: async (message, restart) => {
        said.push(`${message}${restart ? ` [${restart}]` : ''}`);
        if (script[0]?.action === 'clear') script.shift();
        return false;
      },
    };
    api.setRemoteTokenUi(ui);
    script.push({ action: 'headers', answer: 'X-Team: blue; Authorization: Bearer other', refused: 'Host: evil.example' });
    await vscode.commands.executeCommand('acpWorkspace.setRemoteAgentToken', name);
    assert.deepEqual(await api.remoteSecrets.get(stub.url), { token: TOKEN, headers: { 'X-Team': 'blue', Authorization: 'Bearer other' } });

    script.push({ action: 'token', answer: '', refused: 'two\nlines' });
    await vscode.commands.executeCommand('acpWorkspace.setRemoteAgentToken', name);
    assert.deepEqual(await api.remoteSecrets.get(stub.url), { headers: { 'X-Team': 'blue', Authorization: 'Bearer other' } });

    script.push({ action: 'clear' });
    await vscode.commands.executeCommand('acpWorkspace.setRemoteAgentToken', name);
    assert.deepEqual(await api.remoteSecrets.get(stub.url), {});
    // The agent is not running: nothing to restart, and no value is ever shown.
    assert.deepEqual(said, [
      `${name}: token set, headers -`,
      `The credentials for ${stub.url} were saved.`,
      `${name}: token set, headers X-Team,Authorization`,
      `The credentials for ${stub.url} were saved.`,
      `${name}: token unset, headers X-Team,Authorization`,
      `The credentials for ${stub.url} were removed.`,
    ]);
    assert.ok(!said.join('\n').includes('blue') && !said.join('\n').includes(TOKEN));
  });
});
