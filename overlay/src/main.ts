import type { AgeTier, OverlayReason } from '@hearth/protocol';
import { type Breathing, createBreathing } from './breathing.ts';
import { el, setText } from './dom.ts';
import { afterFirstPaint } from './first-paint.ts';
import { pickHost } from './hosts/pick-host.ts';
import { icon } from './icons.ts';
import { type Catalogue, pickCatalogue } from './locales/catalogue.ts';
import { cleanDevice, cleanNote, type PageParams, parseReason, parseTier, readParams } from './params.ts';
import { createSignup, type SignupFlow } from './signup.ts';
import { createSketchpad, type Sketchpad } from './sketchpad.ts';
import { showStatus } from './status.ts';
import { createTalk } from './talk.ts';

/** The page is "Hearth Space"; the youngest children (under8) see the friendlier "Cozy Corner". */
const productName = (tier: AgeTier): string => (tier === 'under8' ? 'Cozy Corner' : 'Hearth Space');

interface HearthWindow {
  setAge?: (tier: unknown) => void;
  setReason?: (reason: unknown) => void;
  setDeviceInfo?: (deviceName: unknown, parentNote: unknown) => void;
}

function start(): void {
  const params: PageParams = readParams(location.search);
  const state = {
    reason: params.reason,
    tier: params.tier,
    context: params.context,
    device: params.device,
    note: params.note,
  };
  const host = pickHost(params);
  const catalogue: Catalogue = pickCatalogue(
    params.lang,
    navigator.languages?.length ? navigator.languages : [navigator.language],
  );
  document.documentElement.lang = catalogue.lang;

  const brandName = el('span', { class: 'brand-name' });
  const deviceLabel = el('span', { class: 'chip-label' });
  const deviceName = el('span', { class: 'chip-value' });
  const deviceIcon = el('span', { class: 'chip-icon' });
  const chip = el('p', { class: 'chip' }, deviceIcon, deviceLabel, deviceName);
  const header = el(
    'header',
    { class: 'topbar' },
    el('p', { class: 'brand' }, icon('hearth', 'icon brand-mark'), brandName),
    chip,
  );

  const badge = el('div', { class: 'badge', 'aria-hidden': 'true' });
  const headline = el('h1', { class: 'headline', 'data-hearth': 'headline', id: 'headline' });
  const description = el('p', { class: 'description', 'data-hearth': 'description' });
  const noteTitle = el('figcaption', { class: 'note-title' });
  const noteText = el('p', { class: 'note-text', 'data-hearth': 'note' });
  const note = el('figure', { class: 'note' }, noteTitle, el('blockquote', {}, noteText));
  const hero = el(
    'section',
    { class: 'hero', 'aria-labelledby': 'headline' },
    badge,
    headline,
    description,
    note,
  );

  const actionTitle = el('h2', { class: 'card-title', id: 'action-title' });
  const actionBody = el('div', { class: 'action-body' });
  const status = el('p', { class: 'status', 'data-hearth': 'status', role: 'status', 'data-tone': 'idle' });
  const action = el(
    'section',
    { class: 'action', 'aria-labelledby': 'action-title' },
    actionTitle,
    actionBody,
    status,
  );

  // The calm activities join this column once the card has been painted (see afterFirstPaint below).
  const calmColumn = el('div', { class: 'column column-calm' });
  let calm: { breathing: Breathing; sketchpad: Sketchpad } | null = null;

  const main = el(
    'main',
    { class: 'layout' },
    el('div', { class: 'column column-main' }, el('div', { class: 'card main-card' }, hero, action)),
    calmColumn,
  );
  document.body.append(el('div', { class: 'shell' }, header, main));

  let actionKey = '';
  /** A parent's pause is shown as such; `context` means nothing with the other reasons. */
  const pausedNow = () => state.reason === 'locked' && state.context === 'paused';
  let signup: SignupFlow | null = null;

  function renderAction(reason: OverlayReason, tier: AgeTier): void {
    const key = `${reason}:${tier}:${pausedNow() ? 'paused' : ''}`;
    if (key === actionKey) return;
    actionKey = key;
    signup?.stop();
    signup = null;
    showStatus(status, 'idle', '');
    if (reason === 'signup') {
      setText(actionTitle, catalogue.ui.signupTitle[tier]);
      signup = createSignup({
        host,
        catalogue,
        tier,
        domain: state.device,
        url: params.signupUrl,
        status,
        unreachable: state.context === 'unreachable',
        navigate: (url) => location.assign(url),
      });
      actionBody.replaceChildren(...signup.nodes);
    } else {
      setText(actionTitle, catalogue.ui.talkTitle[tier]);
      actionBody.replaceChildren(
        ...createTalk({ host, catalogue, tier, reason, paused: pausedNow(), status }),
      );
    }
  }

  function render(): void {
    const { reason, tier } = state;
    // On <html>, so that the root background can follow the tier too.
    const root = document.documentElement;
    root.dataset.tier = tier;
    root.dataset.reason = reason;
    root.dataset.host = host.kind;
    if (pausedNow()) root.dataset.context = 'paused';
    else delete root.dataset.context;
    const text = pausedNow() ? catalogue.paused[tier] : catalogue.content[reason][tier];
    const name = productName(tier);
    setText(brandName, name);
    setText(headline, text.headline);
    setText(description, text.description);
    document.title = `${name}: ${text.headline}`;
    badge.replaceChildren(icon(reason, 'icon badge-icon'));

    note.hidden = !state.note;
    setText(noteTitle, catalogue.ui.noteTitle[tier]);
    setText(noteText, state.note);

    const site = reason === 'signup';
    chip.hidden = !state.device;
    deviceIcon.replaceChildren(icon(site ? 'globe' : 'device'));
    setText(deviceLabel, `${site ? catalogue.ui.siteLabel : catalogue.ui.deviceLabel}:`);
    setText(deviceName, state.device);

    calm?.breathing.update(catalogue, tier);
    calm?.sketchpad.update(catalogue, tier);
    renderAction(reason, tier);
  }

  // The Android activity calls these after the page has loaded (overlay/README.md); each re-renders the page.
  const w = window as unknown as HearthWindow;
  w.setAge = (tier) => {
    state.tier = parseTier(tier);
    render();
  };
  w.setReason = (reason) => {
    state.reason = parseReason(reason);
    render();
  };
  w.setDeviceInfo = (deviceName, parentNote) => {
    state.device = cleanDevice(deviceName);
    state.note = cleanNote(parentNote);
    // A new domain in sign-up mode needs a fresh flow.
    if (state.reason === 'signup') actionKey = '';
    render();
  };

  render();
  // Lets tests and the curious measure how long the first render took.
  performance.mark('hearth-space-rendered');

  // The first frame shows the message and what the child can do about it. The breathing exercise, the
  // sketchpad (whose canvas is sized to the screen) and the soft background glow come right after it: in
  // software-rendered Chromium they would otherwise hold that first frame back by some 70 ms.
  afterFirstPaint(() => {
    calm = { breathing: createBreathing(), sketchpad: createSketchpad() };
    calm.breathing.update(catalogue, state.tier);
    calm.sketchpad.update(catalogue, state.tier);
    calmColumn.append(calm.breathing.root, calm.sketchpad.root);
    calm.sketchpad.fit();
    // Tests wait for this; the stylesheet fades the activities and the glow in on it.
    document.documentElement.dataset.settled = '';
    performance.mark('hearth-space-settled');
  });
}

start();
