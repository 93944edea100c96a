/**
 * The confinement mechanism for this machine. Until the mechanisms (`src/process/confinement/find.ts`:
 * bubblewrap, Seatbelt) are merged, none is built in, so confinement that is on fails closed with why.
 * MERGE: replace this module's use in extension.ts with `findConfiner` from '../process/confinement/find'.
 */
import { ConfinementUnavailableError, type Confiner } from '../process/confinement/types';

export function findConfiner(_platform?: NodeJS.Platform, _env?: NodeJS.ProcessEnv): Promise<Confiner> {
  return Promise.reject(
    new ConfinementUnavailableError('This build of ACP Workspace has no confinement mechanism.', 'Set acpWorkspace.sandbox to "off", or use a build with bubblewrap/Seatbelt support.'),
  );
}
