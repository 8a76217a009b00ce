// `live monitor: glass-to-glass` (part of `npm run bench:ui`): the delay between a frame entering the
// broadcaster and the live monitor showing it. The page paints the wall clock into each frame as a bar
// code (32 black/white blocks of 40×40 px: the time in ms, modulo 2^32), records that canvas with
// MediaRecorder exactly as the app records a camera (H.264 in Matroska, 250 ms chunks) and sends it
// through window.onair (goLive + pushMedia: the real broadcaster, RTMP, the local studio's
// 3-rendition ladder); the app's own live monitor (its Watch button) plays the live HLS; the page then
// reads the bar code off the monitor's <video> and subtracts it from the clock now (paintClock and
// readClock below: the bar code's one definition, also used by the uplink bench). One clock, one
// page: nothing is estimated. Medians over about 20 s of playback.
import type { Page } from 'playwright-core'
import type { OutputSettings } from '../../src/shared/contract'
import { DEFAULT_OUTPUT, WHIP_GATHER_CAP_MS } from '../../src/shared/output'
import { RECOMMENDED_PROFILES } from '../../src/shared/profiles'
import { CLOCK_IN_PAGE, type PageClock } from '../../tests/helpers/bar-clock'
import { median, percentile, type BenchRow } from './types'

// The bar code's one definition is tests/helpers/bar-clock.ts (the uplink harness paints it too).
export { CLOCK_IN_PAGE, clockDelayMs, paintClock, readClock } from '../../tests/helpers/bar-clock'

const SAMPLE_SECONDS = 20

// The few DOM shapes the page-side functions use (this file compiles without the DOM library; the
// functions run in the page).
interface Ctx2d {
  fillStyle: string
  fillRect(x: number, y: number, w: number, h: number): void
  drawImage(v: unknown, x: number, y: number): void
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray }
}
interface Canvas {
  width: number
  height: number
  getContext(kind: '2d', o?: unknown): Ctx2d | null
  captureStream(fps: number): unknown
}
interface Video {
  readyState: number
  videoWidth: number
  videoHeight: number
}
interface Recorder {
  ondataavailable: (e: { data: { arrayBuffer(): Promise<ArrayBuffer> } }) => void
  start(sliceMs: number): void
  stop(): void
}

/** Runs in the page: starts the bar-code source and goes live on streamId; resolves with the runId. */
async function startBarcodeBroadcast([streamId, output]: [
  string,
  OutputSettings
]): Promise<string> {
  type Onair = {
    goLive(
      a: unknown
    ): Promise<{ ok: boolean; value: { runId: string }; error?: { message: string } }>
    pushMedia(runId: string, chunk: Uint8Array): Promise<{ ok: boolean }>
  }
  const g = globalThis as unknown as {
    document: { createElement(t: string): Canvas }
    onair: Onair
    MediaRecorder: new (stream: unknown, o: Record<string, unknown>) => Recorder
    __glass?: { stop(): void }
    __clock: PageClock
  }
  const W = 1280
  const H = 720
  const canvas = g.document.createElement('canvas')
  canvas.width = W
  canvas.height = H
  const ctx = canvas.getContext('2d')!
  const paint = (): void => {
    ctx.fillStyle = '#406080'
    ctx.fillRect(0, 0, W, H)
    g.__clock.paint(ctx, Date.now())
  }
  paint()
  const timer = setInterval(paint, 1000 / 30)
  const stream = canvas.captureStream(30)
  const mimeType = 'video/x-matroska;codecs=avc1'
  const r = await g.onair.goLive({
    streamId,
    source: { kind: 'media', mimeType },
    output
  })
  if (!r.ok) throw new Error(r.error?.message ?? 'goLive failed')
  const runId = r.value.runId
  const rec = new g.MediaRecorder(stream, {
    mimeType,
    videoBitsPerSecond: 2_500_000,
    videoKeyFrameIntervalDuration: 2000
  })
  let chain = Promise.resolve()
  rec.ondataavailable = (e) => {
    chain = chain.then(async () => {
      await g.onair.pushMedia(runId, new Uint8Array(await e.data.arrayBuffer()))
    })
  }
  rec.start(250)
  g.__glass = {
    stop: () => {
      clearInterval(timer)
      rec.stop()
    }
  }
  return runId
}

