// The screen and window chooser's broker and its pure helpers (src/main/core/display-chooser.ts): every
// rule of a question (answer, refusal, replacement, time-out, window closed), what the renderer is shown of
// desktopCapturer's list, and what Electron's callback is given on each platform.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  CHOOSE_TIMEOUT_MS,
  DisplayChooser,
  answerDisplayMedia,
  displayStreams,
  isOwnWindow,
  sourceKind,
  toSourceViews,
  type CapturedSource,
  type ImageLike
} from '../../../src/main/core/display-chooser'
import { dispatch } from '../../../src/main/core/dispatch'
import type {
  DisplayChooseEvent,
  DisplaySourceView,
  OnairCalls
} from '../../../src/shared/contract'
import { AppFailure } from '../../../src/shared/result'

const view = (id: string, name = id): DisplaySourceView => ({
  id,
  name,
  kind: id.startsWith('screen:') ? 'screen' : 'window',
  thumbnail: 'data:image/png;base64,AAAA'
})
const SOURCES = [view('screen:0:0', 'Entire Screen'), view('window:42:0', 'Slides')]

/** A promise's outcome so far, without awaiting it. */
function track<T>(p: Promise<T>): { settled: boolean; value?: T } {
  const t: { settled: boolean; value?: T } = { settled: false }
  void p.then((v) => Object.assign(t, { settled: true, value: v }))
  return t
}

/** Lets promise callbacks run (no timers involved). */
const flush = () => new Promise<void>((r) => queueMicrotask(r)).then(() => undefined)

function setup() {
  const asked: DisplayChooseEvent[] = []
  const chooser = new DisplayChooser({ emit: (e) => asked.push(e), now: () => 1_000 })
  return { chooser, asked }
}

const failureOf = (fn: () => void): AppFailure => {
  try {
    fn()
  } catch (e) {
    if (e instanceof AppFailure) return e
    throw e
  }
  throw new Error('expected an AppFailure')
}

