/** Writing a file so that a reader never sees it half-written, whatever stops the write. */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';

/** Writes `data` to a temporary file beside `file`, then renames it over `file` (removing it if that fails). */
export async function writeAtomically(file: string, data: string | Uint8Array): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.promises.writeFile(temp, data);
  try {
    await fs.promises.rename(temp, file);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
}