/** Runs in the page: reads the bar code off the monitor's video; ms behind the clock, or null. */
export function readDelay(): number | null {
  const g = globalThis as unknown as {
    document: {
      querySelector(s: string): Video | null
      createElement(t: string): Canvas
    }
    __clock: PageClock
  }
  const v = g.document.querySelector('[data-testid=player-video]')
  if (!v || v.readyState < 2 || v.videoWidth === 0) return null
  const c = g.document.createElement('canvas')
  c.width = v.videoWidth
  c.height = v.videoHeight
  const ctx = c.getContext('2d', { willReadFrequently: true })!
  ctx.drawImage(v, 0, 0)
  const now = Date.now()
  const t = g.__clock.read((x, y) => {
    const px = ctx.getImageData(x, y, 1, 1).data
    return 0.299 * px[0]! + 0.587 * px[1]! + 0.114 * px[2]!
  }, v.videoWidth / 1280)
  return g.__clock.delayMs(t, now)
}

export async function glassToGlassRows(page: Page, streamId: string): Promise<BenchRow[]> {
  await page.evaluate(CLOCK_IN_PAGE)
  await page.evaluate(startBarcodeBroadcast, [streamId, DEFAULT_OUTPUT] as [string, OutputSettings])
  await page.getByTestId('live-banner').and(page.locator('[data-state=live]')).waitFor({
    timeout: 90_000
  })
  await watchLive(page)
  const { measured: samples, shown } = await sampleMonitor(page)
  await page.evaluate(() => (globalThis as unknown as { __glass: { stop(): void } }).__glass.stop())
  await page.getByTestId('live-monitor').getByRole('button', { name: 'Close' }).click()
  await page.getByTestId('stop-live').click()
  await page.getByTestId('live-banner').and(page.locator('[data-state=ended]')).waitFor({
    timeout: 60_000
  })
  const g2g = median(samples)
  const said = median(shown)
  return [
    {
      name: 'live monitor: glass-to-glass',
      value: Math.round(g2g * 100) / 100,
      unit: 's',
      reference: { name: 'Livepeer Studio documented HLS latency (10-20 s)', value: 15, unit: 's' },
      note:
        `median of ${samples.length} frames read off the monitor over ${SAMPLE_SECONDS} s ` +
        `(p95 ${percentile(samples, 95).toFixed(2)} s); 720p30 canvas through MediaRecorder, the ` +
        `broadcaster, RTMP and the local studio's ${RECOMMENDED_PROFILES.length}-rendition ladder, ` +
        `2 s segments, hls.js live sync 1 s; ` +
        (shown.length
          ? `the monitor itself said ${said.toFixed(1)} s behind (next row); `
          : 'the monitor showed no "s behind" figure while sampled (it needs hls.js playingDate); ') +
        'reference quoted, not measured'
    },
    {
      // What the monitor says (its "N s behind", from the frame's media time and the broadcaster's
      // pushed media clock) against what the bar code read off the same monitor measures.
      name: 'live monitor: shown delay vs measured',
      value: Math.round(said * 100) / 100,
      unit: 's',
      goal: { min: 0.85, max: 1.15, of: 'ratio' },
      reference: {
        name: 'measured glass-to-glass (bar code read off the monitor)',
        value: Math.round(g2g * 100) / 100,
        unit: 's'
      },
      note:
        `ratio ${(said / g2g).toFixed(2)} (goal 0.85-1.15); median of ${shown.length} readings of the ` +
        `monitor's "s behind" taken beside the ${samples.length} bar-code frames`
    }
  ]
}

/** Page-side moments of a WHIP start (Date.now() in the page: the same clock as the bench's). */
export interface WhipPageTimes {
  /** The offer is made (setLocalDescription resolved). */
  offer: number
  /** The offer is posted (ICE gathering waited for as the app's publisher does). */
  posted: number
  /** main's whipStart answered (HEAD + POST to the studio). */
  answered: number
  /** The page's peer connection reached 'connected' (ICE + DTLS), or 0 if not yet. */
  connected: number
}

