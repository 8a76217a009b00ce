// What a session row says about the service's recording against the local copy ("Livepeer recorded
// 1:44:10 of 3:02:55") and about an upload of the copy (progress, rate, time left). Pure.
import type { RecordingVerdict, UploadView } from '../../../../shared/uploads'
import { formatBytes } from '../../../../shared/local-recording'
import { formatDuration } from '../../lib/format'

/** The row's warning, or undefined when the service's recording is whole (or still being made). */
export function verdictText(v: RecordingVerdict, service: string): string | undefined {
  switch (v.kind) {
    case 'short':
      return `${service} recorded ${formatDuration(v.recordedSec)} of ${formatDuration(v.localSec)}`
    case 'missing':
      return `${service} has no recording of this broadcast`
    case 'failed':
      return `${service}'s recording of this broadcast failed`
    default:
      return undefined
  }
}

const percent = (u: Pick<UploadView, 'sent' | 'size'>): number =>
  u.size > 0 ? Math.floor((u.sent / u.size) * 100) : 0

/** "Uploading 45% (90 MB of 200 MB), 12 MB/s, 0:42 left", "Paused at 45%", "Processing…". */
export function uploadText(u: UploadView, service: string): string {
  switch (u.state) {
    case 'uploading': {
      const part = `Uploading ${percent(u)}% (${formatBytes(u.sent)} of ${formatBytes(u.size)})`
      if (!u.rate) return part
      const left = u.etaSec === undefined ? '' : `, ${formatDuration(u.etaSec)} left`
      return `${part}, ${formatBytes(u.rate)}/s${left}`
    }
    case 'paused':
      return `Paused at ${percent(u)}%${u.error ? `: ${u.error}` : ''}`
    case 'processing':
      return `Uploaded; ${service} is processing the video`
    case 'ready':
      return `Published on ${service}`
    case 'failed':
      return `Upload failed: ${u.error ?? 'no reason given'}`
  }
}
