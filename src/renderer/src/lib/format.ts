// Display formatting shared by the screens; pure so they read the same everywhere.

export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  const mm = String(m).padStart(2, '0')
  const ss = String(sec).padStart(2, '0')
  return h > 0 ? `${h}:${mm}:${ss}` : `${m}:${ss}`
}

export function formatDate(ms: number): string {
  if (!ms) return '—'
  return new Date(ms).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit'
  })
}

/**
 * Bits per second as kbps, or as Mbps when that is exact to a tenth (3 Mbps, 1.6 Mbps): never rounded
 * into a different number (800 kbps stays 800 kbps, 1,008 kbps is not "1.0 Mbps").
 */
export function formatBitrate(bps: number): string {
  if (bps >= 1_000_000 && bps % 100_000 === 0) return `${bps / 1_000_000} Mbps`
  return `${Math.round(bps / 1000)} kbps`
}
