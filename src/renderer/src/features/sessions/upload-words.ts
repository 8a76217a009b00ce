// What a session row says about the service's recording against the local copy ("Livepeer recorded
// 1:44:10 of 3:02:55") and about an upload of the copy (progress, rate, time left). Pure.
import type { RecordingVerdict, UploadProblem, UploadView } from '../../../../shared/uploads'
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

const trim = (s: string): string => s.replace(/[.\s]+$/, '')

/** Why an upload stopped (main sends the state and the service's or the OS's words). */
export function uploadProblemText(p: UploadProblem, file: string, service: string): string {
  switch (p.kind) {
    case 'file-gone':
      return `The file is not there any more: ${file}`
    case 'file-changed':
      return 'The file changed since its upload began: upload it again.'
    case 'connection-lost':
      return `The connection to ${service} was lost: ${p.detail}`
    case 'refused':
      return p.message
        ? `${trim(p.message)} (HTTP ${p.status})`
        : `${service} answered HTTP ${p.status}`
    case 'processing-failed':
      return `${service} could not process the video: ${p.message ? trim(p.message) : 'it gave no reason'}`
    case 'said':
      return p.message
  }
}

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
      return `Paused at ${percent(u)}%${u.error ? `: ${uploadProblemText(u.error, u.file, service)}` : ''}`
    case 'processing':
      return `Uploaded; ${service} is processing the video`
    case 'ready':
      return `Published on ${service}`
    case 'failed':
      return `Upload failed: ${u.error ? uploadProblemText(u.error, u.file, service) : 'no reason given'}`
  }
}
