import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainCollector, DomainList } from '../src/features/blocklists/domain-list.js';
import { EffectiveList } from '../src/features/blocklists/effective-list.js';
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
    assert.deepEqual(list.block.toArray(), [
      'ads.example.com',
      'beacon.example.org',
      'good.example.com',
      'metrics.example.org',
      'pixel.example.org',
      'tracker.example.net',
      'v6-sink.example.com',
      'xn--bcher-ads-q9a.example',
    ]);
    assert.deepEqual(list.allow.toArray(), []);
    // "192.168.1.1 router.lan" (not a sink), "bad_name…" (an invalid name beside a good one), "0.0.0.0" alone.
    assert.equal(list.skipped_lines, 3);
  });

  test('adblock: only ||d^ blocks and @@||d^ allows; every other rule is skipped and counted', () => {
    const list = parseList(ADBLOCK, 'adblock');
    assert.equal(list.format, 'adblock');
    assert.deepEqual(list.block.toArray(), [
      'ads.example.com',
      'tracker.example.net',
      'xn--bcher-kva.example',
    ]);
    assert.deepEqual(list.allow.toArray(), ['cdn.ads.example.com']);
    // $third-party, example.com##, ##, #@#, /banner/, a path rule, a URL rule.
    assert.equal(list.skipped_lines, 7);
  });

  test('domains: one a line, normalised, repeats once, comments and IPs not domains', () => {
    const list = parseList(DOMAINS, 'domains');
    assert.deepEqual(list.block.toArray(), ['games.example.com', 'social.example.net', 'video.example.org']);
    assert.equal(list.skipped_lines, 2);
  });

  test('auto decides from the content', () => {
    assert.equal(detectFormat(HOSTS), 'hosts');
    assert.equal(detectFormat(ADBLOCK), 'adblock');
    assert.equal(detectFormat(ADBLOCK.replace('[Adblock Plus 2.0]\n', '')), 'adblock');
    assert.equal(detectFormat(DOMAINS), 'domains');
    assert.equal(detectFormat(''), 'domains');
    assert.equal(parseList(HOSTS).format, 'hosts');
    assert.deepEqual(parseList(ADBLOCK).block.toArray(), parseList(ADBLOCK, 'adblock').block.toArray());
    // Windows line ends change nothing.
    const crlf = parseList(HOSTS.replaceAll('\n', '\r\n'));
    assert.deepEqual(crlf.block.toArray(), parseList(HOSTS).block.toArray());
    assert.equal(crlf.skipped_lines, parseList(HOSTS).skipped_lines);
    // Bytes or text, with or without a byte-order mark: the same list.
    const bom = parseList(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(DOMAINS)]));
    assert.deepEqual(bom.block.toArray(), parseList(DOMAINS).block.toArray());
  });

  test('the preview shows the first non-empty lines as fetched', () => {
    const lines = firstLines(HOSTS, 20);
    assert.equal(lines.length, 20);
    assert.equal(lines[0], '# Title: Family hosts (example)');
    assert.ok(!lines.includes(''));
  });

  test('the byte radix sort gives the code-unit order without repeats, over nested buckets', () => {
    const words: string[] = [];
    for (let i = 0; i < 5000; i++)
      words.push(`${(i * 7919).toString(36)}${i % 3 ? '.example' : ''}`, `a${i % 50}`, 'a');
    const collector = new DomainCollector();
    for (const w of words) collector.add(w);
    assert.deepEqual(collector.finish().toArray(), [...new Set(words)].sort());
    assert.deepEqual(sortedDistinct(['b', 'a', 'b']), ['a', 'b']);
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

  test('text round trip and a union without repeats', () => {
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
    assert.equal(list.jsonArray().toString(), JSON.stringify(list.toArray()));
    assert.equal(DomainList.EMPTY.jsonArray().toString(), '[]');
  });

  test('the effective list merges without repeats, leaves out what an allow covers, and hashes and serves what it holds', () => {
    const other = DomainList.fromSorted(['a.example', 'example.net', 'zz.example']);
    const own = DomainList.fromSorted(['b.example', 'example.net']);
    const effective = (allow: DomainList) => new EffectiveList([list, other, own, DomainList.EMPTY], allow);
    const all = effective(DomainList.EMPTY);
    const expected = [
      'a.example',
      'ads.example.com',
      'b.example',
      'example.net',
      'tracker.example.org',
      'zz.example',
    ];
    assert.deepEqual(all.toArray(), expected);
    assert.equal(all.count, 6);
    assert.equal(all.jsonArray().toString(), JSON.stringify(expected));
    // The hash is the one of the same entries held as one list.
    const same = new EffectiveList([DomainList.fromSorted(expected)], DomainList.EMPTY);
    assert.equal(all.hash(DomainList.EMPTY), same.hash(DomainList.EMPTY));

    const allow = DomainList.fromSorted(['example.org', 'zz.example']);
    const lifted = effective(allow);
    assert.deepEqual(lifted.toArray(), ['a.example', 'ads.example.com', 'b.example', 'example.net']);
    assert.notEqual(lifted.hash(allow), all.hash(DomainList.EMPTY));
    // Many allow entries take the other path to the same answer.
    const many = DomainList.fromSorted(
      sortedDistinct([...allow.toArray(), ...Array.from({ length: 40 }, (_, i) => `x${i}.example`)]),
    );
    assert.deepEqual(effective(many).toArray(), lifted.toArray());
    assert.equal(
      effective(DomainList.fromSorted(['example', 'example.com', 'example.net', 'example.org'])).count,
      0,
    );
    assert.equal(new EffectiveList([], DomainList.EMPTY).jsonArray().toString(), '[]');
  });

  test('a big list merged with a few own entries keeps its order and every entry once', () => {
    const collector = new DomainCollector();
    for (let i = 0; i < 20_000; i++) collector.add(`d${(i * 7919) % 20_000}.example`);
    const big = collector.finish();
    const own = DomainList.fromSorted(['a.example', 'd5.example', 'zzz.example']);
    const merged = new EffectiveList([big, own], DomainList.EMPTY);
    const expected = [...new Set([...big.toArray(), ...own.toArray()])].sort();
    assert.equal(merged.count, expected.length);
    assert.deepEqual(merged.toArray(), expected);
    assert.equal(merged.jsonArray().toString(), JSON.stringify(expected));
  });
});
