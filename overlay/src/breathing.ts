import type { AgeTier } from '@hearth/protocol';
import { el, prefersReducedMotion, setText, uniqueId } from './dom.ts';
import { icon } from './icons.ts';
import type { Catalogue } from './locales/catalogue.ts';

export type BreathPhase = 'in' | 'hold' | 'out' | 'rest';

/** A slow rhythm with a longer out-breath, which is what settles people down. Seconds per phase. */
export const BREATH_PATTERN: readonly [BreathPhase, number][] = [
  ['in', 4],
  ['hold', 2],
  ['out', 5],
  ['rest', 2],
];

export interface Breathing {
  root: HTMLElement;
  update(catalogue: Catalogue, tier: AgeTier): void;
}

/**
 * The guided breathing card. A one-second tick drives the cue and the count; the circle's size is a CSS
 * transition over the phase, so with reduced motion only the words change.
 */
export function createBreathing(): Breathing {
  const titleId = uniqueId('breathe-title');
  const title = el('h2', { id: titleId, class: 'card-title' });
  const hint = el('p', { class: 'card-hint' });
  const cue = el('p', { class: 'breath-cue' });
  const count = el('p', { class: 'breath-count', 'aria-hidden': 'true' });
  const circle = el('div', { class: 'breath-circle', 'aria-hidden': 'true' });
  const stage = el(
    'div',
    {
      class: 'breath',
      'data-hearth': 'breathing',
      'data-phase': 'rest',
      role: 'group',
      'aria-labelledby': titleId,
    },
    el(
      'div',
      { class: 'breath-stage' },
      el('div', { class: 'breath-halo', 'aria-hidden': 'true' }),
      circle,
      count,
    ),
    cue,
  );
  const toggle = el('button', { type: 'button', class: 'button ghost tool breath-toggle' });
  const root = el(
    'section',
    { class: 'card breathe', 'aria-labelledby': titleId },
    el('div', { class: 'breathe-text' }, title, hint),
    stage,
    toggle,
  );

  let catalogue: Catalogue | null = null;
  let tier: AgeTier = 'eight12';
  let step = 0;
  let left = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let started = false;

  const phase = (): [BreathPhase, number] => BREATH_PATTERN[step] as [BreathPhase, number];

  function paint(): void {
    if (!catalogue) return;
    const [name, seconds] = phase();
    stage.dataset.phase = !started ? 'rest' : running ? name : 'paused';
    stage.style.setProperty('--phase-ms', `${seconds * 1000}ms`);
    setText(cue, catalogue.ui.cues[name][tier]);
    setText(count, running ? String(left) : '');
    toggle.replaceChildren(
      icon(running ? 'pause' : 'play', 'icon'),
      el('span', {}, running ? catalogue.ui.pause : catalogue.ui.resume),
    );
  }

  function tick(): void {
    left -= 1;
    if (left <= 0) {
      step = (step + 1) % BREATH_PATTERN.length;
      left = phase()[1];
    }
    paint();
    timer = setTimeout(tick, 1000);
  }

  function start(): void {
    step = 0;
    left = phase()[1];
    running = true;
    started = true;
    paint();
    clearTimeout(timer);
    timer = setTimeout(tick, 1000);
  }

  toggle.addEventListener('click', () => {
    if (running) {
      running = false;
      clearTimeout(timer);
      paint();
    } else {
      start();
    }
  });

  return {
    root,
    update(next, nextTier) {
      const first = catalogue === null;
      catalogue = next;
      tier = nextTier;
      setText(title, next.ui.breathingTitle[nextTier]);
      setText(hint, prefersReducedMotion() ? next.ui.breathingHintStill : next.ui.breathingHint[nextTier]);
      if (first) {
        // Show the small "rest" circle first so that the first in-breath visibly grows.
        running = true;
        left = phase()[1];
        setTimeout(start, 80);
      }
      paint();
    },
  };
}
