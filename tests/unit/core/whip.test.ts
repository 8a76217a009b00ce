// The WHIP signalling in main, with an injected fetch: the URL it posts to (and Livepeer's HEAD
// redirect), the one-run rule, the stream key never in an error, and the DELETE at the end.
import { describe, expect, it } from 'vitest'
import { LIVEPEER_WHIP_BASE, WhipRuns, whipUrl, type Fetch } from '../../../src/main/core/whip'
import { AppFailure } from '../../../src/shared/result'

const KEY = 'ab12-cd34-ef56-gh78'

function fake(answers: Record<string, (init: RequestInit) => Response>): {
  fetch: Fetch
  seen: Array<[string, string]>
} {
  const seen: Array<[string, string]> = []
  return {
    seen,
    fetch: async (url, init) => {
      const method = init.method ?? 'GET'
      seen.push([method, url])
      const f = answers[`${method} ${url}`]
      if (!f) throw new Error(`unexpected ${method} ${url}`)
      return f(init)
    }
  }
}

describe('whipUrl', () => {
  it("is {base}/webrtc/{key} for the local studio; Livepeer's documented ingest for Livepeer", () => {
    expect(whipUrl('http://127.0.0.1:5000/hls', KEY)).toBe(`http://127.0.0.1:5000/webrtc/${KEY}`)
    expect(whipUrl('http://127.0.0.1:5000/hls/', KEY)).toBe(`http://127.0.0.1:5000/webrtc/${KEY}`)
    expect(whipUrl('https://livepeercdn.studio/hls', KEY)).toBe(`${LIVEPEER_WHIP_BASE}/${KEY}`)
    expect(whipUrl('https://fra-prod-catalyst-0.lp-playback.studio/hls', KEY)).toBe(
      `${LIVEPEER_WHIP_BASE}/${KEY}`
    )
    expect(whipUrl('https://cdn.example/play/x', KEY)).toBe(`https://cdn.example/webrtc/${KEY}`)
    expect(LIVEPEER_WHIP_BASE).toBe('https://livepeer.studio/webrtc')
  })
})

describe('WhipRuns', () => {
  it("follows the HEAD's Location, posts the offer there, and DELETEs the answer's Location", async () => {
    const url = `https://livepeer.studio/webrtc/${KEY}`
    const node = `https://fra-prod-catalyst-0.lp-playback.studio/webrtc/${KEY}`
    const f = fake({
      [`HEAD ${url}`]: () => new Response(null, { status: 307, headers: { location: node } }),
      [`POST ${node}`]: (init) => {
        expect(init.body).toBe('v=0 offer')
        expect((init.headers as Record<string, string>)['content-type']).toBe('application/sdp')
        return new Response('v=0 answer', { status: 201, headers: { location: '/webrtc/s/1' } })
      },
      ['DELETE https://fra-prod-catalyst-0.lp-playback.studio/webrtc/s/1']: () =>
        new Response(null, { status: 200 })
    })
    const runs = new WhipRuns(f.fetch)
    const r = await runs.start('stream-1', url, KEY, 'v=0 offer')
    expect(r.answer).toBe('v=0 answer')
    expect(runs.open).toEqual({ runId: r.runId, streamId: 'stream-1' })
    // One run at a time.
    await expect(runs.start('stream-1', url, KEY, 'v=0 offer')).rejects.toThrow(/Already live/)
    await runs.stop(r.runId)
    expect(runs.open).toBeNull()
    expect(f.seen.map((s) => s[0])).toEqual(['HEAD', 'POST', 'DELETE'])
  })

  it("names the service's refusal without the stream key, and opens no run", async () => {
    const url = `http://127.0.0.1:5000/webrtc/${KEY}`
    const f = fake({
      [`HEAD ${url}`]: () => new Response(null, { status: 204 }),
      [`POST ${url}`]: () =>
        new Response(JSON.stringify({ errors: [`the stream already has a publisher (${KEY})`] }), {
          status: 409
        })
    })
    const runs = new WhipRuns(f.fetch)
    const err = await runs.start('s', url, KEY, 'v=0').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(AppFailure)
    const e = (err as AppFailure).error
    expect(e.message).toContain('HTTP 409: the stream already has a publisher')
    expect(e.message).not.toContain(KEY)
    expect(e.hint).toMatch(/already live elsewhere/)
    expect(runs.open).toBeNull()
  })

  it('says the ingest did not answer when the POST fails, without the key', async () => {
    const url = `http://127.0.0.1:9/webrtc/${KEY}`
    const runs = new WhipRuns(async () => {
      throw new Error(`connect ECONNREFUSED ${url}`)
    })
    const err = (await runs.start('s', url, KEY, 'v=0').catch((e: unknown) => e)) as AppFailure
    expect(err.error.message).toMatch(/did not answer/)
    expect(err.error.message).not.toContain(KEY)
  })
})
