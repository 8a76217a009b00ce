// The web shell's frame socket (#33): raw frames and sound (shared/raw-media.ts) from the page to
// Onair's encoder over one binary WebSocket per run, `/frames?runId=<id>`, instead of an HTTP POST a
// call. A POST's body was gathered into a fresh buffer each time, and at 720p30 main spent ~0.5 CPU s
// a second, most of it collecting those buffers. Here main reads the socket itself (RFC 6455, server
// side, binary only, no extensions): each read is unmasked where it lies and cut into raw-media
// messages (RawAssembler) whose payloads stay views of the reads, and those views go to the encoder's
// stdin as they are (EncoderHost.pushRawPieces). Nothing message-sized is allocated or copied.
//
// One WebSocket message is one pushFrames call: whole raw-media messages. Each is answered with a text
// message, the call's Result as JSON; the page keeps one or two unanswered (its backpressure). Bytes
// that break the format (a frame header, a raw-media header, a message that ends inside a raw-media
// message, text) close the socket with a code and a reason that says what was wrong; a call the core
// refuses (the run ended, a wrong size) is answered with its error and closes the socket too.
// The caller (web-shell.ts) checks Host, Origin and the session before handing the socket here.
import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { RawAssembler, type RawPieces } from '../../shared/raw-media'
import { AppFailure, type AppError, type Result } from '../../shared/result'
import { redactSecrets } from '../../shared/redact'

/** Where whole messages go: the core's pushFramePieces for the run. Throws AppFailure to refuse. */
export type FrameSink = (runId: string, messages: RawPieces[]) => Promise<void> | void

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/** Close codes (RFC 6455 §7.4.1). */
export const CLOSE = {
  normal: 1000,
  protocol: 1002,
  unsupported: 1003,
  policy: 1008,
  tooBig: 1009
} as const

/** A frame's payload length beyond this (8 GiB) is refused: no call is that large. */
const MAX_FRAME_PAYLOAD = 2 ** 33

/** The 101 answer's Sec-WebSocket-Accept for a client's key. */
export function acceptKey(key: string): string {
  return createHash('sha1')
    .update(key + GUID)
    .digest('base64')
}

/**
 * XORs data with the 4-byte mask in place, the mask starting at its byte `phase`; returns the phase
 * after. Words at a time where the bytes are aligned: at 720p30 that is 41 MB a second.
 */
export function unmask(data: Uint8Array, mask: Uint8Array, phase: number): number {
  let i = 0
  const n = data.byteLength
  while (i < n && (data.byteOffset + i) % 4 !== 0) {
    data[i] = data[i]! ^ mask[(phase + i) & 3]!
    i++
  }
  const words = (n - i) >> 2
  if (words > 0) {
    const p = phase + i
    const m = new Uint8Array([
      mask[p & 3]!,
      mask[(p + 1) & 3]!,
      mask[(p + 2) & 3]!,
      mask[(p + 3) & 3]!
    ])
    const w = new Uint32Array(m.buffer)[0]!
    const u = new Uint32Array(data.buffer, data.byteOffset + i, words)
    for (let k = 0; k < words; k++) u[k] = u[k]! ^ w
    i += words * 4
  }
  for (; i < n; i++) data[i] = data[i]! ^ mask[(phase + i) & 3]!
  return (phase + n) & 3
}

/** A server frame (never masked): FIN, opcode, payload. */
export function serverFrame(opcode: number, payload: Uint8Array): Buffer {
  const n = payload.byteLength
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10
  const out = Buffer.allocUnsafe(head + n)
  out[0] = 0x80 | opcode
  if (n < 126) out[1] = n
  else if (n < 65536) {
    out[1] = 126
    out.writeUInt16BE(n, 2)
  } else {
    out[1] = 127
    out.writeBigUInt64BE(BigInt(n), 2)
  }
  out.set(payload, head)
  return out
}

