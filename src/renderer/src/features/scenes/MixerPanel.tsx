// The audio mixer: a meter, a gain and a mute per source, and the master meter with its clip light.
// Meters move through refs on each animation frame (no React render per frame). Levels and mutes are
// the scene's: a change goes through the program (heard at once) into the scenes, saved with them.
import { useEffect, useReducer, useRef, type ReactNode } from 'react'
import { setChannel } from '../../../../shared/scenes'
import { meterLevel, type ChannelId } from './mixer'
import type { SceneProgram } from './program'
import { LevelMeter, setLevel } from '../../components/LevelMeter'

export function MixerPanel({ program }: { program: SceneProgram }): ReactNode {
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  useEffect(() => program.mix.onChange(rerender), [program])
  const bars = useRef<Partial<Record<ChannelId | 'master', HTMLDivElement | null>>>({})
  const clip = useRef<HTMLSpanElement>(null)

  useEffect(() => {
    let frame = 0
    const tick = (): void => {
      const l = program.mix.levels()
      const set = (id: ChannelId | 'master', v: number): void =>
        setLevel(bars.current[id], meterLevel(v))
      set('mic', l.channels.mic)
      set('screen', l.channels.screen)
      set('master', l.master)
      if (clip.current) clip.current.dataset.on = String(l.clipping)
      frame = requestAnimationFrame(tick)
    }
    frame = requestAnimationFrame(tick)
    return () => cancelAnimationFrame(frame)
  }, [program])

  return (
    <div className="mixer" role="group" aria-label="Audio mix" data-testid="mixer">
      {program.mix.states().map((ch) => (
        <div className="mixer-row" key={ch.id} data-testid={`channel-${ch.id}`}>
          <span className="mixer-name" id={`ch-${ch.id}`}>
            {ch.label}
          </span>
          <LevelMeter
            labelledBy={`ch-${ch.id}`}
            testId={`meter-${ch.id}`}
            fillRef={(el) => void (bars.current[ch.id] = el)}
          />
          <input
            type="range"
            min={0}
            max={200}
            step={1}
            value={Math.round(ch.gain * 100)}
            aria-label={`${ch.label} volume`}
            aria-valuetext={`${Math.round(ch.gain * 100)} percent`}
            data-testid={`gain-${ch.id}`}
            onChange={(e) =>
              program.edit((s) => setChannel(s, ch.id, { gain: Number(e.target.value) / 100 }))
            }
          />
          <button
            type="button"
            className={ch.muted ? 'danger mute' : 'secondary mute'}
            aria-pressed={ch.muted}
            data-testid={`mute-${ch.id}`}
            onClick={() => program.edit((s) => setChannel(s, ch.id, { muted: !ch.muted }))}
          >
            {ch.muted ? 'Muted' : 'Mute'}
          </button>
          {!ch.present && <span className="muted small">not connected</span>}
        </div>
      ))}
      <div className="mixer-row master">
        <span className="mixer-name" id="ch-master">
          Master
        </span>
        <LevelMeter
          labelledBy="ch-master"
          testId="meter-master"
          fillRef={(el) => void (bars.current.master = el)}
        />
        <span className="clip" ref={clip} data-on="false" data-testid="clip" title="Clipping">
          CLIP
        </span>
      </div>
    </div>
  )
}
