import type { AgeTier } from '@hearth/protocol';
import { el, setText, uniqueId } from './dom.ts';
import { icon } from './icons.ts';
import type { Catalogue } from './locales/catalogue.ts';

/**
 * Pencil, coral, sunflower, leaf, sky, plum: cheerful without shouting. The pencil is the paper's
 * opposite (`--pencil`): dark on the light paper, chalk-white on the dark paper at night.
 */
export const INKS = ['var(--pencil)', '#e4572e', '#f2b705', '#2f9e5b', '#2f7fe0', '#a05cc4'] as const;

/** Canvas wants a real colour, not a custom property. */
function resolveInk(ink: string, from: Element): string {
  if (!ink.startsWith('var(')) return ink;
  return getComputedStyle(from).getPropertyValue(ink.slice(4, -1)).trim() || '#2d2a32';
}

/** Stroke width in CSS pixels: little hands get a fat crayon. */
export const STROKE_WIDTH: Record<AgeTier, number> = { under8: 14, eight12: 7, teen: 4 };

export interface Sketchpad {
  root: HTMLElement;
  canvas: HTMLCanvasElement;
  update(catalogue: Catalogue, tier: AgeTier): void;
  /** Sizes the canvas to its paper now, once the pad is in the page; afterwards it follows by itself. */
  fit(): void;
}

export function createSketchpad(): Sketchpad {
  const titleId = uniqueId('draw-title');
  const title = el('h2', { id: titleId, class: 'card-title' });
  const swatchGroup = el('div', { class: 'swatches', role: 'group' });
  const swatches = INKS.map((ink, index) => {
    const button = el('button', {
      type: 'button',
      class: 'swatch',
      'aria-pressed': index === 0 ? 'true' : 'false',
    });
    button.style.setProperty('--ink', ink);
    swatchGroup.appendChild(button);
    return button;
  });
  const eraserLabel = el('span', { class: 'tool-label' });
  const eraser = el(
    'button',
    { type: 'button', class: 'button ghost tool', 'aria-pressed': 'false' },
    icon('eraser'),
    eraserLabel,
  );
  const clearLabel = el('span', { class: 'tool-label' });
  const clear = el('button', { type: 'button', class: 'button ghost tool' }, icon('trash'), clearLabel);
  const canvas = el('canvas', { class: 'sketch', 'data-hearth': 'sketchpad', role: 'img' });
  const paper = el('div', { class: 'paper' }, canvas);
  const root = el(
    'section',
    { class: 'card draw', 'aria-labelledby': titleId },
    el('div', { class: 'card-head' }, title, el('div', { class: 'tools' }, swatchGroup, eraser, clear)),
    paper,
  );

  const context = canvas.getContext('2d');
  let ink: string = INKS[0];
  let erasing = false;
  /** The ink of the stroke in progress, resolved once per stroke. */
  let colour = '#2d2a32';
  let width = STROKE_WIDTH.eight12;
  /** Last point of each pointer that is drawing, so two fingers draw two lines. */
  const strokes = new Map<number, { x: number; y: number }>();

  function select(index: number | 'eraser'): void {
    erasing = index === 'eraser';
    if (index !== 'eraser') ink = INKS[index] ?? INKS[0];
    swatches.forEach((button, i) => {
      button.setAttribute('aria-pressed', String(i === index));
    });
    eraser.setAttribute('aria-pressed', String(erasing));
  }
  swatches.forEach((button, index) => {
    button.addEventListener('click', () => select(index));
  });
  eraser.addEventListener('click', () =>
    select(erasing ? swatches.findIndex((_, i) => INKS[i] === ink) : 'eraser'),
  );
  clear.addEventListener('click', () => context?.clearRect(0, 0, canvas.width, canvas.height));

  /** Keeps the backing store at the displayed size times the pixel ratio, keeping what was drawn. */
  function resize(): void {
    const ratio = window.devicePixelRatio || 1;
    // The canvas is laid out by CSS to fill the paper; its backing store follows that box.
    const rect = canvas.getBoundingClientRect();
    const w = Math.max(1, Math.round(rect.width * ratio));
    const h = Math.max(1, Math.round(rect.height * ratio));
    if (w === canvas.width && h === canvas.height) return;
    let keep: HTMLCanvasElement | null = null;
    if (canvas.width > 1 && canvas.height > 1) {
      keep = document.createElement('canvas');
      keep.width = canvas.width;
      keep.height = canvas.height;
      keep.getContext('2d')?.drawImage(canvas, 0, 0);
    }
    canvas.width = w;
    canvas.height = h;
    if (keep) context?.drawImage(keep, 0, 0, keep.width, keep.height, 0, 0, w, h);
  }
  if (typeof ResizeObserver === 'function') new ResizeObserver(resize).observe(canvas);
  else window.addEventListener('resize', resize);

  function point(event: PointerEvent): { x: number; y: number; scale: number } {
    const rect = canvas.getBoundingClientRect();
    const scale = rect.width > 0 ? canvas.width / rect.width : 1;
    return { x: (event.clientX - rect.left) * scale, y: (event.clientY - rect.top) * scale, scale };
  }

  function segment(from: { x: number; y: number }, event: PointerEvent): { x: number; y: number } {
    const to = point(event);
    if (!context) return to;
    // A pen's pressure thickens the line a little; mouse and touch report a flat 0.5.
    const pressure = event.pointerType === 'pen' && event.pressure > 0 ? 0.5 + event.pressure : 1;
    context.globalCompositeOperation = erasing ? 'destination-out' : 'source-over';
    context.strokeStyle = colour;
    context.lineWidth = width * (erasing ? 3 : pressure) * to.scale;
    context.lineCap = 'round';
    context.lineJoin = 'round';
    context.beginPath();
    context.moveTo(from.x, from.y);
    // A zero-length segment draws a dot with the round cap.
    context.lineTo(to.x + (to.x === from.x && to.y === from.y ? 0.01 : 0), to.y);
    context.stroke();
    return to;
  }

  canvas.addEventListener('pointerdown', (event) => {
    if (event.pointerType === 'mouse' && event.button !== 0) return;
    event.preventDefault();
    resize();
    try {
      // Keeps the stroke going when the pointer leaves the paper; synthetic events cannot be captured.
      canvas.setPointerCapture(event.pointerId);
    } catch {}
    colour = resolveInk(ink, canvas);
    const start = point(event);
    strokes.set(event.pointerId, segment(start, event));
  });
  canvas.addEventListener('pointermove', (event) => {
    let last = strokes.get(event.pointerId);
    if (!last) return;
    const events = typeof event.getCoalescedEvents === 'function' ? event.getCoalescedEvents() : [];
    for (const e of events.length ? events : [event]) last = segment(last, e);
    strokes.set(event.pointerId, last);
  });
  const end = (event: PointerEvent) => {
    strokes.delete(event.pointerId);
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);
  canvas.addEventListener('lostpointercapture', end);

  return {
    root,
    canvas,
    fit: resize,
    update(catalogue, tier) {
      width = STROKE_WIDTH[tier];
      setText(title, catalogue.ui.drawingTitle[tier]);
      swatchGroup.setAttribute('aria-label', catalogue.ui.colours);
      swatches.forEach((button, i) => {
        const name = catalogue.ui.colourNames[i] ?? '';
        button.setAttribute('aria-label', name);
        button.title = name;
      });
      setText(eraserLabel, catalogue.ui.eraser);
      setText(clearLabel, catalogue.ui.clear);
      canvas.setAttribute('aria-label', catalogue.ui.canvasLabel);
    },
  };
}
