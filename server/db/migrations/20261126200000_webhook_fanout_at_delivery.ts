import type { Knex } from 'knex';

/**
 * Webhooks among hostile tenants (docs/webhooks.md):
 *
 * - A change is recorded as one message, whatever the number of endpoints; the worker fans it
 *   out to the endpoints later, a chunk at a time (`fanout_pending`, `fanout_cursor`: the last
 *   endpoint id done), and the unique (endpoint, message) pair makes a fan-out run twice
 *   harmless. `webhook_subscriptions` says which endpoints hear which event type, so intake
 *   asks one indexed question per campaign and type, never reads the endpoints.
 * - Endpoints per campaign are capped by slots: each endpoint holds a number from 1 to the cap,
 *   unique in its campaign, so concurrent registrations can never pass the cap.
 * - Every retired signing secret keeps signing for its own 24 hours: one row each in
 *   `webhook_retired_secrets` rather than one "previous secret" column pair.
 * - A URL with a user name or password was stored and listed with it, and sent without it:
 *   both are removed from stored URLs, which leaves what was actually sent.
 */

/** A URL without its user name and password; one that does not parse is left as it is. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

interface EndpointRow {
  id: number;
  campaign_id: number;
  url: string;
  events: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | string | null;
}

export async function up(knex: Knex): Promise<void> {
  const datetime = (table: Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });

  await knex.schema.alterTable('webhook_messages', (t) => {
    t.boolean('fanout_pending').notNullable().defaultTo(false);
    t.integer('fanout_cursor').unsigned().notNullable().defaultTo(0);
    // The worker's question: each campaign's oldest message still to fan out.
    t.index(['fanout_pending', 'campaign_id', 'id']);
  });

  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.unique(['endpoint_id', 'message_id']);
    // The worker's claim: each endpoint's oldest due delivery, found by a seek, whatever piles up elsewhere.
    t.index(['status', 'endpoint_id', 'next_attempt_at']);
  });

  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.integer('slot').unsigned().nullable();
    t.unique(['campaign_id', 'slot']);
  });

  await knex.schema.createTable('webhook_subscriptions', (t) => {
    t.integer('campaign_id').unsigned().notNullable();
    t.string('event_type', 40).notNullable();
    t.integer('endpoint_id').unsigned().notNullable().references('id').inTable('webhook_endpoints').onDelete('CASCADE');
    t.primary(['campaign_id', 'event_type', 'endpoint_id']);
    t.index(['endpoint_id']);
  });

  await knex.schema.createTable('webhook_retired_secrets', (t) => {
    t.bigIncrements('id');
    t.integer('endpoint_id').unsigned().notNullable().references('id').inTable('webhook_endpoints').onDelete('CASCADE');
    t.string('secret_enc', 255).notNullable();
    datetime(t, 'expires_at').notNullable();
    t.index(['endpoint_id', 'expires_at']);
  });

  const endpoints = await knex<EndpointRow>('webhook_endpoints')
    .orderBy(['campaign_id', 'id'])
    .select('id', 'campaign_id', 'url', 'events', 'previous_secret_enc', 'previous_secret_expires_at');
  const slots = new Map<number, number>();
  for (const endpoint of endpoints) {
    const slot = (slots.get(endpoint.campaign_id) ?? 0) + 1;
    slots.set(endpoint.campaign_id, slot);
    await knex('webhook_endpoints')
      .where('id', endpoint.id)
      .update({ slot, url: withoutCredentials(endpoint.url) });
    const events = JSON.parse(endpoint.events) as string[];
    if (events.length > 0) {
      await knex('webhook_subscriptions').insert(
        events.map((eventType) => ({
          campaign_id: endpoint.campaign_id,
          event_type: eventType,
          endpoint_id: endpoint.id,
        })),
      );
    }
    if (endpoint.previous_secret_enc !== null && endpoint.previous_secret_expires_at !== null) {
      await knex('webhook_retired_secrets').insert({
        endpoint_id: endpoint.id,
        secret_enc: endpoint.previous_secret_enc,
        expires_at: endpoint.previous_secret_expires_at,
      });
    }
  }
  // Neither column is indexed, so both engines drop it in place (SQLite 3.35+ without a rebuild).
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN previous_secret_enc');
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN previous_secret_expires_at');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.string('previous_secret_enc', 255).nullable();
    t.datetime('previous_secret_expires_at', { precision: 3, useTz: false }).nullable();
  });
  // The secret retired last goes back to the single column pair; older ones stop signing.
  const retired = await knex('webhook_retired_secrets')
    .orderBy('id')
    .select<{ endpoint_id: number; secret_enc: string; expires_at: Date | string }[]>(
      'endpoint_id',
      'secret_enc',
      'expires_at',
    );
  for (const secret of retired) {
    await knex<EndpointRow>('webhook_endpoints')
      .where('id', secret.endpoint_id)
      .update({ previous_secret_enc: secret.secret_enc, previous_secret_expires_at: secret.expires_at });
  }
  // Messages not fanned out yet get their deliveries as the old worker expects them.
  const pending = await knex('webhook_messages')
    .where('fanout_pending', 1)
    .select<{ id: number; campaign_id: number; event_type: string; created_at: Date | string }[]>(
      'id',
      'campaign_id',
      'event_type',
      'created_at',
    );
  for (const message of pending) {
    const endpointIds = await knex('webhook_subscriptions as s')
      .join('webhook_endpoints as e', 'e.id', 's.endpoint_id')
      .where({ 's.campaign_id': message.campaign_id, 's.event_type': message.event_type, 'e.status': 'enabled' })
      .pluck('s.endpoint_id');
    for (const endpointId of endpointIds) {
      await knex('webhook_deliveries')
        .insert({
          endpoint_id: endpointId,
          message_id: message.id,
          status: 'pending',
          attempt_count: 0,
          next_attempt_at: message.created_at,
          created_at: message.created_at,
          updated_at: message.created_at,
        })
        .onConflict(['endpoint_id', 'message_id'])
        .ignore();
    }
  }
  await knex.schema.dropTableIfExists('webhook_retired_secrets');
  await knex.schema.dropTableIfExists('webhook_subscriptions');
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.dropUnique(['campaign_id', 'slot']);
  });
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN slot');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['status', 'endpoint_id', 'next_attempt_at']);
    t.dropUnique(['endpoint_id', 'message_id']);
  });
  await knex.schema.alterTable('webhook_messages', (t) => {
    t.dropIndex(['fanout_pending', 'campaign_id', 'id']);
  });
  await knex.raw('ALTER TABLE webhook_messages DROP COLUMN fanout_pending');
  await knex.raw('ALTER TABLE webhook_messages DROP COLUMN fanout_cursor');
}
