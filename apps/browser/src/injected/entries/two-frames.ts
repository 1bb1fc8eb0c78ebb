/**
 * In the page: resolves once it has run a rendering step and the tasks after it (IntersectionObserver
 * callbacks are delivered there): two frames, and no timer, which the settle bookkeeping would count as
 * activity.
 */
export default function twoFrames(): Promise<void> {
  return new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
}
