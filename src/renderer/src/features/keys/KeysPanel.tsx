// The Keys screen (#20): a key for each action (press it to choose it), cleared with Clear, the usual
// keys back with one button; keys chosen twice and keys another app holds are named with the way out.
// In Electron the keys can also work while Onair is in the background (globalShortcut, in main).
import { useEffect, useState, type KeyboardEvent, type ReactNode } from 'react'
import {
  DEFAULT_HOTKEYS,
  HOTKEY_ACTIONS,
  HOTKEY_INFO,
  acceleratorFromEvent,
  describeConflict,
  displayAccelerator,
  findConflicts,
  keyProblem,
  normaliseAccelerator,
  reservedBy,
  type HotkeyAction,
  type HotkeySettings
} from '../../../../shared/hotkeys'
import type { AppError } from '../../../../shared/result'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { describeKeyFailure } from './key-text'
import { useHotkeySettings } from '../../lib/use-hotkeys'

export function KeysPanel(): ReactNode {
  const { hub, view, loadError, save } = useHotkeySettings()
  const [recording, setRecording] = useState<HotkeyAction | null>(null)
  const [problem, setProblem] = useState<{ action: HotkeyAction; text: string } | null>(null)
  const [saveError, setSaveError] = useState<AppError | null>(null)

  // While a key is being chosen, the hub acts on none (pressing Alt+2 must not switch scenes).
  useEffect(() => {
    hub.recording = recording !== null
    return () => {
      hub.recording = false
    }
  }, [hub, recording])

  if (loadError) return <ErrorNote error={loadError} />
  if (!view) return <Loading label="Reading your keys…" />
  const { settings, status } = view
  const os = status.os
  const conflicts = findConflicts(settings.bindings, os)
  const keep = async (next: HotkeySettings): Promise<void> => {
    setSaveError(await save(next))
  }
  const setKey = (action: HotkeyAction, key: string | null): Promise<void> =>
    keep({ ...settings, bindings: { ...settings.bindings, [action]: key } })

  const onRecordKey = (action: HotkeyAction, e: KeyboardEvent<HTMLButtonElement>): void => {
    if (e.key === 'Tab') return setRecording(null)
    e.preventDefault()
    e.stopPropagation()
    const plain = !e.ctrlKey && !e.altKey && !e.metaKey && !e.shiftKey
    if (e.key === 'Escape' && plain) return setRecording(null)
    const key = acceleratorFromEvent(e.nativeEvent, os)
    if (!key) return // a modifier alone: still waiting for the key
    setRecording(null)
    const why =
      keyProblem(key, os) ??
      (reservedBy(key, os)
        ? `${displayAccelerator(key, os)} cannot be used: ${reservedBy(key, os)}. Pick another key.`
        : null)
    if (why) return setProblem({ action, text: why })
    setProblem(null)
    void setKey(action, normaliseAccelerator(key, os))
  }

  const failedFor = (action: HotkeyAction) => status.failed.find((f) => f.action === action)
  const registered = (action: HotkeyAction) => status.registered.some((r) => r.action === action)

  return (
    <section className="screen" aria-labelledby="keys-title">
      <h1 id="keys-title">Keys</h1>
      <p className="muted">
        Choose a key for each action: press Change, then the keys together (Esc cancels).
        {status.background === 'unavailable'
          ? ' In the browser, keys work while this page has focus; the Onair app can also hear them while it is in the background.'
          : ' They work while Onair is in front, and, if you switch it on below, from any app.'}
      </p>

      {conflicts.length > 0 && (
        <div className="card key-notes" role="alert" data-testid="key-conflicts">
          {conflicts.map((c) => (
            <p key={c.accelerator}>{describeConflict(c, os)}</p>
          ))}
        </div>
      )}
      {status.failed.length > 0 && (
        <div className="card key-notes" role="alert" data-testid="key-failed">
          {status.failed.map((f) => (
            <p key={f.action}>{describeKeyFailure(f, os)}</p>
          ))}
        </div>
      )}
      {saveError && (
        <ErrorNote error={saveError} onRetry={() => setSaveError(null)} retryLabel="Dismiss" />
      )}

      <div className="card">
        <label className="check">
          <input
            type="checkbox"
            checked={status.background === 'on'}
            disabled={status.background === 'unavailable'}
            data-testid="keys-global"
            onChange={(e) => void keep({ ...settings, global: e.target.checked })}
          />
          Keys work while Onair is in the background
        </label>
        <p className="muted small" data-testid="keys-global-note">
          {status.background === 'unavailable'
            ? 'Only the Onair app can hear keys while another app is in front.'
            : 'A key used in the background is taken from every other app while Onair runs. Push to talk and push to mute work only while Onair is in front: in the background the system does not say when a key is let go.'}
        </p>
      </div>

      <table className="card keys-table" data-testid="keys-table">
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Key</th>
            <th scope="col">
              <span className="sr-only">Change or clear</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {HOTKEY_ACTIONS.map((action) => {
            const key = settings.bindings[action]
            const label = HOTKEY_INFO[action].label
            const clash = key && conflicts.some((c) => c.actions.includes(action))
            const failed = failedFor(action)
            const isRecording = recording === action
            return (
              <tr
                key={action}
                data-testid={`key-row-${action}`}
                data-conflict={clash ? 'true' : undefined}
              >
                <th scope="row" id={`key-${action}`}>
                  {label}
                </th>
                <td>
                  {key ? (
                    <kbd data-testid={`key-${action}`}>{displayAccelerator(key, os)}</kbd>
                  ) : (
                    <span className="muted" data-testid={`key-${action}`}>
                      None
                    </span>
                  )}
                  {clash && <span className="key-flag"> chosen twice</span>}
                  {failed && <span className="key-flag"> taken by another app</span>}
                  {registered(action) && (
                    <span className="muted small"> · also in the background</span>
                  )}
                  {problem?.action === action && (
                    <p
                      className="key-problem small"
                      role="alert"
                      data-testid={`key-problem-${action}`}
                    >
                      {problem.text}
                    </p>
                  )}
                </td>
                <td>
                  <div className="key-actions">
                    <button
                      type="button"
                      className={isRecording ? 'recording' : 'secondary'}
                      aria-describedby={`key-${action}`}
                      aria-pressed={isRecording}
                      data-testid={`key-change-${action}`}
                      onClick={() => {
                        setProblem(null)
                        setRecording(isRecording ? null : action)
                      }}
                      onKeyDown={isRecording ? (e) => onRecordKey(action, e) : undefined}
                      onBlur={() => isRecording && setRecording(null)}
                    >
                      {isRecording ? 'Press the keys… (Esc cancels)' : 'Change'}
                    </button>
                    <button
                      type="button"
                      className="secondary"
                      disabled={!key}
                      aria-describedby={`key-${action}`}
                      data-testid={`key-clear-${action}`}
                      onClick={() => void setKey(action, null)}
                    >
                      Clear
                    </button>
                  </div>
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          data-testid="keys-reset"
          onClick={() => void keep({ ...DEFAULT_HOTKEYS, global: settings.global })}
        >
          Back to the usual keys
        </button>
      </div>
      <p className="muted small">
        Go live / Stop starts the stream chosen on the Go live screen, and stops a broadcast from
        any screen. Scene keys and the microphone keys act on a scene broadcast.
      </p>
    </section>
  )
}
