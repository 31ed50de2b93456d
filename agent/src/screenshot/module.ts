// `capture_screenshot` (DESIGN §12): the screen of one account of this computer that belongs to a child,
// captured and uploaded to `POST /api/agent/screenshots` with the device token. The command answers
// once the upload is in: `{uploaded:true, bytes, width, height}`, or an error the parent can read.
import { MAX_SCREENSHOT_BYTES } from '@hearth/protocol';
import type { AgentContext, AgentModule } from '../context.js';
import { captureScreen } from './capture.js';

const USERNAME = /^[a-z_][a-z0-9_.-]{0,63}\$?$/i;
const REQUEST_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Whether the server maps the account to a child (the only accounts whose screens are ever taken). */
async function belongsToChild(ctx: AgentContext, username: string): Promise<boolean> {
  const res = await ctx.serverFetch(
    `/api/agent/account?${new URLSearchParams({ linux_username: username })}`,
  );
  if (res.status !== 200) {
    await res.body?.cancel();
    return false;
  }
  const body = (await res.json().catch(() => null)) as { managed_user_id?: unknown } | null;
  return typeof body?.managed_user_id === 'string';
}

async function serverError(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as {
    error?: { code?: unknown; message?: unknown };
  } | null;
  const code = typeof body?.error?.code === 'string' ? body.error.code : '';
  const message = typeof body?.error?.message === 'string' ? body.error.message.slice(0, 300) : '';
  return [`the server refused the screenshot (${res.status}${code ? ` ${code}` : ''})`, message]
    .filter(Boolean)
    .join(': ');
}

export function screenshotModule(): AgentModule {
  return {
    name: 'screenshot',
    start(ctx) {
      const log = ctx.log.child({ part: 'screenshot' });
      /** One capture at a time per account: a second request while one runs gets the same answer. */
      const running = new Map<string, Promise<Record<string, unknown>>>();

      const capture = async (username: string, requestId: string | undefined) => {
        const account = ctx.accounts().find((a) => a.username === username);
        if (!account) throw new Error(`there is no account named ${username} on this computer`);
        if (!(await belongsToChild(ctx, username)))
          throw new Error(`${username} does not belong to a child in Hearth: its screen is not taken`);
        const started = Date.now();
        const shot = await captureScreen(ctx.paths, account, MAX_SCREENSHOT_BYTES);
        const headers: Record<string, string> = {
          'content-type': 'image/png',
          'x-hearth-linux-username': username,
        };
        if (requestId) headers['x-hearth-request-id'] = requestId;
        const res = await ctx.serverFetch('/api/agent/screenshots', {
          method: 'POST',
          headers,
          body: new Uint8Array(shot.png),
        });
        if (res.status !== 201 && res.status !== 200) throw new Error(await serverError(res));
        await res.body?.cancel();
        log.info('screenshot uploaded', {
          linux_username: username,
          bytes: shot.png.length,
          width: shot.width,
          height: shot.height,
          ms: Date.now() - started,
        });
        return { uploaded: true, bytes: shot.png.length, width: shot.width, height: shot.height };
      };

      ctx.onCommand('capture_screenshot', (args) => {
        const username = args.linux_username;
        if (typeof username !== 'string' || !USERNAME.test(username))
          throw new Error('linux_username missing or malformed');
        const requestId =
          typeof args.request_id === 'string' && REQUEST_ID.test(args.request_id)
            ? args.request_id
            : undefined;
        const busy = running.get(username);
        if (busy) return busy;
        const job = capture(username, requestId)
          .catch((err) => {
            log.warn('screenshot failed', { linux_username: username, err });
            throw err;
          })
          .finally(() => running.delete(username));
        running.set(username, job);
        return job;
      });
    },
  };
}
