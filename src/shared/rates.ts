// Bit rates as the app shows them: one way, everywhere.

/**
 * Every rate the app shows, written one way: in Mbps, exact to the kbps and never rounded into a
 * different number ("2.4 Mbps", "3 Mbps", "0.8 Mbps", "1.008 Mbps"). Fields where a rate is typed keep
 * their own unit (kbps), as their labels say.
 */
export function formatBitrate(bps: number): string {
  const kbps = Math.round(Math.max(0, bps) / 1000)
  return `${kbps / 1000} Mbps`
}
