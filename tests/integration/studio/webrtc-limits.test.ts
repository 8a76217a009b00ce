// WebRTC offers that never connect cost the studio little and hold nothing for long: a WHIP offer
// starts its relay ffmpeg only once ICE and DTLS are up, a WHEP offer holds none of a stream's viewer
// slots, and both are dropped after a short window. The offers are real SDP from werift peers closed
// at once (they never answer the studio's ICE checks); the relay ffmpegs are counted in /proc.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CONNECT_TIMEOUT_MS,
  MAX_PENDING_VIEWERS,
  MAX_VIEWERS
} from '../../../src/studio/webrtc/hub'
import { processesWith } from '../../helpers/proc'
import {
  api,
  startTestStudio,
  studioCalls,
  waitFor,
  type StudioStream,
  type TestStudio
} from '../../helpers/studio'
import { closeWhipPublishers, deadOffer, whepPlay, whipPublish } from '../../helpers/whip-client'

let studio: TestStudio
const base = (): string => studio.apiUrl.replace(/\/api$/, '')

beforeAll(async () => {
  studio = await startTestStudio()
})
afterAll(async () => {
  await closeWhipPublishers()
  await studio?.cleanup()
})

/** The relay ffmpegs this process (the studio's) has running: their SDP file names its pid. */
const relays = (): number => processesWith(`onair-whip-${process.pid}-`).length

const post = (id: string, sdp: string): Promise<Response> =>
  fetch(`${base()}/webrtc/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp' },
    body: sdp
  })

const live = (id: string): Promise<boolean> =>
  waitFor(
    async () =>
      (await api<StudioStream>(studio, studio.apiKey, 'GET', `/stream/${id}`)).body.isActive,
    20_000,
    'the stream to be live'
  )

describe('WebRTC offers that never connect', () => {
  it('WHIP: no relay ffmpeg before ICE and DTLS; the offers are dropped after a short window', async () => {
    const offer = await deadOffer(true)
    const streams: StudioStream[] = []
    for (let i = 0; i < 8; i++)
      streams.push(await studioCalls(studio).createStream({ name: `whip ${i}` }))
    const answers = await Promise.all(streams.map((s) => post(s.streamKey, offer)))
    expect(answers.map((r) => r.status)).toEqual(streams.map(() => 201))
    expect(studio.webrtcCounts?.().publishers).toBe(8)

    // Watched until the studio gives them up: not one relay ffmpeg in all that time.
    let most = 0
    const t0 = Date.now()
    await waitFor(
      async () => {
        most = Math.max(most, relays())
        return studio.webrtcCounts?.().publishers === 0
      },
      CONNECT_TIMEOUT_MS + 10_000,
      'the unconnected WHIP offers to be dropped',
      100
    )
    expect(most).toBe(0)
    console.log(`WHIP: 8 unconnected offers dropped ${Date.now() - t0} ms after they were answered`)

    // A key freed by its dropped offer publishes, and then its relay runs.
    const pub = await whipPublish(`${base()}/webrtc/${streams[0]!.streamKey}`)
    await live(streams[0]!.id)
    expect(relays()).toBe(1)
    expect((await pub.stop()).status).toBe(200)
  }, 60_000)

  it(`WHEP: ${MAX_VIEWERS + 10} unconnected offers hold none of the ${MAX_VIEWERS} viewer slots`, async () => {
    const s = await studioCalls(studio).createStream({ name: 'watched' })
    const pub = await whipPublish(`${base()}/webrtc/${s.streamKey}`)
    await live(s.id)

    const offer = await deadOffer(false)
    const answers: number[] = []
    for (let i = 0; i < MAX_VIEWERS + 10; i++)
      answers.push((await post(s.playbackId, offer)).status)
    expect(answers).toEqual(answers.map(() => 201))
    // What they hold is bounded: the newest MAX_PENDING_VIEWERS.
    expect(studio.webrtcCounts?.().viewers).toBeLessThanOrEqual(MAX_PENDING_VIEWERS)

    // A real viewer gets in at once and plays from a keyframe.
    const viewer = await whepPlay(`${base()}/webrtc/${s.playbackId}`)
    await viewer.firstKeyframe
    // The unconnected ones go after the window; the real one stays.
    await waitFor(
      async () => studio.webrtcCounts?.().viewers === 1,
      CONNECT_TIMEOUT_MS + 10_000,
      'the unconnected WHEP offers to be dropped'
    )
    const before = viewer.received.video
    await waitFor(async () => viewer.received.video > before + 30, 10_000, 'video still flowing')
    expect((await viewer.stop()).status).toBe(200)
    expect((await pub.stop()).status).toBe(200)
  }, 60_000)
})
