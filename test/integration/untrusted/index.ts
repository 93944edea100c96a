import { runSuite } from '../runner';

export function run(): Promise<void> {
  return runSuite(__dirname);
}
