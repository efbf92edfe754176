/**
 * `tail -f` for a live document, as a pure state machine (the extension's follow.ts drives it).
 *
 * The extension host learns of the user's moves and of its own caret moves through the same
 * asynchronous events. A line arriving just after the user pressed Ctrl+Home would send the caret
 * back to the end before the host had heard of the key: the user is bounced and following is off.
 * So the follower remembers where it put the caret; when that move comes back after the user had
 * already moved away, the user's place is given back.
 */
export interface Caret {
  readonly line: number;
  readonly character: number;
}

/** `api`: a move made through the extension API (ours, or a command such as Go to First Error). */
export type MoveSource = 'user' | 'api' | 'other';

export interface FollowState<S> {
  readonly following: boolean;
  /** Where the follower put the caret, oldest first, until each move is seen (a burst of lines sends several). */
  readonly placed: readonly Caret[];
  /** The user's selection when they stopped following while a move of ours was under way. */
  readonly userAt: S | null;
}

export const startFollowing = <S>(): FollowState<S> => ({ following: true, placed: [], userAt: null });

/** The follower moves the caret to `end`. */
export function placed<S>(st: FollowState<S>, end: Caret): FollowState<S> {
  // Bounded: a move whose event never comes (the caret was already there) must not pile up.
  return { following: st.following, placed: [...st.placed.slice(-(MAX_PENDING - 1)), end], userAt: null };
}

/**
 * The document changed while following. `move` false: the host already has the caret at the end
 * (lines rewritten above it, the end unmoved). Setting it again would not be a no-op: it lands
 * after any key the host has not heard of yet, and since no event of its own was expected, it
 * would read as the user going back to the end (a CI run saw Ctrl+Home undone this way).
 */
export function toTail<S>(st: FollowState<S>, end: Caret, host: { caret: Caret; empty: boolean }): { state: FollowState<S>; move: boolean } {
  if (host.empty && same(host.caret, end)) return { state: st, move: false };
  return { state: placed(st, end), move: true };
}

const MAX_PENDING = 16;

const same = (a: Caret, b: Caret) => a.line === b.line && a.character === b.character;

/**
 * A selection change. `restore` is the selection to give back to the user: the follower's move
 * landed after the user had moved away. `reveal`: the user just stopped following, and a scroll of
 * ours to the end may have been sent before the host heard of it, so their place is shown again.
 */
export function selectionChanged<S>(
  st: FollowState<S>,
  move: { caret: Caret; empty: boolean; source: MoveSource; selection: S },
  lineCount: number,
): { state: FollowState<S>; restore: S | null; reveal: Caret | null } {
  // Changes the document made (a reload, an edit) say nothing of what the user wants.
  if (move.source === 'other') return { state: st, restore: null, reveal: null };
  const ours = move.source === 'api' && move.empty ? st.placed.findIndex(p => same(p, move.caret)) : -1;
  if (ours >= 0) {
    const rest = st.placed.slice(ours + 1);
    // The user moved away while this move was on its way: once the last of ours has landed, give their place back.
    if (!st.following && st.userAt !== null && !rest.length)
      return { state: { following: false, placed: rest, userAt: null }, restore: st.userAt, reveal: null };
    return { state: { ...st, placed: rest }, restore: null, reveal: null };
  }
  const following = move.caret.line >= lineCount - 1;
  // A move of ours still on its way will land after this one: remember where to come back to.
  return {
    state: { following, placed: st.placed, userAt: !following && st.placed.length ? move.selection : null },
    restore: null,
    reveal: st.following && !following ? move.caret : null,
  };
}
