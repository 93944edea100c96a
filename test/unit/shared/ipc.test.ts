import * as assert from 'node:assert/strict';
import * as z from 'zod/mini';
import { ChatRequests, ChatToHost, HostToChat } from '../../../src/shared/chatProtocol';
import { HistoryRequests, HostToSessions, SessionsToHost } from '../../../src/shared/historyProtocol';
import { answer, defineRequest } from '../../../src/shared/ipc';

const Requests = {
  double: defineRequest('double', z.object({ n: z.number() }), z.number()),
  fail: defineRequest('fail', z.object({}), z.string()),
};

describe('webview requests, paired by id', () => {
  const handlers = {
    double: ({ n }: { n: number }) => Promise.resolve(n * 2),
    fail: () => Promise.reject(new Error('no luck')),
  };

  it('answers with the handler’s result, under the request’s id', async () => {
    assert.deepEqual(await answer(Requests, handlers, { type: 'request', id: 7, method: 'double', params: { n: 21 } }), {
      type: 'response',
      id: 7,
      result: 42,
    });
  });

  it('answers an error, never calling a handler, for an unknown method or params that do not validate', async () => {
    let called = false;
    const watched = { ...handlers, double: (p: { n: number }) => ((called = true), handlers.double(p)) };
    assert.deepEqual(await answer(Requests, watched, { type: 'request', id: 1, method: 'triple', params: {} }), {
      type: 'response',
      id: 1,
      error: 'Unknown request triple.',
    });
    const invalid = await answer(Requests, watched, { type: 'request', id: 2, method: 'double', params: { n: 'x' } });
    assert.equal(invalid.id, 2);
    assert.match(invalid.error ?? '', /^Invalid params for double: Invalid input: expected number, received string$/, 'says why, in words');
    assert.equal(called, false);
  });

  it('answers a failing handler with its message', async () => {
    assert.deepEqual(await answer(Requests, handlers, { type: 'request', id: 3, method: 'fail', params: {} }), { type: 'response', id: 3, error: 'no luck' });
  });

  it('each webview protocol carries requests and answers in its own message unions', () => {
    const request = { type: 'request', id: 1, method: ChatRequests.mentions.method, params: { query: 'gre' } };
    assert.equal(ChatToHost.safeParse(request).success, true);
    assert.equal(SessionsToHost.safeParse({ ...request, method: HistoryRequests.rows.method }).success, true);
    const response = { type: 'response', id: 1, result: [] };
    assert.equal(HostToChat.safeParse(response).success, true);
    assert.equal(HostToSessions.safeParse(response).success, true);
    assert.equal(ChatToHost.safeParse({ type: 'request', id: -1, method: 'mentions', params: {} }).success, false, 'ids are non-negative integers');
    assert.equal(ChatRequests.mentions.result.safeParse([{ path: '/w/a', label: 'a', root: 'w' }]).success, true);
  });
});
