// WHIP in and WHEP out of a real local studio: a werift publisher in Node (a real H.264 + Opus
// encode from ffmpeg) posts its offer to {base}/webrtc/{streamKey}; the studio's relay ffmpeg
// publishes it to its own RTMP ingest, so the run gets a session, a recording with the ladder, and
// its destinations (a second studio here). A WHEP viewer at {base}/webrtc/{playbackId} gets the
// publisher's RTP, starting on a keyframe the studio asked for (PLI). The key is live once (a second
// WHIP or an RTMP publish is refused), bad offers are 4xx in Livepeer's shape, and a DELETE or a
// vanished publisher leaves no peer, relay or session open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  api,
  ffprobe,
  pushTestPattern,
  startTestStudio,
  studioCalls,
  waitFor,
  type StudioStream,
  type TestStudio
} from '../../helpers/studio'
import { closeWhipPublishers, whepPlay, whipPublish } from '../../helpers/whip-client'

let studio: TestStudio
let dest: TestStudio
const base = (s: TestStudio): string => s.apiUrl.replace(/\/api$/, '')
const keys: string[] = []

beforeAll(async () => {
  studio = await startTestStudio()
  dest = await startTestStudio()
})
afterAll(async () => {
  await closeWhipPublishers()
  const lines = studio?.logLines() ?? []
  await studio?.cleanup()
  await dest?.cleanup()
  // The stream key is in the WHIP URL: it never reaches the studio's log.
  for (const k of keys) expect(lines.join('\n')).not.toContain(k)
})

const LADDER = [{ name: '240p', width: 426, height: 240, bitrate: 300_000, fps: 30 }]

async function stream(s: TestStudio, body: Record<string, unknown>): Promise<StudioStream> {
  const st = await studioCalls(s).createStream(body)
  keys.push(st.streamKey)
  return st
}

