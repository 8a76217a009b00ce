// window.onair for the web shell: the same contract over HTTP (calls) and a WebSocket (events), so the
// renderer cannot tell the shells apart. Auth is the HttpOnly cookie the shell set when the page opened.
import {
  CALL_NAMES,
  EVENT_NAMES,
  type EventName,
  type OnairApi,
  type OnairEvents,
  type DownloadCall,
  type RecordingDownload
} from '../../../shared/contract'
import { backoffDelay, type Backoff } from '../../../shared/backoff'
import type { Result } from '../../../shared/result'

/** Reconnects of the event socket when the shell restarts: 0.5 s, 1 s, 2 s ... up to 5 s. */
const SOCKET_BACKOFF: Backoff = { initialMs: 500, factor: 2, capMs: 5000, jitter: 0 }

/** A pushFrames call with no answer is sent again this often, FRAMES_RESEND_MS, then twice that... */
const FRAMES_RESENDS = 3
const FRAMES_RESEND_MS = 100

const unreachable = (detail: string): Result<never> => ({
  ok: false,
  error: {
    code: 'network',
    message: `Onair's web shell is not reachable (${detail}).`,
    hint: 'Check that Onair is still running in the terminal, then reload this page.'
  }
})

/** Calls whose bytes travel as the request's body (the web shell's BINARY_ARGS): the URL and the bytes. */
const BINARY: Record<string, (args: unknown[]) => [string, Uint8Array]> = {
  pushMedia: (args) => [
    `/rpc/pushMedia?runId=${encodeURIComponent(String(args[0]))}`,
    args[1] as Uint8Array
  ],
  pushFrames: (args) => [
    `/rpc/pushFrames?runId=${encodeURIComponent(String(args[0]))}`,
    args[1] as Uint8Array
  ],
  saveSceneImage: (args) => ['/rpc/saveSceneImage', args[0] as Uint8Array]
}

/**
 * Whether the page is going away (pagehide: the tab or window closes, a reload, another address). A
 * call made then (a save the page still had pending) goes out with fetch's keepalive, so it reaches
 * the shell after the page is gone, as Electron's IPC message does. Only then: browsers allow 64 KiB of
 * keepalive bodies in flight at once and refuse the call beyond that. This module's listener is
 * added before the renderer's, so the flag is set when theirs run.
 */
let leaving = false
/** The largest JSON body sent with keepalive (the browsers' 64 KiB for all in flight, with room). */
const KEEPALIVE_MAX_BYTES = 48 * 1024
if (typeof addEventListener === 'function') {
  addEventListener('pagehide', () => (leaving = true))
  // Back from the back-forward cache: the page lives on.
  addEventListener('pageshow', () => (leaving = false))
}

async function call(name: string, args: unknown[]): Promise<Result<unknown>> {
  try {
    const binary = BINARY[name]?.(args)
    const res = binary
      ? await fetch(binary[0], {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/octet-stream' },
          // A Blob of a fresh copy. Whatever the body, Chromium keeps a copy of it (a Blob's bytes in
          // the browser's blob storage; inline bytes in the page's memory) until the page's garbage
          // collector frees the request, and the collector only runs as often as the page makes
          // garbage it can count: the raw pusher reuses its buffers (byte-pool.ts), so it made almost
          // none. Measured here: raw 720p30 frames as Blobs of the reused buffer ran the blob storage
          // out (ERR_BLOB_OUT_OF_MEMORY, "Failed to fetch") 12-14 s into 11 of 32 runs, ending the
          // broadcast; inline bytes grew the page by 42 MB a second. A fresh ArrayBuffer a call counts,
          // and the collector keeps both flat. A Blob rather than inline bytes, because a DevTools
          // client (Playwright, in the e2e tests) copies inline bodies for itself: 1.9 CPU s/s and 11
          // frames/s at 720p30 attached, against 0.88 and 30 for Blobs (scripts/bench/encoder-transport.ts).
          body: new Blob([binary[1].slice()])
        })
      : await postJson(`/rpc/${name}`, JSON.stringify({ args }))
    // A value that is bytes (a scene picture) comes as the body itself.
    if (res.ok && res.headers.get('content-type') === 'application/octet-stream')
      return { ok: true, value: new Uint8Array(await res.arrayBuffer()) }
    const body = (await res.json().catch(() => null)) as Result<unknown> | null
    if (body && typeof body === 'object' && 'ok' in body) return body
    return unreachable(`HTTP ${res.status}`)
  } catch (e) {
    const r = unreachable(e instanceof Error ? e.message : String(e))
    noAnswer.add(r)
    return r
  }
}

function postJson(url: string, body: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body,
    ...(leaving && new TextEncoder().encode(body).byteLength <= KEEPALIVE_MAX_BYTES
      ? { keepalive: true }
      : {})
  })
}

