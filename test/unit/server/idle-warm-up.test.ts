// The warm-up after the handshake (server/idle-warm-up.ts): its steps run in order, one per turn of the event loop,
// a failing step is logged and skipped, and the steps not run yet can be dropped.
import * as assert from 'node:assert/strict';
import { warmUpInTurns } from '../../../server/idle-warm-up';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('warm-up after the handshake', () => {
  it('runs one step per turn, in order, never in the turn it is started in', async () => {
    const ran: string[] = [];
    warmUpInTurns(['a', 'b', 'c'].map((name) => ({ name, run: () => ran.push(name) })));
    assert.equal(ran.length, 0, 'nothing at once');
    // A request that comes meanwhile (its own turn) runs between two steps.
    const request = turn().then(() => ran.push('request'));
    await request;
    await turn();
    await turn();
    await turn();
    assert.deepEqual(ran.filter((x) => x !== 'request'), ['a', 'b', 'c']);
    assert.ok(ran.indexOf('request') < ran.indexOf('c'), `a request waits for one step at most: ${ran.join(' ')}`);
  });

  it('logs a step that fails and goes on with the next', async () => {
    const ran: string[] = [];
    const logged: string[] = [];
    warmUpInTurns(
      [
        { name: 'broken', run: () => { throw new Error('no'); } },
        { name: 'next', run: () => ran.push('next') },
      ],
      (message) => logged.push(message),
    );
    for (let i = 0; i < 3; i++) await turn();
    assert.deepEqual(ran, ['next']);
    assert.equal(logged.length, 1);
    assert.match(logged[0], /warming up broken failed .*: no/);
  });

  it('drops the steps not run yet when stopped', async () => {
    const ran: string[] = [];
    const stop = warmUpInTurns(['a', 'b', 'c'].map((name) => ({ name, run: () => ran.push(name) })));
    await turn();
    stop();
    for (let i = 0; i < 3; i++) await turn();
    assert.deepEqual(ran, ['a']);
  });
});
