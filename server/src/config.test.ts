import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig, loadDotEnv } from './config.js';

describe('configuration', () => {
  test('defaults: port 8080 on loopback, SQLite in ./data, sign-up off', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, path.resolve('data'));
    assert.equal(config.databaseUrl, null);
    assert.equal(config.redisUrl, null);
    assert.equal(config.openSignup, false);
    assert.deepEqual(config.fetchAllowCidrs, []);
  });

  test('reads every documented variable', () => {
    const config = loadConfig({
      HEARTH_PORT: '9000',
      HEARTH_HOST: '0.0.0.0',
      HEARTH_DATA_DIR: '/tmp/hearth-data',
      HEARTH_DATABASE_URL: 'postgres://u@db/hearth',
      HEARTH_REDIS_URL: 'redis://cache:6379',
      HEARTH_BOOTSTRAP_ADMIN: 'mum:a:password:with:colons',
      HEARTH_AGENT_TOKEN: 'agent-token',
      HEARTH_OPEN_SIGNUP: 'ON',
      HEARTH_PUBLIC_URL: 'https://hearth.example/',
      HEARTH_SECRET_KEY: 'k'.repeat(40),
      HEARTH_FETCH_ALLOW_CIDRS: '192.168.1.0/24, fd00::/8',
    });
    assert.equal(config.port, 9000);
    assert.deepEqual(config.bootstrapAdmin, { username: 'mum', password: 'a:password:with:colons' });
    assert.equal(config.openSignup, true);
    assert.equal(config.publicUrl, 'https://hearth.example');
    assert.deepEqual(config.fetchAllowCidrs, ['192.168.1.0/24', 'fd00::/8']);
  });

  test('boolean words true, 1, yes, on mean on', () => {
    for (const v of ['true', '1', 'yes', 'on', 'TRUE'])
      assert.equal(loadConfig({ HEARTH_OPEN_SIGNUP: v }).openSignup, true, v);
    for (const v of ['false', '0', 'no', 'off'])
      assert.equal(loadConfig({ HEARTH_OPEN_SIGNUP: v }).openSignup, false, v);
  });

  test('every bad value is reported at once, each in its own words', () => {
    try {
      loadConfig({
        HEARTH_PORT: 'eighty',
        HEARTH_DATABASE_URL: 'mysql://x',
        HEARTH_REDIS_URL: 'http://x',
        HEARTH_BOOTSTRAP_ADMIN: 'mum:short',
        HEARTH_OPEN_SIGNUP: 'maybe',
        HEARTH_PUBLIC_URL: 'ftp://x',
        HEARTH_SECRET_KEY: 'tiny',
        HEARTH_FETCH_ALLOW_CIDRS: '10.0.0.0/33,nonsense',
        HEARTH_LOG_LEVEL: 'loud',
      });
      assert.fail('expected a ConfigError');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      const text = err.problems.join('\n');
      for (const name of [
        'HEARTH_PORT',
        'HEARTH_DATABASE_URL',
        'HEARTH_REDIS_URL',
        'HEARTH_BOOTSTRAP_ADMIN',
        'HEARTH_OPEN_SIGNUP',
        'HEARTH_PUBLIC_URL',
        'HEARTH_SECRET_KEY',
        'HEARTH_LOG_LEVEL',
      ]) {
        assert.match(text, new RegExp(name), name);
      }
      assert.equal(err.problems.filter((p) => p.includes('HEARTH_FETCH_ALLOW_CIDRS')).length, 2);
    }
  });

  test('HEARTH_TRUST_PROXY takes a hop count or proxy addresses, off by default; true is refused', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ HEARTH_TRUST_PROXY: 'off' }).trustProxy, false);
    assert.equal(loadConfig({ HEARTH_TRUST_PROXY: '0' }).trustProxy, false);
    assert.equal(loadConfig({ HEARTH_TRUST_PROXY: '1' }).trustProxy, 1);
    assert.equal(loadConfig({ HEARTH_TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(
      loadConfig({ HEARTH_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8,loopback' }).trustProxy,
      ['127.0.0.1', '10.0.0.0/8', 'fd00::/8', 'loopback'],
    );
    for (const value of ['true', 'yes', 'ON']) {
      assert.throws(
        () => loadConfig({ HEARTH_TRUST_PROXY: value }),
        (err: ConfigError) =>
          err.problems.length === 1 &&
          /HEARTH_TRUST_PROXY .*would trust every hop.*usually 1/.test(err.problems[0] ?? ''),
      );
    }
    for (const value of ['10.0.0.0/33', 'proxy.example', '-1', '1.5']) {
      assert.throws(
        () => loadConfig({ HEARTH_TRUST_PROXY: value }),
        /HEARTH_TRUST_PROXY must be false, a number of proxies/,
        value,
      );
    }
  });

  test('HEARTH_FETCH_DNS_SERVERS takes addresses with optional ports, empty by default', () => {
    assert.deepEqual(loadConfig({}).fetchDnsServers, []);
    assert.deepEqual(
      loadConfig({ HEARTH_FETCH_DNS_SERVERS: '127.0.0.1:5353, 1.1.1.1,[::1]:53,2606:4700::1111' })
        .fetchDnsServers,
      ['127.0.0.1:5353', '1.1.1.1', '[::1]:53', '2606:4700::1111'],
    );
    try {
      loadConfig({ HEARTH_FETCH_DNS_SERVERS: 'dns.example:53,127.0.0.1:0,127.0.0.1:99999' });
      assert.fail('expected a ConfigError');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.equal(
        err.problems.filter((p) => /HEARTH_FETCH_DNS_SERVERS .*invalid DNS server/.test(p)).length,
        3,
      );
    }
  });

  test('the console vendors default to their real services; the Nintendo app version is a dotted number', () => {
    const config = loadConfig({});
    assert.equal(config.xboxAuthBase, 'https://login.live.com');
    assert.equal(config.xboxApiBase, 'https://mobileaggregator.family.microsoft.com/api');
    assert.equal(config.nintendoAuthBase, 'https://accounts.nintendo.com');
    assert.equal(config.nintendoApiBase, 'https://app.lp1.znma.srv.nintendo.net');
    assert.equal(config.nintendoAppVersion, '2.3.0');
    assert.equal(loadConfig({ HEARTH_NINTENDO_APP_VERSION: '2.10.1' }).nintendoAppVersion, '2.10.1');
    assert.throws(() => loadConfig({ HEARTH_NINTENDO_APP_VERSION: 'latest' }), /HEARTH_NINTENDO_APP_VERSION/);
  });

  test('screenshots: kept 14 days in files by default; the database only with PostgreSQL', () => {
    const config = loadConfig({});
    assert.equal(config.screenshotRetentionDays, 14);
    assert.equal(config.screenshotStorage, 'file');
    assert.equal(loadConfig({ HEARTH_SCREENSHOT_RETENTION_DAYS: '30' }).screenshotRetentionDays, 30);
    assert.throws(
      () => loadConfig({ HEARTH_SCREENSHOT_RETENTION_DAYS: '0' }),
      /HEARTH_SCREENSHOT_RETENTION_DAYS/,
    );
    assert.throws(() => loadConfig({ HEARTH_SCREENSHOT_STORAGE: 'cloud' }), /HEARTH_SCREENSHOT_STORAGE/);
    assert.throws(() => loadConfig({ HEARTH_SCREENSHOT_STORAGE: 'database' }), /needs PostgreSQL/);
    const pg = loadConfig({
      HEARTH_SCREENSHOT_STORAGE: 'Database',
      HEARTH_DATABASE_URL: 'postgres://hearth@127.0.0.1/hearth',
    });
    assert.equal(pg.screenshotStorage, 'database');
  });

  test('a port out of range is refused', () => {
    assert.throws(() => loadConfig({ HEARTH_PORT: '70000' }), /HEARTH_PORT/);
  });

  test('a .env file fills only what the environment leaves unset', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-env-'));
    const file = path.join(dir, '.env');
    writeFileSync(file, '# comment\nHEARTH_PORT=9100\nHEARTH_HOST="0.0.0.0"\nHEARTH_LOG_LEVEL=debug\n');
    const env = process.env;
    delete env.HEARTH_PORT;
    delete env.HEARTH_HOST;
    env.HEARTH_LOG_LEVEL = 'warn';
    loadDotEnv(file);
    assert.equal(env.HEARTH_PORT, '9100');
    assert.equal(env.HEARTH_HOST, '0.0.0.0');
    assert.equal(env.HEARTH_LOG_LEVEL, 'warn');
  });

  test('a missing .env file is no error', () => {
    loadDotEnv(path.join(mkdtempSync(path.join(tmpdir(), 'hearth-env-')), '.env'));
  });
});
