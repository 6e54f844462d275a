import { isReversed } from '../shared/dateRange.js';
import { UsageError } from './errors.js';

/**
 * `--from`/`--to` of every command follow the API's one rule (shared/dateRange.ts): both days
 * included. A reversed range is a usage error here, before any request.
 */
export function checkRange(from: string | undefined, to: string | undefined): void {
  if (isReversed(from, to)) {
    throw new UsageError(
      `--from ${from} is after --to ${to}: give the earlier one first (both are included: ` +
        '--from 2026-11-01 --to 2026-11-30 is the whole of November)',
    );
  }
}
