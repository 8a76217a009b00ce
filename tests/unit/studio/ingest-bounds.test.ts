// The RTMP connection cap follows the process's descriptor limit (docs/security.md).
import { describe, expect, it } from 'vitest'
import { connectionCap } from '../../../src/studio/nms-adapter'
import { descriptorLimit } from '../../../src/node/fd-limit'

describe('connectionCap', () => {
  it('is a quarter of the descriptor limit, between 16 and 1,024', () => {
    expect(connectionCap(1024)).toBe(256)
    expect(connectionCap(256)).toBe(64)
    expect(connectionCap(40)).toBe(16)
    expect(connectionCap(1_048_576)).toBe(1024)
    expect(connectionCap(undefined)).toBe(1024)
  })

  it("reads this process's limit where there is one", async () => {
    const limit = await descriptorLimit()
    if (process.platform === 'win32') expect(limit).toBeUndefined()
    else expect(limit).toBeGreaterThan(0)
  })
})
