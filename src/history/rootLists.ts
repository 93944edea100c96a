/**
 * The distinct root lists (`[cwd, ...additionalDirectories]`) among an agent's sessions, numbered. A million
 * sessions share a handful of folder lists, so the Sessions model keeps one small number per session and
 * decides whether a scope takes a root list once per list, not once per session.
 */
export interface RootList {
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
}

const NONE: readonly string[] = Object.freeze([]);

export class RootLists {
  private readonly lists: RootList[] = [];
  private readonly byCwd = new Map<string, Map<readonly string[], number>>();
  /** One shared array per distinct list of other roots, by content. */
  private readonly canonical = new Map<string, readonly string[]>();
  /** Arrays met before (the catalog's interned ones come back again and again), to their shared array. */
  private readonly seen = new WeakMap<readonly string[], readonly string[]>();

  get size(): number {
    return this.lists.length;
  }

  at(id: number): RootList {
    return this.lists[id]!;
  }

  /** The number of this root list (a new one the first time it is met). */
  idOf(cwd: string, additionalDirectories: readonly string[]): number {
    const directories = this.shared(additionalDirectories);
    let byList = this.byCwd.get(cwd);
    if (!byList) {
      byList = new Map();
      this.byCwd.set(cwd, byList);
    }
    let id = byList.get(directories);
    if (id === undefined) {
      id = this.lists.length;
      this.lists.push({ cwd, additionalDirectories: directories });
      byList.set(directories, id);
    }
    return id;
  }

  private shared(list: readonly string[]): readonly string[] {
    if (list.length === 0) return NONE;
    const known = this.seen.get(list);
    if (known) return known;
    const key = list.join('\u0000');
    let shared = this.canonical.get(key);
    if (!shared || shared.length !== list.length) {
      shared = Object.freeze([...list]);
      this.canonical.set(key, shared);
    }
    this.seen.set(list, shared);
    return shared;
  }
}
