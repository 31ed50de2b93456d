import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { MessageRegistry, parseFrame, REFUSED } from './dispatch.js';
import type { AuthenticatedDevice } from './types.js';

function device(sent: unknown[]): AuthenticatedDevice {
  return {
    systemId: 's',
    householdId: 'h',
    linuxUsers: new Set(),
    platform: 'linux',
    send: (m) => sent.push(m),
  };
}

const Ping = Type.Object({ type: Type.Literal('ping'), n: Type.Integer() });

describe('agent frame dispatch', () => {
  test('a frame is a JSON object with a string type; anything else says why it is refused', () => {
    assert.deepEqual(parseFrame('{"type":"ping","n":1}'), { type: 'ping', n: 1 });
    assert.equal(parseFrame('not json'), 'frames must be JSON');
    for (const text of ['[]', 'null', '3', '{"type":7}', '{}'])
      assert.equal(parseFrame(text), 'frames must be objects with a type');
  });

  test('a frame that fails its schema gets invalid_message, or the feature’s own refusal', async () => {
    const registry = new MessageRegistry();
    const handled: unknown[] = [];
    registry.on<{ n: number }>('ping', Ping, (_d, m) => handled.push(m.n));
    registry.on(
      'pong',
      Ping,
      () => {},
      (d, _m, why) => d.send({ type: 'pong_ack', success: false, why }),
    );
    const sent: unknown[] = [];
    assert.notEqual(await registry.get('ping')?.(device(sent), { type: 'ping', n: 2 }), REFUSED);
    // A refused frame is marked so, for the channel's count of refused frames.
    assert.equal(await registry.get('ping')?.(device(sent), { type: 'ping', n: 'two' }), REFUSED);
    assert.equal(await registry.get('pong')?.(device(sent), { type: 'pong' }), REFUSED);
    assert.deepEqual(handled, [2]);
    assert.deepEqual(sent, [
      { type: 'error', code: 'invalid_message', message: 'ping: /n must be integer' },
      { type: 'pong_ack', success: false, why: 'pong: / is missing n' },
    ]);
    assert.equal(registry.get('nothing'), undefined);
  });

  test('a message type belongs to one feature: registering it twice fails', () => {
    const registry = new MessageRegistry();
    registry.on('ping', Ping, () => {});
    assert.throws(() => registry.on('ping', Ping, () => {}), /registered twice/);
  });
});
