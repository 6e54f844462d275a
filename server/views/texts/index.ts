import type { Locale } from '../locale.js';
import { en, type Texts } from './en.js';
import { ptBR } from './ptBR.js';

export type { Texts } from './en.js';

const BY_LOCALE: Record<Locale, Texts> = { en, 'pt-BR': ptBR };

export function textsFor(locale: Locale): Texts {
  return BY_LOCALE[locale];
}
