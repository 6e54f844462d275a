import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';

/** Linux's USER_HZ: /proc counts CPU time in ticks of 10 ms. */
const TICK_MS = 10;

/** utime + stime of /proc/PID/stat, in ms; NaN when the process is gone or /proc is missing. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

/** Busy and total CPU time of the whole machine so far (all cores), in ms, from /proc/stat. */
function machineCpuMs(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are not work.
    const total = ticks.slice(0, 8).reduce((sum, t) => sum + t, 0);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    return { busy: (total - idle) * TICK_MS, total: total * TICK_MS };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/**
 * Where the CPU went during one measured run, as shares of one core (1 = a whole core busy for
 * the whole run): each named process, and the machine's other work. On a shared machine this
 * is what says whether a rate was bound by its own process or by everything else.
 */
export interface CpuShares {
  /** By name ("daemon", "bare Koa", "wrk", "replay CLI"): CPU time ÷ wall time. */
  processes: Record<string, number>;
  /** Everything else on the machine (other jobs, the database server, the kernel's own work). */
  others: number;
  /** Cores of the machine, so a reader knows what "all of it" is. */
  cores: number;
  /** The window's length, in ms. */
  wallMs: number;
}

/**
 * Starts watching `pids` (by name) and the machine; `stop()` gives the shares over the window.
 * `extraMs` adds CPU time measured another way (wrk reports its own; a child that has exited
 * cannot be read from /proc any more).
 */
export function watchCpu(pids: Record<string, number>): {
  stop: (extraMs?: Record<string, number>) => CpuShares;
} {
  const started = process.hrtime.bigint();
  const machine0 = machineCpuMs();
  const own0 = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
  return {
    stop(extraMs = {}) {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const machine1 = machineCpuMs();
      const spent: Record<string, number> = {};
      for (const [name, pid] of Object.entries(pids)) spent[name] = processCpuMs(pid) - (own0[name] ?? 0);
      Object.assign(spent, extraMs);
      const ours = Object.values(spent).reduce((sum, ms) => sum + (Number.isFinite(ms) ? ms : 0), 0);
      const processes = Object.fromEntries(Object.entries(spent).map(([name, ms]) => [name, ms / wallMs]));
      // /proc/stat moves in whole ticks per core: a short window can come out a little negative.
      const others = Math.max(0, (machine1.busy - machine0.busy - ours) / wallMs);
      return { processes, others, cores: os.cpus().length, wallMs };
    },
  };
}

/** The median of each share over rounds (names missing from a round count as absent, not 0). */
export function medianShares(rounds: readonly CpuShares[]): CpuShares {
  const mid = (xs: number[]) => {
    const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
    if (s.length === 0) return Number.NaN;
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? (s[m] ?? Number.NaN) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
  };
  const names = [...new Set(rounds.flatMap((r) => Object.keys(r.processes)))];
  return {
    processes: Object.fromEntries(names.map((name) => [name, mid(rounds.map((r) => r.processes[name] ?? Number.NaN))])),
    others: mid(rounds.map((r) => r.others)),
    cores: rounds[0]?.cores ?? os.cpus().length,
    wallMs: mid(rounds.map((r) => r.wallMs)),
  };
}

/** "daemon 97 %, wrk 31 %, other work 42 % of a core (2 cores)". */
export function describeShares(shares: CpuShares): string {
  const pct = (x: number) => `${Number.isFinite(x) ? Math.round(x * 100) : '?'} %`;
  const parts = Object.entries(shares.processes).map(([name, share]) => `${name} ${pct(share)}`);
  parts.push(`other work ${pct(shares.others)}`);
  return `CPU, in shares of one core of ${shares.cores}: ${parts.join(', ')}`;
}

/** Runs `work` while watching `pids`: its result, and where the CPU went meanwhile. */
export async function whileWatching<T>(
  pids: Record<string, number>,
  work: () => Promise<T>,
): Promise<{ value: T; shares: CpuShares }> {
  const cpu = watchCpu(pids);
  const value = await work();
  return { value, shares: cpu.stop() };
}

/**
 * The process listening on `url`'s port on this machine (the MariaDB server of a mysql:// URL
 * on loopback), found through /proc/net/tcp and its sockets' inodes; undefined when it is
 * elsewhere or its file descriptors cannot be read (another user's process).
 */
export function listenerPid(url: string): number | undefined {
  try {
    const { hostname, port } = new URL(url);
    if (!['127.0.0.1', 'localhost', '::1'].includes(hostname)) return undefined;
    const hexPort = `:${Number(port || 3306)
      .toString(16)
      .toUpperCase()
      .padStart(4, '0')}`;
    const inodes = new Set<string>();
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const f = line.trim().split(/\s+/);
        // local_address ends with the port; state 0A is LISTEN; the inode is the 10th field.
        if (f[1]?.endsWith(hexPort) && f[3] === '0A' && f[9]) inodes.add(`socket:[${f[9]}]`);
      }
    }
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return Number(pid);
        } catch {
          // closed meanwhile
        }
      }
    }
  } catch {
    // no /proc: nothing to name
  }
  return undefined;
}

/**
 * For requests sent one at a time: the CPU each watched process spends per request of a kind,
 * beside the request's wall time, summed over many requests (/proc counts in 10 ms ticks, so
 * one request's share is noise, a hundred requests' sum is not). What is left of the wall time
 * is waiting: the disk, the network, the client.
 */
export function cpuPerRequest(pids: Record<string, number>) {
  const kinds = new Map<string, { n: number; wallMs: number; cpu: Record<string, number> }>();
  const read = () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
  return {
    /** Runs one request of `kind`, adding its wall and CPU time to the kind's. */
    async time<T>(kind: string, work: () => Promise<T>): Promise<T> {
      const cpu0 = read();
      const t0 = process.hrtime.bigint();
      const value = await work();
      const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const cpu1 = read();
      const k = kinds.get(kind) ?? { n: 0, wallMs: 0, cpu: {} };
      k.n++;
      k.wallMs += wallMs;
      for (const name of Object.keys(pids)) k.cpu[name] = (k.cpu[name] ?? 0) + ((cpu1[name] ?? 0) - (cpu0[name] ?? 0));
      kinds.set(kind, k);
      return value;
    },
    /** "9.1 ms a request on average: daemon CPU 2.0 ms, MariaDB 6.5 ms, waiting 0.6 ms". */
    describe(kind: string): string {
      const k = kinds.get(kind);
      if (!k || k.n === 0) return `${kind}: not measured`;
      const ms = (x: number) => `${(x / k.n).toFixed(1)} ms`;
      const cpu = Object.entries(k.cpu).filter(([, total]) => Number.isFinite(total));
      const busy = cpu.reduce((sum, [, total]) => sum + total, 0);
      const parts = cpu.map(([name, total]) => `${name} CPU ${ms(total)}`);
      return `${kind}: ${ms(k.wallMs)} a request on average, ${[...parts, `waiting ${ms(Math.max(0, k.wallMs - busy))}`].join(', ')}`;
    },
  };
}
