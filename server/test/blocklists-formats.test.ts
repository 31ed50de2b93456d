import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainList } from '../src/features/blocklists/domain-list.js';
import { detectFormat, firstLines, parseList, sortedDistinct } from '../src/features/blocklists/formats.js';

// Snippets written in the styles of the lists parents subscribe to (hosts files with their machine
// header, adblock filter lists for DNS blockers, plain domain lists); not copied from any list.
const HOSTS = `# Title: Family hosts (example)
# Last modified: 2026-01-01
#
# ===============================================================

127.0.0.1 localhost
127.0.0.1 localhost.localdomain
127.0.0.1 local
255.255.255.255 broadcasthost
::1 localhost ip6-localhost ip6-loopback
fe80::1%lo0 localhost
ff00::0 ip6-localnet
ff02::1 ip6-allnodes
0.0.0.0 0.0.0.0

# ads
0.0.0.0 ads.example.com
0.0.0.0 Tracker.Example.NET.   # trailing dot and capitals
127.0.0.1 pixel.example.org beacon.example.org\tmetrics.example.org
:: v6-sink.example.com
0.0.0.0 bücher-ads.example
0.0.0.0\tads.example.com
192.168.1.1 router.lan
0.0.0.0 bad_name.example.com good.example.com
0.0.0.0
`;

const ADBLOCK = `[Adblock Plus 2.0]
! Title: Family filter (example)
! Expires: 1 day
||ads.example.com^
||TRACKER.example.net^
@@||cdn.ads.example.com^
||banner.example.org^$third-party
example.com##.ad-banner
##.sponsored
#@#.not-an-ad
/banner/*/img^
||images.example.com/ads^
|https://full.example.com/|
# a comment in hash style
||bücher.example^
`;

const DOMAINS = `# one domain a line
games.example.com
Social.Example.net.
! a bang comment
video.example.org   # inline comment
not a domain
192.0.2.10
games.example.com
`;

describe('blocklist formats', () => {
  test('hosts: sink addresses, several names a line, the machine header passed over, invalid lines counted', () => {
    const list = parseList(HOSTS, 'hosts');
    assert.equal(list.format, 'hosts');
    assert.deepEqual(list.block, [
      'ads.example.com',
      'beacon.example.org',
      'good.example.com',
      'metrics.example.org',
      'pixel.example.org',
      'tracker.example.net',
      'v6-sink.example.com',
      'xn--bcher-ads-q9a.example',
    ]);
    assert.deepEqual(list.allow, []);
    // "192.168.1.1 router.lan" (not a sink), "bad_name…" (an invalid name beside a good one), "0.0.0.0" alone.
    assert.equal(list.skipped_lines, 3);
  });

  test('adblock: only ||d^ blocks and @@||d^ allows; every other rule is skipped and counted', () => {
    const list = parseList(ADBLOCK, 'adblock');
    assert.equal(list.format, 'adblock');
    assert.deepEqual(list.block, ['ads.example.com', 'tracker.example.net', 'xn--bcher-kva.example']);
    assert.deepEqual(list.allow, ['cdn.ads.example.com']);
    // $third-party, example.com##, ##, #@#, /banner/, a path rule, a URL rule.
    assert.equal(list.skipped_lines, 7);
  });

  test('domains: one a line, normalised, repeats once, comments and IPs not domains', () => {
    const list = parseList(DOMAINS, 'domains');
    assert.deepEqual(list.block, ['games.example.com', 'social.example.net', 'video.example.org']);
    assert.equal(list.skipped_lines, 2);
  });

  test('auto decides from the content', () => {
    assert.equal(detectFormat(HOSTS), 'hosts');
    assert.equal(detectFormat(ADBLOCK), 'adblock');
    assert.equal(detectFormat(ADBLOCK.replace('[Adblock Plus 2.0]\n', '')), 'adblock');
    assert.equal(detectFormat(DOMAINS), 'domains');
    assert.equal(detectFormat(''), 'domains');
    assert.equal(parseList(HOSTS).format, 'hosts');
    assert.deepEqual(parseList(ADBLOCK).block, parseList(ADBLOCK, 'adblock').block);
    // Windows line ends change nothing.
    assert.deepEqual(parseList(HOSTS.replaceAll('\n', '\r\n')), parseList(HOSTS));
  });

  test('the preview shows the first non-empty lines as fetched', () => {
    const lines = firstLines(HOSTS, 20);
    assert.equal(lines.length, 20);
    assert.equal(lines[0], '# Title: Family hosts (example)');
    assert.ok(!lines.includes(''));
  });

  test('sorting matches the code-unit order, repeats dropped, over the radix buckets', () => {
    const words: string[] = [];
    for (let i = 0; i < 5000; i++)
      words.push(`${(i * 7919).toString(36)}${i % 3 ? '.example' : ''}`, `a${i % 50}`);
    const expected = [...new Set(words)].sort();
    assert.deepEqual(sortedDistinct(words), expected);
  });
});

describe('domain lists in memory', () => {
  const list = DomainList.fromSorted(['ads.example.com', 'example.net', 'tracker.example.org']);

  test('a lookup finds an entry and the parents that cover a name', () => {
    assert.ok(list.has('example.net'));
    assert.ok(!list.has('example.com'));
    assert.deepEqual(list.covering('a.b.example.net'), ['example.net']);
    assert.deepEqual(list.covering('ads.example.com'), ['ads.example.com']);
    assert.deepEqual(list.covering('example.com'), []);
    assert.deepEqual(DomainList.EMPTY.covering('example.com'), []);
  });

  test('text round trip, union without repeats, entries covered by an allow removed', () => {
    const again = DomainList.fromText(Buffer.from(list.text));
    assert.deepEqual(again.toArray(), list.toArray());
    const other = DomainList.fromSorted(['a.example', 'example.net', 'zz.example']);
    assert.deepEqual(DomainList.union([list, other, DomainList.EMPTY]).toArray(), [
      'a.example',
      'ads.example.com',
      'example.net',
      'tracker.example.org',
      'zz.example',
    ]);
    const allow = DomainList.fromSorted(['example.org', 'zz.example']);
    const union = DomainList.union([list, other]);
    assert.deepEqual(union.without(allow).toArray(), ['a.example', 'ads.example.com', 'example.net']);
    // Many allow entries take the other path to the same answer.
    const many = DomainList.fromSorted(
      sortedDistinct([...allow.toArray(), ...Array.from({ length: 40 }, (_, i) => `x${i}.example`)]),
    );
    assert.deepEqual(union.without(many).toArray(), ['a.example', 'ads.example.com', 'example.net']);
    assert.equal(union.without(DomainList.fromSorted(union.toArray())).count, 0);
    assert.equal(list.jsonArray(), JSON.stringify(list.toArray()));
    assert.equal(DomainList.EMPTY.jsonArray(), '[]');
  });
});
