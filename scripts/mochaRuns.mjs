// Mocha runs for `npm test` and `npm run test:reliability`, side by side: the SQLite and MariaDB
// suites share no state (each test makes its own database, daemons listen on port 0, Redis keys
// carry random ids), and they spend much of their time waiting on child processes, browsers and
// fsync, so running them at once takes little more than the longer one alone (README, "Development").
// Each run's output is kept and printed whole when it ends, so runs never interleave; a line
// every two minutes says what is still running. TEST_JOBS=1 runs them one after another with
// their output live, as a person at a terminal may prefer.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setInterval, clearInterval } from 'node:timers';
import { join } from 'node:path';

const HEARTBEAT_MS = 120_000;

/** `{ name, engine, specs, timeout, args? }` → mocha's argv and environment. */
function command(run, extra) {
  return {
    argv: [
      'node_modules/mocha/bin/mocha.js',
      '--timeout',
      String(run.timeout),
      '--exit',
      ...run.specs,
      ...(run.args ?? []),
      ...extra,
    ],
    env: {
      ...process.env,
      TEST_ENGINE: run.engine,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import tsx`.trim(),
    },
  };
}

function runOne(run, extra, output) {
  const { argv, env } = command(run, extra);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { env, stdio: ['ignore', output ?? 'inherit', output ?? 'inherit'] });
    child.on('error', (error) => {
      console.error(`${run.name}: mocha did not start (${error.message})`);
      resolve({ ok: false, seconds: 0 });
    });
    child.on('exit', (code) => resolve({ ok: code === 0, seconds: Math.round((Date.now() - started) / 1000) }));
  });
}

const verdict = (run, result) => `=== ${run.name}: ${result.ok ? 'passed' : 'FAILED'} in ${result.seconds} s ===`;

/** Runs every run, in turn when TEST_JOBS=1, else all at once; resolves to the number that failed. */
export async function mochaRuns(runs, extra = []) {
  const jobs = Number(process.env.TEST_JOBS ?? runs.length);
  if (!Number.isInteger(jobs) || jobs < 1) {
    console.error(`TEST_JOBS must be a whole number of 1 or more (got "${process.env.TEST_JOBS}").`);
    return runs.length;
  }
  let failed = 0;
  if (jobs === 1) {
    for (const run of runs) {
      console.log(`\n=== ${run.name} ===`);
      const result = await runOne(run, extra);
      console.log(verdict(run, result));
      if (!result.ok) failed++;
    }
    return failed;
  }
  const dir = mkdtempSync(join(tmpdir(), 'affiliated-tests-'));
  const running = new Set();
  const heartbeat = setInterval(() => console.log(`... still running: ${[...running].join(', ')}`), HEARTBEAT_MS);
  console.log(`Running at once (TEST_JOBS=1 runs them in turn): ${runs.map((run) => run.name).join(', ')}`);
  const queue = [...runs];
  const worker = async () => {
    for (let run = queue.shift(); run; run = queue.shift()) {
      const file = join(dir, `${runs.indexOf(run)}.log`);
      const fd = openSync(file, 'w');
      running.add(run.name);
      const result = await runOne(run, extra, fd);
      running.delete(run.name);
      closeSync(fd);
      console.log(`\n=== ${run.name} ===`);
      process.stdout.write(readFileSync(file));
      console.log(verdict(run, result));
      if (!result.ok) failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, runs.length) }, worker));
  clearInterval(heartbeat);
  rmSync(dir, { recursive: true, force: true });
  return failed;
}
