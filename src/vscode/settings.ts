/** Typed, validated reads of the `acpWorkspace.*` settings. Bad values fall back to defaults, never throw. */
import * as vscode from 'vscode';
import { registryUrlFromSetting, resolveAgentList, type AgentListResult, type RegistryAgentsInput } from '../agents/agentConfig';
import type { TraceLevel } from '../acp/trace';
import type { ProtocolChoice } from '../acp/port/agentConnection';
import type { PrimaryFolderSetting } from '../roots/workspaceRoots';
import { DEFAULT_MAX_LINE_BYTES } from '../acp/transport/ndjson';
import type { CheckpointSettings } from '../sessions/review/checkpoints';
import type { SandboxMode } from '../process/confinement/types';
import { notificationLevel, type NotificationLevel } from '../sessions/turns/chatAttention';

export const SECTION = 'acpWorkspace';

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

/**
 * Presets, the agents installed from the ACP Registry, and `acpWorkspace.agents` (machine scope: a workspace
 * cannot choose programs to run).
 */
export function readAgents(registry?: RegistryAgentsInput): AgentListResult {
  return resolveAgentList(config().get<unknown>('agents'), registry);
}

/**
 * `acpWorkspace.registry.url` (machine scope), trimmed: the official index when unset or not a string; an empty
 * string means no registry.
 */
export function readRegistryUrl(): string {
  return registryUrlFromSetting(config().get<unknown>('registry.url'));
}

/** The agent new sessions use; empty means "ask". */
export function readDefaultAgent(): string {
  const value = config().get<unknown>('defaultAgent');
  return typeof value === 'string' ? value.trim() : '';
}

export function readTrace(): TraceLevel {
  const value = config().get<unknown>('trace');
  return value === 'messages' || value === 'verbose' ? value : 'off';
}

/** `acpWorkspace.protocol`: which ACP version to offer agents (v1 unless set). */
export function readProtocol(): ProtocolChoice {
  const value = config().get<unknown>('protocol');
  return value === 'auto' || value === 'v2' ? value : 'v1';
}

/** `acpWorkspace.maxMessageSizeMiB` in bytes (1 to 1024 MiB). */
export function readMaxMessageBytes(): number {
  const value = config().get<unknown>('maxMessageSizeMiB');
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || value > 1024) return DEFAULT_MAX_LINE_BYTES;
  return Math.round(value * 1024 * 1024);
}

export async function writeDefaultAgent(name: string): Promise<void> {
  await config().update('defaultAgent', name, vscode.ConfigurationTarget.Global);
}

/** True when the change touches any of our settings. */
export function affectsUs(event: vscode.ConfigurationChangeEvent, key?: string): boolean {
  return event.affectsConfiguration(key ? `${SECTION}.${key}` : SECTION);
}

/** `acpWorkspace.primaryFolder`: which folder a new session works in. */
export function readPrimaryFolder(): PrimaryFolderSetting {
  const value = config().get<unknown>('primaryFolder');
  return value === 'activeEditor' || value === 'ask' ? value : 'first';
}

/** `acpWorkspace.shareAllWorkspaceFolders`: share every local workspace folder without asking. */
export function readShareAllFolders(): boolean {
  return config().get<unknown>('shareAllWorkspaceFolders') === true;
}

/** `acpWorkspace.checkpoints.*`, and the Git program VS Code's own Git support uses (`git.path`). */
export function readCheckpointSettings(): CheckpointSettings {
  const mib = (key: string, fallback: number, min: number, max: number) => {
    const value = config().get<unknown>(key);
    return (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : fallback) * 1024 * 1024;
  };
  const gitPath = vscode.workspace.getConfiguration('git').get<unknown>('path');
  const git =
    typeof gitPath === 'string' && gitPath.trim() !== ''
      ? gitPath.trim()
      : Array.isArray(gitPath)
        ? gitPath.find((p): p is string => typeof p === 'string')
        : undefined;
  return {
    enabled: config().get<unknown>('checkpoints.enabled') !== false,
    maxFileBytes: Math.round(mib('checkpoints.maxFileSizeMiB', 5, 1, 1024)),
    maxStoreBytes: Math.round(mib('checkpoints.maxStorageMiB', 1024, 16, 65536)),
    git,
  };
}

/** `acpWorkspace.sandbox` (machine scope): whether and how agents are confined; anything unknown is off. */
export function readSandbox(): SandboxMode {
  const value = config().get<unknown>('sandbox');
  return value === 'writes' || value === 'strict' ? value : 'off';
}

/** `acpWorkspace.notifications`: which events of a chat out of view notify (and badge); anything unknown is `all`. */
export function readNotifications(): NotificationLevel {
  return notificationLevel(config().get<unknown>('notifications'));
}
