// A session's local copy on the service: what the service recorded against the copy ("Livepeer
// recorded 1:44:10 of 3:02:55", with "Upload the full copy"), "Publish as a video" for any copy,
// and an upload's progress with pause, resume and cancel.
import { useEffect, useState, type ReactNode } from 'react'
import type { LocalRecordingView, SessionView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import type { RecordingCheck, UploadView } from '../../../../shared/uploads'
import { useApi } from '../../lib/api'
import { uploadText, verdictText } from './upload-words'
import '../../styles/uploads.css'

/** Checks already made, by session and copy length: rows come and go as the list scrolls. */
const checks = new Map<string, RecordingCheck>()

export function UploadCopy({
  session,
  rec,
  upload,
  when,
  onError
}: {
  session: SessionView
  rec: LocalRecordingView
  upload?: UploadView
  when: string
  onError: (e: AppError) => void
}): ReactNode {
  const api = useApi()
  const key = `${session.id}:${rec.durationSec ?? ''}:${session.recordingStatus ?? ''}`
  const [check, setCheck] = useState<RecordingCheck | undefined>(checks.get(key))
  const finished = rec.state !== 'recording' && rec.durationSec !== undefined
  useEffect(() => {
    if (!finished || checks.has(key)) return
    let live = true
    void api.checkRecording(session.id).then((r) => {
      if (!r.ok) return
      checks.set(key, r.value)
      if (live) setCheck(r.value)
    })
    return () => {
      live = false
    }
  }, [api, key, finished, session.id])

  const act = (p: Promise<{ ok: boolean; error?: AppError }>): void =>
    void p.then((r) => {
      if (!r.ok && r.error) onError(r.error)
    })
  const publish = (): void =>
    act(api.publishLocalCopy({ localRecordingId: rec.id, sessionId: session.id }))
  const service = check?.service ?? 'the service'

  if (upload && upload.state !== 'failed')
    return (
      <span className="upload-copy" data-testid="upload-copy" data-state={upload.state}>
        <span
          className="upload-copy-note"
          data-testid="upload-progress"
          title={uploadText(upload, service)}
        >
          {uploadText(upload, service)}
        </span>
        {upload.state === 'uploading' && (
          <button
            type="button"
            className="secondary"
            aria-label={`Pause the upload of the session from ${when}`}
            data-testid="upload-pause"
            onClick={() => act(api.pauseUpload(upload.id))}
          >
            Pause
          </button>
        )}
        {upload.state === 'paused' && (
          <button
            type="button"
            className="secondary"
            aria-label={`Resume the upload of the session from ${when}`}
            data-testid="upload-resume"
            onClick={() => act(api.resumeUpload(upload.id))}
          >
            Resume
          </button>
        )}
        {(upload.state === 'uploading' || upload.state === 'paused') && (
          <button
            type="button"
            className="secondary"
            aria-label={`Cancel the upload of the session from ${when}`}
            data-testid="upload-cancel"
            onClick={() => act(api.cancelUpload(upload.id))}
          >
            Cancel
          </button>
        )}
      </span>
    )

  const warning = check && verdictText(check.verdict, check.service)
  return (
    <span className="upload-copy" data-testid="upload-copy" data-state={upload?.state ?? 'none'}>
      {upload?.state === 'failed' && (
        <span
          className="upload-copy-note error"
          data-testid="upload-failed"
          title={uploadText(upload, service)}
        >
          {uploadText(upload, service)}
        </span>
      )}
      {warning && (
        <span className="upload-copy-note warn" data-testid="recording-verdict" title={warning}>
          {warning}
        </span>
      )}
      <button
        type="button"
        className={warning ? '' : 'secondary'}
        disabled={!finished}
        aria-label={`${warning ? 'Upload the full copy' : 'Publish as a video'}: the copy on this computer of the session from ${when}`}
        data-testid={warning ? 'upload-full-copy' : 'publish-copy'}
        onClick={publish}
      >
        {warning ? 'Upload the full copy' : 'Publish as a video'}
      </button>
    </span>
  )
}
