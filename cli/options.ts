import { type Command, InvalidArgumentError, Option } from 'commander';
import { LIST_FORMATS } from './output.js';
import { characters, MAX_PAGE_SIZE, OPERATOR_LIMITS } from './vocabulary.js';

/** Option parsers: a bad value is a usage error (exit 2) that names the option's rule. */
export function wholeNumber(min = 0, max?: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || (max !== undefined && n > max)) {
      throw new InvalidArgumentError(
        max === undefined
          ? `It must be a whole number of at least ${min}.`
          : `It must be a whole number from ${min} to ${max}.`,
      );
    }
    return n;
  };
}

/** A name typed by an operator: not blank, and no longer than its column holds on every engine. */
export function text(max: number) {
  return (value: string): string => {
    const length = characters(value.trim());
    if (length === 0) throw new InvalidArgumentError('It must not be empty.');
    if (length > max) throw new InvalidArgumentError(`It must be at most ${max} characters (this one has ${length}).`);
    return value;
  };
}

/** Campaign public ids: what events send as campaign_id. */
export function publicId(value: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(value) || value.length < 3 || value.length > OPERATOR_LIMITS.publicId) {
    throw new InvalidArgumentError(`It must be 3 to ${OPERATOR_LIMITS.publicId} letters, digits, "-" or "_".`);
  }
  return value;
}

/** Plan names: letters, digits, `-` and `_`. */
export function planName(value: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(value) || value.length > OPERATOR_LIMITS.planName) {
    throw new InvalidArgumentError(`It must be 1 to ${OPERATOR_LIMITS.planName} letters, digits, "-" or "_".`);
  }
  return value;
}

export function decimalNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('It must be a number of at least 0.');
  return n;
}

/** An amount that must be above 0 (an order value): 0 is refused here, as the daemon refuses it. */
export function positiveNumber(value: string): number {
  const n = decimalNumber(value);
  if (n <= 0) throw new InvalidArgumentError('It must be a number above 0.');
  return n;
}

export function oneOf<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`It must be one of: ${values.join(', ')}.`);
    }
    return value as T;
  };
}

/** `--page` and `--limit` of a list command: both checked here, so `--limit 500` is exit 2 like `--page 0`. */
export function pagingOptions<C extends Command>(command: C): C {
  return command
    .option('--page <n>', 'page number (from 1)', wholeNumber(1))
    .option('--limit <n>', `page size, 1 to ${MAX_PAGE_SIZE} (default 50)`, wholeNumber(1, MAX_PAGE_SIZE));
}

/** `--output csv` of every list command (the table is the default). */
export function outputOption<C extends Command>(command: C): C {
  return command.addOption(
    new Option('--output <format>', 'table for people, csv for spreadsheets and scripts')
      .choices(LIST_FORMATS)
      .default('table'),
  );
}

/** An option with fixed values: commander checks them (exit 2) and completion offers them. */
export function choice(flags: string, description: string, values: readonly string[], defaultValue?: string): Option {
  const option = new Option(flags, description).choices(values);
  return defaultValue === undefined ? option : option.default(defaultValue);
}
