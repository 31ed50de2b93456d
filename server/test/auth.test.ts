import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, createHousehold, describeWithServer, PASSWORD } from './helpers.js';

describeWithServer('sessions and setup', {}, (ctx) => {
  test('setup is offered until the first owner exists, then answers 409', async () => {
    const anon = new Client(ctx.server.url);
    assert.equal((await anon.get('/api/setup')).body.setup_required, true);

    const res = await anon.post('/api/setup', {
      username: 'Mum',
      password: PASSWORD,
      household_name: 'The Smiths',
    });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['csrf_token', 'household', 'parent', 'role']);
    assert.equal(res.body.role, 'owner');
    assert.equal(res.body.parent.username, 'Mum');
    assert.equal(res.body.household.name, 'The Smiths');
    const cookie = res.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^hearth_session=/);
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);

    const me = await anon.get('/api/session');
    assert.equal(me.status, 200);
    assert.equal(me.body.parent.id, res.body.parent.id);
    assert.equal(me.body.csrf_token, res.body.csrf_token);

    assert.equal((await anon.get('/api/setup')).body.setup_required, false);
    const again = await new Client(ctx.server.url).post('/api/setup', {
      username: 'dad',
      password: PASSWORD,
      household_name: 'Other',
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'conflict');
  });

  test('setup validates its body: short password, unknown field, missing name', async () => {
    const c = new Client(ctx.server.url);
    for (const body of [
      { username: 'x', password: 'short', household_name: 'H' },
      { username: 'x', password: PASSWORD, household_name: 'H', admin: true },
      { username: 'x', password: PASSWORD },
      { username: '', password: PASSWORD, household_name: 'H' },
      { username: 5, password: PASSWORD, household_name: 'H' },
    ]) {
      const res = await c.post('/api/setup', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'invalid_request');
      assert.ok(Array.isArray(res.body.error.details) && res.body.error.details.length > 0);
    }
  });

  test('sign in with JSON, read the session, sign out', async () => {
    const owner = await createHousehold(ctx.server, 'Sign-in home');
    const c = new Client(ctx.server.url);
    const wrong = await c.signIn(owner.username, 'not the right password');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'invalid_credentials');
    const unknown = await c.signIn('nobody-here', PASSWORD);
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error.code, 'invalid_credentials');

    // Usernames are matched regardless of case.
    const ok = await c.signIn(owner.username.toUpperCase(), PASSWORD);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.household.id, owner.householdId);
    assert.equal((await c.get('/api/session')).status, 200);

    const noCsrf = await c.request('DELETE', '/api/session', { csrf: false });
    assert.equal(noCsrf.status, 403);
    assert.equal(noCsrf.body.error.code, 'csrf_failed');

    const out = await c.delete('/api/session');
    assert.equal(out.status, 200);
    assert.deepEqual(out.body, { signed_out: true });
    const after = await c.get('/api/session');
    assert.equal(after.status, 401);
    assert.equal(after.body.error.code, 'unauthenticated');
  });

  test('a signed-out cookie stays dead even if replayed', async () => {
    const owner = await createHousehold(ctx.server, 'Replay home');
    const stolen = owner.client.cookie;
    await owner.client.delete('/api/session');
    const replay = await fetch(`${ctx.server.url}/api/session`, { headers: { cookie: stolen ?? '' } });
    assert.equal(replay.status, 401);
  });

  test('the form sign-in redirects 303 to / and sets the cookie', async () => {
    const owner = await createHousehold(ctx.server, 'Form home');
    const c = new Client(ctx.server.url);
    const res = await c.request('POST', '/login', {
      form: { username: owner.username, password: PASSWORD },
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/');
    assert.ok(c.cookie);
    assert.equal((await c.get('/api/session')).status, 200);

    const bad = await new Client(ctx.server.url).request('POST', '/login', {
      form: { username: owner.username, password: 'wrong wrong wrong' },
    });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error.code, 'invalid_credentials');
  });

  test('ten failed sign-ins lock that (IP, username) pair for the minute, and only that pair', async () => {
    const owner = await createHousehold(ctx.server, 'Locked home');
    const other = await createHousehold(ctx.server, 'Unaffected home');
    const c = new Client(ctx.server.url);
    for (let i = 0; i < 10; i++)
      assert.equal((await c.signIn(owner.username, `wrong password ${i}`)).status, 401);
    const locked = await c.signIn(owner.username, PASSWORD);
    assert.equal(locked.status, 429);
    assert.equal(locked.body.error.code, 'rate_limited');
    const retry = Number(locked.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    // The same name in another case is the same pair.
    assert.equal((await c.signIn(owner.username.toUpperCase(), PASSWORD)).status, 429);
    // Another username from the same address is unaffected.
    assert.equal((await c.signIn(other.username, PASSWORD)).status, 200);
  });

  test('CSRF is required on session-authenticated changes, as header or form field', async () => {
    const owner = await createHousehold(ctx.server, 'CSRF home');
    const c = owner.client;
    const missing = await c.request('POST', '/api/user/create', { json: { name: 'Ann' }, csrf: false });
    assert.equal(missing.status, 403);
    assert.equal(missing.body.error.code, 'csrf_failed');
    const wrong = await c.request('POST', '/api/user/create', {
      json: { name: 'Ann' },
      headers: { 'x-csrftoken': 'forged' },
    });
    assert.equal(wrong.status, 403);
    // A token of another session is not this session's token.
    const other = await createHousehold(ctx.server, 'Other CSRF home');
    const crossed = await c.request('POST', '/api/user/create', {
      json: { name: 'Ann' },
      headers: { 'x-csrftoken': other.client.csrf ?? '' },
    });
    assert.equal(crossed.status, 403);

    const form = await c.request('POST', '/managed-users/add', {
      form: { name: 'Formy', csrf_token: c.csrf ?? '' },
      csrf: false,
    });
    assert.equal(form.status, 303);
    const formMissing = await c.request('POST', '/managed-users/add', {
      form: { name: 'Formy' },
      csrf: false,
    });
    assert.equal(formMissing.status, 403);
    assert.equal(formMissing.body.error.code, 'csrf_failed');
    // The token may also travel inside a JSON body; it is not taken for an unknown field.
    const inJson = await c.request('POST', '/api/user/create', {
      json: { name: 'Jason', csrf_token: c.csrf },
      csrf: false,
    });
    assert.equal(inJson.status, 201);

    const users = await c.get('/api/users');
    assert.deepEqual(users.body.items.map((u: { name: string }) => u.name).sort(), ['Formy', 'Jason']);
  });

  test('open sign-up is off by default (404)', async () => {
    const res = await new Client(ctx.server.url).post('/api/signup', {
      username: 'newbie',
      password: PASSWORD,
      household_name: 'New',
    });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });
});

