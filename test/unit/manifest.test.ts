import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Setting {
  readonly scope?: string;
  readonly type?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Setting> } | Array<{ properties: Record<string, Setting> }> };
};

/**
 * Every contributed setting, its scope, and why. A setting that chooses programs to run, widens what agents may
 * reach or raises a limit is `machine`: a workspace (a cloned repository) cannot set it. A new setting fails
 * here until it is added with its reason.
 */
const SCOPES: Record<string, { scope: string; why: string }> = {
  'acpWorkspace.agents': { scope: 'machine', why: 'chooses programs to run' },
  'acpWorkspace.defaultAgent': { scope: 'machine', why: 'chooses which program new sessions run' },
  'acpWorkspace.mcpServers': { scope: 'machine', why: 'chooses programs agents start (MCP servers)' },
  'acpWorkspace.shareAllWorkspaceFolders': { scope: 'machine', why: 'widens what agents may reach' },
  'acpWorkspace.maxMessageSizeMiB': { scope: 'machine', why: 'raises a limit on what an agent may make the host hold' },
  'acpWorkspace.checkpoints.enabled': { scope: 'machine', why: 'turning checkpoints off takes away undo of what agents change' },
  'acpWorkspace.checkpoints.maxStorageMiB': { scope: 'machine', why: 'raises how much disk the extension may fill' },
  'acpWorkspace.checkpoints.maxFileSizeMiB': { scope: 'machine', why: 'raises how large a file the extension copies into its storage' },
  'acpWorkspace.sandbox': { scope: 'machine', why: 'turning confinement off or down widens what agents may reach' },
  'acpWorkspace.trace': { scope: 'window', why: 'only what the log shows (secrets redacted)' },
  'acpWorkspace.primaryFolder': { scope: 'window', why: 'which shared folder is the working folder; shares nothing more' },
  'acpWorkspace.notifications': { scope: 'window', why: 'which notifications and badge the user gets; grants nothing' },
};

describe('contributed settings and their scopes', () => {
  const configuration = manifest.contributes.configuration;
  const properties = Object.assign({}, ...(Array.isArray(configuration) ? configuration : [configuration]).map((c) => c.properties)) as Record<string, Setting>;

  it('lists every contributed setting with its scope and why', () => {
    assert.deepEqual(Object.keys(properties).sort(), Object.keys(SCOPES).sort());
  });

  for (const [key, expected] of Object.entries(SCOPES)) {
    it(`${key} is ${expected.scope}-scoped: ${expected.why}`, () => {
      assert.equal(properties[key]?.scope ?? 'window', expected.scope);
    });
  }
});
