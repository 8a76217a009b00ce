// Markers (#20): moments the creator marks while live, kept by Onair (no Livepeer API has them) in
// markers.json in the app data folder, per connection and stream. A session's markers are those of
// its stream between its first and last media: the player places them by the recording's wall-clock
// times. Written atomically (tmp file + rename); a file that cannot be read is set aside, not lost.
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { MarkerView } from '../../shared/contract'
import { MARKER_LABEL_MAX } from '../../shared/markers'
import { AppFailure } from '../../shared/result'

interface Stored extends MarkerView {
  connectionId: string
}

/** A stream's markers are kept to this many (the oldest go first): a bound, not a limit anyone meets. */
export const MARKERS_PER_STREAM = 2000

export class Markers {
  private readonly file: string
  private list: Stored[] | undefined

  constructor(
    appDataDir: string,
    private readonly now: () => number = Date.now
  ) {
    this.file = join(appDataDir, 'markers.json')
  }

  add(connectionId: string, streamId: string, at?: number, label?: string): MarkerView {
    const list = this.load()
    const m: Stored = {
      id: randomUUID(),
      connectionId,
      streamId,
      at: Math.round(at ?? this.now()),
      ...(clean(label) ? { label: clean(label) } : {})
    }
    list.push(m)
    const mine = list.filter((x) => x.connectionId === connectionId && x.streamId === streamId)
    if (mine.length > MARKERS_PER_STREAM) {
      const oldest = new Set(
        mine.sort((a, b) => a.at - b.at).slice(0, mine.length - MARKERS_PER_STREAM)
      )
      this.list = list.filter((x) => !oldest.has(x))
    }
    this.save()
    return view(m)
  }

  forStream(connectionId: string, streamId: string, from?: number, to?: number): MarkerView[] {
    return this.load()
      .filter(
        (m) =>
          m.connectionId === connectionId &&
          m.streamId === streamId &&
          (from === undefined || m.at >= from) &&
          (to === undefined || m.at <= to)
      )
      .sort((a, b) => a.at - b.at)
      .map(view)
  }

  label(connectionId: string, id: string, label: string): MarkerView {
    const m = this.find(connectionId, id)
    const word = clean(label)
    if (word) m.label = word
    else delete m.label
    this.save()
    return view(m)
  }

  remove(connectionId: string, id: string): void {
    this.find(connectionId, id)
    this.list = this.load().filter((m) => m.id !== id)
    this.save()
  }

  private find(connectionId: string, id: string): Stored {
    const m = this.load().find((x) => x.id === id && x.connectionId === connectionId)
    if (!m)
      throw new AppFailure({ code: 'not-found', message: 'That marker is not there any more.' })
    return m
  }

  private load(): Stored[] {
    if (this.list) return this.list
    this.list = []
    if (!existsSync(this.file)) return this.list
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as { markers?: unknown }
      if (!Array.isArray(parsed.markers)) throw new Error('no markers list')
      this.list = parsed.markers.filter(isStored)
    } catch {
      // Set aside, never overwritten: the creator's markers may still be read out of it by hand.
      renameSync(this.file, `${this.file}.unreadable-${this.now()}`)
    }
    return this.list
  }

  private save(): void {
    const tmp = `${this.file}.tmp`
    writeFileSync(tmp, JSON.stringify({ version: 1, markers: this.list ?? [] }))
    renameSync(tmp, this.file)
  }
}

const clean = (label: string | undefined): string =>
  (label ?? '').replace(/\s+/g, ' ').trim().slice(0, MARKER_LABEL_MAX)

const view = (m: Stored): MarkerView => ({
  id: m.id,
  streamId: m.streamId,
  at: m.at,
  ...(m.label ? { label: m.label } : {})
})

function isStored(x: unknown): x is Stored {
  const m = x as Partial<Stored> | null
  return (
    typeof m?.id === 'string' &&
    typeof m.connectionId === 'string' &&
    typeof m.streamId === 'string' &&
    typeof m.at === 'number' &&
    (m.label === undefined || typeof m.label === 'string')
  )
}
