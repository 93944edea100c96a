/**
 * What the HTTP links (Streamable HTTP, Sandbox Agent) do with the events of an event stream: each event's data is
 * one JSON-RPC message handed to the link's {@link LinkReader}; data that is not a message is reported (a
 * FramingError naming the agent) and reading goes on; an event skipped for its size is reported, and when it was
 * an answer, its request fails at once with an answer naming the limit.
 */
import type { Message } from 'vscode-jsonrpc/node';
import type { LinkReader } from './linkChannel';
import { oversizeMessage, parseMessage } from './messageIntake';
import type { SseItem } from './sse';

export class SseIntake {
  /**
   * @param observe sees each message before the reader (the link's bookkeeping: which session a request came on,
   * which requests were answered).
   */
  constructor(
    private readonly peer: string,
    private readonly maxMessageBytes: number,
    private readonly reader: LinkReader,
    private readonly observe?: (message: Message) => void,
  ) {}

  /** Items from the stream (or a response body read as one event), in order. */
  take(items: readonly SseItem[]): void {
    for (const item of items) {
      if (item.kind === 'oversize') {
        const { error, answer } = oversizeMessage(this.peer, item.bytes, this.maxMessageBytes, item.head);
        this.reader.report(error);
        if (answer) this.reader.answer(answer);
        continue;
      }
      // A keep-alive event with empty data carries no message.
      if (item.data.trim() !== '') this.message(item.data);
    }
  }

  /** One whole message's text (an event's data, or a response body that is one message). */
  message(text: string): void {
    const intake = parseMessage(text, this.peer);
    if ('error' in intake) {
      this.reader.report(intake.error);
      return;
    }
    this.observe?.(intake.message);
    this.reader.deliver(intake.message);
  }
}