/**
 * Runs in the page: the bar-code canvas sent by WHIP (Low latency (WebRTC)) through main's
 * signalling, as the Go live path does (whip-publisher.ts: its offer is posted once a host candidate
 * is in or gathering is complete, at most GATHER_CAP_MS); resolves when the answer is applied.
 */
export async function startBarcodeWhip([streamId, gatherCapMs, o]: [
  string,
  number,
  WhipSourceOptions?
]): Promise<WhipPageTimes> {
  type Onair = {
    whipStart(a: unknown): Promise<{
      ok: boolean
      value: { runId: string; answer: string }
      error?: { message: string }
    }>
    whipStop(runId: string): Promise<void>
  }
  const g = globalThis as unknown as {
    document: {
      createElement(
        t: string
      ): Canvas & Video & { muted: boolean; srcObject: unknown; play(): Promise<void> }
    }
    navigator: { mediaDevices: { getUserMedia(c: unknown): Promise<unknown> } }
    onair: Onair
    __glass?: { stop(): Promise<void>; times: WhipPageTimes; stats(): Promise<WhipPageStats> }
    __clock: PageClock
  }
  const W = 1280
  const H = 720
  const canvas = g.document.createElement('canvas')
  canvas.width = W
  canvas.height = H
  const ctx = canvas.getContext('2d')!
  // The camera (a fake one with noise: an encoder with real work) under the clock, or a flat colour.
  let camera: (Video & { srcObject: unknown }) | undefined
  if (o?.camera) {
    const v = g.document.createElement('video')
    v.muted = true
    v.srcObject = await g.navigator.mediaDevices.getUserMedia({
      video: { width: W, height: H, frameRate: 30 },
      audio: false
    })
    await v.play()
    camera = v
  }
  const paint = (): void => {
    if (camera) ctx.drawImage(camera, 0, 0)
    else {
      ctx.fillStyle = '#406080'
      ctx.fillRect(0, 0, W, H)
    }
    g.__clock.paint(ctx, Date.now())
  }
  paint()
  const timer = setInterval(paint, 1000 / 30)
  type Codec = { mimeType: string; sdpFmtpLine?: string }
  type Params = { encodings: Record<string, unknown>[]; degradationPreference?: string }
  type Pc = {
    addTransceiver(
      t: unknown,
      o: { direction: string }
    ): {
      setCodecPreferences(c: Codec[]): void
      sender: { getParameters(): Params; setParameters(p: Params): Promise<void> }
    }
    getStats(): Promise<{ forEach(f: (s: Record<string, unknown>) => void): void }>
    setLocalDescription(d?: unknown): Promise<void>
    createOffer(): Promise<unknown>
    setRemoteDescription(d: { type: string; sdp: string }): Promise<void>
    localDescription: { sdp: string } | null
    iceGatheringState: string
    connectionState: string
    addEventListener(e: string, f: (ev: { candidate?: { type?: string } | null }) => void): void
    close(): void
  }
  const w = globalThis as unknown as {
    RTCPeerConnection: new (c?: unknown) => Pc
    RTCRtpSender: { getCapabilities(k: string): { codecs: Codec[] } | null }
  }
  const stream = canvas.captureStream(30) as unknown as { getVideoTracks(): unknown[] }
  const pc = new w.RTCPeerConnection({ bundlePolicy: 'max-bundle' })
  const times: WhipPageTimes = { offer: 0, posted: 0, answered: 0, connected: 0 }
  pc.addEventListener('connectionstatechange', () => {
    if (pc.connectionState === 'connected' && !times.connected) times.connected = Date.now()
  })
  const t = pc.addTransceiver(stream.getVideoTracks()[0]!, { direction: 'sendonly' })
  let micTracks: { stop(): void }[] = []
  if (o?.mic) {
    const m = (await g.navigator.mediaDevices.getUserMedia({ audio: true })) as {
      getAudioTracks(): { stop(): void }[]
    }
    micTracks = m.getAudioTracks()
    pc.addTransceiver(micTracks[0]!, { direction: 'sendonly' })
  }
  const h264 = (w.RTCRtpSender.getCapabilities('video')?.codecs ?? []).filter(
    (c) => /h264/i.test(c.mimeType) && /packetization-mode=1/.test(c.sdpFmtpLine ?? '')
  )
  t.setCodecPreferences(h264)
  if (o?.maxKbps) {
    // As whip-publisher.ts: the output's bitrate as the ceiling, frame rate kept under pressure.
    const params = t.sender.getParameters()
    params.encodings = [{ maxBitrate: o.maxKbps * 1000, maxFramerate: 30 }]
    params.degradationPreference = 'maintain-framerate'
    await t.sender.setParameters(params).catch(() => undefined)
  }
  // As whip-publisher.ts's hostCandidateOrComplete(): listen before the offer is set.
  const ready = new Promise<void>((resolve) => {
    const done = setTimeout(resolve, gatherCapMs)
    pc.addEventListener('icecandidate', (ev) => {
      if (ev.candidate === null || ev.candidate?.type === 'host') {
        clearTimeout(done)
        resolve()
      }
    })
  })
  await pc.setLocalDescription(await pc.createOffer())
  times.offer = Date.now()
  await ready
  times.posted = Date.now()
  const r = await g.onair.whipStart({ streamId, offer: pc.localDescription!.sdp })
  if (!r.ok) throw new Error(r.error?.message ?? 'whipStart failed')
  times.answered = Date.now()
  await pc.setRemoteDescription({ type: 'answer', sdp: r.value.answer })
  g.__glass = {
    times,
    stop: async () => {
      clearInterval(timer)
      micTracks.forEach((m) => m.stop())
      await g.onair.whipStop(r.value.runId)
      pc.close()
    },
    // What the page's congestion control says (the health strip reads the same: readStats).
    stats: async () => {
      const out: WhipPageStats = { bytesSent: 0, at: 0, limitation: '', fps: 0 }
      ;(await pc.getStats()).forEach((st) => {
        if (st.type === 'outbound-rtp' && st.kind === 'video') {
          out.bytesSent = Number(st.bytesSent ?? 0)
          out.at = Number(st.timestamp ?? 0)
          out.limitation = String(st.qualityLimitationReason ?? '')
          out.fps = Number(st.framesPerSecond ?? 0)
          out.height = Number(st.frameHeight ?? 0)
        }
        if (
          st.type === 'candidate-pair' &&
          st.nominated &&
          st.availableOutgoingBitrate !== undefined
        )
          out.availableKbps = Number(st.availableOutgoingBitrate) / 1000
      })
      return out
    }
  }
  return times
}

