/**
 * Runs `then` once, as soon as the browser has shown the first frame with content on screen: the card the
 * child reads is painted first, and what `then` adds (the calm activities, the background glow) never
 * delays it. In software-rendered Chromium a full-screen gradient alone costs the first frame ~40 ms.
 */
export function afterFirstPaint(then: () => void): void {
  let done = false;
  let observer: PerformanceObserver | undefined;
  let fallback: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    if (done) return;
    done = true;
    observer?.disconnect();
    clearTimeout(fallback);
    then();
  };
  try {
    if (PerformanceObserver.supportedEntryTypes?.includes('paint')) {
      observer = new PerformanceObserver((list) => {
        if (list.getEntriesByName('first-contentful-paint').length) run();
      });
      observer.observe({ type: 'paint', buffered: true });
    }
  } catch {
    observer = undefined;
  }
  // Without paint timing: the frame after the first one. Either way a hidden page, which paints nothing,
  // is still completed after a second.
  if (!observer && typeof requestAnimationFrame === 'function')
    requestAnimationFrame(() => setTimeout(run, 0));
  fallback = setTimeout(run, 1000);
}
