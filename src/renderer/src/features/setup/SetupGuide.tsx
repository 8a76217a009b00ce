// The first-run guide (#34 §1, as OBS's Auto-Configuration Wizard), a dialog in four steps: where
// Onair streams to (the local studio, or Livepeer with a key: the Connection screen's own form), a
// camera and microphone check (a preview and the app's level meter), the setup test (main pushes a
// test stream and times the encoder; progress and Cancel), and what it recommends, applied to the
// Output settings only when the creator says so. Skip closes it and it does not open by itself again.
// Main sends the test's states and numbers; the sentences made of them are in setup-text.ts.
import { useEffect, useRef, useState, type ReactNode } from 'react'
import type { DeviceSettings, OutputSettings, SetupTestResult } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { DEFAULT_OUTPUT } from '../../../../shared/output'
import { useApi } from '../../lib/api'
import { mediaError, openCamera, stopTracks } from '../../lib/capture'
import { useDialog } from '../../components/use-dialog'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { AddConnectionForm } from '../connection/AddConnectionForm'
import { useConnectionStatus } from '../connection/use-connection-status'
import { AudioMeter } from '../../components/AudioMeter'
import { useSetupTest } from './use-setup-test'
import {
  encoderFallbackText,
  encoderViaText,
  holdText,
  progressText,
  reasonText,
  recBitrateText,
  recEncoderText,
  recSizeText,
  uploadMeasuredText
} from './setup-text'

const STEPS = ['Connection', 'Camera and microphone', 'Test', 'Recommendation'] as const
type Step = 0 | 1 | 2 | 3

const KIND: Record<string, string> = {
  local: 'the local studio on this computer',
  livepeer: 'Livepeer Studio',
  custom: 'a custom service'
}

/** The guide's answer kept in the settings: 'done' (applied or seen) or 'skipped'. */
export async function markGuide(
  api: ReturnType<typeof useApi>,
  how: NonNullable<DeviceSettings['setupGuide']>,
  change: (s: DeviceSettings) => DeviceSettings = (s) => s
): Promise<AppError | null> {
  const got = await api.getSettings()
  if (!got.ok) return got.error
  const saved = await api.saveSettings({ ...change(got.value), setupGuide: how })
  return saved.ok ? null : saved.error
}

export function SetupGuide({
  onClose,
  onApplied
}: {
  onClose: () => void
  /** The recommendation was written to the Output settings (a form showing them takes it too). */
  onApplied?: (o: Partial<OutputSettings>) => void
}): ReactNode {
  const api = useApi()
  const box = useRef<HTMLDivElement>(null)
  const first = useRef<HTMLHeadingElement>(null)
  const [step, setStep] = useState<Step>(0)
  const test = useSetupTest()
  const [error, setError] = useState<AppError | null>(null)
  const [applied, setApplied] = useState(false)
  const close = (): void => {
    if (test.state.kind === 'running') test.cancel()
    onClose()
  }
  useDialog(box, first, close)
  useEffect(() => {
    if (test.state.kind === 'done') setStep(3)
  }, [test.state.kind])

  const skip = async (): Promise<void> => {
    if (test.state.kind === 'running') test.cancel()
    const e = await markGuide(api, 'skipped')
    if (e) return setError(e)
    onClose()
  }
  const apply = async (r: SetupTestResult): Promise<void> => {
    const rec = r.recommendation
    const output: Partial<OutputSettings> = {
      width: rec.width,
      height: rec.height,
      fps: rec.fps,
      videoBitrateKbps: rec.videoBitrateKbps,
      audioBitrateKbps: rec.audioBitrateKbps,
      videoEncoder: rec.videoEncoder
    }
    const e = await markGuide(api, 'done', (s) => ({ ...s, output: { ...s.output, ...output } }))
    setError(e)
    if (e) return
    setApplied(true)
    onApplied?.(output)
  }

  return (
    <div className="overlay" role="presentation">
      <div
        className="dialog setup-guide"
        ref={box}
        role="dialog"
        aria-modal="true"
        aria-labelledby="setup-title"
        data-testid="setup-guide"
      >
        <div className="screen-head">
          <h2 id="setup-title" ref={first} tabIndex={-1}>
            Set up for this computer and this connection
          </h2>
          <button
            type="button"
            className="secondary"
            onClick={() => void skip()}
            data-testid="setup-skip"
          >
            Skip
          </button>
        </div>
        <ol className="setup-steps" aria-label="Steps">
          {STEPS.map((name, i) => (
            <li key={name} aria-current={i === step ? 'step' : undefined}>
              {name}
            </li>
          ))}
        </ol>
        {step === 0 && <ConnectionStep onNext={() => setStep(1)} />}
        {step === 1 && <DevicesStep onNext={() => setStep(2)} onBack={() => setStep(0)} />}
        {step === 2 && <TestStep test={test} onBack={() => setStep(1)} />}
        {step === 3 && test.state.kind === 'done' && (
          <ResultStep
            result={test.state.result}
            applied={applied}
            onApply={() => void apply((test.state as { result: SetupTestResult }).result)}
            onAgain={() => {
              setApplied(false)
              setStep(2)
              test.run()
            }}
            onClose={onClose}
          />
        )}
        {error && <ErrorNote error={error} />}
      </div>
    </div>
  )
}