/** The WHIP page's source: the fake camera under the clock, and the output's bitrate ceiling. */
export interface WhipSourceOptions {
  camera?: boolean
  maxKbps?: number
  /** The fake microphone too (Opus), as a creator with a mic goes live. */
  mic?: boolean
}

/** The page's outbound video as its stats say (for the uplink bench). */
export interface WhipPageStats {
  bytesSent: number
  at: number
  limitation: string
  fps: number
  height?: number
  availableKbps?: number
}

/** Opens the live monitor from the stream's page (a WHIP run lives in the page, not in main's live
 * bar) and waits until it plays by WebRTC (WHEP) for 2 s. */
export async function openWebRtcMonitor(page: Page, streamName: string): Promise<void> {
  // The monitor from the stream page (the run lives in the page, not in main's live bar).
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: 'Streams', exact: true })
    .click()
  await page.getByRole('button', { name: streamName, exact: true }).click()
  await page.getByTestId('stream-watch').click()
  await page.getByTestId('live-monitor').waitFor()
  await page
    .locator('[data-testid=monitor-transport][data-transport=webrtc]')
    .waitFor({ timeout: 30_000 })
  await page.waitForFunction(
    () =>
      ((
        globalThis as unknown as {
          document: { querySelector(s: string): { currentTime: number } | null }
        }
      ).document.querySelector('[data-testid=player-video]')?.currentTime ?? 0) > 2,
    undefined,
    { timeout: 60_000 }
  )
}

