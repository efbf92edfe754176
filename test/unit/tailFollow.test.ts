import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { placed, selectionChanged, startFollowing, toTail, type Caret, type FollowState } from '../../src/app/tailFollow';

/** The follower's decisions on the event orders the extension host really sees (the move of ours and the user's key cross). */
describe('a live document follows its tail (app/tailFollow)', () => {
  const at = (line: number, character = 0): Caret => ({ line, character });
  const same = (a: Caret, b: Caret) => a.line === b.line && a.character === b.character;
  const user = (c: Caret) => ({ caret: c, empty: true, source: 'user' as const, selection: `user@${c.line}` });
  const api = (c: Caret) => ({ caret: c, empty: true, source: 'api' as const, selection: `api@${c.line}` });

  it('Ctrl+Home pressed while a move to the end was on its way: the move lands, then the user is given the top back and following stops', () => {
    let st: FollowState<string> = startFollowing();
    st = placed(st, at(40, 3)); // lines arrived; the host sends the caret to the end
    let r = selectionChanged(st, user(at(0)), 41); // the key, pressed before the move landed, is heard first
    assert.equal(r.state.following, false);
    assert.equal(r.restore, null);
    r = selectionChanged(r.state, api(at(40, 3)), 41); // then the move of ours lands
    assert.equal(r.restore, 'user@0', 'the user is put back where they went');
    assert.equal(r.state.following, false);
    // The give-back itself is one more API move: it must not start following again.
    r = selectionChanged(r.state, api(at(0)), 45);
    assert.equal(r.state.following, false);
    assert.equal(r.restore, null);
  });

  it('a burst of lines: the first of two moves lands while the second is on its way, and following goes on', () => {
    let st: FollowState<string> = startFollowing();
    st = placed(st, at(10));
    st = placed(st, at(20));
    let r = selectionChanged(st, api(at(10)), 21);
    assert.equal(r.state.following, true, 'an older move of ours is not the user leaving the end');
    r = selectionChanged(r.state, api(at(20)), 21);
    assert.equal(r.state.following, true);
    assert.equal(r.restore, null);
    assert.equal(r.state.placed.length, 0);
  });

  it('Go to First Error (an API move that is not ours) stops following; Ctrl+End starts it again', () => {
    let r = selectionChanged(startFollowing<string>(), api(at(7)), 300);
    assert.equal(r.state.following, false);
    r = selectionChanged(r.state, user(at(299, 5)), 300);
    assert.equal(r.state.following, true);
  });

  it('changes the document made (no kind) change nothing', () => {
    const st = placed(startFollowing<string>(), at(5));
    const r = selectionChanged(st, { caret: at(0), empty: true, source: 'other', selection: 'x' }, 6);
    assert.equal(r.state, st);
  });

  it('lines rewritten above the caret (the end unmoved) while the user presses Ctrl+Home: the caret is not set again, so the key holds', () => {
    let st: FollowState<string> = startFollowing();
    // The host last put the caret at the end, and the end has not moved: nothing to send.
    const t = toTail(st, at(101), { caret: at(101), empty: true });
    assert.equal(t.move, false);
    assert.deepEqual(t.state.placed, []);
    // The key is heard: following stops, and the user's place is shown (a scroll of ours may have been sent before).
    const r = selectionChanged(t.state, user(at(0)), 102);
    assert.equal(r.state.following, false);
    assert.deepEqual(r.reveal, at(0));
    // Where the host's caret is elsewhere, the follower does move it, and waits for that move.
    st = toTail(st, at(101), { caret: at(90), empty: true }).state;
    assert.deepEqual(st.placed, [at(101)]);
    assert.equal(toTail(startFollowing<string>(), at(5), { caret: at(5), empty: false }).move, true, 'a selection at the end is not a caret at the end');
  });

  /**
   * The workbench (its caret, its view, its document) and the extension host, joined by two
   * ordered channels, as in VS Code: the host sees the document and the caret only through events,
   * and its own sets and scrolls reach the workbench later. Any interleaving of lines appended,
   * lines rewritten in place, the user's Ctrl+Home and deliveries: once everything is delivered,
   * after a Ctrl+Home the caret and the view are at the top; without one, both are at the end.
   */
  it('any interleaving of the workbench and the host: the last Ctrl+Home holds, and without one the caret and view follow the end', () => {
    type ToHost = { kind: 'content'; lines: number } | { kind: 'sel'; caret: Caret; source: 'user' | 'api' | 'other' };
    type ToBench = { kind: 'set'; caret: Caret } | { kind: 'reveal'; line: number };
    const op = fc.constantFrom('grow', 'rewrite', 'key', 'host', 'host', 'bench', 'bench');
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), ops => {
        // The workbench.
        let lines = 2;
        let caret = at(1);
        let view = 1;
        // The host: its copy of the document's length and caret, and the follower.
        let hostLines = 2;
        let hostCaret = at(1);
        let st: FollowState<Caret> = startFollowing();
        const toHost: ToHost[] = [];
        const toBench: ToBench[] = [];
        let pressed = false;
        const hostStep = (ev: ToHost) => {
          if (ev.kind === 'content') {
            hostLines = ev.lines;
            if (!st.following) return;
            const end = at(hostLines - 1);
            const t = toTail(st, end, { caret: hostCaret, empty: true });
            st = t.state;
            if (t.move) {
              hostCaret = end;
              toBench.push({ kind: 'set', caret: end });
            }
            toBench.push({ kind: 'reveal', line: end.line });
            return;
          }
          hostCaret = ev.caret;
          const r = selectionChanged(st, { caret: ev.caret, empty: true, source: ev.source, selection: ev.caret }, hostLines);
          st = r.state;
          if (r.restore) {
            hostCaret = r.restore;
            toBench.push({ kind: 'set', caret: r.restore }, { kind: 'reveal', line: r.restore.line });
          } else if (r.reveal) toBench.push({ kind: 'reveal', line: r.reveal.line });
        };
        const benchStep = (m: ToBench) => {
          if (m.kind === 'reveal') view = m.line;
          else if (!same(caret, m.caret)) {
            caret = m.caret;
            view = m.caret.line;
            toHost.push({ kind: 'sel', caret, source: 'api' });
          }
        };
        for (const o of ops) {
          if (o === 'grow') {
            lines += 1;
            toHost.push({ kind: 'content', lines });
          } else if (o === 'rewrite') toHost.push({ kind: 'content', lines });
          else if (o === 'key') {
            pressed = true;
            if (!same(caret, at(0))) {
              caret = at(0);
              toHost.push({ kind: 'sel', caret, source: 'user' });
            }
            view = 0;
          } else if (o === 'host' && toHost.length) hostStep(toHost.shift()!);
          else if (o === 'bench' && toBench.length) benchStep(toBench.shift()!);
        }
        // Everything still on its way is delivered, in order, each side answering as it goes.
        while (toHost.length || toBench.length) {
          if (toHost.length) hostStep(toHost.shift()!);
          else benchStep(toBench.shift()!);
        }
        if (pressed) {
          assert.deepEqual(caret, at(0), `the caret went back to ${caret.line} after Ctrl+Home (${ops.join(' ')})`);
          assert.equal(view, 0, `the view went to line ${view} after Ctrl+Home (${ops.join(' ')})`);
          assert.equal(st.following, lines <= 1);
        } else {
          assert.deepEqual(caret, at(lines - 1), `the caret was left at ${caret.line} of ${lines} lines (${ops.join(' ')})`);
          assert.ok(st.following);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('any order of our moves and user moves: the user is given back exactly their last place, only after the last move of ours lands', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant('line'), fc.constant('top'), fc.constant('land')), { maxLength: 30 }), ops => {
        let st: FollowState<string> = startFollowing();
        let lines = 1;
        const inFlight: Caret[] = [];
        let lastUser: string | null = null;
        let owed = false; // the user left the end while a move of ours was on its way
        for (const op of ops) {
          if (op === 'line') {
            lines += 1;
            if (st.following) {
              st = placed(st, at(lines - 1));
              inFlight.push(at(lines - 1));
            }
          } else if (op === 'top') {
            const r = selectionChanged(st, user(at(0)), lines);
            st = r.state;
            lastUser = 'user@0';
            assert.equal(st.following, lines === 1);
            owed = !st.following && inFlight.length > 0;
          } else if (inFlight.length) {
            const c = inFlight.shift()!;
            const r = selectionChanged(st, api(c), lines);
            st = r.state;
            if (owed && !inFlight.length) {
              assert.equal(r.restore, lastUser, 'the last move of ours landed after the user left: their place is given back');
              owed = false;
            } else assert.equal(r.restore, null);
            if (r.restore !== null) {
              assert.equal(r.restore, lastUser);
              assert.equal(inFlight.length, 0, 'given back only once every move of ours has landed');
              assert.equal(st.following, false);
            }
          }
        }
        assert.ok(st.placed.length <= 16);
      }),
    );
  });
});
