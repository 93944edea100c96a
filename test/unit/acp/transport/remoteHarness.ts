/**
 * What the remote link tests share: an {@link AcpConnection} on a link, wired as the remote agent will wire it
 * (the link's end closes the connection with its reason), recording updates, permission requests and the
 * errors the reader reported; and the full session flow both links must pass against the served reference agent.
 */
import * as assert from 'node:assert/strict';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { AcpConnection } from '../../../../src/acp/connection';
import { RequestCancelledError } from '../../../../src/acp/errors';
import * as acp from '../../../../src/acp/schema';
import type { LinkEnd, RemoteLink } from '../../../../src/acp/transport/remote';

export const clientInfo = { name: 'acp-workspace', version: '0.0.0-test' };

export interface Wired {
  readonly connection: AcpConnection;
  readonly updates: { sessionId: string; kind: string; text?: string }[];
  readonly permissions: string[];
  readonly protocolErrors: Error[];
  readonly closedWith: Promise<string>;
}

/** An AcpConnection over `link`; the link's end closes it with the link's reason. */
export function wire(link: RemoteLink): Wired {
  const connection = new AcpConnection({ transport: link, closeGraceMs: 10_000 });
  const updates: Wired['updates'] = [];
  const permissions: string[] = [];
  const protocolErrors: Error[] = [];
  const closedWith = new Promise<string>((resolve) => connection.onDidClose(resolve));
  connection.onProtocolError((error) => protocolErrors.push(error));
  connection.onNotification(acp.SessionUpdateNotification, (params) => {
    const update = params.update as { sessionUpdate: string; content?: { type?: string; text?: string } };
    updates.push({ sessionId: params.sessionId, kind: update.sessionUpdate, ...(update.content?.type === 'text' ? { text: update.content.text } : {}) });
  });
  connection.onRequest(acp.RequestPermissionMethod, (params) => {
    permissions.push(params.toolCall.toolCallId);
    const allow = params.options.find((option) => option.kind === 'allow_once') ?? params.options[0]!;
    return { outcome: { outcome: 'selected' as const, optionId: allow.optionId } };
  });
  void link.ended.then((end: LinkEnd) => connection.close(end.reason));
  return { connection, updates, permissions, protocolErrors, closedWith };
}

/** Resolves once `condition` holds, checking after every turn of the event loop; fails after `ms` saying what. */
export async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The full flow against the reference agent (served with `--list-delay 60000`): initialize, session/new, a
 * streamed prompt in order, a permission answered, a turn cancelled with session/cancel, a request cancelled
 * with $/cancel_request.
 */
export async function fullFlow(link: RemoteLink): Promise<void> {
  const wired = wire(link);
  const { connection, updates, permissions } = wired;
  try {
    const caps = await connection.initialize({ clientInfo });
    assert.ok(caps);
    const { sessionId } = await connection.newSession({ cwd: '/work/remote', mcpServers: [] });

    const streamed = await connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'stream' }] });
    assert.equal(streamed.stopReason, 'end_turn');
    const chunks = updates.filter((u) => u.sessionId === sessionId && u.kind === 'agent_message_chunk');
    assert.equal(chunks.length, 50, 'every streamed chunk arrived before the answer');
    assert.match(chunks.map((c) => c.text).join(''), /^# Streaming test[\s\S]*```ts\nconst streamed = true;\n```\n$/, 'in order');

    const asked = await connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'permission' }] });
    assert.equal(asked.stopReason, 'end_turn');
    assert.equal(permissions.length, 1, 'the permission request was answered');

    const before = updates.length;
    const hanging = connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'hang' }] });
    await until(() => updates.slice(before).some((u) => u.kind === 'agent_message_chunk'), 'the hanging turn to start');
    await connection.cancel(sessionId);
    assert.equal((await hanging).stopReason, 'cancelled');

    const source = new CancellationTokenSource();
    const listing = connection.listSessions({}, source.token);
    setImmediate(() => source.cancel());
    await assert.rejects(listing, RequestCancelledError);
    assert.deepEqual(wired.protocolErrors, []);
  } finally {
    await link.close();
    connection.dispose();
  }
}
