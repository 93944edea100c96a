// @ts-check
// Refreshes resources/registry-snapshot.json (the catalog the Add Agent gallery shows before the registry has been
// reached) from the official ACP Registry. For maintainers, when online; CI never runs it.
//
//   node esbuild.mjs                                 (builds out/, whose parser this script uses)
//   node scripts/registry-snapshot.mjs               fetch, validate, write
//   node scripts/registry-snapshot.mjs --allow-problems   write even when entries would be skipped
//   node scripts/registry-snapshot.mjs --url <url>   another registry (a mirror)
//
// The document is written as the registry serves it (pretty-printed), not as the extension parses it: the
// extension reads the snapshot with the same code as a fresh download. Then update resources/registry-snapshot.md.
import { createRequire } from 'node:module';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'out', 'src', 'agents', 'registry');
const TARGET = path.join(ROOT, 'resources', 'registry-snapshot.json');

if (!existsSync(path.join(OUT, 'schema.js'))) {
  console.error('out/src/agents/registry/schema.js is missing: run "node esbuild.mjs" first.');
  process.exit(2);
}
const require = createRequire(import.meta.url);
const { parseRegistry } = require(path.join(OUT, 'schema.js'));
const { fetchBounded } = require(path.join(OUT, 'httpGet.js'));
const { MAX_REGISTRY_BYTES } = require(path.join(OUT, 'registrySource.js'));
const { OFFICIAL_REGISTRY_URL } = require(path.join(OUT, 'types.js'));

const args = process.argv.slice(2);
const urlAt = args.indexOf('--url');
const url = urlAt >= 0 ? args[urlAt + 1] : OFFICIAL_REGISTRY_URL;
const allowProblems = args.includes('--allow-problems');

try {
  const answer = await fetchBounded(url, { maxBytes: MAX_REGISTRY_BYTES, headers: { Accept: 'application/json' } });
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
  const document = JSON.parse(answer.body.toString('utf8'));
  const { agents, problems } = parseRegistry(document, url);
  for (const problem of problems) console.error(`  ${problem}`);
  if (problems.length > 0 && !allowProblems) throw new Error(`${problems.length} problem(s) above; nothing written (--allow-problems writes anyway).`);
  writeFileSync(TARGET, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`${path.relative(ROOT, TARGET)}: ${agents.length} agents from ${answer.url} (${new Date().toISOString().slice(0, 10)}).`);
  console.log('Now update resources/registry-snapshot.md (date, count).');
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
