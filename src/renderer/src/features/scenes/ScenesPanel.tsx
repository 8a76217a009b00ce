// The scene editor: the scenes (switch, add, rename, delete), the active scene's ready layouts, and its
// sources (camera, screen, images, titles). Everything stays editable while live: a switch or an edit
// changes the picture, never the broadcast.
import { useRef, useState, type ReactNode } from 'react'
import { CORNERS, type Corner } from '../../../../shared/scene-layout'
import {
  DEFAULT_TITLE,
  LAYOUTS,
  LIMITS,
  TITLE_RECT,
  activeScene,
  applyLayout,
  layoutOf,
  newId,
  withScene,
  type Scene,
  type SceneSource,
  type ScenesState,
  type TitleSource
} from '../../../../shared/scenes'
import type { AppError } from '../../../../shared/result'
import { ErrorNote } from '../../components/ErrorNote'
import { failedToRead, readImageFile } from './image-file'

const CORNER_LABEL: Record<Corner, string> = {
  'top-left': 'Top left',
  'top-right': 'Top right',
  'bottom-left': 'Bottom left',
  'bottom-right': 'Bottom right'
}

export function SceneTabs({
  state,
  onSwitch
}: {
  state: ScenesState
  onSwitch: (id: string) => void
}): ReactNode {
  return (
    <div className="scene-tabs" role="group" aria-label="Scenes" data-testid="scene-tabs">
      {state.scenes.map((s, i) => (
        <button
          key={s.id}
          type="button"
          className={s.id === state.activeId ? 'scene-tab active' : 'scene-tab'}
          aria-pressed={s.id === state.activeId}
          data-testid="scene-tab"
          title={i < 9 ? `${s.name} (Alt+${i + 1})` : s.name}
          onClick={() => onSwitch(s.id)}
        >
          {s.name}
        </button>
      ))}
    </div>
  )
}