/** Go-live runs for the WebRTC row (the last one stays live for the monitor). */
export const GO_LIVE_RUNS = 5

export interface WebRtcBenchDeps {
  /** A new stream of the bench's ladder (one per go-live: a run never meets the previous one's end). */
  createStream(name: string): Promise<{ id: string; name: string }>
  /** The stream as the service reports it. */
  isActive(streamId: string): Promise<boolean>
  /** The app log's lines so far (the studio's "start stages" line of each WHIP session is read). */
  logLines(): readonly string[]
}

/**
 * The studio's side of a WHIP start from the app log's lines: its start stages (hub.ts's StageTrace
 * line: ms after the offer came in, and when that was) and the moment its ingest took the publish
 * (live.ts's "started session" line, stamped by the studio), as epoch ms. Empty when not logged yet.
 */
export function studioStages(lines: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {}
  const line = lines.find((l) => l.includes('start stages (ms after the offer at '))
  const m = /offer at (\d+)\): (.*)$/.exec(line ?? '')
  if (m) {
    const t0 = Number(m[1])
    for (const s of m[2]!.matchAll(/([a-z-]+) (\d+)/g)) out[s[1]!] = t0 + Number(s[2])
    out.offer = t0
  }
  const pub = lines.find((l) => / live: stream \S+ started session /.test(l))
  const iso = /(\d{4}-\d\d-\d\dT[\d:.]+Z) live: stream/.exec(pub ?? '')
  if (iso) out.publish = Date.parse(iso[1]!)
  return out
}

interface GoLive {
  total: number
  /** Stage -> ms from the call (page side) or from the offer's arrival (studio side, "studio "). */
  stages: Record<string, number>
}

/** One go live by WHIP: from the call until the service reports the stream active. */
async function goLiveOnce(
  page: Page,
  streamId: string,
  d: WebRtcBenchDeps,
  mic: boolean
): Promise<GoLive> {
  const from = d.logLines().length
  const t0 = Date.now()
  const times = await page.evaluate(startBarcodeWhip, [streamId, WHIP_GATHER_CAP_MS, { mic }] as [
    string,
    number,
    WhipSourceOptions
  ])
  while (!(await d.isActive(streamId))) {
    if (Date.now() - t0 > 30_000) throw new Error('the WHIP run never reached the studio')
    await page.waitForTimeout(20)
  }
  const total = Date.now() - t0
  const connected = await page.evaluate(
    () => (globalThis as unknown as { __glass: { times: WhipPageTimes } }).__glass.times.connected
  )
  const stages: Record<string, number> = {
    offer: times.offer - t0,
    posted: times.posted - t0,
    answered: times.answered - t0,
    ...(connected ? { connected: connected - t0 } : {})
  }
  // The studio's line comes once its relay reports progress (every 0.5 s): wait for it a moment.
  const until = Date.now() + 3000
  let studio: Record<string, number> = {}
  while (Date.now() < until) {
    studio = studioStages(d.logLines().slice(from))
    if (studio.offer !== undefined && studio.publish !== undefined) break
    await page.waitForTimeout(50)
  }
  for (const [k, v] of Object.entries(studio)) stages[`studio ${k}`] = v - t0
  return { total, stages }
}

const stopWhip = (page: Page): Promise<void> =>
  page.evaluate(() =>
    (globalThis as unknown as { __glass: { stop(): Promise<void> } }).__glass.stop()
  )

/** "0.72, 0.71, ..." each run's total in s. */
const seconds = (runs: readonly GoLive[]): string =>
  runs.map((r) => (r.total / 1000).toFixed(2)).join(', ')

/** "offer 40, posted 60, ..." medians of each stage over the runs, in ms. */
function stageMedians(runs: readonly GoLive[]): string {
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.stages)))]
  return keys
    .map((k) => {
      const v = runs.map((r) => r.stages[k]).filter((x): x is number => x !== undefined)
      return `${k} ${Math.round(median(v))}`
    })
    .join(', ')
}

