import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

type Os = 'linux' | 'mac' | 'windows';
const OSES: readonly Os[] = ['linux', 'mac', 'windows'];

interface Contributed {
  readonly command: string;
  readonly key?: string;
  readonly mac?: string;
  readonly linux?: string;
  readonly win?: string;
  readonly when?: string;
}

interface DefaultKeybinding {
  readonly key: string;
  readonly command: string;
}

/**
 * VS Code's default keybindings per OS, dumped from the real VS Code by scripts/vscode-web/default-keybindings.mjs,
 * plus the desktop-only chords the web workbench does not register (written by hand, see the fixture's note).
 */
const defaults = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'unit', 'fixtures', 'vscodeDefaultKeybindings.json'), 'utf8')) as Record<
  Os,
  DefaultKeybinding[]
> & {
  desktopOnly: Array<DefaultKeybinding & { os: Os }>;
};

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { keybindings?: Contributed[] } };

const MODIFIERS: Record<string, string> = {
  ctrl: 'ctrl',
  control: 'ctrl',
  shift: 'shift',
  alt: 'alt',
  option: 'alt',
  opt: 'alt',
  cmd: 'meta',
  command: 'meta',
  meta: 'meta',
  win: 'meta',
  super: 'meta',
};
const ORDER = ['ctrl', 'shift', 'alt', 'meta'];

/**
 * One chord as a comparable string: lower case, modifiers in one order and under one name (`cmd` and `win` are
 * `meta`), parts of a chord sequence separated by one space. `Alt+Cmd+I`, `cmd+alt+i` and `alt+meta+i` are equal.
 */
function normaliseChord(chord: string): string {
  return chord
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .map((part) => {
      const tokens = part.split('+');
      // "ctrl++" is the + key.
      const key = tokens.at(-1) === '' && tokens.length > 1 ? '+' : tokens.at(-1)!;
      const modifiers = tokens.slice(0, tokens.at(-1) === '' ? -2 : -1).map((m) => MODIFIERS[m] ?? `?${m}`);
      return [...new Set(modifiers)]
        .sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))
        .concat(key)
        .join('+');
    })
    .join(' ');
}

function defaultsOf(os: Os): Map<string, string[]> {
  const byChord = new Map<string, string[]>();
  for (const { key, command } of [...defaults[os], ...defaults.desktopOnly.filter((d) => d.os === os)]) {
    const chord = normaliseChord(key);
    byChord.set(chord, [...(byChord.get(chord) ?? []), command]);
  }
  return byChord;
}

/** The chord a contributed keybinding has on one OS (`mac`/`linux`/`win` over `key`). */
function chordOn(binding: Contributed, os: Os): string | undefined {
  const specific = os === 'mac' ? binding.mac : os === 'linux' ? binding.linux : binding.win;
  return specific ?? binding.key;
}

/**
 * Which defaults a chord takes away on one OS: the same chord; a sequence whose first part is a default chord
 * that VS Code does not itself use as a prefix (that default would wait for a second key); a chord that starts a
 * default sequence (the sequence could not be typed).
 */
function clashes(chord: string, byChord: Map<string, string[]>): string[] {
  const found: string[] = [];
  const parts = chord.split(' ');
  const defaultPrefixes = new Set([...byChord.keys()].filter((c) => c.includes(' ')).map((c) => c.split(' ')[0]));
  for (const [other, commands] of byChord) {
    const otherParts = other.split(' ');
    const same = other === chord;
    const ourPrefixIsDefault = parts.length > 1 && otherParts.length === 1 && other === parts[0] && !defaultPrefixes.has(other);
    const weArePrefix = parts.length === 1 && otherParts.length > 1 && otherParts[0] === chord;
    if (same || ourPrefixIsDefault || weArePrefix) found.push(`${other} (${commands.join(', ')})`);
  }
  return found;
}

describe('contributed keybindings', () => {
  const bindings = manifest.contributes.keybindings ?? [];

  it('reads the default keybindings of all three OSes', () => {
    for (const os of OSES) assert.ok(defaults[os].length > 900, `${os}: ${defaults[os].length} default keybindings`);
    // The chords issue 15 named, as each OS has them.
    assert.ok(defaultsOf('linux').has('ctrl+alt+i') && defaultsOf('windows').has('ctrl+alt+i'), 'Ctrl+Alt+I opens Chat');
    assert.ok(defaultsOf('mac').has('alt+meta+i'), 'Cmd+Alt+I toggles the developer tools on macOS');
    assert.ok(defaultsOf('mac').has('shift+meta+i') && defaultsOf('linux').has('ctrl+shift+i') && defaultsOf('windows').has('ctrl+shift+i'));
  });

  it('normalises modifier order, names and case', () => {
    assert.equal(normaliseChord('Cmd+Alt+I'), 'alt+meta+i');
    assert.equal(normaliseChord('alt+cmd+i'), 'alt+meta+i');
    assert.equal(normaliseChord('Shift+Ctrl+K  Ctrl+A'), 'ctrl+shift+k ctrl+a');
    assert.equal(normaliseChord('win+alt+j'), 'alt+meta+j');
    assert.equal(normaliseChord('ctrl++'), 'ctrl++');
  });

  it('counts a chord that starts a default sequence, or a sequence that starts with a default chord, as a clash', () => {
    const byChord = new Map([
      ['ctrl+k ctrl+c', ['comment']],
      ['ctrl+l', ['expandLineSelection']],
      ['ctrl+k', ['deleteAllRight']],
    ]);
    assert.equal(clashes('ctrl+k', byChord).length, 2);
    assert.equal(clashes('ctrl+l a', byChord).length, 1);
    assert.deepEqual(clashes('ctrl+k a', byChord), [], 'ctrl+k already starts sequences: one more takes nothing away');
  });

  it('has a command, a when clause and a chord on every OS for each keybinding', () => {
    assert.ok(bindings.length > 0);
    for (const binding of bindings) {
      assert.ok(binding.when && binding.when.trim() !== '', `${binding.command} has a when clause`);
      for (const os of OSES) assert.ok(chordOn(binding, os), `${binding.command} has a chord on ${os}`);
    }
  });

  for (const os of OSES) {
    it(`takes no default chord of VS Code on ${os}`, () => {
      const byChord = defaultsOf(os);
      const problems = bindings.flatMap((binding) => {
        const chord = chordOn(binding, os);
        if (!chord) return [];
        const normal = normaliseChord(chord);
        assert.ok(!normal.includes('?'), `${binding.command}: unknown modifier in "${chord}"`);
        return clashes(normal, byChord).map((what) => `${binding.command}: "${chord}" clashes with VS Code's ${what}`);
      });
      assert.deepEqual(problems, []);
    });
  }
});
