import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './child.js';
import type { Engine, Figure } from './figure.js';
import type { BenchOptions } from './options.js';

export const RESULTS_DIR = path.join(ROOT, 'bench/results');

export interface RunResults {
  startedAt: string;
  finishedAt: string;
  durationSec: number;
  machine: Record<string, string>;
  options: BenchOptions;
  figures: Figure[];
  /** Groups of figures that could not be measured, and why. */
  failures: Array<{ group: string; engine: string; message: string }>;
  /** How long each part took, and how busy the machine was when it started. */
  parts: Array<{ part: string; engine: string; seconds: number; loadAverage: number }>;
}

/** 1,234 · 56.7 · 1.23: three significant figures or the whole number, whichever is longer. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return '—';
  const abs = Math.abs(x);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return x.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** One figure as a line of the bench's progress output. */
export function figureLine(f: Figure): string {
  return (
    `  ${f.engine} ${f.name}: ${formatNumber(f.value)} ${f.unit} vs ${formatNumber(f.baseline)} ${f.baselineUnit} ` +
    `(${f.baselineName}), ratio ${formatNumber(f.ratio)}${f.target ? `, target ${f.target}: ${f.met ? 'met' : 'NOT met'}` : ''}` +
    (f.bound ? `\n    bound by: ${f.bound}` : '') +
    (f.note ? `\n    note: ${f.note}` : '')
  );
}

const withUnit = (x: number, unit: string) => `${formatNumber(x)} ${unit}`;
const ENGINE_NAMES = { sqlite: 'SQLite', mysql: 'MariaDB' } as const;
const MET = (met: boolean | null) => (met === null ? '' : met ? 'yes' : '**no**');

/** The results as the markdown table the README pastes. */
export function toMarkdown(results: RunResults): string {
  const lines = [
    `Run ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC, ` +
      `${Math.floor(results.durationSec / 60)} min ${results.durationSec % 60} s; ` +
      Object.entries(results.machine)
        .map(([key, value]) => `${key}: ${value}`)
        .join('; ') +
      `; medians of ${results.options.repeats}${results.options.quick ? ' (BENCH_QUICK: a smoke run, not figures)' : ''}.`,
    '',
    '| figure | engine | measured | baseline, same run | ratio | target | met? | what bounds it | load avg. |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const f of results.figures) {
    const name = f.note ? `${f.name} (${f.note})` : f.name;
    lines.push(
      `| ${name} | ${ENGINE_NAMES[f.engine]} | ${withUnit(f.value, f.unit)} | ` +
        `${f.baselineName}: ${withUnit(f.baseline, f.baselineUnit)} | ${formatNumber(f.ratio)} | ${f.target} | ${MET(f.met)} | ` +
        `${f.bound ?? ''} | ${f.loadAverage === undefined ? '' : f.loadAverage.toFixed(1)} |`,
    );
  }
  if (results.parts.length > 0)
    lines.push(
      '',
      `Time per part (load average at its start): ${results.parts
        .map((p) => `${p.part} on ${ENGINE_NAMES[p.engine as Engine] ?? p.engine} ${p.seconds} s (${p.loadAverage})`)
        .join(', ')}.`,
    );
  if (results.failures.length > 0) {
    lines.push('', 'Not measured:', '');
    for (const failure of results.failures)
      lines.push(
        `- ${failure.group} on ${ENGINE_NAMES[failure.engine as Engine] ?? failure.engine}: ${failure.message}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

/** Writes bench/results/latest.json and latest.md; returns the markdown. */
export function writeResults(results: RunResults, dir = RESULTS_DIR): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const markdown = toMarkdown(results);
  writeFileSync(path.join(dir, 'latest.md'), markdown);
  return markdown;
}
