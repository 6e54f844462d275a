import type { Command } from 'commander';
import type { ApiClient } from '../shared/client/index.js';
import type { Io } from './io.js';
import type { GlobalOptions } from './output.js';

/** What a client command does once its module is loaded: an action given its client and the global options. */
export type ClientWork<M, C = ApiClient> = (actions: M, client: C, globals: GlobalOptions) => Promise<void>;

/** Runs one client command of a noun: `run((actions, client, globals) => actions.verb(io, client, globals, ...))`. */
export interface ClientRun<M> {
  (work: ClientWork<M>): Promise<void>;
  /** With `needsClient` false nothing connects and the client is undefined (a dry run needs no daemon or key). */
  (work: ClientWork<M, ApiClient | undefined>, needsClient: boolean): Promise<void>;
}

/**
 * The one way a client command reaches its action: the action's module and the HTTP client are
 * loaded (in parallel) only when a command runs, so `affiliated --help` loads neither zod nor
 * the client; the action gets them passed in, with the root's global options (`--json`,
 * `--profile`, `--base-url`, `--api-key`).
 */
export function clientCommand<M>(program: Command, io: Io, load: () => Promise<M>): ClientRun<M> {
  const start = async <C>(client: (globals: GlobalOptions) => Promise<C>, work: ClientWork<M, C>) => {
    const globals: GlobalOptions = program.opts();
    const [actions, connected] = await Promise.all([load(), client(globals)]);
    return work(actions, connected, globals);
  };
  const connect = async (globals: GlobalOptions) => (await import('./client.js')).connect(io, globals);
  function run(work: ClientWork<M>): Promise<void>;
  function run(work: ClientWork<M, ApiClient | undefined>, needsClient: boolean): Promise<void>;
  function run(...args: [ClientWork<M>] | [ClientWork<M, ApiClient | undefined>, boolean]): Promise<void> {
    if (args.length === 1) return start(connect, args[0]);
    const [work, needsClient] = args;
    return start(async (globals) => (needsClient ? connect(globals) : undefined), work);
  }
  return run;
}
