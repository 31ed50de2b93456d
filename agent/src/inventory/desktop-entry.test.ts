import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type DesktopEntry,
  parseBoolean,
  parseDesktopEntry,
  parseKeyFile,
  unescapeString,
} from './desktop-entry.js';
import { execIdentifier, expandFieldCodes, flatpakApp, quoteExecArg, skipEnv, splitExec } from './exec.js';

describe('desktop entry parser', () => {
  test('reads only the [Desktop Entry] group, past comments, blank lines and actions', () => {
    const e = parseDesktopEntry(
      '# comment\n\n[Desktop Entry]\nType=Application\nName=Firefox\nExec=firefox %u\n\n[Desktop Action new]\nName=New window\nExec=firefox --new\n',
    );
    assert.deepEqual(e, {
      type: 'Application',
      name: 'Firefox',
      exec: 'firefox %u',
      tryExec: null,
      icon: null,
      hidden: false,
      noDisplay: false,
    });
  });

  const cases: [string, string, Partial<DesktopEntry>][] = [
    ['CRLF line endings', '[Desktop Entry]\r\nName=Calc\r\nExec=calc\r\n', { name: 'Calc', exec: 'calc' }],
    ['a UTF-8 BOM', '\ufeff[Desktop Entry]\nName=Editor\n', { name: 'Editor' }],
    [
      'spaces around =',
      '[Desktop Entry]\nType = Application\nExec = /usr/bin/x\n',
      { type: 'Application', exec: '/usr/bin/x' },
    ],
    ['a repeated key (the last wins)', '[Desktop Entry]\nName=One\nName=Two\n', { name: 'Two' }],
    ['string escapes', '[Desktop Entry]\nName=Tux\\sPaint\\t\\\\x\\q\n', { name: 'Tux Paint\t\\x\\q' }],
    [
      'the unlocalised Name first',
      '[Desktop Entry]\nName[de]=Rechner\nName=Calculator\n',
      { name: 'Calculator' },
    ],
    ['English before other locales', '[Desktop Entry]\nName[fr]=Jeu\nName[en_GB]=Game\n', { name: 'Game' }],
    [
      'any locale when there is nothing else',
      '[Desktop Entry]\nName[fr]=Jeu de Dames\n',
      { name: 'Jeu de Dames' },
    ],
    ['booleans', '[Desktop Entry]\nHidden=true\nNoDisplay=1\n', { hidden: true, noDisplay: true }],
    ['a bad boolean is false', '[Desktop Entry]\nHidden=yes\n', { hidden: false }],
    ['invalid lines tolerated', '[Desktop Entry]\nthis is junk\n=novalue\nName=Ok\n', { name: 'Ok' }],
    ['trailing whitespace trimmed', '[Desktop Entry]\nIcon=vlc   \n', { icon: 'vlc' }],
    [
      'a group named twice is merged',
      '[Desktop Entry]\nName=A\n[Other]\nName=B\n[Desktop Entry]\nExec=a\n',
      { name: 'A', exec: 'a' },
    ],
  ];
  for (const [what, text, expected] of cases)
    test(`handles ${what}`, () => {
      const e = parseDesktopEntry(text);
      assert.ok(e);
      for (const [k, v] of Object.entries(expected)) assert.deepEqual(e[k as keyof typeof e], v, k);
    });

  test('a file without the group, or binary garbage, is no entry and does not throw', () => {
    assert.equal(parseDesktopEntry('Name=Orphan\nExec=x\n'), null);
    assert.equal(parseDesktopEntry('\u0000\u0001PK\u0003[[[\n=== \n'), null);
    fc.assert(fc.property(fc.string(), (s) => void parseDesktopEntry(s)));
  });

  test('key-file groups keep locale keys apart', () => {
    const g = parseKeyFile('[G]\nName=a\nName[de]=b\n').get('G');
    assert.equal(g?.get('Name'), 'a');
    assert.equal(g?.get('Name[de]'), 'b');
    assert.equal(unescapeString('a\\nb\\rc'), 'a\nb\rc');
    assert.equal(parseBoolean('0', true), false);
  });
});

