import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { WorkerLoop } from './loop.js';

const silent = pino({ level: 'silent' });

describe('worker loop', () => {
  test('runs each task on its interval and records result, duration and error', async () => {
    let runs = 0;
    const loop = new WorkerLoop(
      [
        { name: 'counts', everyMs: 1000, run: async () => `run ${++runs}` },
        {
          name: 'fails',
          everyMs: 1000,
          run: async () => {
            throw new Error('upstream down');
          },
        },
      ],
      silent,
    );
    await loop.tick(10_000);
    await loop.tick(10_500); // within the interval: nothing runs
    assert.equal(runs, 1);
    await loop.tick(11_000);
    assert.equal(runs, 2);
    const counts = loop.state.get('counts');
    assert.equal(counts?.last_result, 'run 2');
    assert.equal(counts?.last_error, null);
    assert.ok(counts?.last_run_at);
    assert.equal(typeof counts?.last_duration_ms, 'number');
    assert.equal(loop.state.get('fails')?.last_error, 'upstream down');
  });
});
