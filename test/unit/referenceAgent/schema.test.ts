import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { cleanup, startAgent, tempDir } from './harness';

interface SchemaDef {
  'x-side'?: string;
  'x-method'?: string;
}

interface WireMessage {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** Validators for the official ACP v1 (unstable) schema, by direction and method. */
class AcpSchema {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly defs: Record<string, SchemaDef>;

  constructor() {
    const file = require.resolve('@agentclientprotocol/sdk/schema/v1/schema.unstable.json');
    const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as { $defs: Record<string, SchemaDef> };
    this.defs = schema.$defs;
    this.ajv.addSchema(schema, 'acp');
  }

  /** The validator of the def whose x-side/x-method match and whose name ends with `suffix`. */
  validator(side: string, method: string, suffix: 'Request' | 'Response' | 'Notification'): ValidateFunction {
    const name = Object.keys(this.defs).find((key) => key.endsWith(suffix) && this.defs[key]['x-side'] === side && this.defs[key]['x-method'] === method);
    assert.ok(name, `no schema for ${side} ${method} ${suffix}`);
    const validate = this.ajv.getSchema(`acp#/$defs/${name}`);
    assert.ok(validate);
    return validate;
  }

  errorValidator(): ValidateFunction {
    const validate = this.ajv.getSchema('acp#/$defs/Error');
    assert.ok(validate);
    return validate;
  }
}

describe('reference agent: everything it sends validates against the official schema', () => {
  afterEach(cleanup);

  it('initialize, lifecycle, list, modes, config and every non-fault turn', async function () {
    this.timeout(30_000);
    const dir = tempDir();
    const file = path.join(dir, 'notes.txt');
    fs.writeFileSync(file, 'one\ntwo\n');
    const agent = await startAgent({ args: ['--auth', 'ref-login'] });
    await agent.agent.request('authenticate', { methodId: 'ref-login' });
    const extra = tempDir();
    const sessionId = await agent.newSession(dir, [extra]);
    for (const prompt of [
      'hello',
      '/help',
      'think stream',
      'diff',
      'permission',
      `read ${file} line 1 limit 1`,
      `write ${path.join(dir, 'out.txt')} text`,
      `terminal ${process.execPath} -e "console.log(1)"`,
      'plan usage',
      '/title Validated',
    ]) {
      assert.equal(await agent.prompt(sessionId, prompt), 'end_turn', prompt);
    }
    await agent.agent.request('session/set_mode', { sessionId, modeId: 'ask' });
    await agent.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'ref-smart' });
    await agent.agent.request('session/set_config_option', { sessionId, configId: 'extended_thinking', type: 'boolean', value: true });
    await agent.agent.request('session/list', { cwd: dir });
    await agent.agent.request('session/load', { sessionId, cwd: dir, mcpServers: [], additionalDirectories: [extra] });
    await agent.agent.request('session/resume', { sessionId, cwd: dir });
    const forked = await agent.agent.request('session/fork', { sessionId, cwd: dir });
    await agent.agent.request('session/close', { sessionId: forked.sessionId });
    await agent.agent.request('session/delete', { sessionId: forked.sessionId });
    await agent.agent.request('session/new', { cwd: 'relative', mcpServers: [] }).catch(() => undefined);
    await agent.agent.request('logout', {});
    await new Promise((resolve) => setTimeout(resolve, 50));

    const schema = new AcpSchema();
    const sentRequests = new Map<string, string>();
    for (const line of agent.sent) {
      const message = JSON.parse(line) as WireMessage;
      if (message.method !== undefined && message.id !== undefined) {
        sentRequests.set(String(message.id), message.method);
      }
    }
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const line of agent.received) {
      const message = JSON.parse(line) as WireMessage;
      let validate: ValidateFunction;
      let value: unknown;
      let what: string;
      if (message.method !== undefined) {
        const kind = message.id === undefined ? 'Notification' : 'Request';
        validate = schema.validator('client', message.method, kind);
        value = message.params;
        what = `${message.method} ${kind.toLowerCase()}`;
      } else if (message.error !== undefined) {
        validate = schema.errorValidator();
        value = message.error;
        what = 'error';
      } else {
        const method = sentRequests.get(String(message.id));
        assert.ok(method, `response to unknown id ${String(message.id)}`);
        validate = schema.validator('agent', method, 'Response');
        value = message.result;
        what = `${method} response`;
      }
      seen.add(what);
      if (!validate(value)) {
        problems.push(`${what}: ${JSON.stringify(validate.errors?.slice(0, 3))}\n  ${line.slice(0, 300)}`);
      }
    }
    assert.deepEqual(problems, []);
    for (const expected of [
      'initialize response',
      'session/new response',
      'session/load response',
      'session/list response',
      'session/fork response',
      'session/set_config_option response',
      'session/prompt response',
      'session/update notification',
      'session/request_permission request',
      'fs/read_text_file request',
      'fs/write_text_file request',
      'terminal/create request',
      'error',
    ]) {
      assert.ok(seen.has(expected), `nothing checked for ${expected}`);
    }
  });
});
