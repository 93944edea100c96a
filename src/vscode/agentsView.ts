/** The "Agents" view: every configured agent, its state, what it supports, and start/stop/restart. */
import * as vscode from 'vscode';
import type { AgentCaps } from '../acp/capabilities';
import type { AgentStatus, Agents } from './agents';
import { Disposable } from './lifecycle';
import { readDefaultAgent, affectsUs } from './settings';

export const AGENTS_VIEW_ID = 'acpWorkspace.agents';

const STATE_LABEL: Record<AgentStatus['state'], string> = {
  starting: 'starting…',
  running: 'running',
  stopping: 'stopping…',
  stopped: 'not running',
  failed: 'failed',
};

export class AgentsView extends Disposable implements vscode.TreeDataProvider<AgentStatus> {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changeEmitter.event;

  constructor(private readonly agents: Agents) {
    super();
    this._register(agents.onDidChange(() => this.changeEmitter.fire()));
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsUs(event, 'defaultAgent')) this.changeEmitter.fire();
      }),
    );
    this._register(vscode.window.createTreeView(AGENTS_VIEW_ID, { treeDataProvider: this, showCollapseAll: false }));
  }

  getChildren(element?: AgentStatus): AgentStatus[] {
    return element ? [] : this.agents.list();
  }

  getTreeItem(status: AgentStatus): vscode.TreeItem {
    const { definition, state } = status;
    const item = new vscode.TreeItem(definition.name, vscode.TreeItemCollapsibleState.None);
    const isDefault = readDefaultAgent() === definition.name;
    const caps = status.process?.caps;
    const version = caps?.agentInfo ? ` · ${caps.agentInfo.title ?? caps.agentInfo.name} ${caps.agentInfo.version}` : '';
    item.description = [isDefault ? 'default' : undefined, STATE_LABEL[state] + version, status.stale ? 'restart to apply settings' : undefined]
      .filter(Boolean)
      .join(' · ');
    item.iconPath = iconFor(state);
    item.contextValue = `agent.${state}`;
    item.id = `agent:${definition.name}`;
    item.accessibilityInformation = { label: `${definition.name}, ${STATE_LABEL[state]}${isDefault ? ', default agent' : ''}` };
    item.tooltip = tooltipFor(status, caps);
    return item;
  }
}

function iconFor(state: AgentStatus['state']): vscode.ThemeIcon {
  switch (state) {
    case 'running':
      return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
    case 'starting':
    case 'stopping':
      return new vscode.ThemeIcon('loading~spin');
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    case 'stopped':
      return new vscode.ThemeIcon('circle-large-outline');
  }
}

function tooltipFor(status: AgentStatus, caps: AgentCaps | undefined): vscode.MarkdownString {
  const { definition } = status;
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${escape(definition.name)}**: ${escape(definition.description)}\n\n`);
  md.appendCodeblock([definition.command, ...definition.args].join(' '), 'shell');
  if (status.message) md.appendMarkdown(`\n$(warning) ${escape(status.message)}\n`);
  if (caps) {
    const yes = (flag: boolean) => (flag ? '$(check)' : '$(dash)');
    md.appendMarkdown(
      [
        '',
        `${yes(caps.sessions.additionalDirectories)} shares all workspace folders (additionalDirectories)`,
        `${yes(caps.sessions.list)} session history (session/list)`,
        `${yes(caps.loadSession)} reopen with history (session/load)`,
        `${yes(caps.sessions.resume)} resume (session/resume)`,
        `${yes(caps.sessions.fork)} fork (session/fork)`,
        `${yes(caps.prompt.image)} images in prompts`,
      ].join('\n\n'),
    );
  }
  return md;
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>$]/g, '\\$&');
}
