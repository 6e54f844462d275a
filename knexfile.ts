import { loadConfig } from './server/config.js';
import { knexOptions } from './server/db/knex.js';

/**
 * For the knex CLI, should an operator prefer it to `affiliated db ...`: the same
 * `DATABASE_URL` and the same migration list as the daemon.
 */
export const config = knexOptions(loadConfig().database);
export const development = config;
export const production = config;
