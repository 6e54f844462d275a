import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The migration the previous release does not have: 20261127110000 moved the events' unique
 * indexes to event_key and order_key, which daemons from before it never write. The expand step
 * 20261128400000 exists for those daemons, so the release just before 20261127110000 is the one a
 * rolling upgrade must get right (a release between the two already writes the keys itself and
 * would test nothing of it).
 */
const FIRST_NEW_MIGRATION = 'server/db/migrations/20261127110000_dedupe_keys_without_null.ts';

export interface PreviousRelease {
  commit: string;
  /** Its built CLI, to run as `node <cli> serve`. */
  cli: string;
}

const git = (...args: string[]): string => {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.trim() || result.error?.message}`);
  return result.stdout.trim();
};

/**
 * The previous release's commit: `UPGRADE_FROM` when set, otherwise the parent of the commit that
 * added FIRST_NEW_MIGRATION. Found in this checkout's history, so the test needs a clone with its
 * history (CI's .ci/run unshallows a shallow clone first); without it, it says so.
 */
export function previousReleaseCommit(): string {
  const shallow = git('rev-parse', '--is-shallow-repository') === 'true';
  const wanted = process.env.UPGRADE_FROM;
  const added = wanted
    ? ''
    : git('log', '--diff-filter=A', '--format=%H', '--', FIRST_NEW_MIGRATION).split('\n').at(-1);
  const commit = wanted ?? (added ? `${added}^` : '');
  const sha = commit
    ? spawnSync('git', ['rev-parse', '--verify', '--quiet', `${commit}^{commit}`], { cwd: root, encoding: 'utf8' })
    : undefined;
  if (!sha || sha.status !== 0) {
    throw new Error(
      `The previous release (${wanted ?? `the parent of the commit adding ${FIRST_NEW_MIGRATION}`}) is not in this checkout's history` +
        (shallow ? ': the clone is shallow; run `git fetch --unshallow` (or clone without --depth)' : ''),
    );
  }
  return sha.stdout.trim();
}

/**
 * The previous release, built: `git archive` of its commit into a folder of its own, this
 * checkout's node_modules linked in when the release asks for nothing it lacks (so CI's clean
 * clone needs no second install), `npm run build`'s two steps. Kept in the temp folder by commit,
 * so a second run starts at once.
 */
export function buildPreviousRelease(commit: string): PreviousRelease {
  const dir = path.join(os.tmpdir(), `affiliated-release-${commit.slice(0, 12)}`);
  const cli = path.join(dir, 'dist/cli/main.js');
  const built = existsSync(path.join(dir, '.built'));
  // A cached build is used only when it runs on this checkout's own modules: one linked to
  // another checkout's (removed, or reinstalled half-way, as a copied machine's temp folder
  // holds) is built again.
  if (built && usesOwnModules(dir)) return { commit, cli };
  if (built) rmSync(dir, { recursive: true, force: true });
  const work = mkdtempSync(path.join(os.tmpdir(), 'affiliated-release-build-'));
  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (result.status !== 0) {
      throw new Error(
        `building ${commit}: ${command} ${args.join(' ')}: ${result.stdout}${result.stderr}`.slice(0, 4000),
      );
    }
  };
  try {
    run('sh', ['-c', `git -C "${root}" archive ${commit} | tar -x -C "${work}"`]);
    if (sameDependencies(path.join(work, 'package.json'))) {
      symlinkSync(path.join(root, 'node_modules'), path.join(work, 'node_modules'), 'dir');
    } else {
      run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts']);
    }
    run(process.execPath, [path.join(work, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json']);
    run(process.execPath, ['scripts/build-sdk.mjs']);
    writeFileSync(path.join(work, '.built'), `${commit}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    // Another run built the same release meanwhile (its rename came first): take its build.
    if (!existsSync(path.join(dir, '.built'))) throw err;
  }
  return { commit, cli };
}

/** Whether the build's node_modules is its own install, or a link to this checkout's. */
function usesOwnModules(dir: string): boolean {
  const modules = path.join(dir, 'node_modules');
  if (!existsSync(path.join(modules, 'commander', 'package.json'))) return false;
  if (!lstatSync(modules).isSymbolicLink()) return true;
  return path.resolve(dir, readlinkSync(modules)) === path.join(root, 'node_modules');
}

/** Whether every dependency the release names is this checkout's, at the same range. */
function sameDependencies(packageFile: string): boolean {
  type Manifest = { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  const theirs = read(packageFile);
  const ours = read(path.join(root, 'package.json'));
  const all = (m: Manifest) => ({ ...m.devDependencies, ...m.dependencies });
  const mine = all(ours);
  return Object.entries(all(theirs)).every(([name, range]) => mine[name] === range);
}
