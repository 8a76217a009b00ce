// The page's media clock (MediaFeed.outputEpoch, the live monitor's LiveHealthEvent.mediaEpoch): when the
// picture at the output's media time 0 was made. It is read off the picture's own blocks: the page's
// sound can be stamped ahead of its picture (its capture clock is not the camera's), and read off the
// newest block of either track, the clock came out as early as the sound ran ahead, so the monitor
// said that much more than the viewer was behind.
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { MediaFeed } from '../../../src/main/core/broadcast/media-feed'
import { block, open, streamHeader, uint } from '../../helpers/matroska-writer'

/** A stdin that takes nothing (the clock does not depend on what ffmpeg took). */
class StillSink extends Writable {
  override _write(_chunk: Buffer, _enc: BufferEncoding, _cb: () => void): void {}
}

/**
 * A 100 ms cluster: three video frames (track 1) and a sound packet (track 2) stamped `aheadMs` after
 * the last frame.
 */
const clusterWithSound = (i: number, aheadMs: number): Buffer =>
  Buffer.concat([
    open(0x1f43b675),
    uint(0xe7, i * 100),
    block(1, i % 10 === 0, 500, 0),
    block(1, false, 500, 33),
    block(1, false, 500, 67),
    block(2, false, 50, 67 + aheadMs)
  ])

describe("the page's media clock", () => {
  it("is the picture's: sound stamped ahead of it does not make it early", async () => {
    let t = 1000
    const feed = new MediaFeed({ now: () => t })
    feed.attach(new StillSink())
    await feed.push(streamHeader())
    // Each cluster arrives as its last frame is made (+67 ms); its sound says 0.9 s later than that.
    for (let i = 0; i < 5; i++) {
      t = 1000 + i * 100 + 67
      await feed.push(clusterWithSound(i, 900))
    }
    // Media time 0 was made at 1000. From the sound's stamps it came out 0.9 s early (100).
    expect(feed.outputEpoch).toBe(1000)
  })

  it('is the sound’s where there is no picture', async () => {
    let t = 1000
    const feed = new MediaFeed({ now: () => t })
    feed.attach(new StillSink())
    await feed.push(streamHeader({ video: false }))
    for (let i = 0; i < 3; i++) {
      t = 1000 + i * 100 + 20
      await feed.push(
        Buffer.concat([open(0x1f43b675), uint(0xe7, i * 100), block(2, false, 50, 20)])
      )
    }
    expect(feed.outputEpoch).toBe(1000)
  })
})
