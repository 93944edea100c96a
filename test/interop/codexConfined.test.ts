/**
 * codex-acp 2.6.0 (Codex over ACP) in its default mode, with nothing set about its sandbox or approvals, run the
 * way the extension runs an agent: each launch asks `AgentConfinement` (acpWorkspace.sandbox) what to use, and
 * `AgentProcess` starts it. Offline against the scripted Responses API server.
 *
 * Codex sandboxes its own commands with its own bubblewrap. Inside ours that cannot work (it has to create mount
 * points and namespaces in a file system that is read-only there), so every command it ran failed. With our
 * confinement on, the extension turns Codex's own sandbox off and says so; ours confines it: a command inside the
 * session's folders runs and writes, a write outside fails and nothing appears there. With confinement off,
 * Codex's own sandbox is left as it is (its default mode, which runs commands inside the folders). Linux only
 * (bubblewrap); the test setup installs it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../src/common/logger';
import { findConfiner } from '../../src/process/confinement/find';
import type { SandboxMode } from '../../src/process/confinement/types';
import { FolderGrants } from '../../src/roots/folderGrants';
import { rootSetFromPaths } from '../../src/roots/rootSet';
import { ActiveSessions } from '../../src/sessions/routing/activeSessions';
import { AgentConfinement } from '../../src/sessions/agents/agentConfinement';
import type { SessionController } from '../../src/sessions/turns/sessionController';
import { reopenSession, startSession } from '../../src/sessions/routing/sessionLifecycle';
import type { ViewEntry } from '../../src/shared/chatModel';
import { capabilityTable, printCapabilities } from './capabilityTable';
import { codexAgentAcp, makeScratch, type InteropAgent, type Scratch } from './agents';
import { InteropClient, within } from './harness';
import { OpenAiModelServer, SCRIPTED_MODEL } from './openaiModelServer';
import { checkRecording, rawUpdates, type RecordedTurn } from './recording';

const TURN_MS = 60_000;

/** An `AgentConfinement` as the extension builds it (src/core.ts), for one mode, with no UI. */
function productConfinement(mode: SandboxMode, home: string, env: NodeJS.ProcessEnv): AgentConfinement {
  const data = new Map<string, unknown>();
  return new AgentConfinement({
    mode: () => mode,
    findConfiner: (env) => findConfiner(process.platform, env),
    grants: new FolderGrants({ get: <T>(key: string) => data.get(key) as T | undefined, update: async (key, value) => void data.set(key, value) }),
    sessions: new ActiveSessions(),
    ui: () => ({ confinementUnavailable: () => Promise.resolve(undefined) }),
    home,
    env,
    logger: silentLogger,
  });
}

/** The session's current mode, from its config options (codex-acp reports the mode there). */
function currentMode(chat: SessionController): string | undefined {
  const setup = chat.session.setup;
  for (const option of setup.configOptions ?? []) if (option.type === 'select' && option.id === 'mode') return option.currentValue;
  return setup.modes?.currentModeId;
}

/** What Codex says about a turn in the `x-codex-turn-metadata` header of its model requests (sandbox, approvals). */
function turnMetadata(headers: NodeJS.Dict<string | string[]>): Record<string, unknown> {
  const value = headers['x-codex-turn-metadata'];
  return typeof value === 'string' ? (JSON.parse(value) as Record<string, unknown>) : {};
}

