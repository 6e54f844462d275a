import { InvalidArgumentError } from 'commander';

/** Option parsers: a bad value is a usage error (exit 2) that names the option's rule. */
export function wholeNumber(min = 0) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min) {
      throw new InvalidArgumentError(`must be a whole number of at least ${min}.`);
    }
    return Number(value);
  };
}

export function decimalNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('must be a number of at least 0.');
  return n;
}

export function oneOf<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`must be one of: ${values.join(', ')}.`);
    }
    return value as T;
  };
}