export function ScenesPanel({
  state,
  aspect,
  onChange,
  sharing,
  onShareScreen,
  onStopScreen,
  live
}: {
  state: ScenesState
  aspect: number
  onChange: (next: ScenesState) => void
  sharing: boolean
  onShareScreen: () => void
  onStopScreen: () => void
  live: boolean
}): ReactNode {
  const scene = activeScene(state)
  const layout = layoutOf(scene, aspect)
  const [imageError, setImageError] = useState<AppError | null>(null)
  const file = useRef<HTMLInputElement>(null)
  const pip = scene.pip ?? { corner: 'bottom-right' as Corner, size: 0.28 }

  const put = (next: Scene): void => onChange(withScene(state, next))
  const edit = (id: string, patch: Partial<SceneSource>): void =>
    put({
      ...scene,
      sources: scene.sources.map((s) => (s.id === id ? ({ ...s, ...patch } as SceneSource) : s))
    })
  const remove = (id: string): void => {
    const sources = scene.sources.filter((s) => s.id !== id)
    const next = withScene(state, { ...scene, sources })
    const used = new Set(
      next.scenes.flatMap((s) => s.sources.map((x) => (x.kind === 'image' ? x.imageId : '')))
    )
    onChange({ ...next, images: next.images.filter((i) => used.has(i.id)) })
  }
  const add = (source: SceneSource): void => put({ ...scene, sources: [...scene.sources, source] })

  const addScene = (): void => {
    const fresh = applyLayout(
      { id: newId('scene'), name: `Scene ${state.scenes.length + 1}`, sources: [] },
      'pip',
      aspect
    )
    onChange({ ...state, scenes: [...state.scenes, fresh], activeId: fresh.id })
  }
  const deleteScene = (): void => {
    const rest = state.scenes.filter((s) => s.id !== scene.id)
    if (!rest.length) return
    onChange({ ...state, scenes: rest, activeId: rest[0]!.id })
  }

  const pickImage = async (f: File | undefined): Promise<void> => {
    if (!f) return
    setImageError(null)
    if (state.images.length >= LIMITS.images)
      return setImageError({
        code: 'media',
        message: `Scenes can use ${LIMITS.images} images at most.`,
        hint: 'Remove an image from a scene first.'
      })
    const img = await readImageFile(f)
    if (failedToRead(img)) return setImageError(img)
    const w = Math.min(0.25, (0.2 * img.width) / img.height / aspect) // about a fifth of the height
    const rect = { x: 1 - w - 0.03, y: 0.05, w, h: (w * aspect * img.height) / img.width }
    const next = withScene(state, {
      ...scene,
      sources: [...scene.sources, { id: newId('image'), kind: 'image', imageId: img.id, rect }]
    })
    onChange({ ...next, images: [...next.images, img] })
  }

  const titles = scene.sources.filter((s): s is TitleSource => s.kind === 'title')
  const images = scene.sources.filter((s) => s.kind === 'image')
  const cam = scene.sources.find((s) => s.kind === 'camera')
  const full = scene.sources.length >= LIMITS.sourcesPerScene

  return (
    <div className="scenes-panel" data-testid="scenes-panel">
      <div className="scene-name-row">
        <label>
          Scene name
          <input
            value={scene.name}
            maxLength={LIMITS.nameLength}
            data-testid="scene-name"
            onChange={(e) => put({ ...scene, name: e.target.value })}
            onBlur={(e) => !e.target.value.trim() && put({ ...scene, name: 'Scene' })}
          />
        </label>
        <button
          type="button"
          className="secondary"
          data-testid="add-scene"
          onClick={addScene}
          disabled={state.scenes.length >= LIMITS.scenes}
        >
          New scene
        </button>
        <button
          type="button"
          className="secondary"
          data-testid="delete-scene"
          disabled={state.scenes.length < 2}
          onClick={deleteScene}
        >
          Delete scene
        </button>
      </div>

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
              onClick={() => put(applyLayout(scene, l.kind, aspect))}
            >
              {l.label}
            </button>
          ))}
        </div>
        {(layout === 'pip' || layout === null) && cam && !cam.hidden && (
          <div className="pip-controls">
            <label>
              Camera corner
              <select
                value={pip.corner}
                data-testid="pip-corner"
                onChange={(e) =>
                  put(
                    applyLayout(scene, 'pip', aspect, { ...pip, corner: e.target.value as Corner })
                  )
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
                  put(
                    applyLayout(scene, 'pip', aspect, {
                      ...pip,
                      size: Number(e.target.value) / 100
                    })
                  )
                }
              />
            </label>
          </div>
        )}
      </fieldset>

      <fieldset>
        <legend>Sources</legend>
        <ul className="source-list">
          {scene.sources
            .filter((s) => s.kind === 'camera' || s.kind === 'screen')
            .map((s) => (
              <li key={s.id}>
                <label className="check">
                  <input
                    type="checkbox"
                    checked={!s.hidden}
                    data-testid={`show-${s.kind}`}
                    onChange={(e) => edit(s.id, { hidden: !e.target.checked })}
                  />
                  {s.kind === 'camera' ? 'Camera' : 'Screen or window'}
                </label>
                {s.kind === 'screen' && (
                  <span className="source-actions">
                    <button
                      type="button"
                      className="secondary"
                      data-testid="share-screen"
                      onClick={onShareScreen}
                    >
                      {sharing ? 'Share another' : 'Choose screen or window'}
                    </button>
                    {sharing && (
                      <button
                        type="button"
                        className="secondary"
                        data-testid="stop-screen"
                        onClick={onStopScreen}
                      >
                        Stop sharing
                      </button>
                    )}
                  </span>
                )}
              </li>
            ))}
          {images.map((s) => {
            const img = state.images.find((i) => s.kind === 'image' && i.id === s.imageId)
            return (
              <li key={s.id} data-testid="image-source">
                <label className="check">
                  <input
                    type="checkbox"
                    checked={!s.hidden}
                    onChange={(e) => edit(s.id, { hidden: !e.target.checked })}
                  />
                  {img?.name ?? 'Image'}
                </label>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => remove(s.id)}
                  aria-label={`Remove ${img?.name ?? 'image'}`}
                >
                  Remove
                </button>
              </li>
            )
          })}
          {titles.map((t, i) => (
            <li key={t.id} className="title-editor" data-testid="title-source">
              <label className="check">
                <input
                  type="checkbox"
                  checked={!t.hidden}
                  onChange={(e) => edit(t.id, { hidden: !e.target.checked })}
                />
                Title {titles.length > 1 ? i + 1 : ''}
              </label>
              <input
                aria-label="Title text"
                data-testid="title-text"
                value={t.text}
                maxLength={LIMITS.titleLength}
                onChange={(e) => edit(t.id, { text: e.target.value })}
              />
              <span className="title-style">
                <label>
                  Size
                  <input
                    type="number"
                    min={LIMITS.titleSize.min}
                    max={LIMITS.titleSize.max}
                    value={t.size}
                    data-testid="title-size"
                    onChange={(e) => {
                      const v = Number(e.target.value)
                      if (v >= LIMITS.titleSize.min && v <= LIMITS.titleSize.max)
                        edit(t.id, { size: v })
                    }}
                  />
                </label>
                <label>
                  Text
                  <input
                    type="color"
                    value={t.color}
                    data-testid="title-color"
                    onChange={(e) => edit(t.id, { color: e.target.value })}
                  />
                </label>
                <label className="check">
                  <input
                    type="checkbox"
                    checked={t.band !== null}
                    onChange={(e) =>
                      edit(t.id, {
                        band: e.target.checked ? (DEFAULT_TITLE.band ?? '#000000') : null
                      })
                    }
                  />
                  Band
                </label>
                {t.band !== null && (
                  <input
                    type="color"
                    aria-label="Band colour"
                    value={t.band}
                    data-testid="title-band"
                    onChange={(e) => edit(t.id, { band: e.target.value })}
                  />
                )}
                <button type="button" className="secondary" onClick={() => remove(t.id)}>
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ul>
        <div className="add-sources">
          <button
            type="button"
            className="secondary"
            data-testid="add-title"
            disabled={full}
            onClick={() => add({ id: newId('title'), rect: TITLE_RECT, ...DEFAULT_TITLE })}
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
    </div>
  )
}