/**
 * The WebRTC rows: go live by WHIP GO_LIVE_RUNS times (the call until the studio's ingest has the
 * run: its relay took the first keyframe and published it; each on a new stream, the previous run
 * stopped by DELETE and idle first), then the live monitor by WHEP on the last run, glass to glass
 * with the same bar code as the HLS row.
 */
export async function webrtcGlassRows(
  page: Page,
  streamName: string,
  d: WebRtcBenchDeps
): Promise<BenchRow[]> {
  await page.evaluate(CLOCK_IN_PAGE)
  // Runs with and without the microphone take turns (the first, cold one is pictures only); the
  // last one, with sound as a creator goes live, stays live for the monitor.
  const runs: GoLive[] = []
  const silent: GoLive[] = []
  for (let i = 0; i < 2 * GO_LIVE_RUNS; i++) {
    const last = i === 2 * GO_LIVE_RUNS - 1
    const mic = i % 2 === 1
    const s = await d.createStream(last ? streamName : `${streamName} (go live ${i + 1})`)
    const r = await goLiveOnce(page, s.id, d, mic)
    ;(mic ? runs : silent).push(r)
    console.error(
      `webrtc go live ${i + 1} (${mic ? 'with sound' : 'pictures only'}): ${(r.total / 1000).toFixed(2)} s; ` +
        Object.entries(r.stages)
          .sort((a, b) => a[1] - b[1])
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')
    )
    if (last) break
    await stopWhip(page)
    const idleBy = Date.now() + 30_000
    while (await d.isActive(s.id)) {
      if (Date.now() > idleBy) throw new Error('a stopped WHIP run stayed active')
      await page.waitForTimeout(100)
    }
  }
  const firstFrameS = median(runs.map((r) => r.total)) / 1000
  await openWebRtcMonitor(page, streamName)
  const samples: number[] = []
  const until = Date.now() + SAMPLE_SECONDS * 1000
  while (Date.now() < until) {
    const d = await page.evaluate(readDelay)
    if (d !== null) samples.push(d / 1000)
    await page.waitForTimeout(250)
  }
  await page.getByTestId('live-monitor').getByRole('button', { name: 'Close' }).click()
  await stopWhip(page)
  const g2g = median(samples)
  return [
    {
      name: 'live monitor (WebRTC): glass-to-glass',
      value: Math.round(g2g * 100) / 100,
      unit: 's',
      goal: { max: 0.5 },
      note:
        `median of ${samples.length} frames read off the monitor over ${SAMPLE_SECONDS} s ` +
        `(p95 ${percentile(samples, 95).toFixed(2)} s); 720p30 canvas sent by WHIP from the page ` +
        `(Chromium's H.264), the studio's werift peer, WHEP to the monitor; same bar code as the HLS row`
    },
    {
      name: 'go live (WebRTC): call -> first frame at the studio',
      value: Math.round(firstFrameS * 100) / 100,
      unit: 's',
      goal: { max: 1 },
      note:
        `median of ${runs.length} go-lives with camera and microphone (${seconds(runs)} s), ` +
        'from the page starting its offer until the studio reports the stream active (its relay ' +
        "ffmpeg took the first keyframe and published it to the studio's RTMP ingest); median " +
        `stages in ms from the call: ${stageMedians(runs)}. Pictures only, in turn with those: ` +
        `${(median(silent.map((r) => r.total)) / 1000).toFixed(2)} s (${seconds(silent)} s, the ` +
        `first one cold), stages ${stageMedians(silent)}`
    }
  ]
}

// ---- the app's own paths: the camera, the test pattern, a scene ------------------------------------
// The bar-code canvas above is the bench's own sender (MediaRecorder through pushMedia). A creator
// goes live through the Go live screen instead: the camera (WebCodecs, with sound), the test pattern
// (main's ffmpeg makes and encodes it) or a scene (the compositor's canvas). Each carries the same bar
// code here, painted where its pictures are made, so each path's "s behind" is checked against what
// the same monitor measures.

/** The app's sources the monitor rows cover. */
export type AppPath = 'camera' | 'test pattern' | 'scene'