describeWithServer(
  'open sign-up and bootstrap admin',
  {
    env: {
      HEARTH_OPEN_SIGNUP: 'yes',
      HEARTH_BOOTSTRAP_ADMIN: 'boss:bootstrap-password-1',
    },
  },
  (ctx) => {
    test('the bootstrap admin owns household "Home"', async () => {
      const c = new Client(ctx.server.url);
      const res = await c.signIn('boss', 'bootstrap-password-1');
      assert.equal(res.status, 200);
      assert.equal(res.body.household.name, 'Home');
      assert.equal(res.body.role, 'owner');
      assert.equal((await c.get('/api/setup')).body.setup_required, false);
    });

    test('open sign-up creates a separate household and signs in', async () => {
      const c = new Client(ctx.server.url);
      const res = await c.post('/api/signup', {
        username: 'newfamily',
        password: PASSWORD,
        household_name: 'New family',
      });
      assert.equal(res.status, 201);
      assert.equal(res.body.role, 'owner');
      assert.equal(res.body.household.name, 'New family');
      assert.equal((await c.get('/api/session')).body.household.id, res.body.household.id);
      const boss = new Client(ctx.server.url);
      const bossSession = await boss.signIn('boss', 'bootstrap-password-1');
      assert.notEqual(bossSession.body.household.id, res.body.household.id);
      const taken = await new Client(ctx.server.url).post('/api/signup', {
        username: 'NEWFAMILY',
        password: PASSWORD,
        household_name: 'Again',
      });
      assert.equal(taken.status, 409);
    });
  },
);
