import type { Db } from '../../server/db/knex.js';
import { servicesFor } from '../../test/helpers/daemon.js';

/**
 * A campaign with the commission rules of docs/commissions.md for the rules figure: product rules
 * of its own, `groups` groups each with its rate and product rules, the active affiliates spread
 * over them (one in five left to the campaign's rule, one in seven with an override of its own),
 * and the product names the events send, half of which match a rule.
 */
export async function seedRules(
  db: Db,
  campaignId: number,
  options: { groups: number; productsPerLevel: number },
): Promise<{ products: string[] }> {
  const services = servicesFor(db);
  const products = Array.from({ length: options.productsPerLevel * 2 }, (_, i) => `Plan ${i}`);
  const ruled = products.slice(0, options.productsPerLevel);
  const rule = (product: string, i: number) =>
    i % 2 === 0
      ? { product, commissionType: 'percent' as const, commissionValue: 12 + (i % 8) }
      : { product, commissionType: 'fixed' as const, commissionValue: 3 + (i % 5) };
  await services.campaigns.update(campaignId, { products: ruled.map(rule) });
  const groupIds: number[] = [];
  for (let g = 0; g < options.groups; g++) {
    const group = await services.groups.create(campaignId, {
      name: `Group ${g}`,
      commissionType: 'percent',
      commissionValue: 11 + g,
      // Each group rules a different half of the products the campaign rules.
      products: ruled.filter((_, i) => (i + g) % 2 === 0).map(rule),
    });
    groupIds.push(group.id);
  }
  const ids = (await db('affiliates').where({ campaign_id: campaignId }).orderBy('id').pluck('id')).map(Number);
  for (const [i, id] of ids.entries()) {
    const groupId = i % 5 === 0 ? null : (groupIds[i % groupIds.length] ?? null);
    const override = i % 7 === 0;
    await db('affiliates')
      .where('id', id)
      .update({
        group_id: groupId,
        commission_override_type: override ? 'percent' : null,
        commission_override_value: override ? 1500 : null,
      });
  }
  return { products };
}
