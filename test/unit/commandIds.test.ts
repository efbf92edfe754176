import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { COMMANDS } from '../../src/extension/commands/ids';

const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
  activationEvents?: string[];
  contributes: {
    commands: Array<{ command: string; title: string }>;
    menus: Record<string, Array<{ command?: string; submenu?: string }>>;
    keybindings?: Array<{ command: string }>;
  };
};

describe('command ids (src/extension/commands/ids.ts) against package.json', () => {
  const ids = new Set<string>(Object.values(COMMANDS));
  const contributed = new Set(pkg.contributes.commands.map(c => c.command));

  it('every command the code names is contributed, and every contributed command is named in the code', () => {
    assert.deepEqual(
      [...ids].filter(id => !contributed.has(id)),
      [],
      'named in ids.ts, missing from contributes.commands',
    );
    assert.deepEqual(
      [...contributed].filter(id => id.startsWith('benchTriage.') && !ids.has(id)),
      [],
      'contributed, missing from ids.ts',
    );
    assert.equal(ids.size, Object.values(COMMANDS).length, 'no id twice in ids.ts');
  });

  it('every menu entry and keybinding names a contributed command', () => {
    const used = [
      ...Object.entries(pkg.contributes.menus).flatMap(([menu, entries]) => entries.filter(e => e.command).map(e => [menu, e.command!] as const)),
      ...(pkg.contributes.keybindings ?? []).map(k => ['keybindings', k.command] as const),
    ];
    const bad = used.filter(([, c]) => c.startsWith('benchTriage.') && !contributed.has(c));
    assert.deepEqual(bad, []);
    assert.ok(used.length > 20, `${used.length} menu entries read`);
  });
});
