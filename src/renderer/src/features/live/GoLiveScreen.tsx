// The Go live screen: picks the stream, the source and the output, shows the preview (a scene's stage
// or the captured picture), and starts the broadcast. Each job is its own piece: the remembered
// settings (use-golive-settings), the stream (StreamPicker), the source and devices (SourcePicker,
// use-source), the scene (features/scenes: SceneStage, ScenesPanel, use-scene-program).
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { noteWentLive } from '../../lib/recent-streams'
import { SceneStage } from '../scenes/SceneStage'
import { ScenesPanel } from '../scenes/ScenesPanel'
import { useSceneProgram, type ProgramHost } from '../scenes/use-scene-program'
import { MixerPanel } from '../scenes/MixerPanel'
import { useMixSettings } from '../scenes/use-mix-settings'
import { AudioMeter } from '../../components/AudioMeter'
import { useLive } from './live-context'
import { OutputForm, outputIssue } from './OutputForm'
import { RecordSwitch } from './RecordSwitch'
import { SourcePicker } from './SourcePicker'
import { StreamPicker } from './StreamPicker'
import { useGoLiveSettings } from './use-golive-settings'
import { useSource } from './use-source'
import { sourceMixer, useKeptLevel } from './source-mix'
import { useHotkey } from '../../lib/use-hotkeys'

