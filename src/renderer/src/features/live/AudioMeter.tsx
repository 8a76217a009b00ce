import { useEffect, useRef, type ReactNode } from 'react'
import { meterLevel } from '../scenes/mixer'
import { LevelMeter, setLevel } from '../../components/LevelMeter'

/**
 * Microphone level from a Web Audio AnalyserNode. The bar is moved through a ref on each animation
 * frame: re-rendering React 60 times a second for one bar would be wasted work.
 */
export function AudioMeter({ stream }: { stream: MediaStream | null }): ReactNode {
  const bar = useRef<HTMLDivElement>(null)
  const hasAudio = !!stream && stream.getAudioTracks().length > 0

  useEffect(() => {
    if (!stream || stream.getAudioTracks().length === 0) return
    const ctx = new AudioContext()
    const source = ctx.createMediaStreamSource(stream)
    const analyser = ctx.createAnalyser()
    analyser.fftSize = 1024
    source.connect(analyser)
    void ctx.resume()
    const samples = new Float32Array(analyser.fftSize)
    let frame = 0
    const tick = (): void => {
      analyser.getFloatTimeDomainData(samples)
      let sum = 0
      for (const s of samples) sum += s * s
      const level = meterLevel(Math.sqrt(sum / samples.length))
      setLevel(bar.current, level)
      if (bar.current) bar.current.dataset.hot = level > 0.9 ? 'true' : 'false'
      frame = requestAnimationFrame(tick)
    }
    frame = requestAnimationFrame(tick)
    return () => {
      cancelAnimationFrame(frame)
      source.disconnect()
      void ctx.close()
    }
  }, [stream])

  return (
    <div className="meter-row">
      <span id="meter-label">Microphone</span>
      <LevelMeter labelledBy="meter-label" testId="audio-meter" fillRef={bar} />
      {!hasAudio && <span className="muted">no audio track</span>}
    </div>
  )
}
