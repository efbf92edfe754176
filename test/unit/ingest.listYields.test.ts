import * as assert from 'node:assert/strict';
import { listFolder, type FileSource, type ListedFile } from '../../src/core/ingest';

// A cold load reads each folder as soon as the walk has listed it (Workspace.load's onFolder): the
// walk's own pauses let other walks run but not the event loop, so the listing itself gives the
// thread back between folders whenever the source says it has been held long enough (a cancel, a
// view's request or a helper's answer is heard during a load of 10 000 folders, not after it).
describe('ingest: a listing that hands folders over gives the thread back between them', () => {
  const files = ['a/1/r.json', 'a/2/r.json', 'b/1/r.json', 'b/2/r.json', 'c/r.json'];
  const source = (events: string[], breathe: boolean, grouped = true): FileSource => ({
    groupedByFolder: grouped,
    async *list(): AsyncIterable<ListedFile> {
      for (const path of files) yield { path, size: 2 };
    },
    readText: async () => '{}',
    breather: () =>
      breathe
        ? new Promise<void>(r =>
            setImmediate(() => {
              events.push('turn');
              r();
            }),
          )
        : undefined,
  });

  for (const grouped of [true, false])
    it(`the event loop turns between any two folders when the source asks for it (${grouped ? 'folders listed one after another' : 'files in any order'})`, async () => {
      const events: string[] = [];
      await listFolder(source(events, true, grouped), undefined, folder => events.push(`folder ${folder.map(f => f.path).join(',')}`));
      const folders = events.filter(e => e.startsWith('folder'));
      assert.equal(folders.length, 5);
      for (let i = 1; i < events.length; i++)
        if (events[i].startsWith('folder') && events[i - 1].startsWith('folder')) assert.fail(`no turn between "${events[i - 1]}" and "${events[i]}"`);
    });

  it('a source that does not ask is not paused, and a listing without onFolder is not paused either', async () => {
    const events: string[] = [];
    await listFolder(source(events, false), undefined, folder => events.push(`folder ${folder.length}`));
    assert.deepEqual(events, ['folder 1', 'folder 1', 'folder 1', 'folder 1', 'folder 1']);
    const quiet: string[] = [];
    const l = await listFolder(source(quiet, true));
    assert.equal(l.files.length, 5);
    assert.deepEqual(quiet, [], 'the listing alone reads nothing, so it keeps the thread');
  });
});
