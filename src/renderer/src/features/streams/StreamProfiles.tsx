import { useState, type ReactNode } from 'react'
import type { StreamView } from '../../../../shared/contract'
import { ladderBitrate, type ProfileIssue } from '../../../../shared/profiles'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { formatBitrate } from '../../lib/format'
import { ErrorNote } from '../../components/ErrorNote'
import { ProfilesEditor } from '../profiles/ProfilesEditor'
import { IssueList } from '../profiles/IssueList'
import { checkRows, rowFromProfile, type ProfileRow } from '../profiles/profile-rows'

/** The stream's ladder, editable only while idle (a running transcode keeps the profiles it started with). */
export function StreamProfiles({
  stream,
  live,
  onSaved
}: {
  stream: StreamView
  live: boolean
  onSaved: (s: StreamView) => void
}): ReactNode {
  const api = useApi()
  const [rows, setRows] = useState<ProfileRow[] | null>(null)
  const [issues, setIssues] = useState<ProfileIssue[]>([])
  const [error, setError] = useState<AppError | null>(null)

  const save = async (): Promise<void> => {
    if (!rows) return
    const checked = checkRows(rows)
    setIssues(checked.issues)
    if (checked.issues.length) return
    const r = await api.updateStream({ id: stream.id, profiles: checked.profiles })
    if (!r.ok) return setError(r.error)
    setError(null)
    setRows(null)
    onSaved(r.value)
  }

  if (rows)
    return (
      <div className="card">
        <ProfilesEditor rows={rows} onChange={setRows} issues={issues} />
        <IssueList issues={issues} />
        {error && <ErrorNote error={error} />}
        <div className="actions">
          <button type="button" data-testid="profiles-save" onClick={save}>
            Save profiles
          </button>
          <button type="button" className="secondary" onClick={() => setRows(null)}>
            Cancel
          </button>
        </div>
      </div>
    )
  return (
    <div className="card" data-testid="stream-profiles">
      <h2>Profiles</h2>
      {stream.profiles.length === 0 ? (
        <p className="warning" role="note" data-testid="no-profiles-warning">
          No profiles: there is no transcoding and no adaptive bitrate. Viewers get only the source
          rendition and may buffer.
        </p>
      ) : (
        <>
          <ul className="chips">
            {stream.profiles.map((p) => (
              <li key={p.name}>
                {p.name}: {p.width}×{p.height}, {formatBitrate(p.bitrate)}, {p.fps || 'source'} fps
              </li>
            ))}
          </ul>
          <p className="muted">
            Total ladder bitrate: {formatBitrate(ladderBitrate(stream.profiles))}
          </p>
        </>
      )}
      <button
        type="button"
        className="secondary"
        disabled={live}
        aria-describedby={live ? 'profiles-locked' : undefined}
        data-testid="edit-profiles"
        onClick={() => setRows(stream.profiles.map(rowFromProfile))}
      >
        Edit profiles
      </button>
      {live && (
        <span className="muted" id="profiles-locked">
          {' '}
          Profiles can be changed when the stream is idle.
        </span>
      )}
    </div>
  )
}
