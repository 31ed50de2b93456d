import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MAX_ICON_BYTES } from '@hearth/protocol';
import { pngSize } from '../src/inventory/icons.js';
import { type AccountInventory, InventoryCollector } from '../src/inventory/inventory.js';
import { AppScanner, type ScannedApp } from '../src/inventory/scan.js';
import { makeSysroot, type Sysroot } from './harness.js';
import { materialiseCorpus } from './inventory-corpus.js';

const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin' };

describe('inventory scan over the XDG corpus', () => {
  let sys: Sysroot;
  let apps: Map<string, ScannedApp[]>;
  let inventories: AccountInventory[];
  let collector: InventoryCollector;
  const skipped: string[] = [];
  const accounts = () => [
    { username: 'ann', home: '/home/ann' },
    { username: 'ben', home: '/home/ben' },
  ];

  before(async () => {
    sys = makeSysroot([
      { username: 'ann', uid: 1000 },
      { username: 'ben', uid: 1001 },
    ]);
    await materialiseCorpus(sys.root);
    const paths = { stateDir: sys.stateDir, runDir: sys.runDir, sysroot: sys.root };
    apps = await new AppScanner(paths, ENV).scan(accounts());
    collector = new InventoryCollector(paths, ENV, (file) => skipped.push(path.relative(sys.root, file)));
    inventories = await collector.collect(accounts());
  });
  after(() => sys?.cleanup());

  const find = (user: string, identifier: string) => apps.get(user)?.find((a) => a.identifier === identifier);

  test('finds the applications with their identifiers as DESIGN §14 reads them', () => {
    const ids = (apps.get('ben') ?? []).map((a) => a.identifier).sort();
    assert.deepEqual(
      ids,
      [
        '/opt/Scratch 3/scratch-desktop',
        '/opt/My Games/Star Runner/run game.sh',
        '/opt/minecraft-launcher/minecraft-launcher',
        '/snap/bin/spotify',
        '/usr/bin/audacity',
        '/usr/bin/bash',
        '/usr/bin/big-icon-app',
        '/usr/bin/blender',
        '/usr/bin/bomb-icon-app',
        '/usr/bin/broken-icon-app',
        '/usr/bin/chromium',
        '/usr/bin/gnome-calculator',
        '/usr/bin/gnome-terminal',
        '/usr/bin/gnome-text-editor',
        '/usr/bin/godot3',
        '/usr/bin/htop',
        '/usr/bin/inkscape',
        '/usr/bin/kate',
        '/usr/bin/krita',
        '/usr/bin/libreoffice',
        '/usr/bin/obs',
        '/usr/bin/percent-tool',
        '/usr/bin/sh',
        '/usr/bin/thunderbird',
        '/usr/bin/tuxpaint',
        '/usr/bin/vlc',
        '/usr/games/0ad',
        '/usr/games/checkers',
        '/usr/games/minetest',
        '/usr/games/steam',
        '/usr/games/supertux2',
        '/usr/games/supertuxkart',
        '/usr/lib/firefox-esr/firefox-esr',
        '/usr/local/bin/gimp',
        '/usr/share/code/code',
        '/usr/share/discord/Discord',
        '/var/lib/flatpak/exports/bin/org.gnome.Chess',
        '/var/lib/flatpak/exports/bin/org.videolan.VLC',
      ].sort(),
    );
  });

  test('skips Hidden, NoDisplay, Link, Directory, no Exec, a missing TryExec or program, broken files', () => {
    const names = (apps.get('ben') ?? []).map((a) => a.application_name);
    for (const gone of [
      'Hidden Helper',
      'File Roller helper',
      "The Debian Administrator's Handbook",
      'Games',
      'Settings Service',
      'Not Installed',
      'Ghost App',
      'Orphan',
      'Unterminated Quote',
    ])
      assert.ok(!names.includes(gone), gone);
  });

  test("an account's own entries are added and its Hidden=true entry hides the system's", () => {
    assert.equal(find('ben', '/usr/bin/vlc')?.application_name, 'VLC media player');
    assert.equal(find('ann', '/usr/bin/vlc'), undefined);
    assert.equal(find('ann', '/home/ann/.itch/itch')?.application_name, 'itch');
    assert.equal(find('ann', '/usr/bin/wine')?.desktop_id, 'wine-Programs-Tiny Game.desktop');
    assert.equal(
      find('ann', '/home/ann/.local/share/flatpak/exports/bin/io.github.ann.Sketch')?.application_name,
      'Sketch Pad',
    );
    assert.equal(find('ben', '/home/ann/.itch/itch'), undefined);
  });

  test('desktop IDs, precedence and the entry kept for a shared program', () => {
    assert.equal(find('ben', '/usr/bin/kate')?.desktop_id, 'kde4-kate.desktop');
    // /usr/local/share comes before /usr/share: its gimp.desktop wins the ID.
    assert.equal(find('ben', '/usr/local/bin/gimp')?.application_name, 'GIMP (local build)');
    assert.equal(find('ben', '/usr/bin/gimp-2.10'), undefined);
    // Writer, Calc, Impress and the start centre all run /usr/bin/libreoffice: one app.
    assert.equal(find('ben', '/usr/bin/libreoffice')?.desktop_id, 'libreoffice-calc.desktop');
  });

  test('names: unlocalised first, escapes, repeated keys, CRLF and BOM files', () => {
    assert.equal(find('ben', '/usr/bin/tuxpaint')?.application_name, 'Tux Paint');
    assert.equal(find('ben', '/usr/games/checkers')?.application_name, 'Jeu de Dames');
    assert.equal(find('ben', '/usr/bin/gnome-calculator')?.application_name, 'Calculator');
    assert.equal(find('ben', '/usr/bin/gnome-text-editor')?.application_name, 'Text Editor');
    assert.equal(find('ben', '/usr/lib/firefox-esr/firefox-esr')?.application_name, 'Firefox ESR');
  });

  test('versions from dpkg (multiarch, merged /usr), flatpak metainfo and snap.yaml', () => {
    const v = (id: string) => find('ben', id)?.version_name;
    assert.equal(v('/usr/lib/firefox-esr/firefox-esr'), '115.9.1esr-1~deb12u1');
    assert.equal(v('/usr/bin/libreoffice'), '4:7.4.7-1+deb12u1');
    assert.equal(v('/usr/games/steam'), '1:1.0.0.79~ds-2');
    assert.equal(v('/usr/bin/bash'), '5.2.15-2+b2');
    assert.equal(v('/usr/bin/vlc'), '3.0.20-0+deb12u1');
    assert.equal(v('/usr/bin/htop'), '', 'a removed package has no version');
    assert.equal(v('/usr/local/bin/gimp'), '');
    assert.equal(v('/var/lib/flatpak/exports/bin/org.gnome.Chess'), '46.0');
    assert.equal(v('/snap/bin/spotify'), '1.2.31.1205');
  });

  test('every icon is a PNG of at most 32 KB whose hash is its SHA-256, and every app points at one it has', () => {
    for (const inv of inventories) {
      assert.ok(inv.icons.size >= 15, `${inv.username} has icons: ${inv.icons.size}`);
      for (const [hash, png] of inv.icons) {
        assert.ok(png.length <= MAX_ICON_BYTES);
        assert.equal(createHash('sha256').update(png).digest('hex'), hash);
        const size = pngSize(png);
        assert.ok(size && size.width <= 64 && size.height <= 64 && size.width >= 16, JSON.stringify(size));
        assert.equal(png.toString('latin1', png.length - 8, png.length - 4), 'IEND');
      }
      for (const app of inv.apps) if (app.icon_hash) assert.ok(inv.icons.has(app.icon_hash));
    }
  });

  test('icons come from the theme, its parents, pixmaps, absolute paths and flatpak exports; bad ones are skipped', () => {
    const ben = inventories.find((i) => i.username === 'ben') as AccountInventory;
    const ann = inventories.find((i) => i.username === 'ann') as AccountInventory;
    const icon = (inv: AccountInventory, id: string) =>
      inv.apps.find((a) => a.identifier === id)?.icon_hash ?? null;
    for (const id of [
      '/usr/lib/firefox-esr/firefox-esr',
      '/usr/local/bin/gimp',
      '/opt/minecraft-launcher/minecraft-launcher',
      '/opt/My Games/Star Runner/run game.sh',
      '/snap/bin/spotify',
      '/var/lib/flatpak/exports/bin/org.gnome.Chess',
      '/usr/bin/gnome-text-editor',
      '/usr/bin/big-icon-app',
      '/usr/bin/kate',
    ])
      assert.ok(icon(ben, id), `ben's ${id} has an icon`);
    assert.ok(icon(ann, '/home/ann/.itch/itch'), "ann's own icon from ~/.local/share/icons");
    assert.ok(icon(ann, '/home/ann/.local/share/flatpak/exports/bin/io.github.ann.Sketch'));
    // ann's theme (Papyrus, from her GTK settings) has its own Firefox and inherits hicolor's Steam.
    assert.notEqual(
      icon(ann, '/usr/lib/firefox-esr/firefox-esr'),
      icon(ben, '/usr/lib/firefox-esr/firefox-esr'),
    );
    assert.equal(icon(ann, '/usr/games/steam'), icon(ben, '/usr/games/steam'));
    assert.equal(icon(ben, '/usr/bin/sh'), null, 'an XPM pixmap is not rastered');
    assert.equal(icon(ben, '/usr/bin/broken-icon-app'), null);
    assert.equal(icon(ben, '/usr/bin/bomb-icon-app'), null);
    assert.ok(skipped.some((f) => f.endsWith('broken-icon-app.png')));
    assert.ok(skipped.some((f) => f.endsWith('bomb-icon-app.png')));
  });

  test('the nearest size to 48 is chosen: the 48 px Firefox PNG, unscaled', () => {
    const ben = inventories.find((i) => i.username === 'ben') as AccountInventory;
    const hash = ben.apps.find((a) => a.identifier === '/usr/lib/firefox-esr/firefox-esr')
      ?.icon_hash as string;
    assert.deepEqual(pngSize(ben.icons.get(hash) as Buffer), { width: 48, height: 48 });
    const source = readFileSync(path.join(sys.root, 'usr/share/icons/hicolor/48x48/apps/firefox-esr.png'));
    assert.deepEqual(pngSize(source), { width: 48, height: 48 });
  });

  test('a second scan rasters nothing again and gives the same inventory', async () => {
    const again = await collector.collect(accounts());
    assert.equal(collector.icons.lastRastered, 0);
    assert.deepEqual(
      again.map((i) => i.apps),
      inventories.map((i) => i.apps),
    );
  });
});
