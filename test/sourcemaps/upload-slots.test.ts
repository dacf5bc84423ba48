// Uploads take turns: `active` run, `waiting` wait in order, the next is refused with 503 overloaded. (Over HTTP a
// held turn could only be shown with a timing, so the turn-taking is tested here, on its own.)
import { describe, expect, it } from 'vitest';
import { createUploadSlots } from '../../src/sourcemaps/upload-slots.ts';
import { ApiError } from '../../src/http/errors.ts';

describe('createUploadSlots', () => {
  it('runs `active` at once, queues `waiting` in order and refuses the next with 503 and Retry-After', async () => {
    const slots = createUploadSlots(1, 2);
    const order: string[] = [];
    const first = await slots.take();
    const second = slots.take().then((done) => (order.push('second'), done));
    const third = slots.take().then((done) => (order.push('third'), done));
    const refused = await slots.take().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 503, code: 'overloaded', headers: { 'retry-after': '1' } });
    expect(order).toEqual([]);
    first();
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    // All released: a new take runs at once.
    const again = await slots.take();
    again();
  });
});