describe('DisplayChooser', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it('asks the renderer with the sources and resolves with the id it answers', async () => {
    const { chooser, asked } = setup()
    const answer = chooser.choose(SOURCES)
    expect(asked).toHaveLength(1)
    expect(asked[0]).toEqual({
      requestId: expect.any(String),
      sources: SOURCES,
      expiresAt: 1_000 + CHOOSE_TIMEOUT_MS
    })
    chooser.answer(asked[0]!.requestId, 'window:42:0')
    await expect(answer).resolves.toBe('window:42:0')
  })

  it('resolves null when the creator cancels', async () => {
    const { chooser, asked } = setup()
    const answer = chooser.choose(SOURCES)
    chooser.answer(asked[0]!.requestId, null)
    await expect(answer).resolves.toBeNull()
  })

  it('refuses an unknown request id and keeps the open question open', async () => {
    const { chooser, asked } = setup()
    const answer = track(chooser.choose(SOURCES))
    const f = failureOf(() => chooser.answer('not-a-request', 'screen:0:0'))
    expect(f.error.code).toBe('not-found')
    expect(f.error.message).toMatch(/no longer open/)
    await flush()
    expect(answer.settled).toBe(false)
    chooser.answer(asked[0]!.requestId, 'screen:0:0')
    await flush()
    expect(answer).toEqual({ settled: true, value: 'screen:0:0' })
  })

  it('refuses a second answer to a question already answered', async () => {
    const { chooser, asked } = setup()
    const answer = chooser.choose(SOURCES)
    chooser.answer(asked[0]!.requestId, 'screen:0:0')
    expect(failureOf(() => chooser.answer(asked[0]!.requestId, null)).error.code).toBe('not-found')
    await expect(answer).resolves.toBe('screen:0:0')
  })

  it('refuses a source that was not offered, and the question stays open', async () => {
    const { chooser, asked } = setup()
    const answer = track(chooser.choose(SOURCES))
    const f = failureOf(() => chooser.answer(asked[0]!.requestId, 'window:999:0'))
    expect(f.error).toMatchObject({ code: 'bad-request', field: 'sourceId' })
    await flush()
    expect(answer.settled).toBe(false)
    chooser.answer(asked[0]!.requestId, 'window:42:0')
    await flush()
    expect(answer.value).toBe('window:42:0')
  })

  it('a new question cancels the one still open', async () => {
    const { chooser, asked } = setup()
    const first = chooser.choose(SOURCES)
    const second = track(chooser.choose([view('screen:1:0')]))
    await expect(first).resolves.toBeNull()
    expect(asked).toHaveLength(2)
    expect(asked[1]!.requestId).not.toBe(asked[0]!.requestId)
    // The old question is closed; its list does not count for the new one either.
    expect(failureOf(() => chooser.answer(asked[0]!.requestId, 'screen:0:0')).error.code).toBe(
      'not-found'
    )
    expect(failureOf(() => chooser.answer(asked[1]!.requestId, 'screen:0:0')).error.code).toBe(
      'bad-request'
    )
    chooser.answer(asked[1]!.requestId, 'screen:1:0')
    await flush()
    expect(second.value).toBe('screen:1:0')
  })

  it('cancels by itself after 2 minutes without an answer', async () => {
    const { chooser, asked } = setup()
    const answer = track(chooser.choose(SOURCES))
    await vi.advanceTimersByTimeAsync(CHOOSE_TIMEOUT_MS - 1)
    expect(answer.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(answer).toEqual({ settled: true, value: null })
    expect(CHOOSE_TIMEOUT_MS).toBe(120_000)
    expect(failureOf(() => chooser.answer(asked[0]!.requestId, 'screen:0:0')).error.code).toBe(
      'not-found'
    )
  })

  it("an answered question's timer does not cancel the next question", async () => {
    const { chooser, asked } = setup()
    void chooser.choose(SOURCES)
    await vi.advanceTimersByTimeAsync(CHOOSE_TIMEOUT_MS / 2)
    chooser.answer(asked[0]!.requestId, null)
    const next = track(chooser.choose(SOURCES))
    // Past the first question's deadline, short of the second's.
    await vi.advanceTimersByTimeAsync(CHOOSE_TIMEOUT_MS / 2 + 10)
    expect(next.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(CHOOSE_TIMEOUT_MS)
    expect(next).toEqual({ settled: true, value: null })
  })

  it('answers null when the window closes, and a cancel with nothing open is harmless', async () => {
    const { chooser, asked } = setup()
    chooser.cancel()
    const answer = chooser.choose(SOURCES)
    chooser.cancel()
    await expect(answer).resolves.toBeNull()
    expect(() => chooser.answer(asked[0]!.requestId, null)).toThrow(AppFailure)
  })
})

describe('what the renderer is shown of desktopCapturer', () => {
  const img = (url: string): ImageLike => ({ isEmpty: () => url === '', toDataURL: () => url })
  const captured = (over: Partial<CapturedSource> & { id: string }): CapturedSource => ({
    name: over.id,
    display_id: '',
    thumbnail: img(`data:image/png;base64,${over.id}`),
    appIcon: null,
    ...over
  })

  it('reads the kind from the id prefix', () => {
    expect(sourceKind('screen:0:0')).toBe('screen')
    expect(sourceKind('window:1324:0')).toBe('window')
    expect(sourceKind('web-contents-media-stream://1:2')).toBeNull()
  })

  it("knows Onair's own window by its native id, whatever the last part", () => {
    expect(isOwnWindow('window:1324:0', 'window:1324:1')).toBe(true)
    expect(isOwnWindow('window:1324:0', 'window:1324:0')).toBe(true)
    expect(isOwnWindow('window:13240:0', 'window:1324:0')).toBe(false)
    expect(isOwnWindow('screen:1324:0', 'window:1324:0')).toBe(false)
    expect(isOwnWindow('window:1324:0', undefined)).toBe(false)
  })

  it("maps screens and windows, leaves out Onair's window and unknown kinds", () => {
    const views = toSourceViews(
      [
        captured({ id: 'screen:0:0', name: 'Entire Screen', display_id: '2528732444' }),
        captured({ id: 'window:77:0', name: 'Onair' }),
        captured({ id: 'window:42:0', name: 'Slides', appIcon: img('data:image/png;base64,ICON') }),
        captured({ id: 'window:43:0', name: 'No icon', appIcon: img('') }),
        captured({ id: 'window:44:0', name: 'No picture', thumbnail: img('') }),
        captured({ id: 'other:1', name: 'Unknown' })
      ],
      'window:77:1'
    )
    expect(views).toEqual([
      {
        id: 'screen:0:0',
        name: 'Entire Screen',
        kind: 'screen',
        thumbnail: 'data:image/png;base64,screen:0:0',
        displayId: '2528732444'
      },
      {
        id: 'window:42:0',
        name: 'Slides',
        kind: 'window',
        thumbnail: 'data:image/png;base64,window:42:0',
        appIcon: 'data:image/png;base64,ICON'
      },
      {
        id: 'window:43:0',
        name: 'No icon',
        kind: 'window',
        thumbnail: 'data:image/png;base64,window:43:0'
      },
      { id: 'window:44:0', name: 'No picture', kind: 'window', thumbnail: '' }
    ])
  })

  it('offers system audio (loopback) on Windows only', () => {
    const s = { id: 'screen:0:0', name: 'Entire Screen' }
    expect(displayStreams(s, 'win32')).toEqual({ video: s, audio: 'loopback' })
    expect(displayStreams(s, 'darwin')).toEqual({ video: s })
    expect(displayStreams(s, 'linux')).toEqual({ video: s })
  })

  it('answers a getDisplayMedia request with the chosen source, or null when cancelled', async () => {
    const { chooser, asked } = setup()
    const getSources = async (): Promise<CapturedSource[]> => [
      captured({ id: 'screen:0:0', name: 'Entire Screen' }),
      captured({ id: 'window:42:0', name: 'Slides' }),
      captured({ id: 'window:77:0', name: 'Onair' })
    ]
    const deps = {
      chooser,
      getSources,
      ownMediaSourceId: 'window:77:0',
      platform: 'win32' as const
    }
    const granted = answerDisplayMedia(deps)
    await vi.waitFor(() => expect(asked).toHaveLength(1))
    expect(asked[0]!.sources.map((s) => s.id)).toEqual(['screen:0:0', 'window:42:0'])
    chooser.answer(asked[0]!.requestId, 'window:42:0')
    await expect(granted).resolves.toEqual({
      video: { id: 'window:42:0', name: 'Slides' },
      audio: 'loopback'
    })

    const cancelled = answerDisplayMedia({ ...deps, platform: 'darwin' })
    await vi.waitFor(() => expect(asked).toHaveLength(2))
    chooser.answer(asked[1]!.requestId, null)
    await expect(cancelled).resolves.toBeNull()
  })
})

describe('chooseDisplaySource through the dispatcher', () => {
  it('validates its arguments and reaches the broker', async () => {
    const { chooser, asked } = setup()
    const core = {
      chooseDisplaySource: async (r: string, s: string | null) => chooser.answer(r, s)
    } as unknown as OnairCalls
    const answer = chooser.choose(SOURCES)
    const requestId = asked[0]!.requestId

    expect(await dispatch(core, 'chooseDisplaySource', [requestId, 7])).toMatchObject({
      ok: false,
      error: { code: 'bad-request' }
    })
    expect(await dispatch(core, 'chooseDisplaySource', [requestId])).toMatchObject({ ok: false })
    expect(await dispatch(core, 'chooseDisplaySource', ['nope', null])).toMatchObject({
      ok: false,
      error: { code: 'not-found' }
    })
    expect(await dispatch(core, 'chooseDisplaySource', [requestId, null])).toEqual({
      ok: true,
      value: undefined
    })
    await expect(answer).resolves.toBeNull()
  })
})