describe('WebRTC (WHIP in, WHEP out)', () => {
  it('a WHIP publish is a session like an RTMP one: recorded, transcoded, forwarded; WHEP plays it', async () => {
    const calls = studioCalls(studio)
    const receiver = await stream(dest, { name: 'gets the WHIP run' })
    const target = await api<{ id: string }>(studio, studio.apiKey, 'POST', '/multistream/target', {
      name: 'dest',
      url: `rtmp://127.0.0.1:${new URL(dest.rtmpUrl).port}/live/${receiver.streamKey}`
    })
    expect(target.status).toBe(201)
    const s = await stream(studio, {
      name: 'whip',
      record: true,
      profiles: LADDER,
      multistream: { targets: [{ id: target.body.id, profile: 'source' }] }
    })

    // The playback info lists WHEP beside HLS, as Livepeer does.
    const pb = await api<{ meta: { source: Array<{ hrn: string; url: string }> } }>(
      studio,
      undefined,
      'GET',
      `/playback/${s.playbackId}`
    )
    expect(pb.body.meta.source.map((x) => [x.hrn, x.url])).toEqual([
      ['HLS (TS)', `${base(studio)}/hls/${s.playbackId}/index.m3u8`],
      ['WebRTC (H264)', `${base(studio)}/webrtc/${s.playbackId}`]
    ])

    // HEAD on the WHIP URL names where to POST (Livepeer redirects to a node; here, itself).
    const head = await fetch(`${base(studio)}/webrtc/${s.streamKey}`, { method: 'HEAD' })
    expect(head.headers.get('location')).toBe(`${base(studio)}/webrtc/${s.streamKey}`)

    const t0 = Date.now()
    const pub = await whipPublish(`${base(studio)}/webrtc/${s.streamKey}`)
    expect(pub.location).toMatch(new RegExp(`^${base(studio)}/webrtc/whip/[0-9a-f]{32}$`))
    expect(pub.location).not.toContain(s.streamKey)
    await waitFor(
      async () =>
        (await api<StudioStream>(studio, studio.apiKey, 'GET', `/stream/${s.id}`)).body.isActive,
      15_000,
      'the stream to be active'
    )
    const activeAfter = Date.now() - t0

    // The key is live once: a second WHIP, and an RTMP encoder, are refused while WHIP holds it.
    const second = await whipPublish(`${base(studio)}/webrtc/${s.streamKey}`).catch((e: Error) => e)
    expect((second as { status?: number }).status).toBe(409)
    expect(JSON.parse((second as unknown as { body: string }).body)).toEqual({
      errors: ['the stream already has a publisher']
    })
    const rtmp = pushTestPattern(`${studio.rtmpUrl}/${s.streamKey}`, { seconds: 3, audio: false })
    await rtmp.done
    expect(studio.logLines().join('\n')).toContain('refused a publisher on live/****')

    // WHEP: the viewer starts on a keyframe the studio asked the publisher for.
    const plisBefore = pub.plis()
    const viewer = await whepPlay(`${base(studio)}/webrtc/${s.playbackId}`)
    await viewer.firstKeyframe
    expect(pub.plis()).toBeGreaterThan(plisBefore)
    await waitFor(async () => viewer.received.audio > 10, 10_000, 'audio at the viewer')

    // The destination gets the run (the forwarder pushes the source to the second studio).
    await waitFor(
      async () =>
        (await api<StudioStream>(dest, dest.apiKey, 'GET', `/stream/${receiver.id}`)).body.isActive,
      30_000,
      'the destination to be live'
    )

    // Enough media for the ladder's first segments, then an orderly end.
    await waitFor(
      async () =>
        (await api<StudioStream>(studio, studio.apiKey, 'GET', `/stream/${s.id}`)).body
          .sourceSegmentsDuration >= 5,
      30_000,
      '5 s of source media'
    )
    expect((await viewer.stop()).status).toBe(200)
    const del = await pub.stop()
    expect(del.status).toBe(200)
    const session = await calls.finished(s.id)
    expect(session.recordingStatus).toBe('ready')
    const files = await ffprobe(session.mp4Url!)
    expect(files.streams.map((x) => x.codec_name).sort()).toEqual(['aac', 'h264'])
    expect(files.duration).toBeGreaterThan(4)
    const master = await (await fetch(session.recordingUrl!)).text()
    expect(master).toContain('RESOLUTION=426x240') // the ladder's rendition is in the recording
    expect(master).toContain('RESOLUTION=640x360') // and the source
    expect(studio.webrtcCounts?.()).toEqual({ publishers: 0, viewers: 0 })
    // The DELETE again: the session is gone.
    expect((await fetch(pub.location, { method: 'DELETE' })).status).toBe(404)
    console.log(`WHIP: stream active ${activeAfter} ms after the offer was posted`)
  }, 120_000)

  it('refuses bad offers with 4xx in Livepeer shape, and an unknown key or playbackId with 404', async () => {
    const s = await stream(studio, { name: 'bad offers' })
    const url = `${base(studio)}/webrtc/${s.streamKey}`
    const post = (body: string, type = 'application/sdp'): Promise<Response> =>
      fetch(url, { method: 'POST', headers: { 'content-type': type }, body })
    const json = await post('{}', 'application/json')
    expect(json.status).toBe(415)
    expect(await json.json()).toEqual({
      errors: ['the offer must be sent as Content-Type: application/sdp']
    })
    expect((await post('hello')).status).toBe(400)
    const noMedia = await post('v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n')
    expect(noMedia.status).toBe(400)
    const garbled = await post('v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=nonsense\r\n')
    expect(garbled.status).toBeGreaterThanOrEqual(400)
    expect(garbled.status).toBeLessThan(500)
    expect((await post('v=0\r\n' + 'a'.repeat(70_000))).status).toBe(413)
    expect(
      (await fetch(`${base(studio)}/webrtc/zzzz-zzzz-zzzz-zzzz`, { method: 'POST' })).status
    ).toBe(404)
    expect(
      (await fetch(`${base(studio)}/webrtc/${'z'.repeat(16)}`, { method: 'HEAD' })).status
    ).toBe(404)
    // WHEP of a stream nobody publishes by WHIP: 404 that says to play HLS.
    const idle = await fetch(`${base(studio)}/webrtc/${s.playbackId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: 'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n'
    })
    expect(idle.status).toBe(404)
    expect(((await idle.json()) as { errors: string[] }).errors[0]).toContain('play its HLS')
    // A suspended stream may not publish.
    await api(studio, studio.apiKey, 'PATCH', `/stream/${s.id}/suspended`, { suspended: true })
    const suspended = await whipPublish(url).catch((e: Error) => e)
    expect((suspended as { status?: number }).status).toBe(403)
    expect(studio.webrtcCounts?.()).toEqual({ publishers: 0, viewers: 0 })
  }, 60_000)

  it('a publisher that vanishes is given up: the relay drops, and the session ends after the resume window', async () => {
    const s = await stream(studio, { name: 'vanishes', record: true })
    const pub = await whipPublish(`${base(studio)}/webrtc/${s.streamKey}`)
    await waitFor(
      async () =>
        (await api<StudioStream>(studio, studio.apiKey, 'GET', `/stream/${s.id}`)).body.isActive,
      15_000,
      'the stream to be active'
    )
    await pub.vanish()
    // No media: the relay stalls (10 s) or ICE fails, whichever first; then the resume window (3 s).
    await waitFor(
      async () => studio.webrtcCounts?.().publishers === 0,
      30_000,
      'the WHIP session to be given up'
    )
    const session = await studioCalls(studio).finished(s.id, 30_000)
    expect(session.recordingStatus).toBe('ready')
  }, 90_000)
})
