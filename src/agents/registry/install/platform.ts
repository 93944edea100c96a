/** Which of the registry's platform keys this machine is. */
import type { PlatformKey } from '../types';

/** The registry's key for `platform`/`arch` (this machine by default); undefined for one it does not list. */
export function currentPlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch): PlatformKey | undefined {
  const os = platform === 'darwin' ? 'darwin' : platform === 'linux' ? 'linux' : platform === 'win32' ? 'windows' : undefined;
  const cpu = arch === 'arm64' ? 'aarch64' : arch === 'x64' ? 'x86_64' : undefined;
  return os && cpu ? `${os}-${cpu}` : undefined;
}

/** The Node platform a key runs on (for the path rules of its archives). */
export function nodePlatformOf(key: PlatformKey): NodeJS.Platform {
  return key.startsWith('windows') ? 'win32' : key.startsWith('darwin') ? 'darwin' : 'linux';
}
