/** Where the local index keeps a session's transcript text: shared by LocalSessionIndex and the full-text index worker. */
import { createHash } from 'node:crypto';

/** The name of the text file of the session with record key `key`, in the history's `text/` folder. */
export function textFileName(key: string): string {
  return `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.txt`;
}
