/** Placeholder for the v2 transcript reader (its engineer's branch replaces this file whole). */
import type { TranscriptEvent } from '../port/events';

export type V2TurnSignal =
  | { readonly state: 'running' }
  | { readonly state: 'requires_action' }
  | { readonly state: 'idle'; readonly stopReason?: string }
  | { readonly state: 'unknown'; readonly raw: unknown };
export type V2UpdateRead =
  | { readonly kind: 'transcript'; readonly event: TranscriptEvent }
  | { readonly kind: 'turn'; readonly signal: V2TurnSignal }
  | { readonly kind: 'replayComplete' };

export function readV2SessionUpdate(
  params: unknown,
): { readonly ok: true; readonly sessionId: string; readonly reads: readonly V2UpdateRead[] } | { readonly ok: false; readonly error: Error } {
  const p = params as { sessionId?: unknown; update?: Record<string, unknown> } | undefined;
  if (typeof p?.sessionId !== 'string' || typeof p.update !== 'object' || p.update === null) return { ok: false, error: new Error('no sessionId or update') };
  const update = p.update;
  if (update['sessionUpdate'] === 'state_update') {
    const state = update['state'];
    if (state === 'idle')
      return {
        ok: true,
        sessionId: p.sessionId,
        reads: [{ kind: 'turn', signal: { state: 'idle', ...(typeof update['stopReason'] === 'string' ? { stopReason: update['stopReason'] } : {}) } }],
      };
    if (state === 'running' || state === 'requires_action') return { ok: true, sessionId: p.sessionId, reads: [{ kind: 'turn', signal: { state } }] };
    return { ok: true, sessionId: p.sessionId, reads: [{ kind: 'turn', signal: { state: 'unknown', raw: update } }] };
  }
  if (update['sessionUpdate'] === 'agent_message_chunk') {
    const content = update['content'] as { type?: string; text?: string } | undefined;
    if (content?.type === 'text' && typeof content.text === 'string')
      return {
        ok: true,
        sessionId: p.sessionId,
        reads: [
          {
            kind: 'transcript',
            event: {
              type: 'message',
              role: 'agent',
              ...(typeof update['messageId'] === 'string' ? { messageId: update['messageId'] } : {}),
              content: { type: 'text', text: content.text },
            },
          },
        ],
      };
  }
  return { ok: true, sessionId: p.sessionId, reads: [{ kind: 'transcript', event: { type: 'unknown', tag: String(update['sessionUpdate']), raw: update } }] };
}
