import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Setting {
  readonly scope?: string;
  readonly type?: string;
}

const repository = path.resolve(__dirname, '..', '..', '..');
const nls = JSON.parse(fs.readFileSync(path.join(repository, 'package.nls.json'), 'utf8')) as Record<string, string>;
/** The manifest as VS Code shows it in English: each %key% replaced by its text in package.nls.json. */
const manifest = JSON.parse(fs.readFileSync(path.join(repository, 'package.json'), 'utf8'), (_key, value: unknown) =>
  typeof value === 'string' && /^%[^%]+%$/.test(value) ? (nls[value.slice(1, -1)] ?? value) : value,
) as {
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
  'acpWorkspace.registry.url': { scope: 'machine', why: 'chooses where the programs Add Agent installs come from' },
  'acpWorkspace.protocol': {
    scope: 'machine',
    why: 'chooses the protocol agents speak, and with ACP v2 no client file system: agents then read and write files themselves, outside the root guard',
  },
  'acpWorkspace.trace': {
    scope: 'machine',
    why: 'verbose writes whole messages (file contents, prompts) to the log: a workspace, or an agent writing its .vscode/settings.json, must not turn it on',
  },
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

interface Contributes {
  commands: Array<{ command: string }>;
  views: Record<string, Array<{ id: string }>>;
  viewsWelcome?: Array<{ view: string; contents: string; when?: string }>;
  walkthroughs?: Array<{
    id: string;
    title: string;
    steps: Array<{
      id: string;
      title: string;
      description: string;
      media: { markdown?: string; image?: string; altText?: string };
      completionEvents?: string[];
    }>;
  }>;
}

/**
 * VS Code's own commands our welcome content and walkthrough link to (the multiRoot integration suite checks that
 * the real VS Code registers each of them).
 */
const VSCODE_COMMANDS_LINKED = [
  'workbench.trust.manage',
  'workbench.action.files.openFolder',
  'workbench.action.addRootFolder',
  'workbench.action.openWalkthrough',
];

/** The command of every `command:` link in a markdown text. */
function linkedCommands(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(command:([\w.-]+)/g)].map((m) => m[1]!);
}

