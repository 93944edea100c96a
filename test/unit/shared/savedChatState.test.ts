import * as assert from 'node:assert/strict';
import { readSavedChatState } from '../../../src/shared/chatProtocol';

describe('a chat tab’s saved webview state, read back', () => {
  it('keeps every field that reads as ChatViewState’s', () => {
    const state = {
      agentName: 'Claude',
      sessionId: 's1',
      title: 'Refactor',
      roots: ['/w/app', '/w/lib'],
      draft: { text: 'half a thought', attachments: [] },
      images: ['https://example.com/a.png'],
      queue: [{ text: 'next', attachments: [] }],
    };
    assert.deepEqual(readSavedChatState(state), state);
    assert.deepEqual(readSavedChatState({ agentName: 'Claude', sessionId: 's1' }), { agentName: 'Claude', sessionId: 's1' });
  });

  it('drops what does not read (state read back is validated), so a damaged state cannot break the chat', () => {
    const damaged = {
      agentName: 7,
      sessionId: 's1',
      title: null,
      roots: '/w/app',
      draft: { text: 3 },
      images: 'https://example.com/a.png',
      queue: 'x',
      extra: 1,
    };
    assert.deepEqual(readSavedChatState(damaged), { sessionId: 's1' });
    assert.deepEqual(
      readSavedChatState({ roots: ['/w/app', 4], images: [1, 'https://example.com/b.png'] }),
      { images: ['https://example.com/b.png'] },
      'roots with a bad item are dropped whole; image URLs that are not strings one by one',
    );
    for (const nothing of [undefined, null, 'state', 42, ['a']]) assert.deepEqual(readSavedChatState(nothing), {});
  });
});
