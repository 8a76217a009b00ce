import type { ReactNode } from 'react'
import {
  ladderBitrate,
  MAX_PROFILES,
  profileWarnings,
  RECOMMENDED_PROFILES,
  STUDIO_DEFAULT_PROFILES,
  type ProfileIssue
} from '../../../../shared/profiles'
import { formatBitrate } from '../../lib/format'
import {
  describeIssue,
  emptyRow,
  rowFromProfile,
  rowsToPayload,
  type ProfileRow
} from './profile-rows'

type Field = 'name' | 'width' | 'height' | 'bitrateKbps' | 'fps'
const COLUMNS: { field: Field; wire: string; label: string; inputMode: 'text' | 'numeric' }[] = [
  { field: 'name', wire: 'name', label: 'Name', inputMode: 'text' },
  { field: 'width', wire: 'width', label: 'Width', inputMode: 'numeric' },
  { field: 'height', wire: 'height', label: 'Height', inputMode: 'numeric' },
  { field: 'bitrateKbps', wire: 'bitrate', label: 'Bitrate (kbps)', inputMode: 'numeric' },
  { field: 'fps', wire: 'fps', label: 'FPS (0 = source)', inputMode: 'numeric' }
]

/** Transcoding renditions: presets, custom rows, the total ladder bitrate and the service's rules. */
export function ProfilesEditor({
  rows,
  onChange,
  issues,
  disabled
}: {
  rows: ProfileRow[]
  onChange: (rows: ProfileRow[]) => void
  /** Shown only after the user tried to send: fields are not flagged while still being typed. */
  issues: ProfileIssue[]
  disabled?: boolean
}): ReactNode {
  const payload = rowsToPayload(rows)
  const total = ladderBitrate(
    payload.map((p) => ({
      bitrate: typeof p.bitrate === 'number' && p.bitrate > 0 ? p.bitrate : 0
    })) as never
  )
  // Advice while typing (a low bitrate for the size): never a refusal.
  const warnings = profileWarnings(payload)
  const issueAt = (i: number, wire: string): ProfileIssue | undefined =>
    issues.find((x) => x.field === `profiles.${i}.${wire}`)
  const update = (key: number, field: Field, value: string): void =>
    onChange(rows.map((r) => (r.key === key ? { ...r, [field]: value } : r)))

  return (
    <fieldset className="profiles" disabled={disabled} data-testid="profiles-editor">
      <legend>Transcoding profiles</legend>
      <div className="preset-bar" role="group" aria-label="Presets">
        <button
          type="button"
          className="secondary"
          data-testid="preset-recommended"
          onClick={() => onChange(RECOMMENDED_PROFILES.map(rowFromProfile))}
        >
          720p / 480p / 360p (recommended)
        </button>
        <button
          type="button"
          className="secondary"
          data-testid="preset-default"
          onClick={() => onChange(STUDIO_DEFAULT_PROFILES.map(rowFromProfile))}
        >
          Service default ladder
        </button>
        <button
          type="button"
          className="secondary"
          data-testid="profile-add"
          disabled={rows.length >= MAX_PROFILES}
          title={
            rows.length >= MAX_PROFILES
              ? `At most ${MAX_PROFILES} profiles per stream: remove one to add another`
              : undefined
          }
          onClick={() => onChange([...rows, emptyRow()])}
        >
          Add custom row
        </button>
        <button
          type="button"
          className="secondary"
          data-testid="preset-none"
          onClick={() => onChange([])}
        >
          No profiles
        </button>
      </div>

      {rows.length === 0 ? (
        <p className="warning" role="note" data-testid="no-profiles-warning">
          No profiles: there will be no transcoding and no adaptive bitrate. Viewers get only the
          source rendition and may buffer on slower connections.
        </p>
      ) : (
        <table className="profile-table">
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th key={c.field} scope="col">
                  {c.label}
                </th>
              ))}
              <th scope="col">
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={r.key} data-testid="profile-row">
                {COLUMNS.map((c) => {
                  const issue = issueAt(i, c.wire)
                  return (
                    <td key={c.field}>
                      <input
                        aria-label={`Profile ${i + 1} ${c.label}`}
                        data-testid={`profile-${i}-${c.wire}`}
                        inputMode={c.inputMode}
                        value={r[c.field]}
                        aria-invalid={issue ? true : undefined}
                        aria-describedby={issue ? `issue-${r.key}-${c.wire}` : undefined}
                        onChange={(e) => update(r.key, c.field, e.target.value)}
                      />
                      {issue && (
                        <span className="field-issue" id={`issue-${r.key}-${c.wire}`}>
                          {describeIssue(issue).message}
                        </span>
                      )}
                    </td>
                  )
                })}
                <td>
                  <button
                    type="button"
                    className="icon"
                    aria-label={`Remove profile ${i + 1}`}
                    onClick={() => onChange(rows.filter((x) => x.key !== r.key))}
                  >
                    ✕
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {warnings.length > 0 && (
        <ul className="warning" role="note" data-testid="profile-warnings">
          {warnings.map((w) => {
            const d = describeIssue(w)
            return (
              <li key={w.field} data-field={w.field}>
                <strong>{d.where}</strong>: {d.message}
              </li>
            )
          })}
        </ul>
      )}
      {rows.length >= MAX_PROFILES && (
        <p className="muted" role="note" data-testid="profiles-at-most">
          {rows.length > MAX_PROFILES
            ? `At most ${MAX_PROFILES} profiles per stream: remove ${rows.length - MAX_PROFILES}.`
            : `${MAX_PROFILES} profiles, the most a stream takes: remove one to add another.`}
        </p>
      )}
      <p className="muted" data-testid="ladder-total">
        Total ladder bitrate: {formatBitrate(total)} ({rows.length} rendition
        {rows.length === 1 ? '' : 's'})
      </p>
    </fieldset>
  )
}
