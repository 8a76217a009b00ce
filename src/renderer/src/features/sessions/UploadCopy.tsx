// A session's local copy on the service. Above the list (UploadStrip): each session whose service
// recording is missing, failed or short says so ("Livepeer recorded 1:44:10 of 3:02:55") with
// "Upload the full copy", and each upload its progress (bytes, rate, time left) with pause, resume
// and cancel. In the row (one fixed-height line, little room): "Upload copy" (its title the same
// warning) or "Publish" (as a video) for any finished copy, and an upload's state.
import type { ReactNode } from 'react'
import type { LocalRecordingView, SessionView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import type { RecordingCheck, UploadView } from '../../../../shared/uploads'
import { useApi } from '../../lib/api'
import { formatDate } from '../../lib/format'
import { uploadText, verdictText } from './upload-words'
import '../../styles/uploads.css'

type Act = (p: Promise<{ ok: boolean; error?: AppError }>) => void

const useAct = (onError: (e: AppError) => void): Act => {
  return (p) =>
    void p.then((r) => {
      if (!r.ok && r.error) onError(r.error)
    })
}

export function UploadCopy({
  session,
  rec,
  check,
  upload,
  when,
  onError
}: {
  session: SessionView
  rec: LocalRecordingView
  check?: RecordingCheck
  upload?: UploadView
  when: string
  onError: (e: AppError) => void
}): ReactNode {
  const api = useApi()
  const act = useAct(onError)
  const finished = rec.state !== 'recording' && rec.durationSec !== undefined
  const warning = check && verdictText(check.verdict, check.service)
  if (upload && upload.state !== 'failed') {
    const pct = upload.size > 0 ? Math.floor((upload.sent / upload.size) * 100) : 0
    const short =
      upload.state === 'uploading' || upload.state === 'paused'
        ? `${upload.state === 'paused' ? 'Paused ' : 'Up '}${pct}%`
        : upload.state === 'processing'
          ? 'Processing'
          : 'Published'
    return (
      <span className="upload-copy" data-testid="upload-copy" data-state={upload.state}>
        <span
          className="upload-copy-note"
          data-testid="upload-row-state"
          title={uploadText(upload, check?.service ?? 'the service')}
        >
          {short}
        </span>
      </span>
    )
  }
  return (
    <span className="upload-copy" data-testid="upload-copy" data-state={upload?.state ?? 'none'}>
      <button
        type="button"
        className={warning ? 'secondary attention' : 'secondary'}
        disabled={!finished}
        title={warning ? `${warning}: upload the full copy` : 'Publish as a video'}
        aria-label={`${warning ? `${warning}. Upload the full copy` : 'Publish as a video'}: the copy on this computer of the session from ${when}`}
        data-testid={warning ? 'row-upload-full-copy' : 'publish-copy'}
        onClick={() =>
          act(api.publishLocalCopy({ localRecordingId: rec.id, sessionId: session.id }))
        }
      >
        {/* One word on the one-line row; the title and the accessible name say it whole. */}
        {warning ? 'Upload copy' : 'Publish'}
      </button>
    </span>
  )
}

/** Uploads going, paused, processing, or just finished or failed: one line each, above the list. */
export function UploadStrip({
  sessions,
  checks,
  uploads,
  onError,
  onPlay
}: {
  sessions: SessionView[]
  checks: Map<string, RecordingCheck>
  uploads: UploadView[]
  onError: (e: AppError) => void
  /** Plays a published upload's video (its asset) in the app's player. */
  onPlay?: (assetId: string, name: string) => void
}): ReactNode {
  const api = useApi()
  const act = useAct(onError)
  const service = checks.values().next().value?.service ?? 'the service'
  // Sessions whose service recording falls short of their local copy, not uploaded yet.
  const attention = sessions.flatMap((s) => {
    const check = checks.get(s.id)
    const warning = check && verdictText(check.verdict, check.service)
    const up = uploads.some((u) => u.sessionId === s.id && u.state !== 'failed')
    return warning && check?.localRecordingId && !up
      ? [{ session: s, warning, copy: check.localRecordingId }]
      : []
  })
  if (uploads.length === 0 && attention.length === 0) return null
  return (
    <ul className="upload-strip" data-testid="upload-strip" aria-label="Uploads">
      {attention.map(({ session, warning, copy }) => (
        <li key={`check-${session.id}`} data-testid="upload-attention" data-session-id={session.id}>
          <span className="upload-name">{formatDate(session.createdAt)}</span>
          <span className="upload-text warn" data-testid="recording-verdict">
            {warning}
          </span>
          <button
            type="button"
            data-testid="upload-full-copy"
            aria-label={`Upload the full copy of the session from ${formatDate(session.createdAt)}`}
            onClick={() =>
              act(api.publishLocalCopy({ localRecordingId: copy, sessionId: session.id }))
            }
          >
            Upload the full copy
          </button>
        </li>
      ))}
      {uploads.map((u) => (
        <li key={u.id} data-testid="upload-line" data-state={u.state}>
          <span className="upload-name" title={u.file}>
            {u.name}
          </span>
          <span className="upload-text" data-testid="upload-progress">
            {uploadText(u, service)}
          </span>
          {(u.state === 'uploading' || u.state === 'paused') && (
            <progress max={u.size} value={u.sent} aria-label={`Upload of ${u.name}`} />
          )}
          {u.state === 'uploading' && (
            <button
              type="button"
              className="secondary"
              data-testid="upload-pause"
              aria-label={`Pause the upload of ${u.name}`}
              onClick={() => act(api.pauseUpload(u.id))}
            >
              Pause
            </button>
          )}
          {(u.state === 'paused' || u.state === 'failed') && (
            <button
              type="button"
              className="secondary"
              data-testid="upload-resume"
              aria-label={`Resume the upload of ${u.name}`}
              onClick={() => act(api.resumeUpload(u.id))}
            >
              Resume
            </button>
          )}
          {(u.state === 'uploading' || u.state === 'paused') && (
            <button
              type="button"
              className="secondary"
              data-testid="upload-cancel"
              aria-label={`Cancel the upload of ${u.name}`}
              onClick={() => act(api.cancelUpload(u.id))}
            >
              Cancel
            </button>
          )}
          {u.state === 'ready' && u.assetId && onPlay && (
            <button
              type="button"
              className="secondary"
              data-testid="upload-play"
              aria-label={`Play the published video ${u.name}`}
              onClick={() => onPlay(u.assetId!, u.name)}
            >
              Play
            </button>
          )}
          {(u.state === 'ready' || u.state === 'failed') && (
            <button
              type="button"
              className="link"
              data-testid="upload-dismiss"
              aria-label={`Dismiss the upload of ${u.name} from ${formatDate(u.startedAt)}`}
              onClick={() => act(api.dismissUpload(u.id))}
            >
              Dismiss
            </button>
          )}
        </li>
      ))}
    </ul>
  )
}
