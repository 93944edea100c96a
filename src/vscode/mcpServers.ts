/**
 * The MCP servers every session gets: `acpWorkspace.mcpServers` plus, in a trusted workspace, each
 * folder's `.vscode/mcp.json`; only the transports the agent advertises. What is not passed, and why, is
 * told to the user; values of env variables and headers never reach the log.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { AgentCaps } from '../acp/capabilities';
import type { Logger } from '../common/logger';
import type { McpServer } from '../acp/schema';
import { mcpJsonPath, readConfiguredServers } from '../mcp/mcpConfig';
import { describeMcpSelection, selectMcpServers } from '../mcp/mcpSelection';

export interface McpChoice {
  readonly servers: McpServer[];
  /** One line per server not passed (for the chat and the log). */
  readonly notPassed: string[];
}

export class McpServers {
  constructor(private readonly logger: Logger) {}

  /** The servers to pass to an agent with these capabilities; reads the files fresh each time. */
  forAgent(agentName: string, caps: AgentCaps): McpChoice {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    const files = folders.map((folder) => {
      const filePath = mcpJsonPath(folder.uri.fsPath);
      let text: string | undefined;
      try {
        text = fs.readFileSync(filePath, 'utf8');
      } catch {
        text = undefined; // no file
      }
      return { folderPath: folder.uri.fsPath, text, filePath };
    });
    const configured = readConfiguredServers({
      setting: vscode.workspace.getConfiguration('acpWorkspace').get<unknown>('mcpServers'),
      files,
      trusted: vscode.workspace.isTrusted,
      env: process.env,
    });
    for (const problem of configured.problems) this.logger.warn(`MCP servers: ${problem}`);
    const selection = selectMcpServers(configured.servers, caps.mcp);
    for (const line of describeMcpSelection(selection, configured.servers)) this.logger.info(`MCP servers for ${agentName}: ${line}`);
    return {
      servers: selection.passed,
      notPassed: selection.notPassed.map((entry) => `MCP server “${entry.name}” was not passed: ${entry.reason}.`),
    };
  }
}
