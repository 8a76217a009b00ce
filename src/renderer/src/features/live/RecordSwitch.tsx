// "Record on this computer" on the Go live form: OBS's record while streaming. On by default, with what
// it costs and where it goes ("about 1.1 GB an hour, in Videos/Onair"), a warning under 2 GB free, the
// folder changeable, and, while live, the file's trouble (a full disk) in words.
import { useEffect, useState, type ReactNode } from 'react'
import type {
  LocalRecordingInfo,
  LocalRecordingView,
  OutputSettings
} from '../../../../shared/contract'
import { formatBytes, recordingCost } from '../../../../shared/local-recording'
import { useApi } from '../../lib/api'

/** Absolute on macOS/Linux or Windows (the settings' schema checks the same). */
const ABSOLUTE = /^(\/|[A-Za-z]:[\\/]|\\\\)/

export interface RecordChoice {
  enabled: boolean
  /** undefined: the default folder (Videos/Onair). */
  folder?: string
}

export function RecordSwitch({
  value,
  onChange,
  output,
  disabled,
  runId
}: {
  value: RecordChoice
  onChange: (v: RecordChoice) => void
  output: OutputSettings
  disabled: boolean
  /** The live run, to show its file's state. */
  runId?: string
}): ReactNode {
  const api = useApi()
  const [info, setInfo] = useState<LocalRecordingInfo | null>(null)
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState('')
  const [file, setFile] = useState<LocalRecordingView | null>(null)
  const draftIssue =
    draft.trim() && !ABSOLUTE.test(draft.trim())
      ? 'A whole folder path, such as /home/you/Videos or C:\\Videos.'
      : null

  // The folder (and its free space) again whenever the folder setting changes: it is saved first.
  useEffect(() => {
    let gone = false
    const t = setTimeout(() => {
      void api.localRecordingInfo().then((r) => {
        if (!gone && r.ok) setInfo(r.value)
      })
    }, 450)
    return () => {
      gone = true
      clearTimeout(t)
    }
  }, [api, value.folder])

  useEffect(
    () => api.on('live:local-recording', (v) => setFile(v.runId === runId ? v : null)),
    [api, runId]
  )

  const label = info?.label ?? 'Videos/Onair'
  return (
    <fieldset className="record-switch" disabled={disabled} data-testid="record-switch">
      <legend>Record on this computer</legend>
      <label className="switch-row">
        <input
          type="checkbox"
          role="switch"
          checked={value.enabled}
          data-testid="record-locally"
          onChange={(e) => onChange({ ...value, enabled: e.target.checked })}
        />
        <span>
          Keep a full-quality copy of what you send
          <span className="muted" data-testid="record-cost">
            {' '}
            ({recordingCost(output, label)})
          </span>
        </span>
      </label>
      {info && (
        <p className="muted record-folder" title={info.folder} data-testid="record-folder">
          {info.folder}
          {info.freeBytes !== undefined && ` · ${formatBytes(info.freeBytes)} free`}
        </p>
      )}
      {value.enabled && info?.lowSpace && (
        <p className="warning" role="status" data-testid="record-low-space">
          Less than 2 GB free on this disk: the copy stops when it is full (the broadcast goes on).
        </p>
      )}
      {editing ? (
        <div className="record-folder-edit">
          <label>
            Folder
            <input
              type="text"
              value={draft}
              placeholder={info?.defaultFolder}
              data-testid="record-folder-input"
              aria-describedby={draftIssue ? 'record-folder-issue' : undefined}
              onChange={(e) => setDraft(e.target.value)}
            />
          </label>
          {draftIssue && (
            <p className="error-message" id="record-folder-issue">
              {draftIssue}
            </p>
          )}
          <button
            type="button"
            disabled={!!draftIssue}
            onClick={() => {
              onChange({ ...value, folder: draft.trim() || undefined })
              setEditing(false)
            }}
          >
            Use this folder
          </button>
          <button
            type="button"
            className="link"
            onClick={() => {
              onChange({ ...value, folder: undefined })
              setEditing(false)
            }}
          >
            Back to {info ? info.defaultFolder : 'the default'}
          </button>
        </div>
      ) : (
        <button
          type="button"
          className="link"
          data-testid="record-change-folder"
          onClick={() => {
            setDraft(value.folder ?? info?.folder ?? '')
            setEditing(true)
          }}
        >
          Change folder
        </button>
      )}
      {file?.state === 'stopped' && file.error && (
        <p className="error-message" role="alert" data-testid="record-error">
          {file.error.message}
        </p>
      )}
    </fieldset>
  )
}
