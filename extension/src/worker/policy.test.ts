import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { DomainPolicy, DomainPolicyBuilder, type PolicyWire } from './policy.ts';

const policy = (block: string[], allow: string[] = [], version = 1) =>
  DomainPolicy.from({ version, block, allow });

/** The server's rule (domainCheck) written the obvious way: every suffix of the host, any allow wins. */
function reference(p: PolicyWire, host: string): 'block' | 'allow' | null {
  let name = host.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  const norm = (d: string) => (d.endsWith('.') ? d.slice(0, -1) : d).toLowerCase();
  const block = new Set(p.block.map(norm));
  const allow = new Set(p.allow.map(norm));
  const labels = name.split('.');
  const suffixes = labels.map((_, i) => labels.slice(i).join('.'));
  if (suffixes.some((s) => allow.has(s))) return 'allow';
  if (suffixes.some((s) => block.has(s))) return 'block';
  return null;
}

describe('DomainPolicy', () => {
  test('blocks the listed domain itself', () => {
    const p = policy(['games.example']);
    assert.equal(p.decide('games.example'), 'block');
    assert.deepEqual(p.match('games.example'), { action: 'block', domain: 'games.example' });
    assert.equal(p.decide('other.example'), null);
    assert.equal(p.match('other.example'), null);
  });

  test('a rule covers every subdomain, however deep', () => {
    const p = policy(['games.example']);
    assert.equal(p.decide('www.games.example'), 'block');
    assert.equal(p.decide('a.b.c.d.games.example'), 'block');
    assert.deepEqual(p.match('cdn.www.games.example'), { action: 'block', domain: 'games.example' });
  });

  test('a rule for a subdomain does not cover its parent or its siblings', () => {
    const p = policy(['ads.example.com']);
    assert.equal(p.decide('example.com'), null);
    assert.equal(p.decide('www.example.com'), null);
    assert.equal(p.decide('com'), null);
    // Nor a name that merely ends with the same letters.
    assert.equal(p.decide('badads.example.com'), null);
    assert.equal(p.decide('xample.com'), null);
  });

  test('an allow beats a block on the same domain', () => {
    const p = policy(['video.example'], ['video.example']);
    assert.equal(p.decide('video.example'), 'allow');
    assert.equal(p.decide('www.video.example'), 'allow');
    assert.deepEqual(p.match('www.video.example'), { action: 'allow', domain: 'video.example' });
  });

  test('a deeper allow inside a blocked parent lifts only that part', () => {
    const p = policy(['example.com'], ['docs.example.com']);
    assert.equal(p.decide('docs.example.com'), 'allow');
    assert.equal(p.decide('api.docs.example.com'), 'allow');
    assert.deepEqual(p.match('api.docs.example.com'), { action: 'allow', domain: 'docs.example.com' });
    assert.equal(p.decide('example.com'), 'block');
    assert.equal(p.decide('mail.example.com'), 'block');
    assert.deepEqual(p.match('mail.example.com'), { action: 'block', domain: 'example.com' });
  });

  test('an allow on a parent wins over a block under it, as the server decides', () => {
    const p = policy(['ads.example.com'], ['example.com']);
    assert.equal(p.decide('ads.example.com'), 'allow');
    assert.equal(p.decide('x.ads.example.com'), 'allow');
    assert.equal(p.decide('example.com'), 'allow');
  });

  test('match names the nearest rule of the deciding kind', () => {
    const p = policy(['example.com', 'a.example.com'], []);
    assert.deepEqual(p.match('b.a.example.com'), { action: 'block', domain: 'a.example.com' });
  });

  test('a trailing dot and upper case are the browser’s spelling of the same host', () => {
    const p = policy(['games.example'], ['ok.games.example']);
    assert.equal(p.decide('games.example.'), 'block');
    assert.equal(p.decide('WWW.Games.EXAMPLE'), 'block');
    assert.equal(p.decide('Ok.Games.Example.'), 'allow');
    assert.deepEqual(p.match('WWW.Games.Example.'), { action: 'block', domain: 'games.example' });
    // Rules are read the same way.
    const shouty = policy(['Games.Example.']);
    assert.equal(shouty.decide('www.games.example'), 'block');
    assert.equal(shouty.blockCount, 1);
  });

  test('IP literals are never matched', () => {
    // Even a list that (wrongly) names the parts of an address.
    const p = policy(['1.2.3.4', '4', '3.4', '0x7f', 'com', 'example.com'], []);
    assert.equal(p.decide('1.2.3.4'), null);
    assert.equal(p.decide('10.0.0.4'), null);
    assert.equal(p.decide('0x7f.0.0.1'), null);
    assert.equal(p.decide('1.0x7f'), null);
    assert.equal(p.decide('[::1]'), null);
    assert.equal(p.decide('[2001:db8::1]'), null);
    assert.equal(p.decide('::1'), null);
    assert.equal(p.match('1.2.3.4'), null);
    // A name with digits is still a name.
    assert.equal(p.decide('4.example.com'), 'block');
    assert.equal(p.decide('123.com'), 'block');
    assert.equal(p.decide('0xfoo.com'), 'block');
  });

  test('an empty policy and an empty host decide nothing', () => {
    const empty = DomainPolicy.empty();
    assert.equal(empty.version, 0);
    assert.equal(empty.blockCount, 0);
    assert.equal(empty.allowCount, 0);
    assert.equal(empty.decide('example.com'), null);
    assert.equal(empty.match('example.com'), null);
    assert.equal(policy([], [], 7).decide('example.com'), null);
    assert.equal(policy([], [], 7).version, 7);
    assert.equal(policy(['example.com']).decide(''), null);
    assert.equal(policy(['example.com']).decide('.'), null);
  });

  test('counts are of distinct names; one name may be both blocked and allowed', () => {
    const p = policy(['a.example', 'b.example', 'a.example', 'A.EXAMPLE.'], ['b.example', 'c.example'], 3);
    assert.equal(p.version, 3);
    assert.equal(p.blockCount, 2);
    assert.equal(p.allowCount, 2);
  });

  test('names that are not ASCII host names are no rules', () => {
    const p = policy(['bücher.example', 'xn--bcher-kva.example', 'with space.example', ''], []);
    assert.equal(p.blockCount, 1);
    assert.equal(p.decide('xn--bcher-kva.example'), 'block');
    assert.equal(p.decide('bücher.example'), null);
  });

  test('the builder fed part by part equals from() on the concatenated lists', () => {
    const block = Array.from(
      { length: 5000 },
      (_, i) => `${(i * 7919).toString(36)}.${['com', 'net', 'co.uk'][i % 3]}`,
    );
    const allow = ['allowed.com', 'x.net', ...block.filter((_, i) => i % 97 === 0).map((d) => `www.${d}`)];
    const whole = DomainPolicy.from({ version: 9, block, allow });
    const b = new DomainPolicyBuilder(9);
    b.add([], allow.slice(0, 10));
    for (let i = 0; i < block.length; i += 700) b.add(block.slice(i, i + 700), []);
    b.add([], allow.slice(10));
    const parts = b.build();
    assert.equal(parts.version, whole.version);
    assert.equal(parts.blockCount, whole.blockCount);
    assert.equal(parts.allowCount, whole.allowCount);
    const hosts = [...block, ...allow, ...block.map((d) => `sub.${d}`), 'nothing.example', 'com', 'net'];
    for (const host of hosts) assert.deepEqual(parts.match(host), whole.match(host), host);
    assert.throws(() => b.add(['late.example'], []), /build\(\) was called/);
  });

  test('a builder that grows through many small parts keeps every name', () => {
    const b = new DomainPolicyBuilder(1);
    const names: string[] = [];
    for (let part = 0; part < 50; part++) {
      const chunk = Array.from({ length: 400 }, (_, i) => `n${part}-${i}.example`);
      names.push(...chunk);
      b.add(chunk, []);
    }
    const p = b.build();
    assert.equal(p.blockCount, names.length);
    for (const n of names) assert.equal(p.decide(n), 'block');
    assert.equal(p.decide('n50-0.example'), null);
  });

  test('a big policy finds every name and nothing else (offsets and fingerprints share a slot’s 32 bits)', () => {
    const block = Array.from(
      { length: 300_000 },
      (_, i) => `${(Math.imul(i, 2654435761) >>> 0).toString(36)}.example`,
    );
    const p = policy(block, ['www.0.example']);
    assert.equal(p.blockCount, block.length);
    for (let i = 0; i < block.length; i += 7) assert.equal(p.decide(`cdn.${block[i]}`), 'block');
    for (let i = 0; i < 50_000; i++) assert.equal(p.decide(`${i.toString(36)}-x.example`), null);
    assert.equal(p.decide('a.www.0.example'), 'allow');
  });

  test('decide agrees with the server’s rule written naively, on random policies', () => {
    // Few, short labels, so rules overlap and hosts often sit under them.
    const label = fc.constantFrom('a', 'b', 'c', 'ab', 'xn--d', '1', 'com');
    const domain = fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => l.join('.'));
    const spelled = fc
      .tuple(domain, fc.boolean(), fc.boolean())
      .map(([d, upper, dot]) => `${upper ? d.toUpperCase() : d}${dot ? '.' : ''}`);
    fc.assert(
      fc.property(
        fc.array(domain, { maxLength: 12 }),
        fc.array(domain, { maxLength: 4 }),
        fc.array(spelled, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 5 }),
        (block, allow, hosts, partSize) => {
          const wire = { version: 1, block, allow };
          const whole = DomainPolicy.from(wire);
          const b = new DomainPolicyBuilder(1);
          for (let i = 0; i < Math.max(block.length, allow.length); i += partSize)
            b.add(block.slice(i, i + partSize), allow.slice(i, i + partSize));
          const parted = b.build();
          for (const host of hosts) {
            // The naive rule has no notion of IP literals: an all-digit last label is one.
            const last = host.replace(/\.$/, '').split('.').pop() ?? '';
            const expected = /^\d+$/.test(last) ? null : reference(wire, host);
            assert.equal(whole.decide(host), expected, host);
            assert.equal(parted.decide(host), expected, host);
            assert.equal(whole.match(host)?.action ?? null, expected, host);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