describe('Exec tokenizer', () => {
  const split: [string, string[] | null][] = [
    ['firefox %u', ['firefox', '%u']],
    ['  a   b\tc ', ['a', 'b', 'c']],
    ['"/opt/My Games/run game.sh" --fullscreen', ['/opt/My Games/run game.sh', '--fullscreen']],
    ['sh -c "cd ~/Games && ./tux"', ['sh', '-c', 'cd ~/Games && ./tux']],
    ['bash -c "echo \\$HOME \\"q\\" \\`d\\` \\\\ x"', ['bash', '-c', 'echo $HOME "q" `d` \\ x']],
    ['"a\\nb"', ['a\\nb']],
    ['pre"fix mid"post', ['prefix midpost']],
    ["sh -c 'single quoted'", ['sh', '-c', 'single quoted']],
    ['wine C:\\\\Program\\ Files\\\\x.exe', ['wine', 'C:\\Program Files\\x.exe']],
    ['""', ['']],
    ['"unterminated', null],
  ];
  for (const [exec, args] of split)
    test(`splits ${JSON.stringify(exec)}`, () => assert.deepEqual(splitExec(exec), args));

  test('applies the double escaping: string escapes first, then Exec quoting', () => {
    const e = parseDesktopEntry('[Desktop Entry]\nExec=sh -c "echo \\\\$HOME \\\\\\\\ end"\n');
    assert.equal(e?.exec, 'sh -c "echo \\$HOME \\\\ end"');
    assert.deepEqual(splitExec(e?.exec ?? ''), ['sh', '-c', 'echo $HOME \\ end']);
  });

  test('field codes go, %% stays a percent sign', () => {
    assert.deepEqual(
      expandFieldCodes([
        'app',
        '%U',
        '--ratio=100%%',
        '--file=%f',
        '%i',
        '%c',
        '%k',
        '%d',
        '%D',
        '%n',
        '%N',
        '%v',
        '%m',
      ]),
      ['app', '--ratio=100%', '--file='],
    );
  });

  test('env prefixes and their options are skipped', () => {
    assert.deepEqual(skipEnv(['env', 'GDK_BACKEND=x11', 'A=b c', '/opt/x']), ['/opt/x']);
    assert.deepEqual(
      skipEnv(['/usr/bin/env', '-u', 'LD_PRELOAD', '-C', '/tmp', '-i', 'X=1', 'prog', 'Y=2']),
      ['prog', 'Y=2'],
    );
    assert.deepEqual(skipEnv(['env', '--unset=A', '--', 'prog']), ['prog']);
    assert.deepEqual(skipEnv(['env', '-S', 'A=1 prog --flag', 'file']), ['prog', '--flag', 'file']);
    assert.deepEqual(skipEnv(['environment-tool']), ['environment-tool']);
    assert.deepEqual(skipEnv(['env']), []);
  });

  test('flatpak run names its app past the options', () => {
    assert.equal(
      flatpakApp([
        '/usr/bin/flatpak',
        'run',
        '--branch=stable',
        '--arch=x86_64',
        '--command=gnome-chess',
        '--file-forwarding',
        'org.gnome.Chess',
        '@@u',
        '@@',
      ]),
      'org.gnome.Chess',
    );
    assert.equal(flatpakApp(['flatpak', '--user', 'run', 'app/org.x.Y/x86_64/stable']), 'org.x.Y');
    assert.equal(flatpakApp(['flatpak', 'install', 'org.x.Y']), null);
    assert.equal(flatpakApp(['flatpak-spawn', 'run', 'org.x.Y']), null);
  });

  test('identifiers: absolute kept, bare names through the search path, flatpaks to their launcher', () => {
    const present = new Set(['/root/usr/bin/sh', '/root/usr/games/steam']);
    const opts = {
      underRoot: (p: string) => `/root${p}`,
      searchPath: ['/usr/local/bin', '/usr/bin', 'relative', '/usr/games'],
    };
    const withFs = (exec: string, more: object = {}) => {
      // A search of a fake tree: the files in `present` exist.
      const original = execIdentifier;
      return original(exec, {
        ...opts,
        ...more,
        underRoot: (p: string) => (present.has(`/root${p}`) ? `/proc/self/exe` : '/nonexistent'),
      });
    };
    assert.equal(withFs('sh -c "x"'), '/usr/bin/sh');
    assert.equal(withFs('steam %U'), '/usr/games/steam');
    assert.equal(withFs('missing'), null);
    assert.equal(withFs('./relative'), null);
    assert.equal(withFs('env A=1 /opt//x/../y/app %f'), '/opt/y/app');
    assert.equal(
      withFs('/usr/bin/flatpak run org.gnome.Chess'),
      '/var/lib/flatpak/exports/bin/org.gnome.Chess',
    );
    assert.equal(
      withFs('/usr/bin/flatpak run org.gnome.Chess', {
        flatpakExports: '/home/a/.local/share/flatpak/exports',
      }),
      '/home/a/.local/share/flatpak/exports/bin/org.gnome.Chess',
    );
    assert.equal(withFs('"unterminated'), null);
    assert.equal(withFs('%U'), null);
  });

  test('quoting any arguments as the spec says, then splitting, gives them back', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'binary' }).map((s) => s.split(String.fromCharCode(0)).join('')),
          { minLength: 1, maxLength: 6 },
        ),
        (args) => {
          const exec = args.map(quoteExecArg).join(' ');
          assert.deepEqual(splitExec(exec), args);
        },
      ),
    );
  });

  test('and through the desktop file: the string escape of the quoted line round-trips too', () => {
    const escapeValue = (s: string) =>
      s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r');
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (args) => {
        const line = escapeValue(args.map(quoteExecArg).join(' '));
        const e = parseDesktopEntry(`[Desktop Entry]\nExec=${line}\n`);
        assert.deepEqual(splitExec(e?.exec ?? ''), args);
      }),
    );
  });
});