/**
 * The bar code as ffmpeg filters over the test pattern (BroadcastTuning.testPatternOverlay), painted
 * as each frame is made: the wall clock (ffmpeg's time(0)) in ms, modulo 2^32, most significant bit
 * first, in 32 blocks along the top, each 1/32 of the width square: paintClock's layout at any size.
 */
export function testPatternClock(): string {
  const t = 'mod(floor(time(0)*1000)\\,4294967296)'
  const boxes = ['drawbox=x=0:y=0:w=iw:h=iw/32:color=black:t=fill']
  for (let bit = 0; bit < 32; bit++)
    boxes.push(
      `drawbox=x=${bit}*iw/32:y=0:w=iw/32:h=iw/32:color=white:t=fill:` +
        `enable='mod(floor(${t}/${2 ** (31 - bit)})\\,2)'`
    )
  return boxes.join(',')
}

/**
 * Runs in the page before the app (addInitScript, after CLOCK_IN_PAGE): the camera the app opens is
 * Chromium's fake camera with the bar code painted into each of its frames as it comes, keeping the
 * frame's own timestamp (the camera's clock) and the track's settings, so the app's camera path (and
 * a scene's camera) runs as with the bare camera.
 */
export function paintCameraClock(): void {
  type Frame = {
    displayWidth: number
    displayHeight: number
    timestamp: number
    duration: number | null
    close(): void
  }
  type Track = { kind: string; stop(): void; getSettings(): Record<string, unknown> }
  const g = globalThis as unknown as {
    navigator: {
      mediaDevices?: { getUserMedia(c: unknown): Promise<unknown> }
    }
    MediaStreamTrackProcessor: new (o: { track: Track }) => { readable: ReadableStream<Frame> }
    MediaStreamTrackGenerator: new (o: { kind: string }) => Track & {
      writable: WritableStream<unknown>
    }
    OffscreenCanvas: new (w: number, h: number) => { getContext(k: '2d'): Ctx2d | null }
    VideoFrame: new (src: unknown, o: { timestamp: number; duration?: number }) => unknown
    MediaStream: new (tracks: Track[]) => unknown
    __clock: PageClock
  }
  const md = g.navigator.mediaDevices
  if (!md) return
  const open = md.getUserMedia.bind(md)
  md.getUserMedia = async (c: unknown) => {
    const s = await open(c)
    const tracks = (s as { getTracks(): Track[] }).getTracks()
    const video = tracks.find((t) => t.kind === 'video')
    if (!video) return s
    const gen = new g.MediaStreamTrackGenerator({ kind: 'video' })
    gen.getSettings = () => video.getSettings()
    let canvas: { getContext(k: '2d'): Ctx2d | null } | undefined
    let ctx: Ctx2d | null = null
    let size = ''
    void new g.MediaStreamTrackProcessor({ track: video }).readable
      .pipeThrough(
        new TransformStream<Frame, unknown>({
          transform(frame, out) {
            const w = frame.displayWidth
            const h = frame.displayHeight
            if (`${w}x${h}` !== size) {
              size = `${w}x${h}`
              canvas = new g.OffscreenCanvas(w, h)
              ctx = canvas.getContext('2d')
            }
            ctx!.drawImage(frame, 0, 0)
            g.__clock.paint(ctx!, Date.now())
            const painted = new g.VideoFrame(canvas, {
              timestamp: frame.timestamp,
              ...(frame.duration ? { duration: frame.duration } : {})
            })
            frame.close()
            out.enqueue(painted)
          }
        })
      )
      .pipeTo(gen.writable)
      .catch(() => video.stop())
    return new g.MediaStream([gen, ...tracks.filter((t) => t !== video)])
  }
}

/** Opens the live monitor from the live bar and waits until it has played 2 s. */
async function watchLive(page: Page): Promise<void> {
  await page.getByTestId('watch-live').click()
  await page.getByTestId('live-monitor').waitFor()
  await page.waitForFunction(
    () =>
      ((
        globalThis as unknown as {
          document: { querySelector(s: string): { currentTime: number } | null }
        }
      ).document.querySelector('[data-testid=player-video]')?.currentTime ?? 0) > 2,
    undefined,
    { timeout: 90_000 }
  )
}

