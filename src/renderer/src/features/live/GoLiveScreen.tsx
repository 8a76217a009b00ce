import { useEffect, useRef, useState, type ReactNode } from 'react'
import type { DeviceSettings, OutputSettings } from '../../../../shared/contract'
import { useApi } from '../../lib/api'
import { useResult } from '../../lib/use-result'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { AudioMeter } from './AudioMeter'
import { DEFAULT_OUTPUT } from '../../../../shared/output'
import { OutputForm, outputIssue } from './OutputForm'
import { noteWentLive, preferredStreamIds } from '../../lib/recent-streams'
import { useLive } from './live-context'
import { useSource, type SourceChoice } from './use-source'
import type { CaptureKind } from '../../../../shared/contract'
import { activeScene, readScenes, withScene, type ScenesState } from '../../../../shared/scenes'
import type { Rect } from '../../../../shared/scene-layout'
import { useSceneProgram } from '../scenes/use-scene-program'
import { ScenePreview } from '../scenes/ScenePreview'
import { SceneTabs, ScenesPanel } from '../scenes/ScenesPanel'
import { MixerPanel } from '../scenes/MixerPanel'
import { ComposeStats } from '../scenes/ComposeStats'

const SOURCES: { kind: CaptureKind; label: string }[] = [
  { kind: 'scene', label: 'Scene: camera, screen, images and titles' },
  { kind: 'camera', label: 'Camera + microphone' },
  { kind: 'screen', label: 'Screen' },
  { kind: 'test-pattern', label: 'Test pattern' }
]

/** A remembered device that is not plugged in now still shows, so the picker tells the truth. */
const missing = (id: string | undefined, list: MediaDeviceInfo[]): boolean =>
  !!id && !list.some((d) => d.deviceId === id)

