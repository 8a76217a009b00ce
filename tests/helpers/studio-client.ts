// The app's own API client on a local studio, for the tests that drive the client (the core's
// destinations, the renderer's stream store): one studio a test file, streams of it as real RTMP
// destinations, and a real transport that notes each request that reaches the studio.
import { afterAll, beforeAll } from 'vitest'
import { ApiClient } from '../../src/main/core/api-client'
import { HttpTransport } from '../../src/main/core/http-transport'
import { buildTargetUrl } from '../../src/shared/destinations'
import { startTestStudio, type TestStudio } from './studio'

export interface StudioClient {
  studio: TestStudio
  client: ApiClient
}

/** A studio and a client on it, started before the file's tests and stopped after them. */
export function studioClientForFile(): () => StudioClient {
  let it: StudioClient | undefined
  beforeAll(async () => {
    const studio = await startTestStudio()
    it = { studio, client: new ApiClient({ baseUrl: studio.apiUrl, apiKey: studio.apiKey }) }
  })
  afterAll(async () => {
    await it?.studio.cleanup()
  })
  return () => {
    if (!it) throw new Error('the studio is not running (its beforeAll failed)')
    return it
  }
}

/** A second stream of the same studio is a real RTMP destination: its ingest URL + its key. */
export async function relay(
  { studio, client }: StudioClient,
  name: string
): Promise<{ id: string; key: string; url: string }> {
  const s = await client.createStream({ name, profiles: [], record: false })
  return { id: s.id!, key: s.streamKey!, url: buildTargetUrl(studio.rtmpUrl, s.streamKey!) }
}

/** A real transport that notes each request it sends: what reaches the studio, and when. */
export class NotingTransport extends HttpTransport {
  readonly sent: { method: string; path: string; at: number }[] = []

  override request(
    ...a: Parameters<HttpTransport['request']>
  ): ReturnType<HttpTransport['request']> {
    this.sent.push({ method: a[0], path: new URL(a[1]).pathname, at: Date.now() })
    return super.request(...a)
  }

  /** A client like `on`'s whose requests are noted here. */
  client({ studio }: StudioClient): ApiClient {
    return new ApiClient({ baseUrl: studio.apiUrl, apiKey: studio.apiKey, transport: this })
  }
}
