import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

export const systemHandlers: Handlers<typeof contract.system> = {
  health: (_input, { health }) => health.check(),
  ready: (_input, { health }) => health.ready(),
  openapi: (_input, { reference }) => reference.openApi() as { openapi: string; paths: Record<string, unknown> },
  docs: (_input, { reference }) => reference.docsPage(),
};
