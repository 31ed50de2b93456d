import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { describeWithServer, SseReader } from './helpers.js';
import { app, inventorySuite } from './inventory-fixture.js';

describeWithServer('installed-app reports', { household: 'Apps home' }, (suite) => {
  const ctx = inventorySuite(suite);

  test('chunks in any order: nothing applies until all are in with the final one, then one replace', async () => {
    const a = await ctx.paired();
    assert.deepEqual(await ctx.inventory(a), {
      system_id: a.systemId,
      reported_at: null,
      report_hash: null,
      count: 0,
      items: [],
    });
    const stream = await SseReader.open(
      `${ctx.server.url}/api/dashboard/events`,
      ctx.home.client.cookie ?? '',
    );
    try {
      const id = randomUUID();
      const second = await ctx.chunk(a, {
        report_id: id,
        chunk_index: 1,
        chunk_total: 2,
        is_final: true,
        apps: [app('Gimp'), app('Inkscape')],
      });
      assert.deepEqual(second, {
        type: 'installed_apps_report_ack',
        report_id: id,
        success: true,
        pending: true,
        apps_upserted: 0,
        apps_removed: 0,
        apps_total: 0,
      });
      assert.equal((await ctx.inventory(a)).count, 0, 'nothing applied yet');
      const first = await ctx.chunk(a, {
        report_id: id,
        chunk_index: 0,
        chunk_total: 2,
        apps: [app('Firefox', '120'), app('Blender')],
      });
      assert.deepEqual(first, {
        type: 'installed_apps_report_ack',
        report_id: id,
        success: true,
        pending: false,
        apps_upserted: 4,
        apps_removed: 0,
        apps_total: 4,
      });
      const inv = await ctx.inventory(a);
      assert.equal(inv.count, 4);
      assert.match(inv.report_hash, /^[0-9a-f]{64}$/);
      assert.deepEqual(
        inv.items.map((i: { application_name: string }) => i.application_name),
        ['Blender', 'Firefox', 'Gimp', 'Inkscape'],
      );
      assert.deepEqual(Object.keys(inv.items[0]).sort(), [
        'application_name',
        'first_seen_at',
        'icon_hash',
        'icon_url',
        'identifier',
        'last_seen_at',
        'linux_username',
        'match_type',
        'version_name',
      ]);
      await stream.next((e) => e.event === 'installed_apps_updated' && e.data.system_id === a.systemId);

      // A new report: Firefox updated, Blender uninstalled, the rest unchanged.
      const next = randomUUID();
      const ack = await ctx.chunk(a, {
        report_id: next,
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [app('Firefox', '121'), app('Gimp'), app('Inkscape')],
      });
      assert.deepEqual([ack.apps_upserted, ack.apps_removed, ack.apps_total], [1, 1, 3]);
      const after = await ctx.inventory(a);
      assert.deepEqual(
        after.items.map(
          (i: { application_name: string; version_name: string }) =>
            `${i.application_name} ${i.version_name}`,
        ),
        ['Firefox 121', 'Gimp 1.0', 'Inkscape 1.0'],
      );
      const firefox = after.items.find((i: { application_name: string }) => i.application_name === 'Firefox');
      assert.equal(
        firefox.first_seen_at,
        inv.items.find((i: { application_name: string }) => i.application_name === 'Firefox').first_seen_at,
      );
      const device = (await ctx.home.client.get(`/api/devices/${a.systemId}`)).body;
      assert.equal(device.status, 'approved');
    } finally {
      stream.close();
    }
  });

  test('an identical report writes nothing: same hash, last seen kept', async () => {
    const a = await ctx.paired();
    const apps = [app('Krita'), app('Audacity', '3.4')];
    await ctx.chunk(a, { report_id: randomUUID(), chunk_index: 0, chunk_total: 1, is_final: true, apps });
    const before = await ctx.inventory(a);
    await new Promise((r) => setTimeout(r, 20));
    const ack = await ctx.chunk(a, {
      report_id: randomUUID(),
      chunk_index: 0,
      chunk_total: 1,
      is_final: true,
      reported_at: '2030-01-01T00:00:00.000Z',
      apps: [...apps].reverse(),
    });
    assert.deepEqual([ack.success, ack.apps_upserted, ack.apps_removed, ack.apps_total], [true, 0, 0, 2]);
    const after = await ctx.inventory(a);
    assert.deepEqual(after, before);
  });

  test('a report whose chunks never all arrive is never applied', async () => {
    const a = await ctx.paired();
    await ctx.chunk(a, { report_id: randomUUID(), chunk_index: 0, chunk_total: 3, apps: [app('Half')] });
    await ctx.chunk(a, {
      report_id: randomUUID(),
      chunk_index: 0,
      chunk_total: 1,
      is_final: false,
      apps: [app('NoFinal')],
    });
    assert.equal((await ctx.inventory(a)).count, 0);
    assert.equal(
      ctx.server.services.inventory.assembler.sweep(Date.now() + 11 * 60_000),
      2,
      'abandoned reports are dropped after ten minutes',
    );
  });

  test('bad chunks are refused with an ack saying why; nothing partial applies; the socket stays up', async () => {
    const a = await ctx.paired();
    const expectRefused = async (report: Record<string, unknown>, why: RegExp) => {
      const ack = await ctx.chunk(a, report);
      assert.equal(ack.success, false, JSON.stringify(report).slice(0, 80));
      assert.match(String(ack.error), why);
    };
    await expectRefused(
      {
        report_id: randomUUID(),
        linux_username: 'stranger',
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [app('X')],
      },
      /not in this device's hello/,
    );
    await expectRefused(
      { report_id: randomUUID(), chunk_index: 2, chunk_total: 2, is_final: true, apps: [] },
      /below chunk_total/,
    );
    await expectRefused(
      { report_id: randomUUID(), chunk_index: 0, chunk_total: 101, apps: [] },
      /chunk_total/,
    );
    await expectRefused(
      {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: Array.from({ length: 1001 }, (_, i) => app(`A${i}`)),
      },
      /apps/,
    );
    await expectRefused(
      {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [app('Bad', '1', { icon_hash: 'not-a-hash' })],
      },
      /icon_hash/,
    );
    await expectRefused(
      {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [{ ...app('Pkg'), match_type: 'package' }],
      },
      /executable/,
    );
    await expectRefused(
      {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [{ ...app('Rel'), identifier: 'bin/rel' }],
      },
      /absolute/,
    );

    const id = randomUUID();
    assert.equal(
      (await ctx.chunk(a, { report_id: id, chunk_index: 0, chunk_total: 3, apps: [app('One')] })).pending,
      true,
    );
    await expectRefused(
      { report_id: id, chunk_index: 0, chunk_total: 3, apps: [app('One')] },
      /already received/,
    );
    await expectRefused(
      { report_id: id, chunk_index: 1, chunk_total: 2, is_final: true, apps: [app('Two')] },
      /dropped/,
    );
    // The dropped report cannot be completed afterwards.
    const late = await ctx.chunk(a, {
      report_id: id,
      chunk_index: 2,
      chunk_total: 3,
      is_final: true,
      apps: [app('Three')],
    });
    assert.equal(late.pending, true);
    assert.equal((await ctx.inventory(a)).count, 0);
    assert.equal(a.state, 'authenticated');
  });

  test('android reports use /android/package/ identifiers', async () => {
    const phone = await ctx.paired({ platform: 'android' });
    const ok = await ctx.chunk(phone, {
      report_id: randomUUID(),
      chunk_index: 0,
      chunk_total: 1,
      is_final: true,
      apps: [
        {
          application_name: 'Duolingo',
          identifier: '/android/package/com.duolingo',
          match_type: 'package',
          version_name: '5.1',
        },
      ],
    });
    assert.equal(ok.success, true);
    const bad = await ctx.chunk(phone, {
      report_id: randomUUID(),
      chunk_index: 0,
      chunk_total: 1,
      is_final: true,
      apps: [{ application_name: 'X', identifier: 'com.x', match_type: 'package', version_name: '1' }],
    });
    assert.match(String(bad.error), /android\/package/);
  });
});
