/**
 * Some API messages name the HTTP call that fixes them (`PATCH status enabled`,
 * `POST /v1/refunds`), which is right for an API client and not for someone at the terminal:
 * after those, the CLI names its own command. `command` is the words typed (`webhooks test`),
 * `args` the arguments given to it.
 */
export function commandHint(messages: readonly string[], command: string, args: readonly string[]): string | undefined {
  const text = messages.join(' ');
  const id = args[0] ?? 'ID';
  if (text.includes('Webhook is disabled')) {
    return `Enable it first: affiliated webhooks update ${command.startsWith('webhooks') ? id : 'ID'} --status enabled`;
  }
  if (text.includes('refund the order instead')) return refundHint(command.startsWith('conversions') ? args : []);
  return undefined;
}

/** A conversion that is in a payout or paid leaves only by a refund of its order. */
export function refundHint(conversionIds: readonly string[]): string {
  const which =
    conversionIds.length === 1 ? `affiliated conversions get ${conversionIds[0]}` : 'affiliated conversions get ID';
  return `Refund its order instead (its commission is clawed back): affiliated refunds create ORDER_ID (the order id: ${which})`;
}