function ConnectionStep({ onNext }: { onNext: () => void }): ReactNode {
  const api = useApi()
  const status = useConnectionStatus()
  const [adding, setAdding] = useState(false)
  const active = status.value?.active
  const local = status.value?.local
  const ready = active && (active.kind !== 'local' || local?.state === 'ready')
  return (
    <section aria-labelledby="setup-conn" className="setup-step">
      <h3 id="setup-conn">Where Onair streams to</h3>
      {status.loading && !status.value && <Loading />}
      {status.error && <ErrorNote error={status.error} onRetry={status.reload} />}
      {active && (
        <p data-testid="setup-connection">
          {active.name}: {KIND[active.kind] ?? active.kind}.{' '}
          {active.kind === 'local' && (
            <span className={`state-pill state-${local?.state ?? 'stopped'}`}>
              {local?.state ?? 'stopped'}
            </span>
          )}
        </p>
      )}
      {active?.kind === 'local' && (
        <p className="muted">
          The local studio runs on this computer: no account needed. To stream to Livepeer, add it
          with an API key.
        </p>
      )}
      {adding ? (
        <AddConnectionForm
          onAdded={(c) => {
            setAdding(false)
            void api.setActiveConnection(c.id).then(() => status.reload())
          }}
        />
      ) : (
        <button type="button" className="secondary" onClick={() => setAdding(true)}>
          Add Livepeer with an API key
        </button>
      )}
      <div className="setup-actions">
        <button type="button" onClick={onNext} disabled={!ready} data-testid="setup-next">
          Next
        </button>
      </div>
    </section>
  )
}

function DevicesStep({ onNext, onBack }: { onNext: () => void; onBack: () => void }): ReactNode {
  const video = useRef<HTMLVideoElement>(null)
  const [stream, setStream] = useState<MediaStream | null>(null)
  const [error, setError] = useState<AppError | null>(null)
  useEffect(() => {
    let s: MediaStream | null = null
    let gone = false
    openCamera(DEFAULT_OUTPUT).then(
      (got) => {
        if (gone) return stopTracks(got)
        s = got
        setStream(got)
      },
      (e: unknown) => !gone && setError(mediaError(e))
    )
    return () => {
      gone = true
      stopTracks(s)
    }
  }, [])
  useEffect(() => {
    if (video.current) video.current.srcObject = stream
  }, [stream])
  return (
    <section aria-labelledby="setup-devices" className="setup-step">
      <h3 id="setup-devices">Camera and microphone</h3>
      <p className="muted">
        Check that the picture and the sound come through. Speak: the meter moves.
      </p>
      {error && <ErrorNote error={error} />}
      <video
        ref={video}
        className="setup-preview"
        autoPlay
        muted
        playsInline
        aria-label="Camera preview"
        data-testid="setup-preview"
      />
      <AudioMeter stream={stream} />
      <div className="setup-actions">
        <button type="button" className="secondary" onClick={onBack}>
          Back
        </button>
        <button type="button" onClick={onNext} data-testid="setup-next">
          Next
        </button>
      </div>
    </section>
  )
}

