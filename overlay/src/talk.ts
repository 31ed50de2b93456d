import { type AgeTier, LIMITS, type OverlayReason } from '@hearth/protocol';
import { el, uniqueId } from './dom.ts';
import type { Host, SendResult } from './hosts/host.ts';
import { icon } from './icons.ts';
import { type Catalogue, format, type PresetReason } from './locales/catalogue.ts';
import { showStatus } from './status.ts';

/** The same bound the server puts on a parent note: a message, not an essay. */
export const MESSAGE_MAX = LIMITS.parentNoteMaxLength;

export interface TalkContext {
  host: Host;
  catalogue: Catalogue;
  tier: AgeTier;
  reason: Exclude<OverlayReason, 'signup'>;
  /** `locked` because a parent paused the child: the presets ask for the screen back, not for more time. */
  paused?: boolean;
  status: HTMLElement;
}

const length = (text: string): number => Array.from(text.trim()).length;

/**
 * The "talk to your parent" card body: one-tap presets for the younger tiers, a free-text field for teens.
 * Buttons are marked aria-disabled rather than disabled while a send is running, so keyboard focus stays put.
 */
export function createTalk(ctx: TalkContext): HTMLElement[] {
  const { catalogue, tier, status } = ctx;
  const ui = catalogue.ui;
  let busy = false;

  async function send(message: string): Promise<SendResult> {
    showStatus(status, 'pending', ui.sending);
    let result: SendResult;
    try {
      result = await ctx.host.sendAccessRequest(ctx.reason, message);
    } catch {
      result = { ok: false, error: 'unreachable' };
    }
    if (result.ok) showStatus(status, 'ok', ui.sent[tier]);
    else if (ctx.host.kind === 'preview' || result.error === 'preview')
      showStatus(status, 'info', ui.preview);
    else showStatus(status, 'error', ui.failed[tier]);
    return result;
  }

  const intro = el('p', { class: 'card-hint' }, ui.talkIntro[tier]);

  if (tier !== 'teen') {
    const presets = ctx.paused
      ? catalogue.pausedPresets[tier]
      : catalogue.presets[ctx.reason as PresetReason][tier];
    const list = el('ul', { class: 'presets', role: 'list' });
    const buttons = presets.map((text) => {
      const mark = el(
        'span',
        { class: 'preset-mark' },
        icon('check'),
        el('span', { class: 'visually-hidden' }, ` (${ui.sentMark})`),
      );
      const button = el(
        'button',
        { type: 'button', class: 'preset', 'data-hearth': 'preset' },
        el('span', {}, text),
        mark,
      );
      button.addEventListener('click', async () => {
        if (busy || button.dataset.sent === 'true') return;
        busy = true;
        for (const b of buttons) b.setAttribute('aria-disabled', 'true');
        const result = await send(text);
        busy = false;
        if (result.ok) button.dataset.sent = 'true';
        for (const b of buttons) if (b.dataset.sent !== 'true') b.removeAttribute('aria-disabled');
      });
      list.appendChild(el('li', {}, button));
      return button;
    });
    return [intro, list];
  }

  const inputId = uniqueId('message');
  const counterId = uniqueId('counter');
  const input = el('textarea', {
    id: inputId,
    class: 'message',
    'data-hearth': 'message-input',
    rows: 3,
    placeholder: ui.messagePlaceholder,
    'aria-describedby': counterId,
    autocomplete: 'off',
    spellcheck: 'true',
  });
  const counter = el('p', { id: counterId, class: 'counter' });
  const sendButton = el(
    'button',
    { type: 'submit', class: 'button primary', 'data-hearth': 'send' },
    icon('send'),
    el('span', {}, ui.send),
  );
  const updateCounter = () => {
    const n = length(input.value);
    const over = n > MESSAGE_MAX;
    counter.textContent = format(over ? ui.counterOver : ui.counter, { n, max: MESSAGE_MAX });
    counter.dataset.over = String(over);
    input.setAttribute('aria-invalid', String(over));
  };
  input.addEventListener('input', updateCounter);
  updateCounter();

  const form = el(
    'form',
    { class: 'compose', novalidate: true },
    el('label', { for: inputId, class: 'field-label' }, ui.messageLabel),
    input,
    el('div', { class: 'compose-row' }, counter, sendButton),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    const message = input.value.trim();
    const n = length(message);
    if (n === 0) {
      showStatus(status, 'error', ui.empty);
      input.focus();
      return;
    }
    if (n > MESSAGE_MAX) {
      showStatus(status, 'error', format(ui.tooLong, { max: MESSAGE_MAX }));
      input.focus();
      return;
    }
    busy = true;
    sendButton.setAttribute('aria-disabled', 'true');
    const result = await send(message);
    busy = false;
    sendButton.removeAttribute('aria-disabled');
    if (result.ok) {
      input.value = '';
      updateCounter();
    }
  });
  // Ctrl+Enter (or Cmd+Enter) sends from the text field, as in most chat boxes.
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  return [intro, form];
}
