// A picture of what is on an account's screen (DESIGN §12). On X11 the root window of the account's
// display, dumped by `xwd -root` (Debian's x11-apps) run as the account itself with the display and
// XAUTHORITY the kiosk uses, and turned into a PNG here. On Wayland no program may read the screen
// behind the compositor's back: the desktop portal (org.freedesktop.portal.Screenshot) is asked on the
// account's session bus with `gdbus`, and its answer's file read; GNOME asks the person the first time.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PNG } from 'pngjs';
import type { HumanAccount } from '../accounts.js';
import { findDisplay, runtimeDirOf } from '../overlay/display.js';
import type { AgentPaths } from '../paths.js';
import { decodeXwd, pngWithin, type Rgba } from './image.js';

/** Wider screens are shrunk to this (a parent looks at it in a browser, not at the pixel). */
export const MAX_WIDTH = 1920;
/** The dump of an 8K screen at 32 bits a pixel, with room for the header. */
const MAX_DUMP_BYTES = 8192 * 8192 * 4 + 64 * 1024;

export interface Screenshot {
  png: Buffer;
  width: number;
  height: number;
}

function run(
  file: string,
  args: string[],
  options: { env: Record<string, string>; account: HumanAccount; timeoutMs: number },
): Promise<Buffer> {
  const self = process.getuid?.();
  const switching = self === 0 && options.account.uid !== 0;
  if (self !== 0 && self !== options.account.uid)
    return Promise.reject(
      new Error(`the agent does not run as root, so it cannot look at ${options.account.username}'s screen`),
    );
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        env: options.env,
        cwd: '/',
        encoding: 'buffer',
        timeout: options.timeoutMs,
        maxBuffer: MAX_DUMP_BYTES,
        ...(switching ? { uid: options.account.uid, gid: options.account.gid } : {}),
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        if ((err as NodeJS.ErrnoException).code === 'ENOENT')
          return reject(
            new Error(
              `${path.basename(file)} is not installed${file.endsWith('xwd') ? ' (Debian package x11-apps)' : ''}`,
            ),
          );
        reject(new Error(`${file}: ${stderr.toString('utf8').trim().slice(0, 300) || err.message}`));
      },
    );
  });
}

/** The account's screen as a PNG of at most MAX_WIDTH pixels wide and `maxBytes`. */
export async function captureScreen(
  paths: AgentPaths,
  account: HumanAccount,
  maxBytes: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Screenshot> {
  const display = await findDisplay(paths, account, env);
  if (!display) throw new Error(`${account.username} has no graphical session on this computer`);
  const runtime = display.source === 'logind' ? runtimeDirOf(paths, account.uid) : env.XDG_RUNTIME_DIR;
  if (display.wayland) {
    if (!runtime)
      throw new Error(`${account.username}'s Wayland session has no runtime directory to find its bus in`);
    return pngWithin(await viaPortal(account, runtime, env), MAX_WIDTH, maxBytes);
  }
  const dump = await run(env.HEARTH_AGENT_XWD || 'xwd', ['-root', '-silent'], {
    env: {
      PATH: env.PATH || '/usr/local/bin:/usr/bin:/bin',
      HOME: account.home,
      USER: account.username,
      LOGNAME: account.username,
      ...display.env,
      ...(runtime ? { XDG_RUNTIME_DIR: runtime } : {}),
    },
    account,
    timeoutMs: 10_000,
  });
  return pngWithin(decodeXwd(dump), MAX_WIDTH, maxBytes);
}

const PORTAL = 'org.freedesktop.portal.Desktop';
const PORTAL_WAIT_MS = 10_000;

/**
 * The screen through the desktop portal on the account's session bus: `gdbus monitor` listens for the
 * request's Response, `gdbus call` asks for a non-interactive screenshot, and the file the answer names
 * is read (and removed) as the account. `HEARTH_AGENT_GDBUS` names gdbus (tests give a stand-in).
 */
async function viaPortal(account: HumanAccount, runtime: string, env: NodeJS.ProcessEnv): Promise<Rgba> {
  const gdbus = env.HEARTH_AGENT_GDBUS || 'gdbus';
  const sessionEnv = {
    PATH: env.PATH || '/usr/local/bin:/usr/bin:/bin',
    HOME: account.home,
    USER: account.username,
    XDG_RUNTIME_DIR: runtime,
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${path.join(runtime, 'bus')}`,
  };
  const self = process.getuid?.();
  const switching = self === 0 && account.uid !== 0;
  if (self !== 0 && self !== account.uid)
    throw new Error(`the agent does not run as root, so it cannot ask ${account.username}'s desktop`);
  const token = `hearth_${randomBytes(8).toString('hex')}`;
  const monitor = spawn(gdbus, ['monitor', '--session', '--dest', PORTAL], {
    env: sessionEnv,
    cwd: '/',
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(switching ? { uid: account.uid, gid: account.gid } : {}),
  });
  try {
    let out = '';
    const lines: ((text: string) => void)[] = [];
    monitor.stdout.on('data', (d: Buffer) => {
      out = (out + d.toString('utf8')).slice(-64 * 1024);
      for (const l of lines) l(out);
    });
    const seen = (test: RegExp, what: string) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(what)), PORTAL_WAIT_MS);
        const check = (text: string) => {
          const m = test.exec(text);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          }
        };
        monitor.once('error', (err) => {
          clearTimeout(timer);
          reject(new Error(`gdbus cannot run: ${err.message}`));
        });
        monitor.once('exit', () => {
          clearTimeout(timer);
          reject(new Error(`${account.username}'s session bus cannot be reached (no desktop portal to ask)`));
        });
        lines.push(check);
        check(out);
      });
    await seen(/Monitoring signals/, 'gdbus monitor did not start');
    const answered = seen(
      new RegExp(`/${token}: org\\.freedesktop\\.portal\\.Request\\.Response \\(uint32 (\\d+), (.*)\\)`),
      'the desktop portal did not answer in time (it may be asking the person)',
    );
    answered.catch(() => {});
    await run(
      gdbus,
      [
        'call',
        '--session',
        '--dest',
        PORTAL,
        '--object-path',
        '/org/freedesktop/portal/desktop',
        '--method',
        'org.freedesktop.portal.Screenshot.Screenshot',
        '',
        `{'handle_token': <'${token}'>, 'interactive': <false>}`,
      ],
      { env: sessionEnv, account, timeoutMs: PORTAL_WAIT_MS },
    ).catch((err: Error) => {
      throw new Error(`the desktop portal cannot take screenshots on this session: ${err.message}`);
    });
    const [, code, results] = await answered;
    if (code !== '0')
      throw new Error(
        `the desktop portal refused the screenshot (${code === '1' ? 'the person declined' : 'it was not allowed'})`,
      );
    const uri = /'uri': <'file:\/\/([^']+)'>/.exec(results ?? '')?.[1];
    if (!uri) throw new Error('the desktop portal answered without a file');
    const file = decodeURIComponent(uri);
    // Read and removed as the account: the file is theirs, wherever the answer says it is.
    const bytes = await run('cat', ['--', file], { env: sessionEnv, account, timeoutMs: 10_000 });
    await run('rm', ['-f', '--', file], { env: sessionEnv, account, timeoutMs: 10_000 }).catch(() => {});
    // The header's size first: a picture larger than any screen is not decoded.
    if (bytes.length < 24 || bytes.readUInt32BE(16) * bytes.readUInt32BE(20) > 16384 * 16384)
      throw new Error('the desktop portal’s file is not a screen-sized PNG');
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  } finally {
    monitor.kill('SIGTERM');
  }
}
