import type { Root } from '../../../src/roots/rootSet';
import type { OutsideFolderChoice, ReopenRootsChoice, ReopenRootsQuestion, RootsUi, SingleRootChoice, StaleChoice } from '../../../src/sessions/ports';

/** Answers the folder questions like a user would, and records what was asked. */
export class ScriptedRootsUi implements RootsUi {
  consent: (folders: readonly Root[]) => readonly Root[] | undefined = (folders) => folders;
  singleRoot: SingleRootChoice | undefined = 'continue';
  stale: StaleChoice | undefined = 'reopen';
  reopenRoots: ReopenRootsChoice | undefined = 'session';
  outside: OutsideFolderChoice | undefined = 'proceed';
  readonly asked: string[] = [];

  async pickPrimary() {
    return undefined;
  }
  async askConsent(agentName: string, primary: Root, folders: readonly Root[]) {
    this.asked.push(`consent ${agentName} ${primary.name}: ${folders.map((f) => f.name).join(',')}`);
    return this.consent(folders);
  }
  async singleRootChoice(agentName: string, primary: Root, leftOut: readonly Root[]) {
    this.asked.push(`single-root ${agentName} ${primary.name}: ${leftOut.map((f) => f.name).join(',')}`);
    return this.singleRoot;
  }
  async staleChoice(message: string) {
    this.asked.push(`stale: ${message}`);
    return this.stale;
  }
  reportNotShared() {}
  async chooseReopenRoots(question: ReopenRootsQuestion) {
    this.asked.push(`reopen-roots ${question.agentName} ${question.verb} “${question.title}”: ${question.lines.join(' ')}`);
    return this.reopenRoots;
  }
  async outsideFolder(agentName: string, folder: string) {
    this.asked.push(`outside ${agentName}: ${folder}`);
    return this.outside;
  }
}
