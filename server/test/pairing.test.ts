import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { createHousehold, describeWithServer, startTestServer, within } from './helpers.js';

// jsqr is CommonJS: its default export arrives as the module itself.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule.default }).default ??
  jsQRModule) as unknown as typeof jsQRModule.default;

async function decodeQr(url: string, cookie: string): Promise<unknown> {
  const res = await fetch(url, { headers: { cookie } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  assert.ok(code, 'the PNG holds a readable QR code');
  return JSON.parse(code.data);
}

describeWithServer(
  'pairing',
  { env: { HEARTH_PUBLIC_URL: 'https://hearth.example.org/' }, household: 'Pairing home' },
  (ctx) => {
    test('the pairing config names the public address and the household token, and the QR encodes its payload', async () => {
      const res = await ctx.home.client.get('/api/pairing/config');
      assert.equal(res.status, 200);
      const token = res.body.enrollment_token;
      assert.ok(token.length >= 24);
      assert.deepEqual(res.body, {
        server_url: 'https://hearth.example.org',
        ws_url: 'wss://hearth.example.org/ws',
        enrollment_token: token,
        payload: { type: 'hearth_pairing', ws_url: 'wss://hearth.example.org/ws', enrollment_token: token },
      });
      assert.deepEqual(
        await decodeQr(`${ctx.server.url}/api/pairing/qr.png`, ctx.home.client.cookie ?? ''),
        res.body.payload,
      );
    });

    test('without HEARTH_PUBLIC_URL the address the parent used is given', async () => {
      const local = await startTestServer(ctx.db);
      try {
        const owner = await createHousehold(local, 'Local');
        const res = await owner.client.get('/api/pairing/config');
        assert.equal(res.body.server_url, local.url);
        assert.equal(res.body.ws_url, `${local.url.replace('http', 'ws')}/ws`);
      } finally {
        await local.close();
      }
    });

    test('provisioning: extras carry the server and token; the APK checksum appears once an APK is uploaded', async () => {
      const before = await ctx.home.client.get('/api/pairing/provisioning/config');
      assert.equal(before.status, 200);
      assert.equal(before.body.apk_available, false);
      const extras = before.body.payload['android.app.extra.PROVISIONING_ADMIN_EXTRAS_BUNDLE'];
      assert.deepEqual(extras, {
        hearth_server_url: 'https://hearth.example.org',
        hearth_ws_url: 'wss://hearth.example.org/ws',
        hearth_enrollment_token: before.body.enrollment_token,
      });
      assert.equal(
        before.body.payload['android.app.extra.PROVISIONING_DEVICE_ADMIN_PACKAGE_CHECKSUM'],
        undefined,
      );

      const missing = await ctx.home.client.get('/api/pairing/provisioning/apk');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, 'not_found');
      assert.match(missing.body.error.message, /artifacts\/hearth-agent\.apk/);

      const apk = Buffer.from('PK\u0003\u0004 pretend android package');
      mkdirSync(path.join(ctx.server.dataDir, 'artifacts'), { recursive: true });
      writeFileSync(path.join(ctx.server.dataDir, 'artifacts', 'hearth-agent.apk'), apk);
      const after = await ctx.home.client.get('/api/pairing/provisioning/config');
      assert.equal(after.body.apk_available, true);
      assert.equal(
        after.body.payload['android.app.extra.PROVISIONING_DEVICE_ADMIN_PACKAGE_CHECKSUM'],
        createHash('sha256').update(apk).digest('base64url'),
      );
      // The phone being provisioned has no session: it downloads from the household's own address.
      const location = after.body.payload[
        'android.app.extra.PROVISIONING_DEVICE_ADMIN_PACKAGE_DOWNLOAD_LOCATION'
      ] as string;
      assert.match(
        location,
        new RegExp(
          `^https://hearth\\.example\\.org/api/pairing/provisioning/apk/${ctx.home.householdId}\\.[0-9a-f]{64}$`,
        ),
      );
      const fromQr = await fetch(`${ctx.server.url}${new URL(location).pathname}`);
      assert.equal(fromQr.status, 200, 'the QR address needs no session');
      assert.equal(fromQr.headers.get('content-type'), 'application/vnd.android.package-archive');
      assert.deepEqual(Buffer.from(await fromQr.arrayBuffer()), apk);
      const forged = await fetch(
        `${ctx.server.url}/api/pairing/provisioning/apk/${ctx.home.householdId}.${'0'.repeat(64)}`,
      );
      assert.equal(forged.status, 404, 'a made-up token finds nothing');
      const other = await createHousehold(ctx.server, 'Other provisioning');
      const otherPath = new URL(
        (await other.client.get('/api/pairing/provisioning/config')).body.payload[
          'android.app.extra.PROVISIONING_DEVICE_ADMIN_PACKAGE_DOWNLOAD_LOCATION'
        ] as string,
      ).pathname;
      assert.notEqual(otherPath, new URL(location).pathname, "each household's QR has its own address");
      assert.deepEqual(
        await decodeQr(`${ctx.server.url}/api/pairing/provisioning/qr.png`, ctx.home.client.cookie ?? ''),
        after.body.payload,
      );

      const download = await fetch(`${ctx.server.url}/api/pairing/provisioning/apk`, {
        headers: { cookie: ctx.home.client.cookie ?? '' },
      });
      assert.equal(download.status, 200);
      assert.equal(download.headers.get('content-type'), 'application/vnd.android.package-archive');
      assert.match(
        download.headers.get('content-disposition') ?? '',
        /attachment; filename="hearth-agent\.apk"/,
      );
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), apk);
      assert.equal((await fetch(`${ctx.server.url}/api/pairing/provisioning/apk`)).status, 401);
    });

    test('the Windows installer download serves the uploaded MSI, or says where to put it', async () => {
      const missing = await ctx.home.client.get('/api/pairing/windows/msi');
      assert.equal(missing.status, 404);
      assert.match(missing.body.error.message, /hearth-agent\.msi/);
      const msi = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 1, 2, 3]);
      mkdirSync(path.join(ctx.server.dataDir, 'artifacts'), { recursive: true });
      writeFileSync(path.join(ctx.server.dataDir, 'artifacts', 'hearth-agent.msi'), msi);
      const res = await fetch(`${ctx.server.url}/api/pairing/windows/msi`, {
        headers: { cookie: ctx.home.client.cookie ?? '' },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/x-msi');
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), msi);
    });

    test('a server closed right after a download stops at once, not when the kept-alive connection times out', async () => {
      const own = await startTestServer(ctx.db);
      let stopped = false;
      try {
        const owner = await createHousehold(own, 'Closing');
        mkdirSync(path.join(own.dataDir, 'artifacts'), { recursive: true });
        writeFileSync(path.join(own.dataDir, 'artifacts', 'hearth-agent.msi'), Buffer.from([0xd0, 0xcf, 1]));
        // A kept-alive connection (fetch's default), closed the moment the file has arrived.
        const res = await fetch(`${own.url}/api/pairing/windows/msi`, {
          headers: { cookie: owner.client.cookie ?? '' },
        });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
        // A bound far below the server's keep-alive time (72 s), which the close used to wait out.
        const outcome = await within(
          own.close().then(() => 'closed'),
          30_000,
        );
        stopped = outcome === 'closed';
        assert.equal(outcome, 'closed');
      } finally {
        if (!stopped) await own.close();
      }
    });
  },
);
