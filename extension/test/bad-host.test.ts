// A native host that misbehaves — frames of nonsense, a length it never sends, or no answer at all — is a
// real process on the other end of Chromium's native messaging. Whatever it does, the worker keeps
// running, a sign-up on this Hearth computer is held back (never a false allow), an ordinary login page
// is left alone, and the popup says the agent is not answering properly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import {
  ensureBuilt,
  html,
  isOverlay,
  landsOn,
  launchWithExtension,
  open,
  registerHostScript,
  Sites,
  skipReason,
  statusOf,
  until,
} from './stack.ts';

/** Hosts written as small Node programs speaking (or failing to speak) Chrome's framing on stdio. */
const HOSTS = {
  garbage: `
    process.stdin.on('data', () => {
      const junk = Buffer.from('this is not JSON {');
      const head = Buffer.alloc(4);
      head.writeUInt32LE(junk.length, 0);
      process.stdout.write(Buffer.concat([head, junk]));
    });`,
  'cut-frame': `
    process.stdin.on('data', () => {
      const head = Buffer.alloc(4);
      head.writeUInt32LE(4096, 0);
      process.stdout.write(Buffer.concat([head, Buffer.from('{"id":"1","allowed":tr')]));
    });`,
  silent: `
    process.stdin.on('data', () => {});
    process.stdin.resume();`,
} as const;

const SIGNUP = html(
  'Join',
  `<h1>Create your account</h1><form method="post" action="/done">
    <label>Email <input type="email" name="email"></label>
    <label>Password <input type="password" name="password" autocomplete="new-password"></label>
    <button>Create account</button></form>`,
);
const LOGIN = html(
  'Log in',
  `<h1>Log in</h1><form method="post" action="/in">
    <label>Username <input name="username" autocomplete="username"></label>
    <label>Password <input type="password" name="password" autocomplete="current-password"></label>
    <button type="submit">Log in</button></form>`,
);

describe('a misbehaving native host: no crash, no false allow', { skip: skipReason }, () => {
  const sites = new Sites();
  before(async () => {
    ensureBuilt();
    await sites.start();
  });
  after(() => sites.close());

  for (const [name, body] of Object.entries(HOSTS)) {
    test(`${name}: the sign-up is held back, a login page stays, the popup says why`, async () => {
      const profile = mkdtempSync(path.join(tmpdir(), `hearth-bad-host-${name}-`));
      registerHostScript(profile, `#!${process.execPath}\n${body}\n`);
      let context: BrowserContext | null = null;
      try {
        context = await launchWithExtension(profile);
        const signup = await open(context, sites.page(`${name}.join.test`, '/welcome', SIGNUP));
        const q = (await landsOn(signup, isOverlay, 'Hearth Space')).searchParams;
        assert.equal(q.get('reason'), 'signup');
        assert.equal(q.get('device'), `${name}.join.test`);
        assert.equal(q.get('context'), 'unreachable');

        // The redirect and the popup's status are written separately: wait for the status to say both.
        const status = await until(async () => {
          const s = await statusOf(context as BrowserContext);
          const gaveUp = s && s.connection !== 'connecting' && s.connection !== 'connected';
          return gaveUp && s.lastCheck?.outcome === 'failed_closed' ? s : null;
        }, 'the worker to give up on the host and record the held sign-up');
        assert.ok(['host_failed', 'agent_unreachable'].includes(status.connection), status.connection);
        assert.equal(status.lastCheck?.domain, `${name}.join.test`);

        // The worker is alive and still judges pages: a login page is not a sign-up.
        const login = await open(context, sites.page(`${name}.login.test`, '/', LOGIN));
        await login.waitForSelector('h1');
        assert.equal(new URL(login.url()).hostname, `${name}.login.test`);
        assert.ok(await statusOf(context), 'the worker still answers');
      } finally {
        await context?.close();
        rmSync(profile, { recursive: true, force: true });
      }
    });
  }
});
