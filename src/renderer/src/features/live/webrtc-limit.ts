// What holds a Low latency (WebRTC) run back, as its health strip says it: from getStats()' reason
// and where the service is.
import type { WebRtcStats } from './engine/whip-publisher'

type Limit = { cause: 'upload' | 'computer' | 'browser'; words: string }

const LIMITS: Record<string, Limit> = {
  bandwidth: { cause: 'upload', words: 'the upload (WebRTC lowered the quality to stay live)' },
  cpu: { cause: 'computer', words: 'this computer (the encoder cannot keep up)' },
  other: { cause: 'browser', words: 'the browser' }
}

/**
 * What holds the stream back, in words and as a cause. A short link to a service on this computer
 * (the local studio) is no upload: the stream never leaves the computer, so it is the computer, too
 * busy to send and receive in real time (seen in the e2e layer on a loaded machine: the estimate at
 * 0.1-0.4 Mbit/s on loopback, said to be the upload).
 */
export function webRtcLimit(
  stats: Pick<WebRtcStats, 'limitation' | 'onThisComputer'>
): Limit | null {
  if (stats.limitation === 'bandwidth' && stats.onThisComputer)
    return {
      cause: 'computer',
      words:
        'this computer (too busy to send to the service, which runs on it too; WebRTC lowered the quality to stay live)'
    }
  return LIMITS[stats.limitation] ?? null
}
