// Multistream forwarding: one ffmpeg per target per publish run, copying (never re-encoding) what
// the session already has to the target's URL.
//
// Where the media comes from:
// - "source": the run is played from the studio's own RTMP ingest over loopback (the transcoder's
//   way in, with the same token), video and audio copied.
// - a profile: the rendition the transcoder is already writing, read from its live HLS media
//   playlist (runDir/vI/index.m3u8) and copied. This keeps the session's ladder exactly as it is
//   (no extra outputs in the transcoder, so a target can never stall or fail it) and costs only a
//   demux and a remux per target: the lowest CPU of the options. The price is latency: the target
//   gets each segment once it is complete (2 s segments), which a multistream viewer never sees.
//
// Each forwarder is a supervised ffmpeg (node/ffmpeg/supervised.ts): a target that refuses, drops,
// stalls or does not answer is retried with FORWARD_BACKOFF (shared/backoff.ts) and
// reported as one issue string; it never touches the session, its recording or other targets.
import { existsSync } from 'node:fs'
import { QUIET_WITH_PROGRESS } from '../node/ffmpeg/progress'
import { pushOutputArgs } from '../node/ffmpeg/push'
import { SupervisedFfmpeg } from '../node/ffmpeg/supervised'
import type { Backoff } from '../shared/backoff'
import { DESTINATION_LIVE_AFTER_US, retryingIssue, startingIssue } from '../shared/destinations'
import { redactSecrets, targetUrlSecrets } from '../shared/redact'

/**
 * Retry schedule: 1 s, 1.5 s, 2.25 s ... capped at 5 s, ±20 %. The cap is short (the broadcaster's
 * RECONNECT_BACKOFF waits up to 30 s) so a target whose server comes back is live again within a
 * few seconds: a retry costs one local ffmpeg start and a TCP connect, nothing to the session.
 */
export const FORWARD_BACKOFF: Backoff = { initialMs: 1000, factor: 1.5, capMs: 5000, jitter: 0.2 }

/** A forwarder whose media time stops advancing this long (a dead playlist, a hung target) is restarted. */
export const FORWARD_STALL_MS = 20_000

export interface ForwardTarget {
  targetId: string
  /** The target's name (the reference defaults it to the URL's host). */
  name: string
  url: string
  profile: string
  videoOnly: boolean
}

/** Where the forwarded media is read: the ingest (source) or a rendition's live playlist. */
export type ForwardInput = { kind: 'rtmp'; url: string } | { kind: 'hls'; playlist: string }

/** ffmpeg's arguments for one forwarder. Copy only: no decoding, no encoding. */
export function forwardArgs(input: ForwardInput, t: ForwardTarget): string[] {
  const args = [...QUIET_WITH_PROGRESS]
  if (input.kind === 'rtmp') {
    // Ends the pull if the ingest goes silent instead of hanging (the publisher left).
    args.push('-rw_timeout', '5000000', '-i', input.url)
  } else {
    // Start at the newest segment: the target gets live media, not a burst of the past.
    args.push('-live_start_index', '-1', '-i', input.playlist)
  }
  args.push('-map', '0:v:0')
  if (!t.videoOnly) args.push('-map', '0:a:0?')
  args.push('-c', 'copy')
  if (t.videoOnly) args.push('-an')
  args.push(...pushOutputArgs(t.url))
  return args
}

/**
 * Why a forward attempt ended, in a short phrase, from ffmpeg's (redacted) last stderr lines and
 * whether media had reached the target in this attempt.
 */
export function forwardFailureReason(lines: readonly string[], wasFlowing: boolean): string {
  const text = lines.join('\n')
  if (wasFlowing) return 'connection lost'
  if (/connection refused/i.test(text)) return 'connection refused'
  if (
    /server error|NetStream\.Publish\.(BadName|Failed|Rejected|Denied)|unauthori[sz]ed|forbidden|authentication|access denied|\b40[13]\b/i.test(
      text
    )
  )
    return 'the server rejected the stream key'
  if (
    /timed out|timeout|no route to host|unreachable|name or service not known|could not resolve|failed to resolve|temporary failure in name resolution|nodename nor servname/i.test(
      text
    )
  )
    return 'no answer from the server'
  if (/protocol not found|unsupported protocol/i.test(text))
    return 'this kind of address is not supported'
  // The server took the connection and closed it before the publish started: a refusal (a wrong
  // key is how RTMP servers, the local studio included, usually end up here).
  if (
    /end of file|connection reset|broken pipe|input\/output error|error number -(104|32|5)\b/i.test(
      text
    )
  )
    return 'the server rejected the stream key'
  return 'the stream could not be sent'
}

export interface ForwarderOptions {
  ffmpeg: string
  target: ForwardTarget
  input: ForwardInput
  log: (line: string) => void
  /** Called whenever the forwarder's issue appears, changes or clears. */
  onChange?: () => void
  backoff?: Backoff
}

