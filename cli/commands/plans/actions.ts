import type { Plan } from '../../../shared/schemas/campaign.js';
import type { Io } from '../../io.js';
import { withServices } from '../../operator.js';
import { type GlobalOptions, type ListFormat, printJson, printTable } from '../../output.js';

const limit = (n: number | null) => (n === null ? 'unlimited' : n);

function show(io: Io, options: GlobalOptions & { output?: ListFormat }, plans: Plan[]): void {
  printTable(
    io,
    ['id', 'name', 'max affiliates', 'max monthly conversions'],
    plans.map((p) => [p.id, p.name, limit(p.maxAffiliates), limit(p.maxMonthlyConversions)]),
    options.output,
  );
}

export async function create(
  io: Io,
  options: GlobalOptions & { name: string; maxAffiliates?: number; maxMonthlyConversions?: number },
): Promise<void> {
  const plan = await withServices(io, options, ({ plans }) =>
    plans.create({
      name: options.name,
      maxAffiliates: options.maxAffiliates ?? null,
      maxMonthlyConversions: options.maxMonthlyConversions ?? null,
    }),
  );
  if (options.json) return printJson(io, plan);
  show(io, options, [plan]);
}

export async function list(io: Io, options: GlobalOptions & { output?: ListFormat }): Promise<void> {
  const plans = await withServices(io, options, (services) => services.plans.list());
  if (options.json) return printJson(io, { plans, total: plans.length });
  show(io, options, plans);
}
