import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AddressPolicy, hostnameRefusal } from './address-policy.js';

describe('address policy', () => {
  const closed = new AddressPolicy([]);

  test('public unicast passes, IPv4 and IPv6', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.215.14',
      '2606:4700:4700::1111',
      '2a00:1450:4001::200e',
    ])
      assert.equal(closed.refusal(address), null, address);
  });

  test('the IPv6 forms of a public IPv4 address pass: mapped, NAT64 and 6to4', () => {
    for (const address of ['::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::808:808', '2002:808:808::1'])
      assert.equal(closed.refusal(address), null, address);
  });

  test('each special-purpose range is refused with its own reason', () => {
    const cases: [string, RegExp][] = [
      ['0.1.2.3', /unspecified/],
      ['10.20.30.40', /private/],
      ['100.127.255.254', /carrier-grade NAT/],
      ['127.255.255.254', /loopback/],
      ['169.254.169.254', /link-local/],
      ['172.20.0.1', /private/],
      ['192.0.0.170', /IETF/],
      ['192.0.2.200', /documentation/],
      ['192.88.99.1', /6to4 relay/],
      ['192.168.255.255', /private/],
      ['198.19.255.255', /benchmarking/],
      ['198.51.100.1', /documentation/],
      ['203.0.113.255', /documentation/],
      ['239.255.255.250', /multicast/],
      ['255.255.255.255', /broadcast/],
      ['250.1.2.3', /reserved/],
      ['::', /unspecified/],
      ['::1', /loopback/],
      ['::10.0.0.1', /IPv4-compatible/],
      ['::ffff:10.0.0.1', /private/],
      ['64:ff9b::a9fe:a9fe', /NAT64 form of a link-local/],
      ['64:ff9b:1::1', /local-use NAT64/],
      ['2002:a00:1::1', /6to4 form of a private/],
      ['100::1', /discard/],
      ['2001::1', /Teredo/],
      ['2001:2::1', /benchmarking/],
      ['2001:db8:1::1', /documentation/],
      ['2001:10::1', /IETF/],
      ['3fff::1', /documentation/],
      ['fc00::1', /unique local/],
      ['fdff:ffff::1', /unique local/],
      ['fe80::1', /link-local/],
      ['febf::1', /link-local/],
      ['fec0::1', /site-local/],
      ['ff02::1', /multicast/],
      ['4000::1', /reserved/],
    ];
    for (const [address, reason] of cases) assert.match(closed.refusal(address) ?? 'passed', reason, address);
  });

  test('HEARTH_FETCH_ALLOW_CIDRS opens exactly its networks, per family', () => {
    const opened = new AddressPolicy(['192.168.1.0/24', 'fd00:1::/64', '127.0.0.1/32']);
    assert.equal(opened.refusal('192.168.1.77'), null);
    assert.equal(opened.refusal('::ffff:192.168.1.77'), null);
    assert.equal(opened.refusal('fd00:1::5'), null);
    assert.equal(opened.refusal('127.0.0.1'), null);
    assert.match(opened.refusal('192.168.2.1') ?? '', /private/);
    assert.match(opened.refusal('fd00:2::5') ?? '', /unique local/);
    assert.match(opened.refusal('127.0.0.2') ?? '', /loopback/);
    // An IPv6 rule does not open IPv4 addresses through Node's mapped matching, nor the reverse.
    const v6Only = new AddressPolicy(['::ffff:0:0/96']);
    assert.match(v6Only.refusal('10.0.0.1') ?? '', /private/);
  });

  test('local and metadata names are refused, public names are not', () => {
    for (const name of [
      'localhost',
      'localhost.',
      'api.localhost',
      'localhost.localdomain',
      'box.localdomain',
      'printer.local',
      'metadata.google.internal',
      'vault.internal',
      'metadata',
      'router',
      'nas.home.arpa',
      'pihole.lan',
    ])
      assert.ok(hostnameRefusal(name), name);
    for (const name of [
      'lists.example.org',
      'raw.githubusercontent.com',
      'xn--bcher-kva.example',
      '127.0.0.1',
      '::1',
    ])
      assert.equal(hostnameRefusal(name), null, name);
  });
});
