import { useState, type FormEvent, type ReactNode } from 'react'
import type { StreamView } from '../../../../shared/contract'
import { RECOMMENDED_PROFILES, type ProfileIssue } from '../../../../shared/profiles'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { useResult } from '../../lib/use-result'
import { Field } from '../../components/Field'
import { FormActions } from '../../components/FormActions'
import { ProfilesEditor } from '../profiles/ProfilesEditor'
import { checkRows, rowFromProfile, type ProfileRow } from '../profiles/profile-rows'
import { IssueList } from '../profiles/IssueList'

/** Name + record + profiles. Everything the service would reject is caught here and nothing is sent. */
export function CreateStreamForm({
  onCreated,
  onCancel
}: {
  onCreated: (s: StreamView) => void
  onCancel: () => void
}): ReactNode {
  const api = useApi()
  const [name, setName] = useState('')
  const [record, setRecord] = useState(true)
  const [rows, setRows] = useState<ProfileRow[]>(() => RECOMMENDED_PROFILES.map(rowFromProfile))
  const [issues, setIssues] = useState<ProfileIssue[]>([])
  const [error, setError] = useState<AppError | null>(null)
  const [busy, setBusy] = useState(false)
  // The service allows two streams with one name (their keys tell them apart); the creator is told.
  const existing = useResult(() => api.listStreams({ limit: 1000 }), [api])
  const taken = name.trim().toLowerCase()
  const sameName =
    taken !== '' && existing.value?.items.some((x) => x.name.trim().toLowerCase() === taken)

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault()
    setError(null)
    const found: ProfileIssue[] = []
    if (name.trim() === '') found.push({ field: 'name', message: 'name is required', status: 422 })
    const checked = checkRows(rows)
    found.push(...checked.issues)
    setIssues(found)
    if (found.length > 0) return
    setBusy(true)
    const r = await api.createStream({ name: name.trim(), profiles: checked.profiles, record })
    setBusy(false)
    if (!r.ok) return setError(r.error)
    onCreated(r.value)
  }

  const nameIssue = issues.find((i) => i.field === 'name')
  return (
    <form
      className="card form"
      onSubmit={submit}
      aria-label="New stream"
      noValidate
      data-testid="create-stream"
    >
      <h2>New stream</h2>
      <Field
        label="Name"
        issue={nameIssue?.message}
        issueTestId="stream-name-issue"
        note={
          sameName && (
            <span className="field-note" role="status" data-testid="name-exists">
              A stream named “{name.trim()}” already exists. You can still create this one: each
              stream has its own key.
            </span>
          )
        }
      >
        {(control) => (
          <input
            {...control}
            value={name}
            data-testid="stream-name"
            onChange={(e) => setName(e.target.value)}
            placeholder="Friday night stream"
          />
        )}
      </Field>
      <label className="check">
        <input
          type="checkbox"
          checked={record}
          data-testid="stream-record"
          onChange={(e) => setRecord(e.target.checked)}
        />
        Record sessions
      </label>
      <ProfilesEditor rows={rows} onChange={setRows} issues={issues} />
      <IssueList issues={issues} />
      <FormActions
        label="Create stream"
        busyLabel="Creating…"
        busy={busy}
        error={error}
        testId="create-stream-submit"
        errorTestId="create-stream-error"
        onCancel={onCancel}
      />
    </form>
  )
}
