// What the Go live form shows beside the "Record on this computer" switch: the cost of the file and
// where it goes. Pure, so the renderer and main say the same thing.
import type { OutputSettings } from './contract'

/** Below this much free space on the folder's disk, Go live warns before starting. */
export const LOW_SPACE_BYTES = 2 * 1024 ** 3

/** Bytes an hour of the output as sent (video + audio bitrate): the local file is that stream. */
export function bytesPerHour(
  o: Pick<OutputSettings, 'videoBitrateKbps' | 'audioBitrateKbps'>
): number {
  return ((o.videoBitrateKbps + o.audioBitrateKbps) * 1000 * 3600) / 8
}

/** "1.1 GB", "350 MB": decimal units, as file managers show them. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`
  if (bytes >= 1e6) return `${Math.round(bytes / 1e6)} MB`
  return `${Math.max(0, Math.round(bytes / 1e3))} kB`
}

/** "about 1.1 GB an hour, in Videos/Onair" */
export function recordingCost(
  o: Pick<OutputSettings, 'videoBitrateKbps' | 'audioBitrateKbps'>,
  folderLabel: string
): string {
  return `about ${formatBytes(bytesPerHour(o))} an hour, in ${folderLabel}`
}
