import type { OverlayReason } from '@hearth/protocol';

const SVG_NS = 'http://www.w3.org/2000/svg';

type Shape = [tag: 'path' | 'circle', attrs: Record<string, string>];

/** Our own drawings, 24×24, stroked with the current text colour. */
const shapes = {
  hearth: [
    ['path', { d: 'M3.5 11.2 12 3.8l8.5 7.4V19a2 2 0 0 1-2 2h-13a2 2 0 0 1-2-2z' }],
    [
      'path',
      {
        d: 'M12 18.2c-1.8 0-2.9-1.1-2.9-2.6 0-1.6 1.3-2.5 1.9-4 .9.9 1.2 1.7 1.2 2.5.5-.4.9-1 1-1.7 1 .9 1.7 2 1.7 3.2 0 1.5-1.1 2.6-2.9 2.6z',
        fill: 'currentColor',
        stroke: 'none',
      },
    ],
  ],
  sleep: [
    ['path', { d: 'M19.5 14.6A7.8 7.8 0 1 1 9.4 4.5a6.2 6.2 0 0 0 10.1 10.1z' }],
    ['path', { d: 'M16.5 3.5v3M15 5h3M20 8.5v2M19 9.5h2' }],
  ],
  filtered: [
    ['path', { d: 'M12 3.2 19 6v5.2c0 4.3-2.9 7.9-7 9.6-4.1-1.7-7-5.3-7-9.6V6z' }],
    ['path', { d: 'M9 9l6 6M15 9l-6 6' }],
  ],
  locked: [
    ['path', { d: 'M7 3.5h10M7 20.5h10M8 3.5c0 4 4 5 4 8.5s-4 4.5-4 8.5M16 3.5c0 4-4 5-4 8.5s4 4.5 4 8.5' }],
  ],
  signup: [
    ['circle', { cx: '9', cy: '8', r: '3.6' }],
    ['path', { d: 'M2.8 20c.4-3.4 3-5.6 6.2-5.6s5.8 2.2 6.2 5.6M18.5 8v6M15.5 11h6' }],
  ],
  clock_tamper: [
    ['circle', { cx: '12', cy: '12.5', r: '8.3' }],
    ['path', { d: 'M12 8v4.7l3 1.9M9.5 2.5h5' }],
  ],
  check: [['path', { d: 'M5 12.5 9.5 17 19 7.5' }]],
  eraser: [['path', { d: 'm15.5 4.5 4 4-9.8 9.8H5.5l-2-2a1.5 1.5 0 0 1 0-2.1zM9 11l4 4M10 18.3h10' }]],
  trash: [['path', { d: 'M4.5 7h15M9.5 7V4.5h5V7M6.5 7l1 13h9l1-13' }]],
  pause: [['path', { d: 'M9 6v12M15 6v12' }]],
  play: [['path', { d: 'M8 5.5v13l10.5-6.5z' }]],
  send: [['path', { d: 'M4 12 20 4.5 16.5 20l-4.5-6zM12 14l8-9.5' }]],
  globe: [
    ['circle', { cx: '12', cy: '12', r: '8.5' }],
    [
      'path',
      {
        d: 'M3.5 12h17M12 3.5c2.4 2.3 3.5 5.2 3.5 8.5s-1.1 6.2-3.5 8.5c-2.4-2.3-3.5-5.2-3.5-8.5s1.1-6.2 3.5-8.5z',
      },
    ],
  ],
  device: [['path', { d: 'M4 5.5h16v10H4zM2.5 18.5h19' }]],
} satisfies Record<string, Shape[]>;

export type IconName = keyof typeof shapes | OverlayReason;

export function icon(name: IconName, className = 'icon'): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', className);
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  for (const [tag, attrs] of shapes[name] as Shape[]) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    svg.appendChild(node);
  }
  return svg;
}
