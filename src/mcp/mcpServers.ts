/**
 * The MCP servers every session gets: `acpWorkspace.mcpServers` plus, in a trusted workspace, each
 * folder's `.vscode/mcp.json`; only the transports the agent advertises. What is not passed, and why, is
 * told to the user; values of env variables and headers never reach the log.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import type { AgentCaps } from '../acp/capabilities';
import type { Logger } from '../common/logger';
import { mcpJsonPath, readConfiguredServers } from './mcpConfig';
import { describeMcpSelection, selectMcpServers } from './mcpSelection';
import type { McpServerConfig } from '../acp/port/mcp';

/** Where the configuration comes from (the VS Code layer reads the workspace and the setting). */
export interface McpInputs {
  /** The workspace's local folders. */
  folders(): readonly string[];
  /** `acpWorkspace.mcpServers`, as read. */
  setting(): unknown;
  /** Workspace Trust: a folder's own `.vscode/mcp.json` is read only in a trusted workspace. */
  trusted(): boolean;
}

export interface McpChoice {
  readonly servers: McpServerConfig[];
  /** One line per server not passed (for the chat and the log). */
  readonly notPassed: string[];
}

export class McpServers {
  constructor(
    private readonly inputs: McpInputs,
    private readonly logger: Logger,
  ) {}

  /** The servers to pass to an agent with these capabilities; reads the files fresh each time. */
  forAgent(agentName: string, caps: AgentCaps): McpChoice {
    const files = this.inputs.folders().map((folderPath) => {
      const filePath = mcpJsonPath(folderPath);
      let text: string | undefined;
      try {
        text = fs.readFileSync(filePath, 'utf8');
      } catch {
        text = undefined; // no file
      }
      return { folderPath, text, filePath };
    });
    const configured = readConfiguredServers({ setting: this.inputs.setting(), files, trusted: this.inputs.trusted(), env: process.env });
    for (const problem of configured.problems) this.logger.warn(`MCP servers: ${problem}`);
    const selection = selectMcpServers(configured.servers, caps.mcp);
    for (const line of describeMcpSelection(selection, configured.servers)) this.logger.info(`MCP servers for ${agentName}: ${line}`);
    return {
      servers: selection.passed,
      notPassed: selection.notPassed.map((entry) => l10n.t('MCP server “{0}” was not passed: {1}.', entry.name, entry.reason)),
    };
  }
}