describe('welcome content and the walkthrough', () => {
  const contributes = (manifest as unknown as { contributes: Contributes }).contributes;
  const viewIds = Object.values(contributes.views)
    .flat()
    .map((v) => v.id);
  const known = new Set([...contributes.commands.map((c) => c.command), ...viewIds.map((id) => `${id}.focus`), ...VSCODE_COMMANDS_LINKED]);
  const walkthrough = contributes.walkthroughs?.find((w) => w.id === 'gettingStarted');

  it('has welcome content for an Agents view that is empty in Restricted Mode and without a folder', () => {
    const welcome = contributes.viewsWelcome ?? [];
    assert.ok(
      welcome.every((w) => viewIds.includes(w.view)),
      'each welcome belongs to one of our views',
    );
    const restricted = welcome.find((w) => w.view === 'acpWorkspace.agents' && w.when === '!isWorkspaceTrusted');
    assert.match(restricted?.contents ?? '', /Agents do not run in Restricted Mode/);
    assert.deepEqual(linkedCommands(restricted?.contents ?? ''), ['workbench.trust.manage']);
    const noFolder = welcome.find((w) => w.view === 'acpWorkspace.agents' && w.when === 'isWorkspaceTrusted && workspaceFolderCount == 0');
    assert.deepEqual(linkedCommands(noFolder?.contents ?? ''), [
      'workbench.action.files.openFolder',
      'workbench.action.addRootFolder',
      'workbench.action.openWalkthrough',
    ]);
    assert.match(
      noFolder?.contents ?? '',
      /command:workbench\.action\.openWalkthrough\?%22acp-workspace\.acp-workspace%23gettingStarted%22/,
      'the link opens our walkthrough',
    );
  });

  it('links only to commands that exist, in the welcome content and every walkthrough step', () => {
    const texts = [...(contributes.viewsWelcome ?? []).map((w) => w.contents), ...(walkthrough?.steps ?? []).map((s) => s.description)];
    const unknown = texts.flatMap(linkedCommands).filter((command) => !known.has(command));
    assert.deepEqual(unknown, []);
  });

  it('walks through picking an agent, sharing folders, a session, finding a past one and reviewing changes', () => {
    assert.equal(walkthrough?.title, 'Get started with ACP Workspace');
    assert.deepEqual(
      walkthrough?.steps.map((s) => s.id),
      ['pickAgent', 'shareFolders', 'startSession', 'findSession', 'reviewChanges'],
    );
    const commandsOf = (id: string) => linkedCommands(walkthrough?.steps.find((s) => s.id === id)?.description ?? '');
    assert.ok(commandsOf('pickAgent').includes('acpWorkspace.agents.focus'));
    assert.ok(commandsOf('shareFolders').includes('acpWorkspace.manageSharedFolders'));
    assert.ok(commandsOf('startSession').includes('acpWorkspace.newSession'));
    assert.ok(commandsOf('findSession').includes('acpWorkspace.sessions.focus'));
    assert.deepEqual(commandsOf('reviewChanges'), ['acpWorkspace.reviewChanges', 'acpWorkspace.undoLastTurn']);
  });

  it('gives every step media that exists and ships, and completion events on our commands and views', () => {
    const root = path.resolve(__dirname, '..', '..', '..');
    const shipped = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8');
    for (const step of walkthrough?.steps ?? []) {
      const media = step.media.markdown ?? step.media.image;
      assert.ok(media && fs.existsSync(path.join(root, media)), `${step.id}: ${media} exists`);
      assert.ok(step.media.markdown || step.media.altText, `${step.id}: an image has alt text`);
      assert.match(
        shipped,
        new RegExp(`^!${path.dirname(media).replace(/[.]/g, '\\.')}/\\*\\.${path.extname(media).slice(1)}$`, 'm'),
        `${step.id}: ${media} ships`,
      );
      assert.ok((step.completionEvents ?? []).length > 0, `${step.id} has completion events`);
      for (const event of step.completionEvents ?? []) {
        const [kind, target] = event.split(':') as [string, string];
        if (kind === 'onCommand') assert.ok(known.has(target), `${step.id}: ${event} names a command that exists`);
        else if (kind === 'onView') assert.ok(viewIds.includes(target), `${step.id}: ${event} names one of our views`);
        else assert.fail(`${step.id}: unexpected completion event ${event}`);
      }
    }
  });
});

describe('view title actions', () => {
  const raw = JSON.parse(fs.readFileSync(path.join(repository, 'package.json'), 'utf8')) as {
    contributes: { commands: Array<{ command: string; icon?: string }>; menus: Record<string, Array<{ command: string; when?: string; group?: string }>> };
  };
  const iconOf = new Map(raw.contributes.commands.map((c) => [c.command, c.icon]));

  it('shows each action of a view title with an icon of its own (Add Agent… and New Session were two identical +)', () => {
    const shown = new Map<string, Array<{ command: string; icon: string | undefined }>>();
    for (const item of raw.contributes.menus['view/title'] ?? []) {
      if (!item.group?.startsWith('navigation')) continue; // the others are in the … menu, by their titles
      const view = /view == ([\w.]+)/.exec(item.when ?? '')?.[1] ?? '';
      shown.set(view, [...(shown.get(view) ?? []), { command: item.command, icon: iconOf.get(item.command) }]);
    }
    assert.ok((shown.get('acpWorkspace.agents') ?? []).length >= 4, 'the Agents view has its actions');
    for (const [view, actions] of shown) {
      for (const action of actions) assert.ok(action.icon, `${view}: ${action.command} has an icon`);
      const icons = actions.map((a) => a.icon);
      const twice = actions.filter((a, i) => icons.indexOf(a.icon) !== i).map((a) => `${a.command} ${a.icon ?? ''}`);
      assert.deepEqual(twice, [], `${view}: ${actions.map((a) => `${a.command} ${a.icon ?? ''}`).join(', ')}`);
    }
  });
});
