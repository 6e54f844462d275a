import { collectDefaultMetrics, Registry } from 'prom-client';

let processRegistry: Registry | undefined;

/**
 * The process's own figures (CPU, memory, event-loop lag, garbage collection, open handles),
 * under prom-client's standard names (`process_*`, `nodejs_*`) so that ready-made dashboards
 * read them. They belong to the process, not to a daemon: one registry per process, made at
 * the first scrape, shared by every daemon a test runs in it.
 */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
