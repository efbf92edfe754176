import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { placed, selectionChanged, startFollowing, type Caret, type FollowState } from '../../src/app/tailFollow';

/** The follower's decisions on the event orders the extension host really sees (the move of ours and the user's key cross). */
describe('a live document follows its tail (app/tailFollow)', () => {
  const at = (line: number, character = 0): Caret => ({ line, character });
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
