// Predicates that run inside the page (e2e tests and benchmarks).
/**
 * In-page predicate for waitForFunction: is the number at `sel` (a property, or the text) above `min`?
 * A function, not a string: the app's CSP (script-src 'self') rightly refuses string evaluation. It runs
 * in the page, so it is self-contained; this file compiles without the DOM lib, hence the loose types.
 */
export type Probe = [sel: string, prop: string, min: number]
export const numberAbove = ([sel, prop, min]: Probe): boolean => {
  const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } })
    .document
  const el = doc.querySelector(sel) as Record<string, unknown> | null
  if (!el) return false
  const v = prop === 'text' ? parseFloat(String(el.textContent ?? '')) : Number(el[prop])
  return v > min
}
