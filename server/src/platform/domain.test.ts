import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { domainAndParents, isStoredDomain, isStoredDomainBytes, normalizeDomain } from './domain.js';

describe('domain normalisation', () => {
  test('lower-cases, drops port and trailing dot, turns IDN into punycode', () => {
    assert.equal(normalizeDomain('Example.COM'), 'example.com');
    assert.equal(normalizeDomain('example.com.'), 'example.com');
    assert.equal(normalizeDomain('example.com:8443'), 'example.com');
    assert.equal(normalizeDomain('Bücher.example'), 'xn--bcher-kva.example');
    assert.equal(normalizeDomain('xn--bcher-kva.example'), 'xn--bcher-kva.example');
    assert.equal(normalizeDomain('https://Sub.Example.com:443/signup?x=1'), 'sub.example.com');
    assert.equal(normalizeDomain('localhost'), 'localhost');
  });

  test('keeps IP literals as given', () => {
    assert.equal(normalizeDomain('192.168.1.20'), '192.168.1.20');
    assert.equal(normalizeDomain('192.168.1.20:8080'), '192.168.1.20');
    assert.equal(normalizeDomain('[::1]'), '::1');
    assert.equal(normalizeDomain('[2001:db8::1]:443'), '2001:db8::1');
    assert.equal(normalizeDomain('2001:db8::1'), '2001:db8::1');
  });

  test('refuses what is not a hostname', () => {
    for (const bad of [
      '',
      '   ',
      'exa mple.com',
      'a..b',
      '-bad.com',
      'bad-.com',
      `${'a'.repeat(64)}.com`,
      `${'abc.'.repeat(64)}com`,
      'under_score.com',
      '999.1.1.1',
      'example.com:port',
      '[nope]',
      'ex!ample.com',
    ]) {
      assert.equal(normalizeDomain(bad), null, JSON.stringify(bad));
    }
  });

  test('a domain already in stored form comes back unchanged, and stored forms are stable', () => {
    for (const input of [
      'Example.COM',
      'Bücher.example',
      'xn--bcher-kva.example',
      'a-1.b2.example',
      '1-2.3',
      'x.y',
    ]) {
      const stored = normalizeDomain(input);
      assert.ok(stored);
      assert.equal(normalizeDomain(stored), stored);
    }
    assert.equal(normalizeDomain('xn--zz.example'), null, 'an invalid punycode label is still refused');
  });

  test('a domain sits under each of its parents', () => {
    assert.deepEqual(domainAndParents('a.b.example.com'), [
      'a.b.example.com',
      'b.example.com',
      'example.com',
      'com',
    ]);
    assert.deepEqual(domainAndParents('10.0.0.1'), ['10.0.0.1']);
  });

  test('the byte check of a list entry agrees with the string check', () => {
    const samples = [
      'example.com',
      'a-1.b2.example',
      'Example.com',
      'example.com.',
      '-bad.com',
      'bad-.com',
      'a..b',
      '1.2.3.4',
      '1-2.3',
      'xn--bcher-kva.example',
      'abxn--c.example',
      'under_score.com',
      `${'a'.repeat(63)}.com`,
      `${'a'.repeat(64)}.com`,
      `${'abc.'.repeat(63)}com`,
      '',
    ];
    for (const sample of samples) {
      const bytes = Buffer.from(` ${sample} `, 'latin1');
      assert.equal(
        isStoredDomainBytes(bytes, 1, bytes.length - 1),
        isStoredDomain(sample),
        JSON.stringify(sample),
      );
    }
  });
});
