import { useEffect, useRef, type ReactNode } from 'react'
import { LevelMeter } from './LevelMeter'

/** Microphone level from a Web Audio AnalyserNode, on the app's one meter (LevelMeter). */
export function AudioMeter({ stream }: { stream: MediaStream | null }): ReactNode {
  const analyser = useRef<AnalyserNode | null>(null)
  const samples = useRef(new Float32Array(1024))
  const hasAudio = !!stream && stream.getAudioTracks().length > 0

  useEffect(() => {
    if (!stream || stream.getAudioTracks().length === 0) return
    const ctx = new AudioContext()
    const source = ctx.createMediaStreamSource(stream)
    const a = ctx.createAnalyser()
    a.fftSize = samples.current.length
    source.connect(a)
    void ctx.resume()
    analyser.current = a
    return () => {
      analyser.current = null
      source.disconnect()
      void ctx.close()
    }
  }, [stream])

  const read = (): number => {
    const a = analyser.current
    if (!a) return 0
    a.getFloatTimeDomainData(samples.current)
    let p = 0
    for (const s of samples.current) p = Math.max(p, Math.abs(s))
    return p
  }

  return (
    <div className="meter-row">
      <span id="meter-label">Microphone</span>
      <LevelMeter labelledBy="meter-label" testId="audio-meter" read={read} label="Microphone" />
      {!hasAudio && <span className="muted">no audio track</span>}
    </div>
  )
}
