// The user-facing strings of package.json (what the l10n tool moves to package.nls.json and the check
// requires to be %keys%): displayName, description, and in `contributes` every title, name, description…
// A key says where the string is: `command.<id>`, `view.<id>.name`, `config.<setting>.description`, …

/** Fields whose string (or array of strings) a user reads, wherever they sit in `contributes`. */
const TEXT_FIELDS = new Set([
  'title', 'shortTitle', 'category', 'name', 'contextualTitle', 'label', 'description', 'markdownDescription',
  'deprecationMessage', 'markdownDeprecationMessage', 'enumDescriptions', 'markdownEnumDescriptions', 'enumItemLabels',
  'contents', 'altText', 'displayName', 'fullName',
]);
/** Sections whose objects are keyed by a field of theirs rather than their index. */
const SINGULAR = { commands: 'command', views: 'view', viewsContainers: 'viewsContainer', walkthroughs: 'walkthrough', steps: 'step', submenus: 'submenu', viewsWelcome: 'viewsWelcome', customEditors: 'customEditor', languageModelTools: 'tool', chatParticipants: 'chatParticipant' };

/** "ACP Workspace" → "acpWorkspace" (a word in capitals is an acronym: one word of the key). */
function camel(text) {
  const words = text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).map((w) => (/^[\p{Lu}\d]+$/u.test(w) ? w.toLowerCase() : w));
  return words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

/**
 * Calls visit(holder, field, value, key) for every user-facing string of the manifest (arrays: once per
 * item, key ending with the index). `value` may already be a %key%.
 */
export function walkManifest(manifest, visit) {
  for (const field of ['displayName', 'description']) if (typeof manifest[field] === 'string') visit(manifest, field, manifest[field], field);
  for (const kind of ['untrustedWorkspaces', 'virtualWorkspaces']) {
    const holder = manifest.capabilities?.[kind];
    if (holder && typeof holder.description === 'string') visit(holder, 'description', holder.description, `capabilities.${kind}.description`);
  }
  const contributes = manifest.contributes ?? {};
  for (const [section, value] of Object.entries(contributes)) {
    if (section === 'configuration') {
      for (const [i, block] of (Array.isArray(value) ? value : [value]).entries()) walkConfiguration(block, Array.isArray(value) ? `config.section${i}` : 'config', visit);
    } else if (section !== 'menus' && section !== 'keybindings' && section !== 'jsonValidation') {
      walkContribution(value, SINGULAR[section] ?? section, visit, section);
    }
  }
}

function walkConfiguration(block, prefix, visit) {
  if (typeof block?.title === 'string') visit(block, 'title', block.title, `${prefix}.title`);
  for (const [setting, schema] of Object.entries(block?.properties ?? {})) walkSchema(schema, `config.${setting}`, visit);
}

function walkSchema(schema, key, visit) {
  if (!schema || typeof schema !== 'object') return;
  for (const field of ['title', 'description', 'markdownDescription', 'deprecationMessage', 'markdownDeprecationMessage', 'enumDescriptions', 'markdownEnumDescriptions', 'enumItemLabels', 'errorMessage']) {
    visitField(schema, field, `${key}.${field}`, visit);
  }
  if (schema.items) walkSchema(schema.items, `${key}.items`, visit);
  for (const [name, sub] of Object.entries(schema.properties ?? {})) walkSchema(sub, `${key}.${name}`, visit);
  for (const combinator of ['anyOf', 'oneOf', 'allOf']) for (const [i, sub] of (schema[combinator] ?? []).entries()) walkSchema(sub, `${key}.${combinator}${i}`, visit);
}

function visitField(holder, field, key, visit) {
  const value = holder[field];
  if (typeof value === 'string') visit(holder, field, value, key);
  else if (Array.isArray(value)) value.forEach((item, i) => typeof item === 'string' && visit(value, i, item, `${key}.${i}`));
}

function walkContribution(value, prefix, visit, section) {
  if (Array.isArray(value)) {
    const seen = new Map();
    for (const item of value) {
      if (!item || typeof item !== 'object') continue;
      let id = item.id ?? item.command ?? item.view ?? item.viewType ?? item.name ?? '';
      if (section === 'viewsWelcome') {
        // A view can have several welcome contents (when-clauses): numbered in order.
        const n = seen.get(id) ?? 0;
        seen.set(id, n + 1);
        id = `${id}.${n}`;
      }
      walkObject(item, `${prefix}.${id}`, visit, section);
    }
  } else if (value && typeof value === 'object') {
    // viewsContainers / views: { container: [ … ] }
    for (const list of Object.values(value)) if (Array.isArray(list)) walkContribution(list, prefix, visit, section);
  }
}

function walkObject(item, key, visit, section) {
  for (const [field, value] of Object.entries(item)) {
    if (TEXT_FIELDS.has(field)) {
      if (section === 'commands' && field === 'title') visitField(item, field, key, visit);
      else if (field === 'category') visitField(item, field, `category.${camel(String(value))}`, visit);
      else visitField(item, field, `${key}.${field}`, visit);
    } else if (field === 'steps' && Array.isArray(value)) {
      walkContribution(value, `${key}.step`, visit, 'steps');
    } else if (field === 'media' && value && typeof value === 'object') {
      visitField(value, 'altText', `${key}.media.altText`, visit);
    }
  }
}

/** Moves every literal to package.nls.json: returns what changed; `manifest` and `nls` are updated in place. */
export function convertManifest(manifest, nls) {
  const changed = [];
  const clashes = [];
  walkManifest(manifest, (holder, field, value, key) => {
    if (/^%[^%]+%$/.test(value)) return;
    if (nls[key] !== undefined && nls[key] !== value) {
      clashes.push(`${key}: "${value}" vs "${nls[key]}"`);
      return;
    }
    nls[key] = value;
    holder[field] = `%${key}%`;
    changed.push(key);
  });
  return { changed, clashes };
}

/** What the check reports: %keys% missing from package.nls.json, and user-facing strings still literal. */
export function manifestProblems(manifest, nls) {
  const problems = [];
  const visitAll = (value, where) => {
    if (typeof value === 'string') {
      const m = /^%([^%]+)%$/.exec(value);
      if (m && typeof nls[m[1]] !== 'string') problems.push(`${where}: ${value} is not in package.nls.json`);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visitAll(v, `${where}.${k}`);
    }
  };
  visitAll(manifest, 'package.json');
  walkManifest(manifest, (_holder, _field, value, key) => {
    if (!/^%[^%]+%$/.test(value)) problems.push(`${key}: "${value}" is a literal (run node scripts/l10n-convert.mjs --manifest)`);
  });
  return problems;
}