/** Results of calls that got no answer at all (fetch threw: the request may not have reached Onair). */
const noAnswer = new WeakSet<Result<unknown>>()

type AnyListener = (payload: unknown) => void

/** One WebSocket for all events, reconnected with a short backoff if the shell restarts. */
function eventHub(): (event: EventName, fn: AnyListener) => () => void {
  const listeners = new Map<string, Set<AnyListener>>()
  let socket: WebSocket | null = null
  let attempt = 0
  let reachable = true
  const emit = (event: string, payload: unknown): void => {
    for (const fn of listeners.get(event) ?? []) fn(payload)
  }
  // The socket is the page's line to Onair: when it closes, Onair is gone (quit, crashed); when it
  // opens again, Onair is back.
  const setReachable = (r: boolean): void => {
    if (r === reachable) return
    reachable = r
    emit('app:reachable', { reachable: r })
  }
  const connect = (): void => {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:'
    socket = new WebSocket(`${proto}//${location.host}/events`)
    socket.onopen = () => {
      attempt = 0
      setReachable(true)
    }
    socket.onmessage = (msg) => {
      try {
        const { event, payload } = JSON.parse(String(msg.data)) as {
          event: string
          payload: unknown
        }
        emit(event, payload)
      } catch {
        // A malformed frame is dropped; the next state event corrects the picture.
      }
    }
    socket.onclose = () => {
      socket = null
      setReachable(false)
      setTimeout(connect, backoffDelay(++attempt, SOCKET_BACKOFF))
    }
  }
  return (event, fn) => {
    if (!socket) connect()
    let set = listeners.get(event)
    if (!set) listeners.set(event, (set = new Set()))
    set.add(fn)
    return () => set.delete(fn)
  }
}

export function createWebBridge(): OnairApi {
  const api: Record<string, unknown> = {}
  for (const name of CALL_NAMES) api[name] = (...args: unknown[]) => call(name, args)
  // In a browser the download is the browser's: a same-origin link the web shell answers as an
  // attachment, so the page never navigates away to the video. A rendition goes as ?rendition=.
  const save = async (name: DownloadCall, args: string[], href: string) => {
    const r = (await call(name, args)) as Result<RecordingDownload>
    if (r.ok) {
      const a = document.createElement('a')
      a.href = href
      a.download = r.value.filename
      document.body.append(a)
      a.click()
      a.remove()
    }
    return r
  }
  api.downloadRecording = (sessionId: string, rendition?: string) =>
    save(
      'downloadRecording',
      rendition === undefined ? [sessionId] : [sessionId, rendition],
      `/download/${encodeURIComponent(sessionId)}` +
        (rendition === undefined ? '' : `?rendition=${encodeURIComponent(rendition)}`)
    )
  api.downloadClip = (id: string) =>
    save('downloadClip', [id], `/download/clip/${encodeURIComponent(id)}`)
  // Raw frames for Onair's encoder: a POST a call with the bytes as a Blob, a run's calls one after
  // another so main takes them in order (the raw pusher makes the next call before the last is
  // answered; two POSTs at once could arrive out of order). Measured against a WebSocket a run
  // (bench/results.md, encoder: raw frame transport): the POST costs less CPU per frame delivered.
  //
  // A call that got no answer (the browser's "Failed to fetch": the connection reset, or closed as
  // the request went out) is sent again, up to FRAMES_RESENDS times: raw frames are safe to send twice
  // (the encoder puts a repeated picture on the next frame's slot), and one lost call must not end a
  // broadcast. An answer, even a refusal, is final.
  const framesChain = new Map<string, Promise<unknown>>()
  const sendFrames = async (runId: string, chunk: Uint8Array): Promise<Result<void>> => {
    let r = (await call('pushFrames', [runId, chunk])) as Result<void>
    for (let i = 0; i < FRAMES_RESENDS && noAnswer.has(r); i++) {
      await new Promise((resolve) => setTimeout(resolve, FRAMES_RESEND_MS * 2 ** i))
      r = (await call('pushFrames', [runId, chunk])) as Result<void>
    }
    return r
  }
  api.pushFrames = (runId: string, chunk: Uint8Array) => {
    const p = (framesChain.get(runId) ?? Promise.resolve()).then(() =>
      sendFrames(runId, chunk)
    ) as Promise<Result<void>>
    framesChain.set(runId, p)
    void p.then(() => {
      if (framesChain.get(runId) === p) framesChain.delete(runId)
    })
    return p
  }
  const subscribe = eventHub()
  const known = new Set<string>(EVENT_NAMES)
  api.on = <E extends EventName>(event: E, fn: (p: OnairEvents[E]) => void) => {
    if (!known.has(event)) throw new Error(`Unknown event: ${String(event)}`)
    return subscribe(event, fn as AnyListener)
  }
  return Object.freeze(api) as OnairApi
}
