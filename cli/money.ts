import type { ApiClient } from '../shared/client/index.js';
import { amountOf, formatMoney, MoneyInputError, moneyOfAmount, parseMoney, plainAmount } from '../shared/money.js';
import { UsageError } from './errors.js';
import type { ListFormat } from './output.js';

/**
 * Money on the command line (docs/cli.md "Money"), always in the campaign's currency: the CLI
 * writes numbers as en-US does (`count` of output.ts), so amounts get the same thousands
 * separators as counts.
 */
const CLI_LOCALE = 'en-US';

/** One look-up per client: a command that reads an amount and prints a record asks once, not twice. */
const currencies = new WeakMap<ApiClient, Promise<string>>();

/** The campaign's currency, from the API: what every amount the command shows or takes is in. */
export function campaignCurrency(client: ApiClient): Promise<string> {
  let known = currencies.get(client);
  if (known === undefined) {
    known = client.campaign.get().then((campaign) => campaign.currency);
    // A failed look-up is not kept: the next call asks again.
    known.catch(() => currencies.delete(client));
    currencies.set(client, known);
  }
  return known;
}

/** `BRL 1,234.56`, `JPY 1,235`, `KWD 1.235`: an amount in a sentence. */
export const moneyText = (amount: number, currency: string): string =>
  formatMoney(moneyOfAmount(amount, currency), CLI_LOCALE, 'code');

/**
 * An amount in a table or record whose header names the currency: `1,234.56` for people, and in
 * CSV the plain `1234.56` (no separators, a dot, the currency's decimals) that spreadsheets and
 * scripts read back exactly.
 */
export const amountCell = (amount: number, currency: string, format: ListFormat = 'table'): string => {
  const money = moneyOfAmount(amount, currency);
  return format === 'csv' ? plainAmount(money) : formatMoney(money, CLI_LOCALE, 'none');
};

/**
 * An operator's amount (`--amount 12.34`, `--commission-fixed 500`) in `currency` → the JSON
 * number the API takes; refused as a usage error (exit 2) when the currency cannot hold it.
 */
export function amountOption(option: string, text: string, currency: string): number {
  try {
    return amountOf(parseMoney(text, currency));
  } catch (err) {
    if (err instanceof MoneyInputError) throw new UsageError(`${option}: ${err.message}`);
    throw err;
  }
}