/** Bar-code delays (s) read off the monitor, and its own "s behind" beside them, for SAMPLE_SECONDS. */
async function sampleMonitor(page: Page): Promise<{ measured: number[]; shown: number[] }> {
  const measured: number[] = []
  const shown: number[] = []
  const until = Date.now() + SAMPLE_SECONDS * 1000
  while (Date.now() < until) {
    const d = await page.evaluate(readDelay)
    if (d !== null) measured.push(d / 1000)
    const said = Number(await page.getByTestId('live-latency').getAttribute('data-seconds'))
    if (said > 0) shown.push(said)
    await page.waitForTimeout(250)
  }
  return { measured, shown }
}

/**
 * One path through the Go live screen of the stream `streamName` (page opened with CLOCK_IN_PAGE and
 * paintCameraClock as init scripts; the core's test pattern drawn with testPatternClock): live, the
 * live bar's Watch, SAMPLE_SECONDS of readings, stop. The row: the monitor's "s behind" over the
 * delay its bar code measures.
 */
export async function appPathMonitorRow(
  page: Page,
  path: AppPath,
  streamName: string
): Promise<BenchRow> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: 'Streams', exact: true })
    .click()
  await page.getByRole('button', { name: streamName, exact: true }).click()
  await page.getByTestId('stream-go-live').click()
  const source = { camera: 'camera', 'test pattern': 'test-pattern', scene: 'scene' }[path]
  await page.getByTestId(`source-${source}`).check()
  if (path === 'camera')
    await page.waitForFunction(
      () =>
        ((
          globalThis as unknown as {
            document: { querySelector(s: string): { videoWidth?: number } | null }
          }
        ).document.querySelector('[data-testid=preview]')?.videoWidth ?? 0) > 0,
      undefined,
      { timeout: 30_000 }
    )
  if (path === 'scene') {
    await page.getByTestId('scene-canvas').waitFor()
    // The camera scene: the camera (and its bar code) fills the picture.
    await page
      .getByTestId('scene-tabs')
      .getByRole('button', { name: 'Camera', exact: true })
      .click()
    await page.locator('[data-testid=compose-stats][data-camera-distinct]').waitFor()
  }
  await page.getByTestId('go-live').click()
  await page
    .getByTestId('live-banner')
    .and(page.locator('[data-state=live]'))
    .waitFor({ timeout: 90_000 })
  await watchLive(page)
  const { measured, shown } = await sampleMonitor(page)
  await page.getByTestId('live-monitor').getByRole('button', { name: 'Close' }).click()
  await page.getByTestId('stop-live').click()
  await page
    .getByTestId('live-banner')
    .and(page.locator('[data-state=ended]'))
    .waitFor({ timeout: 60_000 })
  const dismiss = page.getByRole('button', { name: 'Dismiss' })
  if (await dismiss.isVisible()) await dismiss.click()
  const real = median(measured)
  const said = median(shown)
  const how = {
    camera:
      "Chromium's fake camera (20 fps) with the bar code painted into each frame, and the fake microphone, through the page's encoder",
    'test pattern':
      "main's ffmpeg test pattern (x264) with the bar code drawn as each frame is made",
    scene:
      'the Camera scene (the painted camera full-frame, the microphone) through the compositor and the page encoder'
  }[path]
  return {
    name: `live monitor: shown delay vs measured (${path})`,
    value: Math.round(said * 100) / 100,
    unit: 's',
    goal: { min: 0.85, max: 1.15, of: 'ratio' },
    reference: {
      name: 'measured glass-to-glass (bar code read off the monitor)',
      value: Math.round(real * 100) / 100,
      unit: 's'
    },
    note:
      `ratio ${(said / real).toFixed(2)} (goal 0.85-1.15); ${how}; Go live screen with its defaults, ` +
      `the recommended ladder, the live bar's Watch; median of ${shown.length} readings of the ` +
      `monitor's "s behind" beside ${measured.length} bar-code frames over ${SAMPLE_SECONDS} s ` +
      `(measured p95 ${percentile(measured, 95).toFixed(2)} s)`
  }
}
