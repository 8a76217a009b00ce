import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react'
import type { DestinationsView, StreamView } from '../../../../shared/contract'
import {
  DESTINATION_PRESETS,
  SOURCE_RENDITION,
  buildTargetUrl,
  checkDestination,
  type DestinationIssue,
  type PresetId
} from '../../../../shared/destinations'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { Field } from '../../components/Field'
import { FormActions } from '../../components/FormActions'

/**
 * A new destination: a service preset fills the server URL (editable), the key is a password field
 * with a Show toggle, and the URL built from them is sent once. The service never returns it, so the
 * form forgets it as soon as the destination is added.
 */
export function AddDestinationForm({
  stream,
  onAdded,
  onCancel
}: {
  stream: StreamView
  onAdded: (view: DestinationsView) => void
  onCancel: () => void
}): ReactNode {
  const api = useApi()
  const uid = useId()
  const [preset, setPreset] = useState<PresetId>('youtube')
  const [name, setName] = useState<string>(DESTINATION_PRESETS[0].label)
  // The key, and the server URL (an SRT address carries its key), are kept in their fields only
  // (uncontrolled): not in React state and not mirrored into a value attribute, so no DOM dump or page
  // serialisation carries them.
  const serverRef = useRef<HTMLInputElement>(null)
  const keyRef = useRef<HTMLInputElement>(null)
  const [showKey, setShowKey] = useState(false)
  const [profile, setProfile] = useState(SOURCE_RENDITION)
  const [videoOnly, setVideoOnly] = useState(false)
  const [issues, setIssues] = useState<DestinationIssue[]>([])
  const [error, setError] = useState<AppError | null>(null)
  const [busy, setBusy] = useState(false)

  const profileNames = stream.profiles.map((p) => p.name)
  const issueOf = (field: DestinationIssue['field']): DestinationIssue | undefined =>
    issues.find((i) => i.field === field)

  // A preset replaces the server URL and the name only while they are still the previous preset's.
  const pick = (id: PresetId): void => {
    const was = DESTINATION_PRESETS.find((p) => p.id === preset)
    const next = DESTINATION_PRESETS.find((p) => p.id === id)
    if (!next) return
    const field = serverRef.current
    if (field && (!field.value.trim() || field.value === was?.server)) field.value = next.server
    if (!name.trim() || name === was?.label) setName(next.id === 'custom' ? '' : next.label)
    setPreset(id)
  }

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault()
    const key = keyRef.current?.value ?? ''
    const server = serverRef.current?.value ?? ''
    const found = checkDestination({ name, server, key, profile }, profileNames)
    setIssues(found)
    setError(null)
    if (found.length) return
    setBusy(true)
    const r = await api.addDestination({
      streamId: stream.id,
      name: name.trim(),
      url: buildTargetUrl(server, key),
      profile,
      videoOnly
    })
    setBusy(false)
    if (!r.ok) return setError(r.error)
    if (keyRef.current) keyRef.current.value = ''
    onAdded(r.value)
  }

  return (
    <form
      className="form destination-form"
      onSubmit={submit}
      aria-label="Add a destination"
      data-testid="destination-form"
      noValidate
    >
      <fieldset className="destination-presets">
        <legend>Service</legend>
        {DESTINATION_PRESETS.map((p) => (
          <label key={p.id} className="check">
            <input
              type="radio"
              name={`${uid}-preset`}
              value={p.id}
              checked={preset === p.id}
              data-testid={`destination-preset-${p.id}`}
              onChange={() => pick(p.id)}
            />
            {p.label}
          </label>
        ))}
      </fieldset>
      <div className="destination-grid">
        <Field label="Name" issue={issueOf('name')?.message} issueTestId="issue-name">
          {(control) => (
            <input
              {...control}
              value={name}
              maxLength={200}
              data-testid="destination-name"
              placeholder="My channel"
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field label="Server URL" issue={issueOf('server')?.message} issueTestId="issue-server">
          {(control) => (
            <input
              {...control}
              ref={serverRef}
              defaultValue={DESTINATION_PRESETS[0].server}
              spellCheck={false}
              autoComplete="off"
              inputMode="url"
              data-testid="destination-server"
              placeholder="rtmp://… or rtmps://… or srt://…"
            />
          )}
        </Field>
        <Field label="Stream key" issue={issueOf('key')?.message} issueTestId="issue-key">
          {(control) => (
            <div className="key-field">
              <input
                {...control}
                ref={keyRef}
                type={showKey ? 'text' : 'password'}
                spellCheck={false}
                autoComplete="off"
                data-testid="destination-key"
              />
              <button
                type="button"
                className="secondary"
                aria-pressed={showKey}
                aria-label={showKey ? 'Hide the stream key' : 'Show the stream key'}
                data-testid="destination-key-toggle"
                onClick={() => setShowKey((v) => !v)}
              >
                {showKey ? 'Hide' : 'Show'}
              </button>
            </div>
          )}
        </Field>
        <Field label="Rendition" issue={issueOf('profile')?.message} issueTestId="issue-profile">
          {(control) => (
            <select
              {...control}
              value={profile}
              data-testid="destination-profile"
              onChange={(e) => setProfile(e.target.value)}
            >
              <option value={SOURCE_RENDITION}>Source (as sent, no transcoding)</option>
              {stream.profiles.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name} ({p.width}×{p.height})
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <label className="check">
        <input
          type="checkbox"
          checked={videoOnly}
          data-testid="destination-video-only"
          onChange={(e) => setVideoOnly(e.target.checked)}
        />
        Video only (send no audio)
      </label>
      <p className="hint">
        The key is sent to the service once and is never shown again: only the name and the
        rendition are.
      </p>
      <FormActions
        label="Add destination"
        busyLabel="Adding…"
        busy={busy}
        error={error}
        testId="destination-add"
        errorTestId="destination-error"
        onCancel={onCancel}
      />
    </form>
  )
}