/** A close frame's payload: the code, then the reason cut to the 123 bytes a control frame allows. */
function closePayload(code: number, reason: string): Buffer {
  let text = Buffer.from(reason)
  if (text.length > 123) text = text.subarray(0, 120)
  const out = Buffer.allocUnsafe(2 + text.length)
  out.writeUInt16BE(code, 0)
  text.copy(out, 2)
  return out
}

/** Answers a request that is not a WebSocket handshake we take. */
function refuseUpgrade(socket: Duplex, status: string, message: string): void {
  socket.end(
    `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`
  )
}

export interface FrameSocketOptions {
  sink: FrameSink
  log?: (line: string) => void
}

/** Takes an upgrade request for /frames that web-shell.ts has already checked (Host, Origin, session). */
export function acceptFrameSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  url: URL,
  o: FrameSocketOptions
): void {
  const key = req.headers['sec-websocket-key']
  if (
    (req.headers.upgrade ?? '').toLowerCase() !== 'websocket' ||
    req.headers['sec-websocket-version'] !== '13' ||
    typeof key !== 'string' ||
    Buffer.from(key, 'base64').length !== 16
  )
    return refuseUpgrade(
      socket,
      '400 Bad Request',
      'A WebSocket (version 13) handshake is expected.'
    )
  const runId = url.searchParams.get('runId') ?? ''
  if (!runId || runId.length > 200)
    return refuseUpgrade(socket, '400 Bad Request', 'The frame socket needs ?runId=<the run>.')
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${acceptKey(key)}\r\n\r\n`
  )
  const conn = new FrameConnection(socket, runId, o)
  if (head.length) conn.data(head)
  socket.on('data', (d: Buffer) => conn.data(d))
  socket.on('error', () => conn.gone())
  socket.on('close', () => conn.gone())
}

/** One page's frame socket: reads frames, hands messages to the sink, answers each call. */
class FrameConnection {
  /** The frame header being read (2 to 14 bytes). */
  private head = new Uint8Array(14)
  private headFill = 0
  /** The frame being read: its opcode, payload bytes left, mask and the mask's phase. */
  private frame:
    { opcode: number; fin: boolean; left: number; mask: Uint8Array; phase: number } | undefined
  /** A control frame's payload (ping, close), gathered. */
  private control: number[] = []
  /** Inside a fragmented binary message. */
  private inMessage = false
  private readonly raw = new RawAssembler()
  /** Messages completed since the last hand-over. */
  private ready: RawPieces[] = []
  /** Calls handed on in order; each answered when its own and every earlier one is done. */
  private chain: Promise<void> = Promise.resolve()
  private closed = false

  constructor(
    private readonly socket: Duplex,
    private readonly runId: string,
    private readonly o: FrameSocketOptions
  ) {}

  data(chunk: Buffer): void {
    let at = 0
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    while (at < bytes.byteLength && !this.closed) {
      if (!this.frame) {
        at = this.readHead(bytes, at)
        continue
      }
      const f = this.frame
      const take = Math.min(f.left, bytes.byteLength - at)
      const piece = bytes.subarray(at, at + take)
      f.phase = unmask(piece, f.mask, f.phase)
      at += take
      f.left -= take
      if (f.opcode >= 8) for (const b of piece) this.control.push(b)
      else if (take > 0) {
        const r = this.raw.push(piece, (m) => this.ready.push(m))
        if (!r.ok) return this.close(CLOSE.policy, r.error)
      }
      if (f.left === 0) this.endFrame(f.opcode, f.fin)
    }
  }

  /** Reads (part of) a frame header from bytes at `at`; returns where it stopped. */
  private readHead(bytes: Uint8Array, at: number): number {
    while (at < bytes.byteLength) {
      this.head[this.headFill++] = bytes[at++]!
      const need = this.headNeed()
      if (need === undefined || this.headFill < need) continue
      this.startFrame()
      return at
    }
    return at
  }

  /** The header's full length once its second byte is known. */
  private headNeed(): number | undefined {
    if (this.headFill < 2) return undefined
    const len = this.head[1]! & 0x7f
    return 2 + (len === 126 ? 2 : len === 127 ? 8 : 0) + 4
  }

  private startFrame(): void {
    const h = this.head
    const fin = (h[0]! & 0x80) !== 0
    const rsv = h[0]! & 0x70
    const opcode = h[0]! & 0x0f
    const masked = (h[1]! & 0x80) !== 0
    const len7 = h[1]! & 0x7f
    const v = new DataView(h.buffer)
    let len = len7
    let maskAt = 2
    if (len7 === 126) {
      len = v.getUint16(2)
      maskAt = 4
    } else if (len7 === 127) {
      len = v.getUint32(2) * 2 ** 32 + v.getUint32(6)
      maskAt = 10
    }
    this.headFill = 0
    if (rsv) return this.close(CLOSE.protocol, 'no extension was agreed (a reserved bit is set)')
    if (!masked) return this.close(CLOSE.protocol, "a page's frames must be masked")
    if (opcode === 1)
      return this.close(CLOSE.unsupported, 'the frame socket takes binary messages only')
    if (opcode >= 8) {
      if (!fin || len > 125 || ![8, 9, 10].includes(opcode))
        return this.close(CLOSE.protocol, `a bad control frame (opcode ${opcode})`)
    } else if (opcode === 0 ? !this.inMessage : opcode !== 2 || this.inMessage)
      return this.close(CLOSE.protocol, `an unexpected frame (opcode ${opcode})`)
    if (len > MAX_FRAME_PAYLOAD) return this.close(CLOSE.tooBig, `a frame of ${len} bytes`)
    if (opcode < 8) this.inMessage = !fin
    this.frame = { opcode, fin, left: len, mask: h.slice(maskAt, maskAt + 4), phase: 0 }
    this.control = []
    if (len === 0) this.endFrame(opcode, fin)
  }

  private endFrame(opcode: number, fin: boolean): void {
    this.frame = undefined
    if (opcode === 8) {
      const p = this.control
      const code = p.length >= 2 ? (p[0]! << 8) | p[1]! : CLOSE.normal
      return this.close(code >= 1000 && code < 5000 ? code : CLOSE.normal, '')
    }
    if (opcode === 9) return void this.send(10, Uint8Array.from(this.control))
    if (opcode === 10) return
    if (!fin) return
    // A whole call: it must end where a raw-media message ends.
    if (this.raw.pending > 0)
      return this.close(CLOSE.policy, 'raw media: a call ended inside a message')
    const messages = this.ready
    this.ready = []
    this.handOn(messages)
  }

  /** Hands a call's messages on in order and answers it once the sink took them. */
  private handOn(messages: RawPieces[]): void {
    const sink = this.o.sink
    this.chain = this.chain.then(async () => {
      if (this.closed) return
      let answer: Result<null>
      try {
        if (messages.length) await sink(this.runId, messages)
        answer = { ok: true, value: null }
      } catch (e) {
        answer = { ok: false, error: this.failure(e) }
      }
      this.send(1, Buffer.from(JSON.stringify(answer)))
      if (!answer.ok) this.close(CLOSE.policy, answer.error.message)
    })
  }

  private failure(e: unknown): AppError {
    if (e instanceof AppFailure) return e.error
    const message = redactSecrets(e instanceof Error ? e.message : String(e))
    this.o.log?.(`frame socket: pushFrames failed unexpectedly: ${message}`)
    return { code: 'internal', message: `Something went wrong in pushFrames: ${message}` }
  }

  private send(opcode: number, payload: Uint8Array): void {
    if (this.closed) return
    this.socket.write(serverFrame(opcode, payload))
  }

  /** Sends a close frame with the reason and ends the socket; later bytes are ignored. */
  close(code: number, reason: string): void {
    if (this.closed) return
    if (code !== CLOSE.normal) this.o.log?.(`frame socket closed: ${reason}`)
    this.socket.write(serverFrame(8, closePayload(code, reason)))
    this.closed = true
    this.frame = undefined
    this.ready = []
    this.socket.end()
  }

  gone(): void {
    this.closed = true
    this.ready = []
  }
}