export function GoLiveScreen({ initialStreamId }: { initialStreamId?: string }): ReactNode {
  const api = useApi()
  const live = useLive()
  const streams = useResult(() => api.listStreams({ limit: 100 }), [api])
  const [streamId, setStreamId] = useState(initialStreamId ?? '')
  const [choice, setChoice] = useState<SourceChoice | null>(null)
  const [output, setOutput] = useState<OutputSettings>(DEFAULT_OUTPUT)
  const [scenes, setScenes] = useState<ScenesState | null>(null)
  const settingsLoaded = useRef(false)
  const source = useSource(choice, output)
  const isScene = choice?.kind === 'scene'
  const aspect = output.width / output.height
  const scene = useSceneProgram(isScene, output, scenes, {
    videoDeviceId: choice?.videoDeviceId,
    audioDeviceId: choice?.audioDeviceId
  })
  const video = useRef<HTMLVideoElement>(null)
  const stream = live.capture?.stream ?? null

  // Remembered choices first, so the camera opens once, on the device the creator used last time.
  useEffect(() => {
    void api.getSettings().then((r) => {
      const s: DeviceSettings = r.ok ? r.value : {}
      const out = { ...DEFAULT_OUTPUT, ...s.output, keyframeIntervalSec: 2 }
      setOutput(out)
      setScenes(readScenes(s.scenes, out.width / out.height))
      setChoice({
        kind: s.sourceKind ?? 'camera',
        videoDeviceId: s.videoDeviceId,
        audioDeviceId: s.audioDeviceId
      })
      settingsLoaded.current = true
    })
  }, [api])

  // Saved a moment after the last change: a drag or a typed title is one save, not one per event.
  // A save still pending when the screen goes (the creator navigates away) is made at once.
  const pendingSave = useRef<(() => void) | null>(null)
  useEffect(() => {
    if (!settingsLoaded.current || !choice) return
    const save = (): void => {
      pendingSave.current = null
      void api.saveSettings({
        sourceKind: choice.kind,
        videoDeviceId: choice.videoDeviceId,
        audioDeviceId: choice.audioDeviceId,
        output,
        ...(scenes ? { scenes } : {})
      })
    }
    pendingSave.current = save
    const t = setTimeout(save, 400)
    return () => clearTimeout(t)
  }, [api, choice, output, scenes])
  useEffect(() => () => pendingSave.current?.(), [])

  const switchScene = (id: string): void => {
    scene.program?.mix.resume()
    setScenes((st) => (st ? { ...st, activeId: id } : st))
  }
  const moveSource = (id: string, rect: Rect): void =>
    setScenes((st) => {
      if (!st) return st
      const sc = activeScene(st)
      return withScene(st, {
        ...sc,
        sources: sc.sources.map((x) => (x.id === id ? { ...x, rect } : x))
      })
    })

  // Alt+1..9 switches scenes, live or not, from anywhere on this screen.
  useEffect(() => {
    if (!isScene || !scenes) return
    const onKey = (e: KeyboardEvent): void => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return
      const n = Number(e.key)
      const target = Number.isInteger(n) && n >= 1 ? scenes.scenes[n - 1] : undefined
      if (!target) return
      e.preventDefault()
      switchScene(target.id)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [isScene, scenes])

  // Preselect: the stream that is live; else the one last gone live on; else the one opened last;
  // else the newest.
  const liveStreamId = live.running ? live.run?.streamId : undefined
  useEffect(() => {
    const items = streams.value?.items
    if (streamId || !items) return
    const known = new Set(items.map((s) => s.id))
    const pick = preferredStreamIds(liveStreamId).find((id) => known.has(id)) ?? items[0]?.id
    if (pick) setStreamId(pick)
  }, [streams.value, streamId, liveStreamId])

  useEffect(() => {
    if (video.current && video.current.srcObject !== stream) video.current.srcObject = stream
  }, [stream])

  // Leaving the screen while idle releases the camera; a running broadcast keeps it.
  const { setCapture, running, attachPreview } = live
  const runningRef = useRef(running)
  runningRef.current = running
  useEffect(() => {
    const detach = attachPreview()
    return () => {
      detach()
      if (!runningRef.current) setCapture(null)
    }
  }, [setCapture, attachPreview])

  const outIssue = outputIssue(output)
  const ready = !!streamId && !!live.capture && !outIssue && !live.running && !live.busy

  return (
    <section className="screen" aria-labelledby="live-title">
      <h1 id="live-title">Go live</h1>
      <div className="golive">
        <div className="card preview-card">
          {isScene && scene.program && scenes ? (
            <>
              <ScenePreview
                program={scene.program}
                scene={activeScene(scenes)}
                aspect={aspect}
                editable
                onMove={moveSource}
              />
              <SceneTabs state={scenes} onSwitch={switchScene} />
              <ComposeStats program={scene.program} />
              {(['camera', 'mic', 'screen', 'program'] as const).map(
                (k) =>
                  scene.errors[k] && (
                    <ErrorNote
                      key={k}
                      error={scene.errors[k]}
                      onRetry={k === 'screen' ? scene.shareScreen : scene.retry}
                      testId={`scene-error-${k}`}
                    />
                  )
              )}
              <MixerPanel program={scene.program} />
            </>
          ) : isScene ? (
            scene.errors.program ? (
              <ErrorNote error={scene.errors.program} testId="scene-error-program" />
            ) : (
              <Loading label="Preparing the scene…" />
            )
          ) : choice?.kind === 'test-pattern' ? (
            <div className="preview placeholder" data-testid="preview">
              Test pattern and tone, generated by ffmpeg. Once you are live, Watch in the live bar
              shows it as your viewers get it.
            </div>
          ) : (
            <video
              ref={video}
              className="preview"
              data-testid="preview"
              autoPlay
              muted
              playsInline
              aria-label="Live preview"
            />
          )}
          {!stream &&
            !source.opening &&
            !source.error &&
            !isScene &&
            choice?.kind !== 'test-pattern' && (
              <p className="muted" data-testid="no-preview">
                {choice?.kind === 'screen'
                  ? 'Choose a screen to see it here.'
                  : 'The source is not open in this window.'}
              </p>
            )}
          {source.opening && <Loading label="Opening source…" />}
          {source.error && (
            <ErrorNote error={source.error} onRetry={source.retry} testId="source-error" />
          )}
          {!isScene && <AudioMeter stream={stream} />}
        </div>

        <div className="card form">
          <label>
            Stream
            {streams.loading && !streams.value ? (
              <Loading />
            ) : (
              <select
                value={streamId}
                data-testid="live-stream"
                disabled={live.running}
                onChange={(e) => setStreamId(e.target.value)}
              >
                {streams.value?.items.length === 0 && <option value="">No streams yet</option>}
                {streams.value?.items.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </select>
            )}
          </label>
          {streams.error && <ErrorNote error={streams.error} onRetry={streams.reload} />}
          {streams.value?.items.length === 0 && (
            <p className="hint" data-testid="no-streams-hint">
              Create a stream first (Streams, New stream): it gives the ingest address to go live
              to.
            </p>
          )}

          <fieldset disabled={live.running}>
            <legend>Source</legend>
            {SOURCES.map((s) => (
              <label className="check" key={s.kind}>
                <input
                  type="radio"
                  name="source"
                  value={s.kind}
                  data-testid={`source-${s.kind}`}
                  checked={choice?.kind === s.kind}
                  onChange={() => setChoice((c) => ({ ...c, kind: s.kind }))}
                />
                {s.label}
              </label>
            ))}
            {(choice?.kind === 'camera' || isScene) && (
              <>
                <label>
                  Camera
                  <select
                    aria-label="Camera"
                    data-testid="camera-select"
                    value={choice.videoDeviceId ?? ''}
                    onChange={(e) =>
                      setChoice({ ...choice, videoDeviceId: e.target.value || undefined })
                    }
                  >
                    <option value="">Default camera</option>
                    {missing(choice.videoDeviceId, source.devices.video) && (
                      <option value={choice.videoDeviceId}>
                        Remembered camera (not connected)
                      </option>
                    )}
                    {source.devices.video.map((d, i) => (
                      <option key={d.deviceId || i} value={d.deviceId}>
                        {d.label || `Camera ${i + 1}`}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Microphone
                  <select
                    aria-label="Microphone"
                    data-testid="mic-select"
                    value={choice.audioDeviceId ?? ''}
                    onChange={(e) =>
                      setChoice({ ...choice, audioDeviceId: e.target.value || undefined })
                    }
                  >
                    <option value="">Default microphone</option>
                    {missing(choice.audioDeviceId, source.devices.audio) && (
                      <option value={choice.audioDeviceId}>
                        Remembered microphone (not connected)
                      </option>
                    )}
                    {source.devices.audio.map((d, i) => (
                      <option key={d.deviceId || i} value={d.deviceId}>
                        {d.label || `Microphone ${i + 1}`}
                      </option>
                    ))}
                  </select>
                </label>
              </>
            )}
            {choice?.kind === 'screen' && (
              <button
                type="button"
                className="secondary"
                onClick={() => void source.openScreenNow()}
              >
                {live.capture?.kind === 'screen' ? 'Choose another screen' : 'Choose screen'}
              </button>
            )}
          </fieldset>

          {isScene && scenes && (
            <ScenesPanel
              state={scenes}
              aspect={aspect}
              onChange={setScenes}
              sharing={scene.sharing}
              onShareScreen={() => void scene.shareScreen()}
              onStopScreen={scene.stopScreen}
              live={live.running}
            />
          )}

          <OutputForm value={output} onChange={setOutput} disabled={live.running} />
          {live.error && (
            <ErrorNote
              error={live.error}
              onRetry={live.clearError}
              retryLabel="Dismiss"
              testId="golive-error"
            />
          )}
          <div className="actions">
            <button
              type="button"
              className="golive-button"
              data-testid="go-live"
              disabled={!ready}
              onClick={() => {
                scene.program?.mix.resume()
                noteWentLive(streamId)
                void live.start(streamId, output)
              }}
            >
              {live.busy && !live.running ? 'Starting…' : 'Go live'}
            </button>
            {live.running && <span className="muted">Live now: use Stop in the bar above.</span>}
          </div>
        </div>
      </div>
    </section>
  )
}
