// The scenes panel's browser sources (#34 §4, OBS's browser source): Add browser source with its
// address, page size and frame rate (OBS's properties), each source's row (shown or not, its host,
// Edit, Remove) and how its page stands under it (browser-text.ts). The address is shown whole only in
// its edit field: lists show the host, since alert-box addresses carry tokens. A view: every change is
// a reducer of shared/scenes.ts, handed to onChange.
import { useEffect, useReducer, useState, type ReactNode } from 'react'
import {
  DEFAULT_BROWSER,
  BROWSER_MAX_FPS,
  LIMITS,
  addBrowser,
  browserUrl,
  canAddBrowser,
  setBrowser,
  type BrowserSource,
  type SceneItem,
  type ScenesState
} from '../../../../shared/scenes'
import { Field } from '../../components/Field'
import { browserShownOf, onBrowserStates, reloadBrowser } from './browser-frames'
import { browserHost, browserStateText } from './browser-text'

type Change = (update: (state: ScenesState) => ScenesState) => void
type Page = Pick<BrowserSource, 'url' | 'width' | 'height' | 'fps'>

/** The address, size and rate of a page: checked on Save, the address's problem said at its field. */
function BrowserForm(props: {
  initial: Page
  label: string
  saveLabel: string
  onSave: (page: Page) => void
  onCancel: () => void
}): ReactNode {
  const { initial } = props
  const [url, setUrl] = useState(initial.url)
  const [width, setWidth] = useState(initial.width)
  const [height, setHeight] = useState(initial.height)
  const [fps, setFps] = useState(initial.fps)
  const [issue, setIssue] = useState<string | null>(null)
  const number = (set: (n: number) => void) => (e: { target: { value: string } }) =>
    set(Number(e.target.value))
  return (
    <form
      className="browser-form"
      aria-label={props.label}
      data-testid="browser-form"
      onSubmit={(e) => {
        e.preventDefault()
        const checked = browserUrl(url)
        if ('error' in checked) return setIssue(checked.error)
        setIssue(null)
        props.onSave({ url: checked.url, width, height, fps })
      }}
    >
      <Field label="Address" issue={issue} issueTestId="browser-url-issue" className="browser-url">
        {(control) => (
          <input
            {...control}
            value={url}
            autoFocus
            spellCheck={false}
            autoComplete="off"
            maxLength={LIMITS.urlLength}
            placeholder="https://…"
            data-testid="browser-url"
            onChange={(e) => setUrl(e.target.value)}
          />
        )}
      </Field>
      <Field label="Width">
        {(control) => (
          <input
            {...control}
            type="number"
            min={LIMITS.browserWidth.min}
            max={LIMITS.browserWidth.max}
            value={width}
            data-testid="browser-width"
            onChange={number(setWidth)}
          />
        )}
      </Field>
      <Field label="Height">
        {(control) => (
          <input
            {...control}
            type="number"
            min={LIMITS.browserHeight.min}
            max={LIMITS.browserHeight.max}
            value={height}
            data-testid="browser-height"
            onChange={number(setHeight)}
          />
        )}
      </Field>
      <Field label="Frames a second">
        {(control) => (
          <input
            {...control}
            type="number"
            min={1}
            max={BROWSER_MAX_FPS}
            value={fps}
            data-testid="browser-fps"
            onChange={number(setFps)}
          />
        )}
      </Field>
      <span className="source-actions">
        <button type="submit" data-testid="browser-save">
          {props.saveLabel}
        </button>
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </span>
    </form>
  )
}

/** Add browser source: the form, then the source on top of the active scene. */
export function AddBrowser(props: {
  state: ScenesState
  aspect: number
  full: boolean
  onChange: Change
}): ReactNode {
  const [adding, setAdding] = useState(false)
  const room = !props.full && canAddBrowser(props.state)
  if (!adding)
    return (
      <button
        type="button"
        className="secondary"
        data-testid="add-browser"
        disabled={!room}
        title={room ? undefined : `Scenes can use ${LIMITS.browsers} browser sources at most.`}
        onClick={() => setAdding(true)}
      >
        Add browser source…
      </button>
    )
  return (
    <BrowserForm
      initial={{ url: '', ...DEFAULT_BROWSER }}
      label="Add a browser source"
      saveLabel="Add"
      onCancel={() => setAdding(false)}
      onSave={(page) => {
        props.onChange((s) => addBrowser(s, page, props.aspect))
        setAdding(false)
      }}
    />
  )
}

/** Re-renders when a browser source's page changes state. */
function useBrowserStates(): void {
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  useEffect(() => onBrowserStates(rerender), [])
}

/** A browser source in the active scene: shown or not, its host, its page's state, Edit, Remove. */
export function BrowserRow(props: {
  item: SceneItem
  source: BrowserSource
  onChange: Change
  onVisible: (visible: boolean) => void
  onRemove: () => void
}): ReactNode {
  const { item, source } = props
  const [editing, setEditing] = useState(false)
  useBrowserStates()
  const host = browserHost(source.url)
  const shown = browserShownOf(source.id)
  const words = shown?.error
    ? { text: shown.error.message, problem: true, action: 'reload' as const }
    : browserStateText(shown?.state)
  return (
    <li data-testid="browser-source" data-source-id={source.id} className="browser-source">
      <label className="check">
        <input
          type="checkbox"
          checked={item.visible}
          aria-label={`Show the page from ${host}`}
          onChange={(e) => props.onVisible(e.target.checked)}
        />
        Browser: <span data-testid="browser-host">{host}</span>
      </label>
      <span className="source-actions">
        <button
          type="button"
          className="secondary"
          aria-expanded={editing}
          onClick={() => setEditing(!editing)}
        >
          Edit
        </button>
        <button
          type="button"
          className="secondary"
          onClick={props.onRemove}
          aria-label={`Remove the page from ${host}`}
        >
          Remove
        </button>
      </span>
      <p
        className={words.problem ? 'browser-state field-issue' : 'browser-state hint'}
        role="status"
        data-testid="browser-state"
        data-state={shown?.error ? 'error' : (shown?.state?.kind ?? 'none')}
        data-frames-in={shown?.framesIn}
      >
        {words.text}
        {words.action && (
          <>
            {' '}
            <button type="button" className="secondary" onClick={() => reloadBrowser(source.id)}>
              {words.action === 'reload' ? 'Reload' : 'Try again'}
            </button>
          </>
        )}
      </p>
      {editing && (
        <BrowserForm
          initial={source}
          label={`Edit the page from ${host}`}
          saveLabel="Save"
          onCancel={() => setEditing(false)}
          onSave={(page) => {
            // A name that was the old host follows the new address.
            const wasHost = source.name === URL.parse(source.url)?.hostname
            const name = wasHost ? '' : source.name
            props.onChange((s) => setBrowser(s, source.id, { ...page, name }))
            setEditing(false)
          }}
        />
      )}
    </li>
  )
}
