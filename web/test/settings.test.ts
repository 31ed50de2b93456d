import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { defaultTasks, WorkerLoop } from '../../server/src/worker/loop.ts';
import { addParent, type TestServer } from '../../server/test/helpers.ts';
import {
  browserSkipReason,
  Client,
  closeHousehold,
  closePage,
  gotoLive,
  type Owner,
  openHousehold,
  openPage,
  PASSWORD,
  screenshot,
} from './support.ts';

const skip = browserSkipReason();

describe('settings', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ann: { id: string };

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
    ann = (await owner.client.post('/api/user/create', { name: 'Ann', overlay_age_tier: 'teen' })).body;
    await owner.client.post('/api/user/create', { name: 'Ben', overlay_age_tier: 'under8' });
  });
  after(() => closeHousehold({ server, browser }));

  test('adds a member parent who can view one child', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/settings`);
    await page.getByRole('heading', { name: 'Parents and carers' }).waitFor();
    await page.getByTestId('server-version').getByText('Server version 0.57.0').waitFor();
    await page.getByTestId('parent-row').filter({ hasText: 'maria' }).getByText('Owner').waitFor();

    const form = page.getByRole('form', { name: 'Add a parent or carer' });
    await form.getByLabel('Username').fill('grandma');
    await form.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    assert.match(await form.getByLabel('Role').inputValue(), /^Member/);
    await form.getByRole('group', { name: 'Ann' }).getByLabel('Can view').check();
    await form.getByRole('button', { name: 'Add parent or carer' }).click();
    await page.getByText('grandma can now sign in.').waitFor();
    const row = page.getByTestId('parent-row').filter({ hasText: 'grandma' });
    await row.getByText('Member').waitFor();
    await row.getByText('Ann: can view').waitFor();
    await screenshot(page, 'settings.png');

    const parents = await owner.client.get('/api/household/parents');
    const grandma = parents.body.items.find((p: { username: string }) => p.username === 'grandma');
    assert.equal(grandma.role, 'member');
    assert.deepEqual(grandma.children, [
      { managed_user_id: ann.id, can_view: true, can_manage_policies: false },
    ]);

    // The new member signs in and sees only Ann.
    const member = new Client(server.url);
    assert.equal((await member.signIn('grandma', PASSWORD)).status, 200);
    const seen = await member.get('/api/users');
    assert.deepEqual(
      seen.body.items.map((u: { name: string }) => u.name),
      ['Ann'],
    );
    await closePage(handle);
  });

  test('a member sees their children but cannot add children or parents', async () => {
    const member = new Client(server.url);
    assert.equal((await member.signIn('grandma', PASSWORD)).status, 200);
    const handle = await openPage(browser, server, { as: member });
    const { page } = handle;
    await page.goto(`${server.url}/children`);
    await page.getByText('Only an owner or admin of the household can add children.').waitFor();
    await page.getByTestId('child-row').filter({ hasText: 'Ann' }).waitFor();
    assert.equal(await page.getByTestId('child-row').count(), 1);

    // Viewing is not managing: saving the card answers 403 and the page says why.
    await page.getByTestId('child-row').filter({ hasText: 'Ann' }).click();
    const card = page.getByRole('form', { name: 'Hearth Space card' });
    await card.getByLabel('Parent note').fill('Hello from Grandma');
    await card.getByRole('button', { name: 'Save card' }).click();
    await card
      .getByText('You can see this child but not change their settings; ask the household owner.')
      .waitFor();

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByText('Only an owner or admin can add or change parents and carers.').waitFor();
    assert.equal(await page.getByRole('form', { name: 'Add a parent or carer' }).count(), 0);
    await closePage(handle);
  });

  test('demoting the last owner explains why it cannot be done', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/settings`);
    await page.getByRole('button', { name: 'Change maria' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change maria' });
    await dialog.getByLabel('Role').click();
    await page.getByRole('option', { name: /^Admin/ }).click();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog
      .getByText('This is the last owner of the household; make someone else an owner first.')
      .waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const me = (await owner.client.get('/api/session')).body;
    assert.equal(me.role, 'owner');
    await closePage(handle);
  });

  test('an owner gives a member permission to manage a child', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/settings`);
    await page.getByRole('button', { name: 'Change grandma' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change grandma' });
    await dialog.getByRole('group', { name: 'Ann' }).getByLabel('Can manage').check();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('grandma is updated.').waitFor();
    await page
      .getByTestId('parent-row')
      .filter({ hasText: 'grandma' })
      .getByText('Ann: can view and manage')
      .waitFor();

    const parents = await owner.client.get('/api/household/parents');
    const grandma = parents.body.items.find((p: { username: string }) => p.username === 'grandma');
    assert.deepEqual(grandma.children, [
      { managed_user_id: ann.id, can_view: true, can_manage_policies: true },
    ]);
    await closePage(handle);
  });

  test('Settings shows the worker and each task, and Run tasks now asks the worker to run them again', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/settings`);
    const card = page.getByRole('region', { name: 'Background tasks' });
    await card.getByTestId('worker-status').getByText('Worker not running').waitFor();
    await card.getByText('No task has run yet.').waitFor();

    await card.getByRole('button', { name: 'Run tasks now' }).click();
    await page.getByText('Every task runs as soon as a worker starts.').waitFor();

    // A worker (as `hearth worker` runs it) takes the request, plus a task that fails.
    const quiet = () => {};
    const log = { info: quiet, warn: quiet, error: quiet } as unknown as ConstructorParameters<
      typeof WorkerLoop
    >[2];
    const tasks = [
      ...defaultTasks(server.services),
      {
        name: 'check-backups',
        everyMs: 60_000,
        run: async (): Promise<string> => {
          throw new Error('The backup folder is not writable.');
        },
      },
    ];
    const loop = new WorkerLoop(tasks, server.services.worker, log);
    try {
      await loop.tick();
      assert.equal(loop.isLeader, true);
      await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
      await card.getByTestId('worker-status').getByText('Worker running').waitFor();
      await card.getByTestId('worker-status').getByText('Last heartbeat just now').waitFor();
      const rows = card.getByTestId('task-row');
      await rows.nth(tasks.length - 1).waitFor();
      assert.equal(await rows.count(), tasks.length);
      await rows.filter({ hasText: 'Download blocklists again' }).waitFor();
      const alertsTask = rows.filter({ hasText: 'Delete old alerts' });
      await alertsTask.getByText(/^deleted \d+ alerts older than \d+ days$/).waitFor();
      await alertsTask.getByText('OK', { exact: true }).waitFor();
      await alertsTask.getByText(/Runs every 6 hours · last just now, took \d+ ms · 1 run$/).waitFor();
      const failing = rows.filter({ hasText: 'Check backups' });
      await failing.getByText('Last run failed').waitFor();
      await failing.getByText('Error: The backup folder is not writable.').waitFor();
      await failing.getByText(/1 run, 1 failure$/).waitFor();

      // Asking again while the worker runs: it runs every task on its next heartbeat.
      await card.getByRole('button', { name: 'Run tasks now' }).click();
      await page.getByText('The worker runs every task again within a few seconds.').waitFor();
      await loop.tick(Date.now() + 6000);
      assert.equal(
        (await server.services.worker.status()).tasks.find((t) => t.name === 'prune-alerts')?.runs,
        2,
      );
      await closePage(handle);

      // A member sees the card but cannot start the tasks.
      const member = await addParent(server, owner, 'member');
      assert.equal((await member.post('/restart-tasks')).status, 403);
      const view = await openPage(browser, server, { as: member });
      await view.page.goto(`${server.url}/settings`);
      const memberCard = view.page.getByRole('region', { name: 'Background tasks' });
      await memberCard.getByTestId('task-row').first().waitFor();
      assert.equal(await memberCard.getByRole('button', { name: 'Run tasks now' }).count(), 0);
      await closePage(view);
    } finally {
      await loop.stop();
    }
  });
});
