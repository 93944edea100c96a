// @ts-check
/**
 * The layer table (CONTRIBUTING.md, "Layers and data flow"), enforced on every import under src/, type-only
 * imports included: each folder may import itself and the folders listed here, nothing else, and no import
 * cycle is allowed anywhere. `npm run lint` and the build's check step run it; a violation fails them.
 *
 * Top to bottom. A folder only lists folders further down, so an import can never run back up.
 */
const LAYERS = {
  // The composition root: activation, and the core it loads on first use (its own bundle, composed in core.ts).
  'extension.ts': ['core.ts', 'vscode', 'sessions', 'review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  'core.ts': ['vscode', 'sessions', 'review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  vscode: ['sessions', 'review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  // The application layer, by concern, top to bottom; each room also imports every layer below sessions/.
  'sessions/agents': ['sessions/chats', 'sessions/review', 'sessions/turns', 'sessions/routing', 'sessions/ports.ts', 'review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  'sessions/opening': ['sessions/chats', 'sessions/review', 'sessions/turns', 'sessions/routing', 'sessions/ports.ts', 'review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  'sessions/chats': ['sessions/review', 'sessions/turns', 'sessions/routing', 'sessions/ports.ts', 'review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  'sessions/review': ['sessions/turns', 'sessions/routing', 'sessions/ports.ts', 'review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  'sessions/turns': ['sessions/routing', 'sessions/ports.ts', 'review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  'sessions/routing': ['sessions/ports.ts', 'review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  'sessions/ports.ts': ['review', 'history', 'thread', 'terminal', 'mcp', 'agents', 'remote', 'process', 'acp', 'roots', 'shared', 'common'],
  review: ['process', 'roots', 'shared', 'common'],
  history: ['acp', 'roots', 'shared', 'common'],
  thread: ['acp', 'shared', 'common'],
  terminal: ['process', 'acp', 'roots', 'common'],
  mcp: ['process', 'acp', 'common'],
  agents: ['remote', 'process', 'acp', 'common'],
  remote: ['process', 'acp', 'common'],
  process: ['acp', 'common'],
  acp: ['common'],
  roots: ['common'],
  // Browser code: the webviews and what they share with the host.
  webview: ['shared'],
  shared: [],
  common: [],
};

const at = (layer) => (layer.endsWith('.ts') ? `^src/${layer.replace('.', '\\.')}$` : `^src/${layer}/`);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other (even for types only) belong together, or the shared part moves down.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...Object.entries(LAYERS).map(([layer, allowed]) => ({
      name: `layer:${layer}`,
      severity: /** @type {const} */ ('error'),
      comment: `src/${layer} may import ${allowed.length > 0 ? allowed.map((a) => `src/${a}/`).join(', ') : 'nothing else of src/'} (see CONTRIBUTING.md, "Layers and data flow").`,
      from: { path: at(layer) },
      to: { path: '^src/', pathNot: [at(layer), ...allowed.map(at)] },
    })),
    {
      name: 'acp-v1-only-in-acp',
      severity: 'error',
      comment:
        'Above src/acp/ the application talks to the port (src/acp/port/: the connection, transcript events, the turn, MCP server configurations, the client-served file system and terminals): no v1 schema type, no v1 adapter or connection (acp/agentConnections.ts builds the connection).',
      from: { path: '^src/', pathNot: '^src/acp/' },
      to: { path: ['^src/acp/schema/', '^src/acp/v1/', '^src/acp/connection\\.ts$'] },
    },
    {
      name: 'browser-code-without-node',
      severity: 'error',
      comment: 'Webview code and the protocols it shares with the host run in a browser: no Node built-ins.',
      from: { path: '^src/(webview|shared)/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'vscode-only-in-adapters',
      severity: 'error',
      comment: "Only src/vscode/, src/extension.ts and src/core.ts import 'vscode'; everything else runs and is tested in plain Node.",
      from: { path: '^src/', pathNot: ['^src/vscode/', '^src/extension\\.ts$', '^src/core\\.ts$'] },
      to: { path: '^vscode$', dependencyTypes: ['core', 'unknown', 'undetermined', 'npm', 'npm-dev', 'npm-peer', 'npm-optional', 'npm-no-pkg', 'npm-unknown', 'type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.css$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
