// The uploader's part sizes (#35): the first part is 8 MiB; each next one aims at a few seconds of
// sending at the rate the last one went, growing at most 4x a step, never under 8 MiB nor over
// 128 MiB, in whole MiB.
import { describe, expect, it } from 'vitest'
import {
  MAX_PART_BYTES,
  nextPartBytes,
  PART_SECONDS,
  UPLOAD_CHUNK_BYTES
} from '../../../src/main/core/uploads/uploader'

const MiB = 1024 * 1024

describe('nextPartBytes', () => {
  it('grows a fast link’s parts 4x a step up to 128 MiB', () => {
    // 8 MiB in 50 ms (160 MiB/s): 32 MiB, then 128 MiB, and no more.
    expect(nextPartBytes(8 * MiB, 50)).toBe(32 * MiB)
    expect(nextPartBytes(32 * MiB, 200)).toBe(128 * MiB)
    expect(nextPartBytes(128 * MiB, 800)).toBe(MAX_PART_BYTES)
  })

  it('aims at PART_SECONDS of sending at the last part’s rate', () => {
    // 10 MiB/s: 40 MiB parts (4 s).
    expect(PART_SECONDS).toBe(4)
    expect(nextPartBytes(32 * MiB, 3200)).toBe(40 * MiB)
  })

  it('keeps a slow link at 8 MiB, and shrinks back to it when the rate falls', () => {
    // 1 MiB/s (8 Mbit/s): 4 MiB would do, but a part is at least 8 MiB.
    expect(nextPartBytes(8 * MiB, 8000)).toBe(UPLOAD_CHUNK_BYTES)
    expect(nextPartBytes(128 * MiB, 128_000)).toBe(UPLOAD_CHUNK_BYTES)
    // A part that took no measurable time is not a reason for an endless part.
    expect(nextPartBytes(8 * MiB, 0)).toBe(32 * MiB)
  })
})