export type ForwarderState = 'starting' | 'live' | 'retrying' | 'stopped'

const sleep = (ms: number, signal: { cancel?: () => void }): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms)
    signal.cancel = () => {
      clearTimeout(t)
      resolve()
    }
  })

/**
 * One target of one publish run: a supervised ffmpeg (restarts with FORWARD_BACKOFF), starting until
 * media has flowed to the target for 1.5 s (DESTINATION_LIVE_AFTER_US), live only then, stopped on
 * request.
 */
export class Forwarder {
  private stopped = false
  private ffmpeg?: SupervisedFfmpeg
  private wait: { cancel?: () => void } = {}
  private reason?: string
  private loop?: Promise<void>
  state: ForwarderState = 'starting'
  readonly secrets: string[]

  constructor(private readonly o: ForwarderOptions) {
    this.secrets = targetUrlSecrets(o.target.url)
  }

  get target(): ForwardTarget {
    return this.o.target
  }

  /** The target's name can change while it runs (PATCH): only the issue text uses it. */
  rename(name: string): void {
    this.o.target.name = name
    if (this.issue()) this.o.onChange?.()
  }

  /** The contract issue string while the target is starting or retrying, else undefined. */
  issue(): string | undefined {
    if (this.stopped) return undefined
    const t = this.o.target
    if (this.state === 'starting') return startingIssue({ id: t.targetId, name: t.name })
    if (!this.reason) return undefined
    return retryingIssue({ id: t.targetId, name: t.name }, this.reason)
  }

  start(): void {
    this.loop ??= this.run().catch((err: Error) =>
      this.log(`stopped by an error: ${redactSecrets(err.message, this.secrets)}`)
    )
  }

  /** Stops the current ffmpeg ('q': an orderly unpublish at the target) and any pending retry. */
  async stop(graceMs = 3000): Promise<void> {
    this.stopped = true
    this.state = 'stopped'
    this.wait.cancel?.()
    await this.loop
    await this.ffmpeg?.stop(graceMs)
  }

  private log(line: string): void {
    const t = this.o.target
    this.o.log(
      redactSecrets(
        `multistream: target "${t.name}" (${t.targetId}, ${t.profile}) ${line}`,
        this.secrets
      )
    )
  }

  private setReason(reason: string | undefined): void {
    if (this.reason === reason) return
    this.reason = reason
    this.o.onChange?.()
  }

  private async run(): Promise<void> {
    const input = this.o.input
    // A rendition's playlist appears a moment after the transcoder starts.
    while (!this.stopped && input.kind === 'hls' && !existsSync(input.playlist))
      await sleep(200, this.wait)
    if (this.stopped) return
    // This attempt's media is flowing (the shared definition) and its connection is up.
    let flowing = false
    // When this attempt's first progress block came: the connection must also have lasted 1.5 s.
    let firstBlockAt: number | undefined
    this.ffmpeg = new SupervisedFfmpeg({
      ffmpeg: this.o.ffmpeg,
      args: () => forwardArgs(input, this.o.target),
      backoff: this.o.backoff ?? FORWARD_BACKOFF,
      secrets: this.secrets,
      ringLines: 20,
      stallMs: FORWARD_STALL_MS,
      onFlowing: () => (flowing = true),
      // Live only once DESTINATION_LIVE_AFTER_US of media has gone out on a connection that is
      // still up: a target that takes the publish and then refuses the key (node-media-server does)
      // ends the attempt long before, so it goes from starting to retrying, never through live.
      // Media time alone is not enough: a source read from the ingest starts with the server's
      // cached keyframe group, seconds of media written at once, before a slow refusal arrives. So
      // the connection must also have stayed up 1.5 s of wall time since its first block.
      onProgress: (b) => {
        firstBlockAt ??= Date.now()
        if (!flowing || b.end || b.outTimeUs < DESTINATION_LIVE_AFTER_US) return
        if (Date.now() - firstBlockAt < DESTINATION_LIVE_AFTER_US / 1000) return
        if (this.state === 'live' || this.stopped) return
        this.state = 'live'
        this.log('is live')
        this.reason = undefined
        this.o.onChange?.()
      },
      onExit: (exit, next) => {
        flowing = false
        firstBlockAt = undefined
        if (!next || this.stopped) return
        // A stall (its media time stopped) reads as what it is: lost when it had been flowing.
        const reason = exit.spawnError
          ? 'ffmpeg could not be started'
          : forwardFailureReason(exit.stderr.slice(-8), exit.wasUp)
        const last = exit.stderr.slice(-1)[0] ?? `exit ${exit.code ?? exit.signal}`
        this.log(
          `is retrying in ${next.delayMs} ms (attempt ${next.attempt}): ${reason} [${last.slice(0, 300)}]`
        )
        this.state = 'retrying'
        this.setReason(reason)
      }
    })
    this.ffmpeg.start()
  }
}
