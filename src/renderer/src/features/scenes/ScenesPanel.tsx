// The scene editor: the active scene's name, its ready layout and transition, and its items (cameras,
// screens or windows, images, videos, browser sources, texts; the camera and screen rows are in
// PictureSources, the browser sources' in BrowserSources). A view: every change is a reducer of shared/scenes.ts, handed to onChange.
// Everything stays editable while live: a switch or an edit changes the picture, never the broadcast.
import { useRef, useState, type ReactNode } from 'react'
import { CORNERS, type Corner } from '../../../../shared/scene-layout'
import {
  LAYOUTS,
  LIMITS,
  SCREEN_ID,
  TRANSITIONS,
  activeScene,
  addImage,
  addScene,
  addScreen,
  addText,
  addVideo,
  applyLayout,
  canAddImage,
  canAddScreen,
  canAddVideo,
  deleteScene,
  editText,
  itemsOf,
  newId,
  removeItem,
  renameScene,
  setItemVisible,
  setPip,
  setStudioMode,
  setTransition,
  type ScenesState,
  type TransitionKind
} from '../../../../shared/scenes'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { ErrorNote } from '../../components/ErrorNote'
import { failedToKeep, keepImageFile } from './image-file'
import { TextEditor } from './TextEditor'
import { openVideo, videoOf } from './video-files'
import { AddCamera, PictureRow, useCameraList } from './PictureSources'
import { AddBrowser, BrowserRow } from './BrowserSources'

const CORNER_LABEL: Record<Corner, string> = {
  'top-left': 'Top left',
  'top-right': 'Top right',
  'bottom-left': 'Bottom left',
  'bottom-right': 'Bottom right'
}

export interface ScenesPanelProps {
  state: ScenesState
  aspect: number
  /** A change made from the panel; `update` applies a reducer to the state as it is then. */
  onChange: (update: (state: ScenesState) => ScenesState) => void
  /** Whether the first screen is shared. */
  sharing: boolean
  /** Whether a screen source is shared (the first one's is `sharing`). */
  sharingOf?: (sourceId: string) => boolean
  /** Shares a screen or window into a screen source (the first one when not named), on a click. */
  onShareScreen: (sourceId?: string) => void
  onStopScreen: (sourceId?: string) => void
  live: boolean
}

export function ScenesPanel(props: ScenesPanelProps): ReactNode {
  const { state, onChange } = props
  const scene = activeScene(state)
  return (
    <div className="scenes-panel" data-testid="scenes-panel">
      <div className="scene-name-row">
        <label>
          Scene name
          <input
            value={scene.name}
            maxLength={LIMITS.nameLength}
            data-testid="scene-name"
            onChange={(e) => onChange((s) => renameScene(s, e.target.value))}
            onBlur={(e) => onChange((s) => renameScene(s, e.target.value, true))}
          />
        </label>
        <button
          type="button"
          className="secondary"
          data-testid="add-scene"
          onClick={() => onChange((s) => addScene(s, props.aspect))}
          disabled={state.scenes.length >= LIMITS.scenes}
        >
          New scene
        </button>
        <button
          type="button"
          className="secondary"
          data-testid="delete-scene"
          disabled={state.scenes.length < 2}
          onClick={() => onChange(deleteScene)}
        >
          Delete scene
        </button>
        <label
          className="check"
          title="Prepare the next scene in a preview; Transition puts it on air"
        >
          <input
            type="checkbox"
            role="switch"
            checked={state.studio}
            data-testid="studio-mode"
            onChange={(e) => onChange((s) => setStudioMode(s, e.target.checked))}
          />
          Studio mode
        </label>
      </div>
      <LayoutFieldset {...props} />
      <SourcesFieldset {...props} />
    </div>
  )
}

