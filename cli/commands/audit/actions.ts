import type { ApiClient } from '../../../shared/client/index.js';
import type { AuditAction, AuditActorType, AuditEntry, AuditTargetType } from '../../../shared/schemas/audit.js';
import { checkRange } from '../../dates.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { type GlobalOptions, type ListFormat, printTable } from '../../output.js';
import { type ListFlags, type Paging, printList } from '../../paging.js';

/** `key 3 (afk_Q7x2)`, `operator alice`, `user 12`, `system`. */
function actorText({ actor }: AuditEntry): string {
  return [actor.type, actor.id, actor.label === null ? null : `(${actor.label})`].filter((part) => part).join(' ');
}

/** `paidPayouts=2 paidPayoutsTotal=30.53`: figures as the API answers them, exact. */
const figuresText = ({ details }: AuditEntry) =>
  Object.entries(details.figures)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');

function table(io: Io, changes: AuditEntry[], format?: ListFormat): void {
  printTable(
    io,
    ['id', 'at', 'actor', 'address', 'action', 'target', 'fields', 'figures'],
    changes.map((change) => [
      change.id,
      change.createdAt,
      actorText(change),
      change.address,
      change.action,
      change.target.id === null ? change.target.type : `${change.target.type} ${change.target.id}`,
      change.details.fields.join(' ') || null,
      figuresText(change) || null,
    ]),
    format,
  );
}

export async function list(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: {
    action?: AuditAction;
    actor?: AuditActorType;
    targetType?: AuditTargetType;
    target?: string;
    from?: string;
    to?: string;
  } & ListFlags,
): Promise<void> {
  checkRange(flags.from, flags.to);
  if (flags.target !== undefined && flags.targetType === undefined) {
    throw new UsageError('--target needs --target-type (affiliate, payout, ...): ids are per kind of thing');
  }
  const { action, actor, targetType, target, from, to } = flags;
  const query = { action, actorType: actor, targetType, targetId: target, from, to };
  await printList(io, client, options.json, flags, {
    noun: 'change',
    fetch: (api, paging: Paging) => api.audit.list({ query: { ...query, ...paging } }),
    rows: (answer) => answer.changes,
    show: (rows) => table(io, rows, flags.output),
  });
}