export function GoLiveScreen({ initialStreamId }: { initialStreamId?: string }): ReactNode {
  const live = useLive()
  const [streamId, setStreamId] = useState(initialStreamId ?? '')
  const {
    choice,
    setChoice,
    output,
    setOutput,
    scenes,
    changeScenes,
    record,
    setRecord,
    mic,
    setMic,
    audio,
    setAudio
  } = useGoLiveSettings()
  const source = useSource(choice, output, mic.processing)
  const isScene = choice?.kind === 'scene'
  const aspect = output.width / output.height
  const { capture, running, setCapture, holdsSource } = live
  // The live run holds the scene program (so a broadcast survives navigation): the scenes feature
  // sees it only through this host.
  const host = useMemo<ProgramHost>(
    () => ({
      program: capture?.kind === 'scene' ? (capture.program ?? null) : null,
      running: holdsSource,
      hold: (p) => setCapture({ kind: 'scene', stream: p.stream, program: p })
    }),
    [capture, holdsSource, setCapture]
  )
  const scene = useSceneProgram(
    host,
    isScene,
    output,
    scenes,
    { videoDeviceId: choice?.videoDeviceId, audioDeviceId: choice?.audioDeviceId },
    changeScenes,
    mic,
    audio
  )
  const stream = capture?.stream ?? null
  // A camera's or a screen's own mix (source-mix.ts): the same settings as a scene's.
  const sourceMix = !isScene ? (capture?.mix ?? null) : null
  useMixSettings(sourceMix, mic, audio)
  useKeptLevel(sourceMix, capture?.kind, audio, setAudio)
  const mixer = useMemo(
    () => (sourceMix && capture ? sourceMixer(capture.kind, sourceMix) : null),
    [sourceMix, capture]
  )
  /** Browsers start the sound only after a user gesture: Go live, Record. */
  const resumeSound = (): void => {
    scene.program?.mix.resume()
    sourceMix?.resume()
  }

  // Leaving the screen while idle releases the camera; a running broadcast or a recording keeps it.
  const { attachPreview } = live
  const runningRef = useRef(holdsSource)
  runningRef.current = holdsSource
  useEffect(() => {
    const detach = attachPreview()
    return () => {
      detach()
      if (!runningRef.current) setCapture(null)
    }
  }, [setCapture, attachPreview])

  const outIssue = outputIssue(output)
  const ready = !!streamId && !!capture && !outIssue && !running && !live.busy
  const start = (): void => {
    resumeSound()
    noteWentLive(streamId)
    void live.start(streamId, output, record.enabled)
  }
  // The Go live / Stop key: here it starts the chosen stream (the live bar's handler stops one).
  useHotkey('golive-toggle', () => {
    if (!ready) return false
    start()
  })
  // The Record key: here it records the open source with this Output (the live bar's handler stops).
  const canRecord = !!capture && !outIssue && !holdsSource && !live.busy
  const recordNow = (): void => {
    resumeSound()
    void live.startRecording(output)
  }
  useHotkey('record-toggle', () => {
    if (!canRecord) return false
    recordNow()
  })

  return (
    <section className="screen" aria-labelledby="live-title">
      <h1 id="live-title">Go live</h1>
      <div className="golive">
        <div className="card preview-card">
          {isScene && scene.program && scenes ? (
            <SceneStage
              program={scene.program}
              scenes={scenes}
              aspect={aspect}
              onChange={changeScenes}
              mic={mic}
              onMic={setMic}
              audio={audio}
              onAudio={setAudio}
              errors={scene.errors}
              onShareScreen={() => void scene.shareScreen()}
              onRetry={scene.retry}
            />
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
            <CapturePreview stream={stream} />
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
          {mixer ? (
            <MixerPanel host={mixer} mic={mic} onMic={setMic} audio={audio} onAudio={setAudio} />
          ) : (
            !isScene && <AudioMeter stream={stream} />
          )}
        </div>

        <div className="card form">
          <StreamPicker
            value={streamId}
            onChange={setStreamId}
            liveStreamId={running ? live.run?.streamId : undefined}
            disabled={running}
          />
          <SourcePicker
            choice={choice}
            setChoice={setChoice}
            devices={source.devices}
            disabled={holdsSource}
            screenOpen={capture?.kind === 'screen'}
            onChooseScreen={() => void source.openScreenNow()}
          />
          {isScene && scenes && (
            <ScenesPanel
              state={scenes}
              aspect={aspect}
              onChange={changeScenes}
              sharing={scene.sharing}
              sharingOf={scene.sharingOf}
              onShareScreen={(id) => void scene.shareScreen(id)}
              onStopScreen={scene.stopScreen}
              live={running}
            />
          )}
          <OutputForm value={output} onChange={setOutput} disabled={holdsSource} />
          <RecordSwitch
            value={record}
            onChange={setRecord}
            output={output}
            disabled={running}
            runId={live.run?.runId}
          />
          {live.error && (
            <ErrorNote
              error={live.error}
              onRetry={live.clearError}
              retryLabel="Dismiss"
              testId="golive-error"
            />
          )}
          <div className="actions golive-actions">
            <button
              type="button"
              className="golive-button"
              data-testid="go-live"
              disabled={!ready}
              onClick={start}
            >
              {live.busy && !running ? 'Starting…' : 'Go live'}
            </button>
            {/* Record with no stream (OBS's Record); once it goes, the live bar shows it and its Stop. */}
            {!holdsSource && (
              <button
                type="button"
                className="secondary record-button"
                data-testid="record-start"
                disabled={!canRecord}
                onClick={recordNow}
              >
                <span className="record-dot" aria-hidden="true" />
                Record
              </button>
            )}
            {running && (
              <span className="muted">
                {live.run?.state === 'live' ? 'Live now' : 'Going live'}: use Stop in the bar above.
              </span>
            )}
          </div>
        </div>
      </div>
    </section>
  )
}

/** The camera or screen as captured (no scene): muted, it is only a picture. */
function CapturePreview({ stream }: { stream: MediaStream | null }): ReactNode {
  const video = useRef<HTMLVideoElement>(null)
  useEffect(() => {
    if (video.current && video.current.srcObject !== stream) video.current.srcObject = stream
  }, [stream])
  return (
    <video
      ref={video}
      className="preview"
      data-testid="preview"
      autoPlay
      muted
      playsInline
      aria-label="Live preview"
    />
  )
}