function LayoutFieldset({ state, aspect, onChange }: ScenesPanelProps): ReactNode {
  const scene = activeScene(state)
  const { layout, pip } = scene
  const cam = itemsOf(state, scene).find((x) => x.source.kind === 'camera')?.item
  return (
    <fieldset>
      <legend>Layout</legend>
      <div className="layout-buttons">
        {LAYOUTS.map((l) => (
          <button
            key={l.kind}
            type="button"
            className={layout === l.kind ? 'layout active' : 'layout secondary'}
            aria-pressed={layout === l.kind}
            data-testid={`layout-${l.kind}`}
            onClick={() => onChange((s) => applyLayout(s, l.kind, aspect))}
          >
            {l.label}
          </button>
        ))}
      </div>
      {(layout === 'pip' || layout === null) && cam?.visible && (
        <div className="pip-controls">
          <label>
            Camera corner
            <select
              value={pip.corner}
              data-testid="pip-corner"
              onChange={(e) =>
                onChange((s) => setPip(s, { ...pip, corner: e.target.value as Corner }, aspect))
              }
            >
              {CORNERS.map((c) => (
                <option key={c} value={c}>
                  {CORNER_LABEL[c]}
                </option>
              ))}
            </select>
          </label>
          <label>
            Camera size
            <input
              type="range"
              min={15}
              max={50}
              value={Math.round(pip.size * 100)}
              data-testid="pip-size"
              aria-valuetext={`${Math.round(pip.size * 100)} percent of the width`}
              onChange={(e) =>
                onChange((s) => setPip(s, { ...pip, size: Number(e.target.value) / 100 }, aspect))
              }
            />
          </label>
        </div>
      )}
      <label className="transition">
        Scene change
        <select
          value={state.transition.kind}
          data-testid="transition-kind"
          onChange={(e) =>
            onChange((s) =>
              setTransition(s, { ...s.transition, kind: e.target.value as TransitionKind })
            )
          }
        >
          {TRANSITIONS.map((t) => (
            <option key={t.kind} value={t.kind}>
              {t.kind === 'dissolve' ? `${t.label} (${state.transition.durationMs} ms)` : t.label}
            </option>
          ))}
        </select>
      </label>
    </fieldset>
  )
}

