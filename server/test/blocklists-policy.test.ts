import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { type Frame, SimAgent } from '../../bench/src/simulator.js';
import { ALLOW_LOOPBACK, hostsList, ListServer, until } from './blocklists-fixture.js';
import { withChildAgents } from './child-agents.js';
import { addParent, createHousehold, describeWithServer, enrollmentToken } from './helpers.js';

const isPush = (f: Frame) => f.type === 'command_request' && f.command === 'domain_policy_changed';

/** The agent's fetch, raw: status, headers and the bytes as sent (to see the gzip itself). */
function agentFetch(
  base: string,
  token: string | undefined,
  linuxUsername: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}/api/agent/domain-policy?linux_username=${encodeURIComponent(linuxUsername)}`,
      { headers: { authorization: `Bearer ${token}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describeWithServer(
  'blocklists: domain policy',
  { household: 'Policy home', env: ALLOW_LOOPBACK },
  (suite) => {
    const ctx = withChildAgents(suite, { child: 'Pia', spareAccount: 'guest' });
    const lists = new ListServer();
    before(() => lists.start());
    after(() => lists.close());

    const owner = () => ctx.home.client;
    const manual = async (name: string, domains: string[]) =>
      (await owner().post('/blocklists/sources/add', { name, kind: 'manual', domains })).body.id as string;
    const assign = (child: string, body: Record<string, unknown>) =>
      owner().post(`/managed-users/${child}/blocklists/update`, body);
    const policyOf = async (child: string) =>
      (await owner().get(`/api/managed-users/${child}/blocklists`)).body;
    const newChild = async (name: string) =>
      (await owner().post('/api/user/create', { name })).body.id as string;
    /** The policy an agent of the child gets, read through the agent route. */
    const served = async (token: string | undefined, account = 'kid') =>
      JSON.parse((await agentFetch(ctx.server.url, token, account)).bytes.toString('utf8'));

    test('the version rises only when the effective content changes', async () => {
      const child = await newChild('Versions');
      const fresh = await policyOf(child);
      assert.deepEqual(fresh, {
        managed_user_id: child,
        version: 0,
        source_ids: [],
        block_domains: [],
        allow_domains: [],
        domain_count: 0,
      });
      const a = await manual('A', ['games.example.com', 'video.example.org']);
      const b = await manual('B', ['video.example.org', 'social.example.net']);
      const first = await assign(child, { source_ids: [a, b] });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.body, {
        managed_user_id: child,
        version: 1,
        source_ids: [a, b],
        block_domains: [],
        allow_domains: [],
        domain_count: 3,
      });
      // The same content in another order, or the same domain added by hand: no new version.
      assert.equal((await assign(child, { source_ids: [b, a] })).body.version, 1);
      assert.equal(
        (await assign(child, { source_ids: [a, b], block_domains: ['games.example.com'] })).body.version,
        1,
      );
      const blocked = await assign(child, { source_ids: [a, b], block_domains: ['Chat.Example.com.'] });
      assert.equal(blocked.body.version, 2);
      assert.deepEqual(blocked.body.block_domains, ['chat.example.com']);
      assert.equal(blocked.body.domain_count, 4);
      // An allow covers subdomains: allowing example.org lifts video.example.org.
      const allowed = await assign(child, { source_ids: [a, b], allow_domains: ['example.org'] });
      assert.equal(allowed.body.version, 3);
      assert.deepEqual(allowed.body.block_domains, ['chat.example.com'], 'left out: unchanged');
      assert.equal(allowed.body.domain_count, 3);
      // Editing a list the child uses raises the version; an edit that changes nothing does not.
      await owner().patch(`/api/blocklists/sources/${b}`, {
        domains: ['social.example.net', 'video.example.org'],
      });
      assert.equal((await policyOf(child)).version, 3);
      await owner().patch(`/api/blocklists/sources/${b}`, {
        domains: ['social.example.net', 'news.example.net'],
      });
      assert.equal((await policyOf(child)).version, 4);
      assert.equal((await policyOf(child)).domain_count, 4);
      // Removing a list the child uses is a change too.
      await owner().delete(`/api/blocklists/sources/${b}`);
      const without = await policyOf(child);
      assert.equal(without.version, 5);
      assert.deepEqual(without.source_ids, [a]);
      assert.equal(without.domain_count, 2);

      // A form post: ids repeated or comma separated, entries one a line.
      const form = await owner().request('POST', `/managed-users/${child}/blocklists/update`, {
        form: {
          source_ids: a,
          block_domains: 'one.example\ntwo.example',
          allow_domains: '',
          csrf_token: owner().csrf ?? '',
        },
        csrf: false,
      });
      assert.equal(form.status, 200, form.text);
      assert.deepEqual(form.body.block_domains, ['one.example', 'two.example']);
      assert.deepEqual(form.body.allow_domains, []);
      assert.equal(form.body.version, 6);
    });

    test('a refresh that changes a list raises every child using it; one that changes nothing raises none', async () => {
      const url = lists.set('/shared.txt', {
        body: hostsList(['ads.example.com', 'pixel.example.org']),
        etag: '"s1"',
      });
      const source = (await owner().post('/blocklists/sources/add', { name: 'Shared', kind: 'url', url }))
        .body.id;
      await until(
        async () =>
          (await owner().get('/api/blocklists/sources')).body.items.find(
            (s: { id: string }) => s.id === source,
          ),
        (s) => s.last_attempt_at !== null,
      );
      const [one, two, apart] = [await newChild('One'), await newChild('Two'), await newChild('Apart')];
      await assign(one, { source_ids: [source] });
      await assign(two, { source_ids: [source], block_domains: ['extra.example'] });
      await assign(apart, { source_ids: [], block_domains: ['extra.example'] });
      const versions = async () =>
        Promise.all([one, two, apart].map(async (c) => (await policyOf(c)).version));
      assert.deepEqual(await versions(), [1, 1, 1]);

      assert.equal((await owner().post(`/blocklists/sources/${source}/refresh`)).body.changed, false);
      // 200 with the same content under a new ETag: stored content unchanged, versions too.
      lists.set('/shared.txt', { body: hostsList(['pixel.example.org', 'ads.example.com']), etag: '"s2"' });
      assert.equal((await owner().post(`/blocklists/sources/${source}/refresh`)).body.changed, false);
      assert.deepEqual(await versions(), [1, 1, 1]);

      lists.set('/shared.txt', { body: hostsList(['ads.example.com', 'beacon.example.org']), etag: '"s3"' });
      assert.equal((await owner().post(`/blocklists/sources/${source}/refresh`)).body.changed, true);
      assert.deepEqual(await versions(), [2, 2, 1]);
      assert.equal((await policyOf(two)).domain_count, 3);

      // A failed refresh keeps the content and the versions.
      lists.set('/shared.txt', { status: 503 });
      assert.equal((await owner().post(`/blocklists/sources/${source}/refresh`)).status, 502);
      assert.deepEqual(await versions(), [2, 2, 1]);
    });

    test('assignment: unknown or foreign sources are 404, bad entries 400, foreign child 404; members need the right permission', async () => {
      const child = await newChild('Guarded');
      const mine = await manual('Mine', ['a.example']);
      const other = await createHousehold(ctx.server, 'Other policy');
      const theirs = (
        await other.client.post('/blocklists/sources/add', {
          name: 'Theirs',
          kind: 'manual',
          domains: ['b.example'],
        })
      ).body.id;
      for (const ids of [['no-such-source'], [mine, theirs]]) {
        const res = await assign(child, { source_ids: ids });
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error.code, 'not_found');
      }
      const bad = await assign(child, { source_ids: [mine], block_domains: ['ok.example', 'not a domain'] });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.error.details, [
        { path: 'body/block_domains/1', message: 'is not a domain name' },
      ]);
      assert.equal((await policyOf(child)).version, 0, 'nothing saved');
      assert.equal(
        (await other.client.post(`/managed-users/${child}/blocklists/update`, { source_ids: [] })).status,
        404,
      );
      assert.equal((await other.client.get(`/api/managed-users/${child}/blocklists`)).status, 404);

      const viewer = await addParent(ctx.server, ctx.home, 'member', [
        { managed_user_id: child, can_view: true, can_manage_policies: false },
      ]);
      assert.equal((await viewer.get(`/api/managed-users/${child}/blocklists`)).status, 200);
      assert.equal(
        (await viewer.get(`/api/managed-users/${child}/domain-check?domain=a.example`)).status,
        200,
      );
      assert.equal((await viewer.get(`/api/user/${child}/blocklists/sync-status`)).status, 200);
      const refused = await viewer.post(`/managed-users/${child}/blocklists/update`, { source_ids: [mine] });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'forbidden');
      const manager = await addParent(ctx.server, ctx.home, 'member', [
        { managed_user_id: child, can_view: true, can_manage_policies: true },
      ]);
      assert.equal(
        (await manager.post(`/managed-users/${child}/blocklists/update`, { source_ids: [mine] })).status,
        200,
      );
      const stranger = await addParent(ctx.server, ctx.home, 'member');
      assert.equal((await stranger.get(`/api/managed-users/${child}/blocklists`)).status, 404);
    });

    test('delivery: pushed online, fetched gzipped with ETag and 304, policy_applied makes it synced; queued offline; old agents unsupported', async () => {
      const child = await newChild('Delivered');
      const { agent: online, mappingId: onlineMapping } = await ctx.pairedAgent({ record: true }, child);
      const { agent: away, mappingId: awayMapping } = await ctx.pairedAgent({}, child);
      const { mappingId: oldMapping } = await ctx.pairedAgent({ agentVersion: '0.50.0' }, child);
      const { mappingId: brokenMapping } = await ctx.pairedAgent(
        {
          respond: (command) =>
            command === 'domain_policy_changed'
              ? { success: false, error: 'no resolver' }
              : { success: true, data: {} },
        },
        child,
      );
      await away.stop();
      await until(
        () => owner().get('/api/devices'),
        (r) => !r.body.items.find((d: { system_id: string }) => d.system_id === away.systemId).online,
      );

      const source = await manual('Delivered list', ['ads.example.com', 'tracker.example.net']);
      const pushed = online.waitFor(isPush);
      assert.equal(
        (await assign(child, { source_ids: [source], allow_domains: ['ok.example.com'] })).body.version,
        1,
      );
      const frame = await pushed;
      assert.deepEqual(frame.args, { linux_username: 'kid', version: 1 });

      const zipped = await agentFetch(ctx.server.url, online.secureToken, 'kid', {
        'accept-encoding': 'gzip',
      });
      assert.equal(zipped.status, 200);
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.equal(zipped.headers.etag, '"1"');
      assert.match(String(zipped.headers['content-type']), /application\/json/);
      assert.deepEqual(JSON.parse(gunzipSync(zipped.bytes).toString('utf8')), {
        linux_username: 'kid',
        version: 1,
        block: ['ads.example.com', 'tracker.example.net'],
        allow: ['ok.example.com'],
      });
      const plain = await agentFetch(ctx.server.url, online.secureToken, 'kid');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(JSON.parse(plain.bytes.toString('utf8')).version, 1);
      const unchanged = await agentFetch(ctx.server.url, online.secureToken, 'kid', {
        'if-none-match': '"1"',
      });
      assert.equal(unchanged.status, 304);
      assert.equal(unchanged.bytes.length, 0);
      assert.equal(unchanged.headers.etag, '"1"');
      assert.equal(
        (await agentFetch(ctx.server.url, online.secureToken, 'kid', { 'if-none-match': '"0"' })).status,
        200,
      );
      // The spare account is the device's but no child's: the empty policy. Another device's account: 404.
      assert.deepEqual(await served(online.secureToken, 'guest'), {
        linux_username: 'guest',
        version: 0,
        block: [],
        allow: [],
      });
      assert.equal((await agentFetch(ctx.server.url, online.secureToken, 'nobody')).status, 404);

      const statusOf = async () => {
        const view = (await owner().get(`/api/user/${child}/blocklists/sync-status`)).body;
        assert.equal(view.managed_user_id, child);
        return Object.fromEntries(view.items.map((i: { mapping_id: string }) => [i.mapping_id, i])) as Record<
          string,
          any
        >;
      };
      const before = await until(statusOf, (s) => s[brokenMapping]?.status === 'failed');
      assert.equal(before[onlineMapping].status, 'pending', 'delivered, not yet applied');
      assert.equal(before[awayMapping].status, 'pending');
      assert.equal(before[oldMapping].status, 'unsupported');
      assert.match(before[brokenMapping].error, /no resolver/);

      online.send({ type: 'policy_applied', kind: 'domain', linux_username: 'kid', version: 1 });
      const synced = await until(statusOf, (s) => s[onlineMapping]?.status === 'synced');
      assert.equal(synced[onlineMapping].applied_version, 1);
      assert.equal(synced[onlineMapping].platform, 'linux');
      assert.equal(Object.keys(synced).length, 4, 'one item per mapping');

      // Two changes while away: the queued push is replaced; back online, the device gets the newest only.
      await assign(child, { source_ids: [source], allow_domains: [] });
      await assign(child, { source_ids: [source], block_domains: ['late.example'] });
      assert.equal((await policyOf(child)).version, 3);
      const back = new SimAgent({
        url: ctx.server.wsUrl,
        systemId: away.systemId,
        secureToken: away.secureToken,
        linuxUsers: [{ username: 'kid' }, { username: 'guest' }],
        record: true,
      });
      ctx.agents.push(back);
      const delivered = back.waitFor(isPush);
      await back.connect();
      assert.deepEqual((await delivered).args, { linux_username: 'kid', version: 3 });
      assert.equal(back.frames.filter(isPush).length, 1, 'the older queued push was replaced');
      const policy = await served(back.secureToken);
      assert.deepEqual(policy.block, ['ads.example.com', 'late.example', 'tracker.example.net']);
      back.send({ type: 'policy_applied', kind: 'domain', linux_username: 'kid', version: 3 });
      const after = await until(statusOf, (s) => s[awayMapping]?.status === 'synced');
      assert.equal(after[awayMapping].applied_version, 3);
      assert.equal(after[onlineMapping].status, 'pending', 'version 3 not applied there yet');

      // policy_applied for an account the hello did not name is answered with an error frame.
      const refused = back.waitFor((f) => f.type === 'error');
      back.send({ type: 'policy_applied', kind: 'domain', linux_username: 'stranger', version: 3 });
      assert.equal((await refused).code, 'unknown_account');
    });

    test('a device mapped while the child has a policy gets it at once', async () => {
      const child = await newChild('Mapped later');
      await assign(child, { source_ids: [await manual('Later', ['late.example.com'])] });
      const agent = new SimAgent({
        url: ctx.server.wsUrl,
        enrollmentToken: await enrollmentToken(ctx.home),
        linuxUsers: [{ username: 'kid' }],
        record: true,
      });
      ctx.agents.push(agent);
      await agent.connect();
      const approved = agent.waitFor('pairing_approved');
      await owner().post(`/api/device/approve/${agent.systemId}`);
      await approved;
      const pushed = agent.waitFor(isPush);
      await owner().post(`/managed-users/${child}/mappings/add`, {
        system_id: agent.systemId,
        linux_username: 'kid',
      });
      assert.deepEqual((await pushed).args, { linux_username: 'kid', version: 1 });

      // A child whose policy holds nothing sends nothing.
      const empty = await newChild('Empty policy');
      await assign(empty, { source_ids: [] });
      const quiet = await ctx.pairedAgent({ record: true }, empty, 'guest');
      assert.equal(quiet.agent.frames.filter(isPush).length, 0);
    });

    test('unblock grants: an approved domain_unblock allows the domain (once: 24 h; persistent: for good or for minutes) and its expiry raises the version', async () => {
      const child = await newChild('Unblocked');
      const { agent } = await ctx.pairedAgent({ record: true }, child);
      const source = await manual('Grant list', [
        'games.example.com',
        'video.example.org',
        'chat.example.net',
      ]);
      assert.equal((await assign(child, { source_ids: [source] })).body.version, 1);

      const ask = async (domain: string) => {
        const res = await ctx.bearer(agent.secureToken, 'POST', '/api/approvals/request', {
          type: 'domain_unblock',
          linux_username: 'kid',
          details: { domain },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.id as string;
      };
      const grantsOf = async () => {
        const mapping = (await owner().get(`/api/user/${child}`)).body.mappings[0].id;
        const rows = await ctx.server.services.db.kysely
          .selectFrom('approval_grant')
          .selectAll()
          .where('mapping_id', '=', mapping)
          .where('type', '=', 'domain_unblock')
          .orderBy('created_at', 'asc')
          .execute();
        return rows;
      };

      const pushed = agent.waitFor((f) => isPush(f) && (f.args as { version: number }).version === 2);
      const once = await owner().post(`/api/approvals/${await ask('games.example.com')}/approve`, {
        grant: 'once',
      });
      assert.equal(once.status, 200, once.text);
      await pushed;
      let policy = await served(agent.secureToken);
      assert.equal(policy.version, 2);
      assert.deepEqual(policy.block, ['chat.example.net', 'video.example.org']);
      assert.deepEqual(policy.allow, ['games.example.com']);
      assert.equal((await policyOf(child)).domain_count, 2);

      await owner().post(`/api/approvals/${await ask('www.video.example.org')}/approve`, {
        grant: 'persistent',
        minutes: 30,
      });
      await owner().post(`/api/approvals/${await ask('chat.example.net')}/approve`, { grant: 'persistent' });
      const grants = await grantsOf();
      assert.equal(grants.length, 3);
      const [g1, g2, g3] = grants;
      const hours = (iso: string | null) => (Date.parse(iso ?? '') - Date.now()) / 3_600_000;
      assert.ok(
        hours(g1?.expires_at ?? null) > 23.9 && hours(g1?.expires_at ?? null) <= 24,
        'once: 24 hours',
      );
      assert.ok(Math.abs(hours(g2?.expires_at ?? null) - 0.5) < 0.01, 'persistent with minutes');
      assert.equal(g3?.expires_at, null, 'persistent without minutes: no end');
      policy = await served(agent.secureToken);
      assert.equal(policy.version, 4);
      // www.video.example.org is allowed, video.example.org itself stays blocked.
      assert.deepEqual(policy.block, ['video.example.org']);
      assert.deepEqual(policy.allow, ['chat.example.net', 'games.example.com', 'www.video.example.org']);

      // The worker's expiry task does nothing while every grant is in force.
      assert.match(await ctx.server.services.domainPolicy.expireGrants(), /compiled 0 /);
      // 30 minutes pass for the persistent grant, in the database only; the worker task notices.
      await ctx.server.services.db.kysely
        .updateTable('approval_grant')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', g2?.id ?? '')
        .execute();
      const raised = agent.waitFor((f) => isPush(f) && (f.args as { version: number }).version === 5);
      assert.match(await ctx.server.services.domainPolicy.expireGrants(), /compiled 1 /);
      await raised;
      policy = await served(agent.secureToken);
      assert.equal(policy.version, 5);
      assert.deepEqual(policy.allow, ['chat.example.net', 'games.example.com']);
      assert.match(await ctx.server.services.domainPolicy.expireGrants(), /compiled 0 /);

      // Removing a grant through the grants route takes it out at once.
      const mapping = (await owner().get(`/api/user/${child}`)).body.mappings[0].id;
      assert.equal((await owner().delete(`/api/mappings/${mapping}/approval-grants/${g3?.id}`)).status, 200);
      policy = await served(agent.secureToken);
      assert.equal(policy.version, 6);
      assert.deepEqual(policy.block, ['chat.example.net', 'video.example.org']);
    });

    test('domain check: every rule that covers the domain, where it comes from, and the verdict', async () => {
      const child = await newChild('Checked');
      const { agent } = await ctx.pairedAgent({}, child);
      const ads = (
        await owner().post('/blocklists/sources/add', {
          name: 'Filter',
          kind: 'manual',
          format: 'adblock',
          domains: '||example.com^\n||ads.example.com^\n@@||help.ads.example.com^\n',
        })
      ).body.id;
      const hosts = await manual('Hosts', ['tracker.example.com']);
      await assign(child, {
        source_ids: [ads, hosts],
        block_domains: ['example.com'],
        allow_domains: ['news.example.com'],
      });
      const check = async (domain: string) => {
        const res = await owner().get(
          `/api/managed-users/${child}/domain-check?domain=${encodeURIComponent(domain)}`,
        );
        assert.equal(res.status, 200, res.text);
        return res.body;
      };
      const deep = await check('Pixel.ADS.example.com.');
      assert.equal(deep.domain, 'pixel.ads.example.com');
      assert.equal(deep.blocked, true);
      assert.deepEqual(deep.matches, [
        { kind: 'source', action: 'block', rule: 'ads.example.com', source_id: ads, source_name: 'Filter' },
        { kind: 'source', action: 'block', rule: 'example.com', source_id: ads, source_name: 'Filter' },
        { kind: 'block_domain', action: 'block', rule: 'example.com' },
      ]);
      const excepted = await check('help.ads.example.com');
      assert.equal(excepted.blocked, false);
      assert.ok(
        excepted.matches.some(
          (m: { action: string; kind: string }) => m.action === 'allow' && m.kind === 'source',
        ),
      );
      const allowed = await check('www.news.example.com');
      assert.equal(allowed.blocked, false);
      assert.deepEqual(
        allowed.matches.find((m: { kind: string }) => m.kind === 'allow_domain'),
        { kind: 'allow_domain', action: 'allow', rule: 'news.example.com' },
      );
      const free = await check('example.org');
      assert.deepEqual(free, { domain: 'example.org', blocked: false, matches: [] });

      const request = await ctx.bearer(agent.secureToken, 'POST', '/api/approvals/request', {
        type: 'domain_unblock',
        linux_username: 'kid',
        details: { domain: 'tracker.example.com' },
      });
      await owner().post(`/api/approvals/${request.body.id}/approve`, { grant: 'once' });
      const granted = await check('tracker.example.com');
      assert.equal(granted.blocked, false);
      const grant = granted.matches.find((m: { kind: string }) => m.kind === 'grant');
      assert.equal(grant.rule, 'tracker.example.com');
      assert.ok(grant.grant_id);
      assert.ok(grant.expires_at);
      assert.ok(granted.matches.some((m: { source_name?: string }) => m.source_name === 'Hosts'));

      for (const bad of ['not a domain', '192.0.2.1', '', 'a..b']) {
        const res = await owner().get(
          `/api/managed-users/${child}/domain-check?domain=${encodeURIComponent(bad)}`,
        );
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.error.code, 'invalid_request');
      }
    });
  },
);
