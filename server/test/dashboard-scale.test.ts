import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, test } from 'node:test';
import { utcDay } from '../src/platform/clock.js';
import { addParent, type Client, describeWithServer } from './helpers.js';

const MAPPINGS = 5_001;
const ACCOUNTS_PER_DEVICE = 3;

/**
 * A child with 5,001 mapped accounts (1,667 devices, three accounts each), each with use today, written
 * straight into the database in bulk: building it through the routes would take minutes.
 */
describeWithServer('a child with 5,001 mappings (issue 13)', { household: 'Big home' }, (ctx) => {
  let childId: string;
  let member: Client;
  const today = utcDay();

  before(async () => {
    childId = (await ctx.home.client.post('/api/user/create', { name: 'Many' })).body.id;
    const db = ctx.server.services.db.kysely;
    const at = new Date().toISOString();
    const devices = Array.from({ length: Math.ceil(MAPPINGS / ACCOUNTS_PER_DEVICE) }, (_, i) => ({
      system_id: randomUUID(),
      household_id: ctx.home.householdId,
      hostname: `pc-${i}`,
      display_name: null,
      platform: 'linux',
      status: 'approved' as const,
      agent_version: '0.57.0',
      linux_users: JSON.stringify(
        Array.from({ length: ACCOUNTS_PER_DEVICE }, (_, a) => ({ username: `kid${a}` })),
      ),
      secure_token_hash: null,
      last_seen_at: at,
      created_at: at,
      updated_at: at,
    }));
    const mappings = Array.from({ length: MAPPINGS }, (_, i) => ({
      id: randomUUID(),
      household_id: ctx.home.householdId,
      managed_user_id: childId,
      system_id: devices[Math.floor(i / ACCOUNTS_PER_DEVICE)]?.system_id ?? '',
      linux_username: `kid${i % ACCOUNTS_PER_DEVICE}`,
      created_at: at,
    }));
    const usage = mappings.map((m) => ({
      system_id: m.system_id,
      linux_username: m.linux_username,
      date: today,
      seconds_used: 2,
      updated_at: at,
    }));
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < devices.length; i += 200)
        await trx
          .insertInto('agent_device')
          .values(devices.slice(i, i + 200))
          .execute();
      for (let i = 0; i < MAPPINGS; i += 500) {
        await trx
          .insertInto('device_mapping')
          .values(mappings.slice(i, i + 500))
          .execute();
        await trx
          .insertInto('usage_day')
          .values(usage.slice(i, i + 500))
          .execute();
      }
    });
    member = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: childId, can_view: true, can_manage_policies: true },
    ]);
  });

  for (const who of ['owner', 'member'] as const) {
    test(`the ${who}'s dashboard answers, with the child's use summed over every mapping`, async () => {
      const client = who === 'owner' ? ctx.home.client : member;
      const res = await client.get('/api/dashboard');
      assert.equal(res.status, 200, res.text.slice(0, 300));
      const user = res.body.users.find((u: { id: string }) => u.id === childId);
      assert.equal(user.used_seconds_today, MAPPINGS * 2);
      assert.equal(res.body.devices.length, Math.ceil(MAPPINGS / ACCOUNTS_PER_DEVICE));
    });

    test(`the ${who}'s child routes answer too: usage, stats, the list, validation`, async () => {
      const client = who === 'owner' ? ctx.home.client : member;
      const usage = await client.get(`/api/user/${childId}/usage`);
      assert.equal(usage.status, 200, usage.text.slice(0, 300));
      assert.equal(usage.body.used_seconds, MAPPINGS * 2);
      assert.equal(usage.body.devices.length, MAPPINGS);
      const stats = await client.get(`/api/user/${childId}/stats?days=7`);
      assert.equal(stats.status, 200, stats.text.slice(0, 300));
      assert.equal(stats.body.days.at(-1).used_seconds, MAPPINGS * 2);
      const list = await client.get('/api/users');
      assert.equal(list.status, 200);
      assert.equal(list.body.items.find((u: { id: string }) => u.id === childId).mappings.length, MAPPINGS);
      const valid = await client.get(`/users/validate/${childId}`);
      assert.equal(valid.status, 200);
      assert.equal(valid.body.valid, true);
      assert.equal((await client.get(`/api/managed-users/${childId}/installed-apps`)).status, 200);
      assert.equal((await client.get('/api/devices')).body.items.length, Math.ceil(MAPPINGS / 3));
    });
  }
});