function SourcesFieldset(props: ScenesPanelProps): ReactNode {
  const { state, aspect, onChange, sharing, live } = props
  const api = useApi()
  const cameras = useCameraList()
  const [imageError, setImageError] = useState<AppError | null>(null)
  const file = useRef<HTMLInputElement>(null)
  const videoFile = useRef<HTMLInputElement>(null)
  // A file picked again for a kept source changes no state: this shows it.
  const [, setOpened] = useState(0)
  const items = itemsOf(state, activeScene(state))
  const ofKind = (...kinds: string[]) => items.filter((x) => kinds.includes(x.source.kind))
  const texts = ofKind('text')
  // Listed as the creator thinks of them: the pictures, then the images, then the titles.
  const listed = [...ofKind('camera', 'screen'), ...ofKind('image', 'video', 'browser'), ...texts]
  const full = items.length >= LIMITS.itemsPerScene
  const visible = (id: string) => (v: boolean) => onChange((s) => setItemVisible(s, id, v))
  const remove = (id: string) => () => onChange((s) => removeItem(s, id))

  const pickImage = async (f: File | undefined): Promise<void> => {
    if (!f) return
    setImageError(null)
    if (!canAddImage(state))
      return setImageError({
        code: 'media',
        message: `Scenes can use ${LIMITS.images} images at most.`,
        hint: 'Remove an image from a scene first.'
      })
    const img = await keepImageFile(api, f)
    if (failedToKeep(img)) return setImageError(img)
    onChange((s) => addImage(s, img, aspect))
  }

  // A file input made for one pick (a kept video source asks for its file again).
  const pickFile = (accept: string, picked: (f: File | undefined) => void): void => {
    const input = document.createElement('input')
    input.type = 'file'
    input.accept = accept
    input.onchange = () => picked(input.files?.[0])
    input.click()
  }

  // A video's bytes stay in the page: a source kept from before a restart asks for its file again.
  const pickVideo = async (f: File | undefined, sourceId?: string): Promise<void> => {
    if (!f) return
    setImageError(null)
    if (!sourceId && !canAddVideo(state))
      return setImageError({
        code: 'media',
        message: `Scenes can use ${LIMITS.videos} videos at most.`,
        hint: 'Remove a video from a scene first.'
      })
    const id = sourceId ?? newId('video')
    const size = await openVideo(id, f)
    if (!size)
      return setImageError({
        code: 'media',
        message: `"${f.name}" is not a video this browser can play.`,
        hint: 'Pick an MP4 (H.264) or WebM file.'
      })
    if (sourceId) setOpened((n) => n + 1)
    else onChange((s) => addVideo(s, { name: f.name, ...size }, aspect, id))
  }

  return (
    <fieldset>
      <legend>Sources</legend>
      <ul className="source-list">
        {listed.map(({ item, source }) => {
          switch (source.kind) {
            case 'camera':
            case 'screen':
              return (
                <PictureRow
                  key={item.id}
                  item={item}
                  source={source}
                  cameras={cameras}
                  onChange={onChange}
                  onVisible={visible(item.id)}
                  onRemove={remove(item.id)}
                  sharing={source.id === SCREEN_ID ? sharing : !!props.sharingOf?.(source.id)}
                  onShare={() => props.onShareScreen(source.id)}
                  onStopShare={() => props.onStopScreen(source.id)}
                />
              )
            case 'image':
              return (
                <li key={item.id} data-testid="image-source">
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={item.visible}
                      onChange={(e) => visible(item.id)(e.target.checked)}
                    />
                    {source.name}
                  </label>
                  <button
                    type="button"
                    className="secondary"
                    onClick={remove(item.id)}
                    aria-label={`Remove ${source.name}`}
                  >
                    Remove
                  </button>
                </li>
              )
            case 'video':
              return (
                <li key={item.id} data-testid="video-source">
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={item.visible}
                      onChange={(e) => visible(item.id)(e.target.checked)}
                    />
                    {source.name}
                  </label>
                  {!videoOf(source.id) && (
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => pickFile('video/*', (f) => void pickVideo(f, source.id))}
                    >
                      Pick the file again
                    </button>
                  )}
                  <button
                    type="button"
                    className="secondary"
                    onClick={remove(item.id)}
                    aria-label={`Remove ${source.name}`}
                  >
                    Remove
                  </button>
                </li>
              )
            case 'browser':
              return (
                <BrowserRow
                  key={item.id}
                  item={item}
                  source={source}
                  onChange={onChange}
                  onVisible={visible(item.id)}
                  onRemove={remove(item.id)}
                />
              )
            case 'text':
              return (
                <TextEditor
                  key={item.id}
                  item={item}
                  text={source}
                  label={`Title ${texts.length > 1 ? texts.findIndex((t) => t.item.id === item.id) + 1 : ''}`}
                  onVisible={visible(item.id)}
                  onEdit={(patch) => onChange((s) => editText(s, source.id, patch))}
                  onRemove={remove(item.id)}
                />
              )
          }
        })}
      </ul>
      <div className="add-sources">
        <AddCamera state={state} cameras={cameras} full={full} onChange={onChange} />
        <button
          type="button"
          className="secondary"
          data-testid="add-screen"
          disabled={full || !canAddScreen(state)}
          onClick={() => {
            // The click shares at once (a browser asks for the user's gesture): one share per source.
            const id = newId('screen')
            onChange((s) => addScreen(s, id))
            props.onShareScreen(id)
          }}
        >
          Add screen or window…
        </button>
        <button
          type="button"
          className="secondary"
          data-testid="add-title"
          disabled={full}
          onClick={() => onChange(addText)}
        >
          Add title
        </button>
        <button
          type="button"
          className="secondary"
          data-testid="add-image"
          disabled={full}
          onClick={() => file.current?.click()}
        >
          Add image…
        </button>
        <button
          type="button"
          className="secondary"
          data-testid="add-video"
          disabled={full}
          onClick={() => videoFile.current?.click()}
        >
          Add video…
        </button>
        <AddBrowser state={state} aspect={aspect} full={full} onChange={onChange} />
        <input
          ref={videoFile}
          type="file"
          accept="video/*"
          hidden
          data-testid="video-file"
          onChange={(e) => {
            void pickVideo(e.target.files?.[0])
            e.target.value = ''
          }}
        />
        <input
          ref={file}
          type="file"
          accept="image/*"
          hidden
          data-testid="image-file"
          onChange={(e) => {
            void pickImage(e.target.files?.[0])
            e.target.value = ''
          }}
        />
      </div>
      {imageError && (
        <ErrorNote
          error={imageError}
          onRetry={() => setImageError(null)}
          retryLabel="Dismiss"
          testId="image-error"
        />
      )}
      {live && (
        <p className="hint">Changes show on the broadcast at once; it is not interrupted.</p>
      )}
    </fieldset>
  )
}
