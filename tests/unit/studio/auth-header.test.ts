// Authorization parsing: the same answers as the reference's pattern, in time linear in the header.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseAuthorization } from '../../../src/studio/auth'

// The pattern the studio used before (it backtracks quadratically on long runs of spaces).
const reference = (h: string): { scheme: string; credentials: string } | undefined => {
  const m = /^\s*(\w+)\s+(.+?)\s*$/.exec(h)
  return m ? { scheme: m[1]!, credentials: m[2]! } : undefined
}

describe('parseAuthorization', () => {
  // One difference, on purpose: credentials of white space only are none (the pattern read
  // `Bearer  ` as the key " "); both are refused with 401.
  it('reads what the reference pattern reads', () => {
    const part = fc.constantFrom('Bearer', 'bearer', 'Basic', 'a', 'k-1', ' ', '\t', '  ', 'é', '=')
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }).map((a) => a.join('')), (h) => {
        const ref = reference(h)
        expect(parseAuthorization(h)).toEqual(ref?.credentials.trim() ? ref : undefined)
      }),
      { numRuns: 2000 }
    )
    expect(parseAuthorization('  Bearer   abc def  ')).toEqual({
      scheme: 'Bearer',
      credentials: 'abc def'
    })
    expect(parseAuthorization('Bearer')).toBeUndefined()
  })

  it('takes under a millisecond on 15,500 spaces between two words', () => {
    const h = `Bearer a${' '.repeat(15_500)}b`
    const t0 = performance.now()
    for (let i = 0; i < 100; i++) parseAuthorization(h)
    const each = (performance.now() - t0) / 100
    expect(parseAuthorization(h)?.credentials.length).toBe(15_502)
    expect(each).toBeLessThan(1)
  })
})
