/**
 * Everything the reliability suite saw, for the secrets scan that runs after it: every answer
 * (status line, headers, body) and every log line of every daemon, and the secrets the suite
 * handed out (API keys, passwords) that must never come back in either.
 */
const answers: string[] = [];
const logLines: string[] = [];
const secrets = new Set<string>();
const counters = new Map<string, number>();

export const recorder = {
  answer(status: number, headers: Record<string, unknown>, body: string): void {
    answers.push(`${status} ${JSON.stringify(headers)}\n${body}`);
  },
  log(line: string): void {
    if (line.trim() !== '') logLines.push(line);
  },
  secret(value: string): void {
    secrets.add(value);
  },
  /** A figure for the report printed at the end (`inputs tried`, `faults injected`, ...). */
  count(name: string, by = 1): void {
    counters.set(name, (counters.get(name) ?? 0) + by);
  },
  answers: (): readonly string[] => answers,
  logLines: (): readonly string[] => logLines,
  secrets: (): readonly string[] => [...secrets],
  figures: (): ReadonlyMap<string, number> => counters,
};
