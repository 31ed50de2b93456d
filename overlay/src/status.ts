import { setText } from './dom.ts';

export type StatusTone = 'idle' | 'pending' | 'ok' | 'error' | 'info';

/** The one `status` element: outcome of a send, and in sign-up mode the waiting state. */
export function showStatus(node: HTMLElement, tone: StatusTone, text: string): void {
  node.dataset.tone = tone;
  setText(node, text);
}
