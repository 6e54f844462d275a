import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * What `affiliated --help` loads: the static imports reachable from cli/main.ts (actions are
 * imported lazily, with `await import(...)`, so they are not followed). Type-only imports vanish.
 */
function startupGraph(): { files: string[]; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^import\s+(?!type\b)[^'"]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm)) {
      const spec = match[1] ?? match[2] ?? '';
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  visit(path.join(root, 'cli/main.ts'));
  return { files: [...files].map((f) => path.relative(root, f)), packages };
}

describe('CLI start-up', () => {
  it('loads neither zod nor the daemon before a command runs, so --help stays fast', () => {
    const { files, packages } = startupGraph();
    expect([...packages].filter((p) => !p.startsWith('node:'))).to.deep.equal(['commander']);
    expect(files.filter((f) => f.startsWith('server/') && f !== 'server/errors.ts')).to.deep.equal([]);
    expect(files.filter((f) => f.startsWith('shared/schemas/') || f.startsWith('shared/contract/'))).to.deep.equal([]);
  });
});
