/**
 * What the start of a JSON-RPC message says about it: its `method`, its `id` and its `params.sessionId`, read
 * from a prefix of the line (the framing keeps only the start of a line it discards). Only members of the
 * message itself and of its `params` count, never a `sessionId` nested deeper (inside an update's content),
 * and nothing is guessed: a member cut off by the end of the prefix is not there.
 */

/** The members of a message that say what it was and whom it was for, as far as the prefix shows them. */
export interface MessageHead {
  readonly method?: string;
  readonly id?: string | number;
  readonly sessionId?: string;
  /** A `result` or `error` member of the message was seen: it is an answer (to the request `id`). */
  readonly answer?: boolean;
}

interface Frame {
  readonly kind: 'object' | 'array';
  /** The member of the enclosing object this container is the value of. */
  readonly key: string | undefined;
  /** In an object: the member whose value comes next (after its key was read). */
  member: string | undefined;
  /** In an object: a key comes next (after `{` or `,`), not a value. */
  expectKey: boolean;
}

/** Reads {@link MessageHead} from the start of a JSON text (it may end anywhere, even inside a string). */
export function readMessageHead(prefix: string): MessageHead {
  const head: { method?: string; id?: string | number; sessionId?: string; answer?: boolean } = {};
  const stack: Frame[] = [];

  /** A value ended in the innermost container; a scalar one may be a member we look for. */
  const valueEnded = (scalar: { value: unknown } | undefined): void => {
    const top = stack[stack.length - 1];
    if (top?.kind !== 'object') return;
    if (scalar && top.member !== undefined) {
      const value = scalar.value;
      if (stack.length === 1 && top.member === 'method' && typeof value === 'string') head.method = value;
      if (stack.length === 1 && top.member === 'id' && (typeof value === 'string' || typeof value === 'number')) head.id = value;
      if (stack.length === 2 && top.key === 'params' && top.member === 'sessionId' && typeof value === 'string') head.sessionId = value;
    }
    top.member = undefined;
  };

  for (let i = 0; i < prefix.length;) {
    const c = prefix[i]!;
    const top = stack[stack.length - 1];
    if (c === '{' || c === '[') {
      stack.push({ kind: c === '{' ? 'object' : 'array', key: top?.kind === 'object' ? top.member : undefined, member: undefined, expectKey: c === '{' });
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      valueEnded(undefined);
      i++;
    } else if (c === ',') {
      if (top?.kind === 'object') top.expectKey = true;
      i++;
    } else if (c === ':') {
      if (top?.kind === 'object') top.expectKey = false;
      i++;
    } else if (c === '"') {
      const end = stringEnd(prefix, i);
      if (end === -1) break; // cut off inside the string
      let text: string;
      try {
        text = JSON.parse(prefix.slice(i, end + 1)) as string;
      } catch {
        break; // not JSON after all
      }
      i = end + 1;
      if (top?.kind === 'object' && top.expectKey) {
        top.member = text;
        if (stack.length === 1 && (text === 'result' || text === 'error')) head.answer = true;
      } else valueEnded({ value: text });
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i++;
    } else {
      const match = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(prefix.slice(i, i + 64));
      // A token that runs to the end of the prefix may be cut off (`12` of `123`): it does not count.
      if (!match || i + match[0].length >= prefix.length) break;
      i += match[0].length;
      valueEnded({ value: JSON.parse(match[0]) });
    }
  }
  return head;
}

/** Index of the quote that closes the string starting at `start`, or -1 when the text ends first. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return -1;
}
