// What one key holder can make the studio do is bounded, each bound a 422 in Livepeer's shape
// ({"errors":[...]}) that names the number: profiles per stream (each is an encoder while live),
// multistream targets per stream (each an ffmpeg push), clips being cut at once per user (Livepeer's
// five). A refused request changes nothing. Real studio, real SQLite, a real RTMP push for the clips.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  api,
  pushTestPattern,
  startTestStudio,
  studioCalls,
  waitFor,
  type Pusher,
  type StudioStream,
  type TestStudio
} from '../../helpers/studio'

type Errors = { errors: string[] }

let studio: TestStudio
let push: Pusher | undefined

beforeAll(async () => {
  studio = await startTestStudio()
})
afterAll(async () => {
  await push?.kill()
  await studio?.cleanup()
})

const ladder = (n: number): Array<Record<string, unknown>> =>
  Array.from({ length: n }, (_, i) => ({
    name: `p${i}`,
    width: 256,
    height: 144,
    bitrate: 200_000,
    fps: 0
  }))

const inline = (n: number): Array<Record<string, unknown>> =>
  Array.from({ length: n }, (_, i) => ({
    profile: 'source',
    spec: { name: `t${i}`, url: `rtmp://127.0.0.1:1/live/k${i}` }
  }))

describe('bounds on what a key holder can ask for', () => {
  it('profiles: 10 per stream, the 11th is a 422 on create and on PATCH', async () => {
    const refused = await api<Errors>(studio, studio.apiKey, 'POST', '/stream', {
      name: 'eleven',
      profiles: ladder(11)
    })
    expect(refused.status).toBe(422)
    expect(refused.body.errors.join(' ')).toMatch(/at most 10 profiles per stream/)
    const ten = await studioCalls(studio).createStream({ name: 'ten', profiles: ladder(10) })
    expect(ten.profiles).toHaveLength(10)

    const patch = await api<Errors>(studio, studio.apiKey, 'PATCH', `/stream/${ten.id}`, {
      profiles: ladder(11)
    })
    expect(patch.status).toBe(422)
    expect(patch.body.errors.join(' ')).toMatch(/at most 10 profiles per stream/)
    const after = await api<StudioStream>(studio, studio.apiKey, 'GET', `/stream/${ten.id}`)
    expect(after.body.profiles).toHaveLength(10)
  })

  it('multistream targets: 20 per stream, inline or by id; the 21st is a 422 and stores nothing', async () => {
    const targetsNow = async (): Promise<number> =>
      (await api<unknown[]>(studio, studio.apiKey, 'GET', '/multistream/target')).body.length
    const before = await targetsNow()

    const refused = await api<Errors>(studio, studio.apiKey, 'POST', '/stream', {
      name: 'too many targets',
      multistream: { targets: inline(21) }
    })
    expect(refused.status).toBe(422)
    expect(refused.body.errors.join(' ')).toMatch(/at most 20 multistream targets per stream/)
    expect(await targetsNow()).toBe(before) // no target was made from the refused specs

    const full = await studioCalls(studio).createStream({
      name: 'twenty targets',
      multistream: { targets: inline(20) }
    })
    expect(await targetsNow()).toBe(before + 20)

    // The 21st by the add route, by reference.
    const add = await api<Errors>(
      studio,
      studio.apiKey,
      'POST',
      `/stream/${full.id}/create-multistream-target`,
      { profile: 'source', spec: { name: 'one more', url: 'rtmp://127.0.0.1:1/live/more' } }
    )
    expect(add.status).toBe(422)
    expect(add.body.errors.join(' ')).toMatch(/at most 20 multistream targets per stream/)
    expect(await targetsNow()).toBe(before + 20)

    // PATCH with 21 references: the 20 targets to the source, one of them again to a rendition.
    const ids = (
      await api<Array<{ id: string }>>(studio, studio.apiKey, 'GET', '/multistream/target')
    ).body.map((t) => t.id)
    const other = await studioCalls(studio).createStream({ name: 'patched', profiles: ladder(1) })
    const refs = ids.slice(0, 20).map((id) => ({ id, profile: 'source' }))
    expect(refs).toHaveLength(20)
    const patch = await api<Errors>(studio, studio.apiKey, 'PATCH', `/stream/${other.id}`, {
      multistream: { targets: [...refs, { id: ids[0], profile: 'p0' }] }
    })
    expect(patch.status).toBe(422)
    expect(patch.body.errors.join(' ')).toMatch(/at most 20 multistream targets per stream/)
    const ok = await api(studio, studio.apiKey, 'PATCH', `/stream/${other.id}`, {
      multistream: { targets: refs }
    })
    expect(ok.status).toBe(204)
  })

  it('clips: 5 being cut at once per user; the 6th is a 422 until one is done', async () => {
    const stream = await studioCalls(studio).createStream({ name: 'clipped', record: true })
    push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 40, // longer than the test needs: stopped at the end
      width: 320,
      height: 240,
      fps: 25
    })
    await waitFor(
      async () =>
        (await api<StudioStream>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`)).body
          .isActive,
      20_000,
      'the stream to be live'
    )
    // Each clip ends 5 s ahead: it waits for that media, so all five are in progress together.
    const now = Date.now()
    const body = { playbackId: stream.playbackId, startTime: now - 1000, endTime: now + 5000 }
    const clip = (key: string): ReturnType<typeof api<{ asset: { id: string } } & Errors>> =>
      api<{ asset: { id: string } } & Errors>(studio, key, 'POST', '/clip', body)
    const five: Array<Awaited<ReturnType<typeof clip>>> = []
    for (let i = 0; i < 5; i++) five.push(await clip(studio.apiKey))
    expect(five.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])

    const sixth = await clip(studio.apiKey)
    expect(sixth.status).toBe(422)
    expect(sixth.body.errors.join(' ')).toMatch(/at most 5 at once/)
    // Once they are done, clipping works again.
    await waitFor(
      async () => {
        const phases = await Promise.all(
          five.map(
            async (r) =>
              (
                await api<{ status: { phase: string } }>(
                  studio,
                  studio.apiKey,
                  'GET',
                  `/asset/${r.body.asset.id}`
                )
              ).body.status.phase
          )
        )
        return phases.every((p) => p === 'ready' || p === 'failed') && phases
      },
      60_000,
      'the five clips to be done'
    )
    const again = await api(studio, studio.apiKey, 'POST', '/clip', {
      playbackId: stream.playbackId,
      startTime: Date.now() - 3000
    })
    expect(again.status).toBe(200)
    await push.kill()
  }, 90_000)
})
