/**
 * `tail -f` for a live document, as a pure state machine (the extension's follow.ts drives it).
 *
 * The extension host learns of the user's moves and of its own caret moves through the same
 * asynchronous events, and its own sets reach the editor later. A line arriving just after the user
 * pressed Ctrl+Home would send the caret back to the end before the host had heard of the key. So
 * the follower records every caret it sets; when such a move comes back after the user had already
 * moved away, the user's place is given back (itself a recorded move, since the user may move again
 * before it lands).
 */
export interface Caret {
  readonly line: number;
  readonly character: number;
}

/** `api`: a move made through the extension API (ours, or a command such as Go to First Error). */
export type MoveSource = 'user' | 'api' | 'other';

/** A move the follower made: where the caret went, and whether it was a bare caret (the end) or a selection (a give-back). */
interface Placed {
  readonly caret: Caret;
  readonly empty: boolean;
}

export interface FollowState<S> {
  readonly following: boolean;
  /** The moves of the follower, oldest first, until each is seen (a burst of lines sends several). */
  readonly placed: readonly Placed[];
  /** The user's place when they left the end while a move of ours was on its way. */
  readonly userAt: { readonly caret: Caret; readonly empty: boolean; readonly selection: S } | null;
}

export const startFollowing = <S>(): FollowState<S> => ({ following: true, placed: [], userAt: null });

// A set that lands where the caret already is brings no event, so its entry stays until a later
// move of ours is seen; the bound keeps such entries few, and is far above the moves a loaded
// window has on their way (one per change of the document, 0.7 s apart).
const MAX_PENDING = 64;

const same = (a: Caret, b: Caret) => a.line === b.line && a.character === b.character;

/** The follower sets the caret at `to` (a bare caret unless `empty` says otherwise); its event is waited for. */
export function placed<S>(st: FollowState<S>, to: Caret, empty = true): FollowState<S> {
  return { following: st.following, placed: [...st.placed.slice(-(MAX_PENDING - 1)), { caret: to, empty }], userAt: null };
}

/**
 * The document changed while following. `move` false: a move of ours to that end is on its way
 * already (a line rewritten above the end, the end unmoved), with its scroll; a second set there
 * would bring no event of its own. Otherwise the caret is set even where the host's copy says it
 * is: that copy may not have heard of a key yet, and a set not waited for that lands after the key
 * undid it (a CI run saw Ctrl+Home undone this way).
 */
export function toTail<S>(st: FollowState<S>, end: Caret, editors = 1): { state: FollowState<S>; move: boolean } {
  const last = st.placed[st.placed.length - 1];
  if (last?.empty && same(last.caret, end)) return { state: st, move: false };
  // One move per editor showing the document (a split view), each with its own event.
  let next = st;
  for (let i = 0; i < editors; i++) next = placed(next, end);
  return { state: next, move: true };
}

/**
 * A selection change; `end` is the document's end as the host knows it. `restore`: set this
 * selection (and show it), the user's place, which a move of ours landed after. `again`: a move of
 * ours landed short of the end while following (sent before the user went back to the end of more
 * lines): set the caret at the end again.
 */
export function selectionChanged<S>(
  st: FollowState<S>,
  move: { caret: Caret; empty: boolean; source: MoveSource; selection: S },
  end: Caret,
): { state: FollowState<S>; restore: S | null; again: boolean } {
  // Changes the document made (a reload, an edit) say nothing of what the user wants.
  if (move.source === 'other') return { state: st, restore: null, again: false };
  // Only a move of the same shape: Go to First Error selects a whole line, never a bare caret at a past end.
  const ours = move.source === 'api' ? st.placed.findIndex(p => p.empty === move.empty && same(p.caret, move.caret)) : -1;
  if (ours >= 0) {
    const rest = st.placed.slice(ours + 1);
    if (rest.length) return { state: { ...st, placed: rest }, restore: null, again: false };
    // The last of ours has landed. The user left the end while it was on its way: their place back.
    if (!st.following && st.userAt)
      return { state: placed({ ...st, placed: [] }, st.userAt.caret, st.userAt.empty), restore: st.userAt.selection, again: false };
    return { state: { ...st, placed: [] }, restore: null, again: st.following && !same(move.caret, end) };
  }
  const following = move.caret.line >= end.line;
  // A move of ours still on its way will land after this one: remember where to come back to.
  const userAt = !following && st.placed.length ? { caret: move.caret, empty: move.empty, selection: move.selection } : null;
  return { state: { following, placed: st.placed, userAt }, restore: null, again: false };
}

/**
 * A command of this extension moves the caret (Go to First Error on a live log). It is the user's
 * move, made through the host: following stops unless it lands on the last line, and its event,
 * which comes after those of the moves sent before it, is recognised like theirs (it could not be
 * told from a give-back of the same selection). `move` false: the same move is on its way already;
 * sent twice, the second would bring no event.
 */
export function commanded<S>(st: FollowState<S>, to: Caret, empty: boolean, end: Caret): { state: FollowState<S>; move: boolean } {
  const last = st.placed[st.placed.length - 1];
  const following = to.line >= end.line;
  if (last && last.empty === empty && same(last.caret, to)) return { state: { ...st, following, userAt: null }, move: false };
  return { state: { ...placed(st, to, empty), following }, move: true };
}