function TestStep({
  test,
  onBack
}: {
  test: ReturnType<typeof useSetupTest>
  onBack: () => void
}): ReactNode {
  const s = test.state
  return (
    <section aria-labelledby="setup-test" className="setup-step">
      <h3 id="setup-test">The test</h3>
      <p className="muted">
        Onair pushes a short test stream (about 10 s, up to 10 Mbit/s) to a throwaway stream on the
        service, deleted after, to measure your upload; then it times this computer&apos;s encoder
        at five sizes (about 20 s).
      </p>
      {s.kind === 'running' && (
        <div role="status" aria-live="polite" data-testid="setup-progress">
          <progress max={1} value={s.progress?.fraction ?? 0} aria-label="Setup test progress" />
          <p>{progressText(s.progress)}</p>
        </div>
      )}
      {s.kind === 'failed' && <ErrorNote error={s.error} onRetry={test.run} />}
      <div className="setup-actions">
        <button
          type="button"
          className="secondary"
          onClick={onBack}
          disabled={s.kind === 'running'}
        >
          Back
        </button>
        {s.kind === 'running' ? (
          <button type="button" className="danger" onClick={test.cancel} data-testid="setup-cancel">
            Cancel
          </button>
        ) : (
          <button type="button" onClick={test.run} data-testid="setup-run">
            Start the test
          </button>
        )}
      </div>
    </section>
  )
}

function ResultStep({
  result,
  applied,
  onApply,
  onAgain,
  onClose
}: {
  result: SetupTestResult
  applied: boolean
  onApply: () => void
  onAgain: () => void
  onClose: () => void
}): ReactNode {
  const r = result.recommendation
  const u = result.upload
  return (
    <section aria-labelledby="setup-result" className="setup-step" data-testid="setup-result">
      <h3 id="setup-result">Recommended for this computer and this connection</h3>
      <dl className="setup-figures">
        <dt>Size and frame rate</dt>
        <dd data-testid="setup-rec-size">{recSizeText(r)}</dd>
        <dt>Bitrate</dt>
        <dd data-testid="setup-rec-bitrate" data-kbps={r.videoBitrateKbps + r.audioBitrateKbps}>
          {recBitrateText(r)}
        </dd>
        <dt>Encoder</dt>
        <dd data-testid="setup-rec-encoder">{recEncoderText(result)}</dd>
        <dt>Upload measured</dt>
        <dd data-testid="setup-upload" data-kbps={u.kbps ?? ''}>
          {uploadMeasuredText(result)}
        </dd>
      </dl>
      <ul className="setup-reasons" data-testid="setup-reasons">
        {r.reasons.map(reasonText).map((t) => (
          <li key={t}>{t}</li>
        ))}
      </ul>
      <details>
        <summary>What the encoder held ({encoderViaText(result.encoder.via)})</summary>
        <ul>
          {result.encoder.sizes.map((s) => (
            <li key={`${s.width}x${s.height}@${s.fps}`}>{holdText(s)}</li>
          ))}
        </ul>
        {result.encoder.processFailure && (
          <p className="muted">{encoderFallbackText(result.encoder.processFailure)}</p>
        )}
      </details>
      {applied && (
        <p className="notice" role="status" data-testid="setup-applied">
          Applied to the Output settings. Change them any time under Go live, Output.
        </p>
      )}
      <div className="setup-actions">
        <button type="button" className="secondary" onClick={onAgain}>
          Test again
        </button>
        {applied ? (
          <button type="button" onClick={onClose}>
            Close
          </button>
        ) : (
          <button type="button" onClick={onApply} data-testid="setup-apply">
            Apply
          </button>
        )}
      </div>
    </section>
  )
}
