import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addParent, Client, createHousehold, describeWithServer, PASSWORD } from './helpers.js';

describeWithServer('household parents', {}, (ctx) => {
  test('the owner is listed holding every child; a member holds what was granted', async () => {
    const home = await createHousehold(ctx.server, 'Parents home');
    const ann = (await home.client.post('/api/user/create', { name: 'Ann' })).body;
    const bob = (await home.client.post('/api/user/create', { name: 'Bob' })).body;
    const created = await home.client.post('/api/household/parents', {
      username: 'Grandma',
      password: PASSWORD,
      role: 'member',
      // Managing implies seeing; a grant of nothing is dropped.
      children: [
        { managed_user_id: ann.id, can_view: false, can_manage_policies: true },
        { managed_user_id: bob.id, can_view: false, can_manage_policies: false },
      ],
    });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['children', 'created_at', 'id', 'role', 'username']);
    assert.deepEqual(created.body.children, [
      { managed_user_id: ann.id, can_view: true, can_manage_policies: true },
    ]);

    const list = await home.client.get('/api/household/parents');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.items.map((p: { username: string; role: string }) => [p.username, p.role]),
      [
        ['Grandma', 'member'],
        [home.username, 'owner'],
      ],
    );
    const owner = list.body.items[1];
    assert.deepEqual(
      owner.children.map((c: { managed_user_id: string }) => c.managed_user_id).sort(),
      [ann.id, bob.id].sort(),
    );
    assert.ok(
      owner.children.every(
        (c: { can_view: boolean; can_manage_policies: boolean }) => c.can_view && c.can_manage_policies,
      ),
    );

    const grandma = new Client(ctx.server.url);
    assert.equal((await grandma.signIn('grandma', PASSWORD)).body.role, 'member');
  });

  test('creating parents: taken names, short passwords, foreign children and role limits', async () => {
    const home = await createHousehold(ctx.server, 'Rules home');
    const other = await createHousehold(ctx.server, 'Other home');
    const foreignChild = (await other.client.post('/api/user/create', { name: 'Theirs' })).body;

    const taken = await home.client.post('/api/household/parents', {
      username: other.username.toUpperCase(),
      password: PASSWORD,
      role: 'member',
    });
    assert.equal(taken.status, 409);
    const short = await home.client.post('/api/household/parents', {
      username: 'shorty',
      password: 'short',
      role: 'member',
    });
    assert.equal(short.status, 400);
    const badRole = await home.client.post('/api/household/parents', {
      username: 'x1',
      password: PASSWORD,
      role: 'king',
    });
    assert.equal(badRole.status, 400);
    const foreign = await home.client.post('/api/household/parents', {
      username: 'x2',
      password: PASSWORD,
      role: 'member',
      children: [{ managed_user_id: foreignChild.id, can_view: true, can_manage_policies: false }],
    });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'not_found');

    const admin = await addParent(ctx.server, home, 'admin');
    const adminMakesOwner = await admin.post('/api/household/parents', {
      username: 'x3',
      password: PASSWORD,
      role: 'owner',
    });
    assert.equal(adminMakesOwner.status, 403);
    assert.equal(
      (await admin.post('/api/household/parents', { username: 'x4', password: PASSWORD, role: 'member' }))
        .status,
      201,
    );

    const member = await addParent(ctx.server, home, 'member');
    const memberAdds = await member.post('/api/household/parents', {
      username: 'x5',
      password: PASSWORD,
      role: 'member',
    });
    assert.equal(memberAdds.status, 403);
    assert.equal(memberAdds.body.error.code, 'forbidden');
    const usernames = (await home.client.get('/api/household/parents')).body.items.map(
      (p: { username: string }) => p.username,
    );
    assert.ok(
      !usernames.includes('x1') &&
        !usernames.includes('x2') &&
        !usernames.includes('x3') &&
        !usernames.includes('x5'),
    );
    assert.ok(usernames.includes('x4'));
  });

  test('roles change, but the last owner cannot be demoted', async () => {
    const home = await createHousehold(ctx.server, 'Owner home');
    const last = await home.client.patch(`/api/household/parents/${home.parentId}`, { role: 'admin' });
    assert.equal(last.status, 409);
    assert.equal(last.body.error.code, 'conflict');

    const second = (
      await home.client.post('/api/household/parents', {
        username: 'co-owner',
        password: PASSWORD,
        role: 'owner',
      })
    ).body;
    const demoted = await home.client.patch(`/api/household/parents/${second.id}`, { role: 'member' });
    assert.equal(demoted.status, 200);
    assert.equal(demoted.body.role, 'member');
    const promoted = await home.client.patch(`/api/household/parents/${second.id}`, { role: 'owner' });
    assert.equal(promoted.body.role, 'owner');
    const selfDemote = await home.client.patch(`/api/household/parents/${home.parentId}`, {
      role: 'admin',
    });
    assert.equal(selfDemote.status, 200);
    // Now an admin, the first parent may not touch the remaining owner.
    const touchOwner = await home.client.patch(`/api/household/parents/${second.id}`, { role: 'member' });
    assert.equal(touchOwner.status, 403);
  });

  test('member permissions are replaced by PATCH, and a new password signs the parent out elsewhere', async () => {
    const home = await createHousehold(ctx.server, 'Password home');
    const child = (await home.client.post('/api/user/create', { name: 'Cal' })).body;
    const created = (
      await home.client.post('/api/household/parents', {
        username: 'nanny',
        password: PASSWORD,
        role: 'member',
      })
    ).body;
    const nanny = new Client(ctx.server.url);
    await nanny.signIn('nanny', PASSWORD);
    assert.deepEqual((await nanny.get('/api/users')).body.items, []);

    const granted = await home.client.patch(`/api/household/parents/${created.id}`, {
      children: [{ managed_user_id: child.id, can_view: true, can_manage_policies: false }],
    });
    assert.equal(granted.status, 200);
    assert.equal((await nanny.get('/api/users')).body.items.length, 1);

    const reset = await home.client.patch(`/api/household/parents/${created.id}`, {
      password: 'a brand new password',
    });
    assert.equal(reset.status, 200);
    assert.equal((await nanny.get('/api/users')).status, 401);
    assert.equal((await new Client(ctx.server.url).signIn('nanny', PASSWORD)).status, 401);
    assert.equal((await new Client(ctx.server.url).signIn('nanny', 'a brand new password')).status, 200);

    for (const body of [{ role: 'emperor' }, { password: 'short' }, { nickname: 'x' }]) {
      assert.equal(
        (await home.client.patch(`/api/household/parents/${created.id}`, body)).status,
        400,
        JSON.stringify(body),
      );
    }
    assert.equal((await home.client.patch('/api/household/parents/nobody', { role: 'admin' })).status, 404);
  });
});
