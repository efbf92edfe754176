import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { chooseSlot, SLOT_DEPTH, type Slot } from '../../src/runner/gpuSlots';
import { resourceEnv } from '../../src/runner/swarmRuntime';

const slot = (id: string, gpus: number, runs: string[] = [], extra: Partial<Slot> = {}): Slot => ({
  id,
  gpus,
  runs: new Set(runs),
  placed: true,
  dead: false,
  busySince: 0,
  ...extra,
});

describe('GPU slots on a swarm: which slot a run takes', () => {
  it('a free slot of its size first, then a new slot while under the cap, then the slot of a run under way', () => {
    let n = 0;
    const make = () => slot(`new${++n}`, 1);
    assert.equal(chooseSlot([slot('a', 1, ['r1']), slot('b', 1)], 1, 2, make).slot.id, 'b');
    assert.deepEqual((({ slot: s, made }) => [s.id, made])(chooseSlot([slot('a', 1, ['r1'])], 1, 2, make)), ['new1', true]);
    // At the cap: the run waits on a slot under way, a placed one before one still held by the swarm.
    const next = chooseSlot([slot('a', 1, ['r1'], { placed: false, busySince: 1 }), slot('b', 1, ['r2'], { busySince: 2 })], 1, 2, make);
    // Among placed slots, the one whose run began first (the likeliest to end first).
    assert.equal(chooseSlot([slot('late', 1, ['r1'], { busySince: 9 }), slot('early', 1, ['r2'], { busySince: 3 })], 1, 2, make).slot.id, 'early');
    assert.equal(next.slot.id, 'b');
    assert.equal(next.made, false);
    // A line of two waits behind the lines of one: every GPU first gets a run ready behind its run.
    assert.equal(chooseSlot([slot('two', 1, ['r1', 'r2'], { busySince: 1 }), slot('one', 1, ['r3'], { busySince: 9 })], 1, 2, make).slot.id, 'one');
    // Every line with a run ready behind its run: a third run joins, the line whose run began first.
    assert.equal(chooseSlot([slot('x', 1, ['r1', 'r2'], { busySince: 9 }), slot('y', 1, ['r3', 'r4'], { busySince: 4 })], 1, 2, make).slot.id, 'y');
  });

  it('never a dead slot, never a slot of another size, never a fourth run on one slot', () => {
    let n = 0;
    const make = () => slot(`new${++n}`, 2);
    assert.equal(chooseSlot([slot('dead', 2, [], { dead: true })], 2, 2, make).slot.id, 'new1');
    assert.equal(chooseSlot([slot('one', 1)], 2, 4, make).slot.id, 'new2');
    assert.equal(chooseSlot([slot('full', 2, ['a', 'b', 'c'])], 2, 2, make).slot.id, 'new3');
  });

  it('any arrival order: slots of a size never take a fourth run, a line grows only when none is shorter, the GPUs of slots made stay within the cap while slots of one size suffice, and a free slot is always reused', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant('run' as const), fc.nat({ max: 30 })), { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (ops, cap) => {
        const slots: Slot[] = [];
        const live: Array<{ run: string; slot: Slot }> = [];
        let k = 0;
        for (const op of ops) {
          if (op === 'run') {
            // As the runner does: at most three times as many runs as GPUs at once.
            if (live.length >= SLOT_DEPTH * cap) continue;
            const hadFree = slots.some(s => !s.dead && s.runs.size === 0);
            const shortest = Math.min(...slots.filter(x => !x.dead).map(x => x.runs.size));
            const { slot: s, made } = chooseSlot(slots, 1, cap, () => slot(`s${slots.length}`, 1));
            if (made) slots.push(s);
            if (hadFree) assert.equal(made, false, 'a free slot is reused');
            if (!made) assert.equal(s.runs.size, shortest, 'the shortest line');
            const run = `r${k++}`;
            s.runs.add(run);
            live.push({ run, slot: s });
            assert.ok(s.runs.size <= SLOT_DEPTH, 'at most a run on the GPUs, one ready and one held back');
            assert.ok(slots.filter(x => !x.dead).length <= cap, 'slots within the cap');
          } else if (live.length) {
            const [{ run, slot: s }] = live.splice(op % live.length, 1);
            s.runs.delete(run);
            // A slot left without runs is given back (after a moment) in a third of the cases here.
            if (!s.runs.size && op % 3 === 0) s.dead = true;
          }
        }
      }),
    );
  });
});

describe("a holder's GPUs as its run's environment", () => {
  it('named GPUs of a kind joined by commas, a discrete kind as its count, as the engine sets them for a task', () => {
    assert.deepEqual(
      resourceEnv([
        { NamedResourceSpec: { Kind: 'NVIDIA-GPU', Value: 'GPU-3b2f' } },
        { DiscreteResourceSpec: { Kind: 'ssd', Value: 2 } },
        { NamedResourceSpec: { Kind: 'NVIDIA-GPU', Value: 'GPU-9c41' } },
      ]),
      ['DOCKER_RESOURCE_SSD=2', 'DOCKER_RESOURCE_NVIDIA-GPU=GPU-3b2f,GPU-9c41'],
    );
    assert.deepEqual(resourceEnv([]), []);
  });
});
