// Hearth Space on the child's screen: the loopback page server, the kiosk windows, the `show_overlay` /
// `dismiss_overlay` commands, and the `overlay_status` frame that tells the server what is shown.
import {
  AGE_TIERS,
  DEFAULT_AGE_TIER,
  OVERLAY_CONTEXTS,
  OVERLAY_REASONS,
  type ShowOverlayArgs,
} from '@hearth/protocol';
import type { AgentContext, AgentModule } from '../context.js';
import { handleMessage, PAGE_TYPES } from '../ipc/messages.js';
import { Kiosk } from './kiosk.js';
import { findOverlayPage } from './page.js';
import { OverlayServer } from './server.js';

const USERNAME = /^[a-z_][a-z0-9_.-]{0,63}\$?$/i;

function username(args: Record<string, unknown>): string {
  const name = args.linux_username;
  if (typeof name !== 'string' || !USERNAME.test(name))
    throw new Error('linux_username missing or malformed');
  return name;
}

/** The command's arguments, checked: a reason the page knows, the rest cut to what the page shows. */
export function showArgs(args: Record<string, unknown>): ShowOverlayArgs {
  const reason = args.reason as ShowOverlayArgs['reason'];
  if (!OVERLAY_REASONS.includes(reason)) throw new Error('reason missing or unknown');
  const tier = AGE_TIERS.includes(args.age_tier as ShowOverlayArgs['age_tier'])
    ? (args.age_tier as ShowOverlayArgs['age_tier'])
    : DEFAULT_AGE_TIER;
  const context = OVERLAY_CONTEXTS.includes(args.context as NonNullable<ShowOverlayArgs['context']>)
    ? (args.context as ShowOverlayArgs['context'])
    : undefined;
  return {
    reason,
    linux_username: username(args),
    age_tier: tier,
    parent_note: typeof args.parent_note === 'string' ? args.parent_note.slice(0, 2000) : null,
    device_name: typeof args.device_name === 'string' ? args.device_name.slice(0, 300) : '',
    ...(context ? { context } : {}),
  };
}

export function overlayModule(): AgentModule {
  let server: OverlayServer | undefined;
  let kiosk: Kiosk | undefined;
  return {
    name: 'overlay',
    async start(ctx: AgentContext) {
      const log = ctx.log.child({ part: 'overlay' });
      server = new OverlayServer(
        log,
        () => findOverlayPage(ctx.paths),
        async (name, message) =>
          PAGE_TYPES.has(message.type as string)
            ? handleMessage(ctx, name, message)
            : { ok: false, error: 'unknown_type' },
      );
      await server.start();
      const sendStatus = () => {
        if (!kiosk) return;
        void ctx.sendNow({ type: 'overlay_status', overlays: kiosk.current() });
      };
      kiosk = new Kiosk({
        paths: ctx.paths,
        log,
        env: process.env,
        server,
        account: (name) => ctx.accounts().find((a) => a.username === name),
        changed: sendStatus,
      });
      const k = kiosk;
      ctx.overlay = {
        show: (args) => k.show(args),
        dismiss: (name) => k.dismiss(name),
        current: () => k.current(),
      };
      ctx.onCommand('show_overlay', async (args) => {
        const shown = showArgs(args);
        await k.show(shown);
        return { shown: true, linux_username: shown.linux_username };
      });
      ctx.onCommand('dismiss_overlay', async (args) => {
        const name = username(args);
        await k.dismiss(name);
        return { dismissed: true, linux_username: name };
      });
      ctx.events.on('authenticated', sendStatus);
      log.debug('overlay server listening', { origin: server.origin });
    },
    async stop() {
      await kiosk?.stopAll();
      await server?.stop();
    },
  };
}