for (const mode of ['writes', 'off'] as const) {
  describe(`interop: codex-acp in its default mode, acpWorkspace.sandbox ${mode}`, function () {
    this.timeout(90_000);
    let scratch: Scratch;
    let server: OpenAiModelServer;
    let agent: InteropAgent;
    let confinement: AgentConfinement;
    let client: InteropClient;
    let chat: SessionController;

    before(async () => {
      scratch = makeScratch(`acp-interop-codex-${mode}-`);
      // A folder Codex's own sandbox keeps read-only inside a writable root (with .git, .agents, .aws).
      fs.mkdirSync(path.join(scratch.app, '.codex'));
      server = await OpenAiModelServer.start();
      agent = codexAgentAcp(scratch.home, server.url, SCRIPTED_MODEL);
      confinement = productConfinement(mode, scratch.home, agent.env);
      const input = { command: agent.command, statePaths: [agent.env['CODEX_HOME']!] };
      client = new InteropClient({ agent, cwd: scratch.app, confinement: () => confinement.launch(agent.command.name, input) });
      client.permissionKind = () => 'allow_once';
    });
    after(async () => {
      await client?.dispose();
      confinement?.dispose();
      await server?.close();
      scratch?.cleanup();
    });
    afterEach(function () {
      if (this.currentTest?.state === 'failed' && server.problems.length > 0)
        console.log(`      model server problems:\n        ${server.problems.join('\n        ')}`);
    });

    /** The turns as they came over the wire, for the recording (`test/fixtures/updates/codex-acp-<version>.jsonl`). */
    const liveTurns: RecordedTurn[] = [];

    async function turn(text: string): Promise<ViewEntry[]> {
      const before = chat.thread.length;
      const from = client.wire.length;
      await within(TURN_MS, `the turn "${text}"`, chat.prompt([{ type: 'text', text }], [{ type: 'text', text }]));
      const entries = chat.thread.snapshot().entries.slice(before);
      const end = entries.at(-1);
      assert.equal(end?.kind, 'turnEnd', `the turn "${text}" ended`);
      liveTurns.push({ updates: rawUpdates(client, chat.session.sessionId, from), stopReason: end?.kind === 'turnEnd' ? end.stopReason : undefined });
      return entries;
    }

    it('starts, and a session with app, lib and docs opens in its default mode', async () => {
      confinement.declare(agent.command.name, [scratch.app, scratch.lib, scratch.docs]);
      const connection = await within(60_000, 'initialize', client.start());
      assert.equal(client.process.confinement?.confined, mode !== 'off');
      if (mode === 'writes') printCapabilities(agent, connection.caps);
      assert.deepEqual(capabilityTable(connection.caps), {
        loadSession: true,
        list: true,
        resume: true,
        fork: true,
        close: true,
        delete: true,
        additionalDirectories: true,
        setTitle: true,
        logout: true,
        image: true,
        audio: false,
        embeddedContext: true,
        mcpHttp: true,
        mcpSse: false,
      });
      const session = await within(60_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app, [scratch.lib, scratch.docs])));
      chat = client.open(session);
      // Codex's own default is "agent" (Auto review: workspace-write, its own sandbox on); confined by us it runs with its own sandbox off.
      assert.equal(currentMode(chat), mode === 'off' ? 'agent' : 'agent-full-access');
    });

    it('says in the UI (the Agents view, the chat header) whose sandbox confines it', () => {
      const view = confinement.view(agent.command.name);
      assert.ok(view, 'a view after the launch');
      if (mode === 'off') {
        assert.equal(view.confined, false);
        assert.doesNotMatch(`${view.summary}\n${view.detail}`, /own sandbox/, 'nothing is said about Codex’s own sandbox: it is left alone');
      } else {
        assert.match(view.detail, /Codex's own sandbox is off: ACP Workspace confines it \(writes\)/);
        assert.match(view.summary, /Codex's own sandbox off/);
      }
    });

    it('a command inside the folders runs and writes there', async () => {
      const file = path.join(scratch.lib, `inside-${mode}.txt`);
      const prompt = `bash printf 'written by codex\\n' > ${file} && cat ${file}`;
      const entries = await turn(prompt);
      const output = server.commandOutput(prompt) ?? '';
      assert.match(output, /Process exited with code 0/, `the command succeeded: ${output}`);
      assert.equal(fs.readFileSync(file, 'utf8'), 'written by codex\n');
      const tool = entries.find((e) => e.kind === 'tool');
      assert.equal(tool?.kind === 'tool' ? tool.status : undefined, 'completed');
      assert.deepEqual(client.permissions, [], 'nothing asked: the folders are the session’s');
      // codex-acp runs the command itself and sends its output in the tool call's `_meta` (terminal_info,
      // terminal_output_delta, terminal_exit): the command's card shows it, not "an earlier run of the agent".
      const terminal = tool?.kind === 'tool' ? tool.content.find((c) => c.type === 'terminal') : undefined;
      assert.ok(terminal?.type === 'terminal', `the command's card shows its terminal: ${JSON.stringify(tool)}`);
      assert.equal(terminal.output, 'written by codex\n', 'the card shows what the command printed');
      assert.equal(terminal.exitStatus?.exitCode, 0, 'and how it ended');
      assert.equal(terminal.agentOwned, true, 'a terminal the agent runs itself (no Show in Terminal)');
    });

    if (mode === 'off') {
      it('its own sandbox still guards what it guards: a write into the folder’s .codex fails', async () => {
        const file = path.join(scratch.app, '.codex', 'planted.txt');
        const prompt = `bash printf 'planted\\n' > ${file}`;
        await turn(prompt);
        assert.equal(fs.existsSync(file), false, 'Codex’s own sandbox kept .codex read-only');
        assert.match(server.commandOutput(prompt) ?? '', /Read-only file system/i);
      });
    } else {
      it('a write outside the folders fails, and nothing is written there', async () => {
        const file = path.join(scratch.outside, 'escaped.txt');
        const prompt = `bash printf 'escaped\\n' > ${file}`;
        await turn(prompt);
        assert.equal(fs.existsSync(file), false, 'nothing was written outside');
        assert.match(server.commandOutput(prompt) ?? '', /Read-only file system/i, 'the model was told why');
      });
    }

    it('after a restart (as after Reload Window) a resumed session is in the same mode, and its commands run', async () => {
      const session = chat.session;
      const connection = await within(60_000, 'restart', client.restart());
      assert.equal(client.process.confinement?.confined, mode !== 'off', 'confined as before');
      chat = client.open(await within(60_000, 'session/resume', reopenSession(connection, session.sessionId, session.rootSet, { mode: 'resume' })));
      assert.equal(currentMode(chat), mode === 'off' ? 'agent' : 'agent-full-access');
      const file = path.join(scratch.docs, `after-restart-${mode}.txt`);
      const prompt = `bash printf 'again\\n' > ${file}`;
      await turn(prompt);
      assert.match(server.commandOutput(prompt) ?? '', /Process exited with code 0/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'again\n');
    });

    it(`Codex told the model its sandbox mode: ${mode === 'off' ? 'workspace-write (its own, left alone)' : 'danger-full-access (ours confines it)'}`, () => {
      const modes = new Set(server.conversation().map((r) => turnMetadata(r.headers)['sandbox_mode']));
      assert.deepEqual([...modes], [mode === 'off' ? 'workspace-write' : 'danger-full-access']);
    });

    it('left nothing the client could not read, and the model server answered every request', () => {
      assert.deepEqual(client.protocolErrors, []);
      assert.deepEqual(server.problems, []);
    });

    if (mode === 'off') {
      it('streams what the recording of this agent holds', () => {
        const count = checkRecording(`${agent.id}.jsonl`, liveTurns, [[scratch.dir, '/tmp/acp-interop']], {
          // Codex's command output names a chunk id it makes up and the time the command took.
          replace: [
            [/Chunk ID: [0-9a-f]+/g, 'Chunk ID: <id>'],
            [/Wall time: [0-9.]+ seconds/g, 'Wall time: <duration> seconds'],
          ],
          // A command its own sandbox fails at once gets a tool call in some runs only (seen in 2 of 3 runs under
          // load, not in the recording): codex-acp's exec begin and end race.
          optional: [/^tool \(execute\): printf 'planted\\n' > .*\/\.codex\/planted\.txt \[failed\]$/],
        });
        assert.ok(count > 5);
      });
    }
  });
}
