import { describe, expect, it } from 'vitest'
import { RedactedRing } from '../../../src/node/ffmpeg/stderr-ring'
import { redact, redactSecrets } from '../../../src/shared/redact'

const key = 'ab12-cd34-ef56-gh78'

describe('redaction', () => {
  it('masks the key after /live/ in URLs and messages', () => {
    expect(redact(`[rtmp @ 0x1] rtmp://127.0.0.1:1935/live/${key}: Connection refused`)).toBe(
      '[rtmp @ 0x1] rtmp://127.0.0.1:1935/live/****: Connection refused'
    )
    expect(redact(`Error opening output 'rtmp://h/live/${key}'`)).toBe(
      "Error opening output 'rtmp://h/live/****'"
    )
  })

  it("masks an address's token in errors and logs (a tus upload address, a signed link)", () => {
    const said =
      'tus: failed, originated from request (method: PATCH, url: https://origin.example/api/asset/upload/tus?token=eyJhbGciOi.x-y_z&part=2, response code: n/a)'
    const out = redactSecrets(said)
    expect(out).not.toContain('eyJhbGciOi')
    expect(out).toContain('https://origin.example/api/asset/upload/tus?token=****&part=2')
    expect(redactSecrets('GET /seg.ts?access_token=abc123def&sig=ZZZ999yyy')).toBe(
      'GET /seg.ts?access_token=****&sig=****'
    )
    // Ordinary words with an equals sign stay readable.
    expect(redactSecrets('tokens=3 of 5')).toBe('tokens=3 of 5')
  })

  it('masks known secrets wherever they appear', () => {
    expect(redact(`key is ${key}.`, [key])).toBe('key is ****.')
    expect(redact('Bearer 0f1e2d3c-aaaa', ['0f1e2d3c-aaaa'])).toBe('Bearer ****')
  })

  it('keeps only the last 50 lines, each redacted, across chunk splits and \\r', () => {
    const ring = new RedactedRing([key], 50)
    let text = ''
    for (let i = 0; i < 80; i++) text += `line ${i} rtmp://x/live/${key}\r\n`
    for (let i = 0; i < text.length; i += 13) ring.write(Buffer.from(text.slice(i, i + 13)))
    const lines = ring.snapshot()
    expect(lines).toHaveLength(50)
    expect(lines[0]).toBe('line 30 rtmp://x/live/****')
    expect(lines.join('\n')).not.toContain(key)
  })
})
