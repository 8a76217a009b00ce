// Feeds the page's Matroska stream to whichever ffmpeg is current, and keeps the broadcast close to
// real time when the upload cannot carry it (#19).
//
// Between ffmpegs the chunks collect in a bounded MediaBuffer; a new ffmpeg first gets the header and
// data from a keyframe cluster on. While an ffmpeg runs, what it has not taken yet waits here, in a
// queue of whole clusters, never in the page (a push is taken at once) and never in a deep pipe
// (ffmpeg's stdin is handed media only LEAD_MS ahead of what it has sent, and PIPE_BYTES at a time).
// The queue is measured in media time: from the newest media that arrived to the media ffmpeg has
// sent out (its progress out_time), less what was dropped. Past dropAfterMs the clusters not yet
// started are dropped, the one being written ends at its next block, and so is dropped what follows
// until a cluster that starts on a keyframe: the viewers see a jump, never a delay that grows without
// bound. The page is asked for a keyframe at once (onDrop) so the jump is short. The local recording
// is written before this (main's Broadcaster), so it keeps every frame. The uplink controller hears of
// the queue only when the link is what holds it (feedStats, congested).
import type { Writable } from 'node:stream'
import { AppFailure } from '../../../shared/result'
import { SlidingWindow, kbitPerSecond } from '../../../shared/sliding-window'
import { MediaBuffer, type MediaPiece, type MediaUnit } from './media-buffer'
// Its numbers (what each is, and why that much): the uplink's one tuning table.
import {
  ARRIVAL_SPAN_MS,
  BLOCKED_FOR_MS,
  CATCH_UP_SPAN_MS,
  CATCHING_UP,
  DROP_AFTER_MS,
  LATE_GRACE_MS,
  LATE_MS,
  LEAD_MS,
  LEAD_RECHECK_MS,
  PIPE_BYTES
} from './uplink/tuning'

export interface FeedStats {
  /**
   * Media waiting between the page's encoder and the socket (ms): here, in the pipe, in ffmpeg, less
   * what was dropped. 0 unless the link is short: ffmpeg has stopped taking media for BLOCKED_FOR_MS,
   * or has not yet sent what came before a drop.
   */
  queuedMs: number
  /** Bytes waiting here and in stdin's buffer. */
  queuedBytes: number
  /** Media dropped so far to stay close to real time (ms), and how many times. */
  droppedMs: number
  drops: number
}

export interface MediaFeedOptions {
  maxBytes?: number
  dropAfterMs?: number
  /** Media was dropped up to the next keyframe: ask the encoder for one now. */
  onDrop?: () => void
  now?: () => number
  /** How often ffmpeg reports its sent time: between reports it is taken to go on at real time. */
  reportEveryMs?: number
}

export class MediaFeed {
  private buffer: MediaBuffer
  private sink: Writable | null = null
  private feeding = false
  private ended = false
  private queue: MediaPiece[] = []
  private queueBytes = 0
  /** The cluster being written: the rest of it follows, unless a drop cuts it (cutCurrent). */
  private current: MediaUnit | null = null
  /** Dropping until a cluster that starts on a keyframe. */
  private skipping = false
  /**
   * The drop also ends the cluster being written, at its next block: without it the rest of that
   * cluster (a whole keyframe interval, 2 s by default) still went to a link that could not carry it.
   */
  private cutCurrent = false
  private skipFromMs: number | undefined
  /** This attempt's dropped clusters (a later attempt may start on one of them again). */
  private dropped = new WeakSet<MediaUnit>()
  /** The media time this attempt's output started at, and how far ffmpeg has sent (its out_time). */
  private baseMs: number | undefined
  private sentMs: number | undefined
  private sentAt = 0
  /** ffmpeg's recent reports (sent media ms, wall ms), for how fast it sends now. */
  private reports: { ms: number; at: number }[] = []
  private waitingDrain = false
  /** The media time of the newest block handed to stdin (this attempt). */
  private writtenMs: number | undefined
  /**
   * The media this attempt dropped, [from, to): ffmpeg's sent time jumps over each once it sends
   * what follows, but until then the span is no media waiting. (Counted as waiting, it kept the
   * queue over the threshold after every drop until ffmpeg had sent past it: measured in the uplink
   * bench, drop followed drop: 7 s of 40 went at a 40% throttle.)
   */
  private gaps: { from: number; to: number }[] = []
  private recheck: ReturnType<typeof setTimeout> | undefined
  /** Since when main has held media that ffmpeg would not take (undefined: it takes all). */
  private blockedSince: number | undefined
  private readonly dropAfterMs: number
  private stats = { droppedMs: 0, drops: 0 }
  /**
   * When media time 0 was made (ms since epoch): the earliest `arrival − media time` of the stream's
   * picture (its video blocks; the sound's where there is none). Media cannot arrive before it is
   * made, and the page hands it over as it encodes; a backlog waits here, after this clock, so it
   * does not skew it. The sound is left out: the page can stamp it ahead of its picture (another
   * capture clock), and the live monitor measures pictures.
   */
  private madeEpoch: number | undefined
  /** What the page handed over lately (wall ms, bytes), for the rate its encoder makes. */
  private arrivals = new SlidingWindow<{ at: number; bytes: number }>(ARRIVAL_SPAN_MS, 'within')
  /** The newest media that arrived late (a page that stalled and caught up); see LATE_MS. */
  private lateUntilMs: number | undefined
  private lateAt = 0

  constructor(private readonly o: MediaFeedOptions = {}) {
    this.buffer = new MediaBuffer(o.maxBytes)
    this.dropAfterMs = o.dropAfterMs ?? DROP_AFTER_MS
  }

  /** A new ffmpeg's stdin: it starts on a keyframe as soon as one is buffered. */
  attach(stdin: Writable): void {
    stdin.on('error', () => {
      // EPIPE when ffmpeg dies mid-write: the exit handler deals with the death itself.
    })
    this.sink = stdin
    this.feeding = false
    this.waitingDrain = false
    this.trySync()
  }

  detach(): void {
    this.sink = null
    this.feeding = false
    this.queue = []
    this.queueBytes = 0
    this.current = null
    this.skipping = false
    this.cutCurrent = false
    this.dropped = new WeakSet()
    this.baseMs = undefined
    this.sentMs = undefined
    this.reports = []
    this.lateUntilMs = undefined
    this.writtenMs = undefined
    this.gaps = []
    this.blockedSince = undefined
    this.clearRecheck()
  }

  /** Closing stdin (once what is queued has gone) lets ffmpeg finish and unpublish in order. */
  end(): void {
    this.ended = true
    this.pump()
  }

  /**
   * Takes one chunk at once: what ffmpeg cannot take yet waits here, bounded by dropping. Throws if
   * the data is not Matroska.
   */
  push(chunk: Buffer): Promise<void> {
    if (this.ended) return Promise.resolve()
    this.arrivals.push({ at: this.now(), bytes: chunk.length })
    let pieces: MediaPiece[]
    try {
      pieces = this.buffer.push(chunk)
    } catch (e) {
      throw new AppFailure({
        code: 'media',
        message: `The captured media is not WebM/Matroska as expected: ${(e as Error).message}.`,
        hint: 'Record with a MediaRecorder mimeType such as video/webm;codecs=h264,opus.'
      })
    }
    // The picture's clock (see madeEpoch).
    const newest = this.buffer.newestVideoMs ?? this.buffer.newestMs
    if (newest !== undefined) {
      const epoch = this.now() - newest
      this.madeEpoch = Math.min(this.madeEpoch ?? epoch, epoch)
      // Media that arrives late came from a page that stalled: until ffmpeg has sent it, what
      // waits is the page's catch-up, not the link's backlog (it may still be dropped: the delay
      // it adds is real, but it says nothing of the link, so the controller is not told).
      if (epoch - this.madeEpoch > LATE_MS) {
        this.lateUntilMs = newest
        this.lateAt = this.now()
      }
    }
    const sink = this.sink
    if (!sink || sink.destroyed) return Promise.resolve()
    if (!this.feeding) {
      this.trySync()
      return Promise.resolve()
    }
    for (const p of pieces) this.enqueue(p)
    this.judge()
    this.pump()
    return Promise.resolve()
  }

  /** ffmpeg's progress: media time sent out by this attempt (µs since its start). */
  noteSent(outTimeUs: number): void {
    if (!this.feeding || outTimeUs <= 0) return
    // The first report: the output has only now started (ffmpeg probed its input and connected
    // meanwhile, taking nothing). What piled up before it is a catch-up, not a backlog: the blocked
    // clock starts now, so a link that is free swallows it (measured: judged from the earlier clock,
    // every broadcast lost its first keyframe interval, and the monitor's delay was 2 s too high).
    if (this.sentMs === undefined && this.blockedSince !== undefined) this.blockedSince = this.now()
    const at = this.now()
    // ffmpeg sending faster than real time is catching up (a burst from a page that stalled, on a
    // link that takes it): what main holds meanwhile is no sign of a short link, so the blocked
    // clock starts again. Judged over CATCH_UP_SPAN_MS, not report to report: ffmpeg blocked on its
    // socket also moves on in jumps (the small frames after a keyframe that finally went).
    this.reports.push({ ms: outTimeUs / 1000, at })
    while (this.reports.length > 2 && at - this.reports[1]!.at >= CATCH_UP_SPAN_MS)
      this.reports.shift()
    const prev = this.reports[0]!
    if (
      at - prev.at >= CATCH_UP_SPAN_MS &&
      (outTimeUs / 1000 - prev.ms) / (at - prev.at) >= CATCHING_UP
    )
      this.blockedSince = this.blockedSince === undefined ? undefined : at
    this.sentMs = outTimeUs / 1000
    this.sentAt = at
    const sent = this.sentNowMs()
    // Spans ffmpeg has sent past are history.
    if (sent !== undefined) this.gaps = this.gaps.filter((g) => g.to > sent)
    this.judge()
    this.pump()
  }

  private enqueue(p: MediaPiece): void {
    this.queue.push(p)
    this.queueBytes += p.bytes.length
  }

  private trySync(): void {
    const sink = this.sink
    if (!sink || this.feeding) return
    const start = this.buffer.startPoint()
    if (!start) return
    this.feeding = true
    this.baseMs = start.find((p) => p.unit?.timeMs !== undefined)?.unit?.timeMs
    for (const p of start) this.enqueue(p)
    this.pump()
  }

  private now(): number {
    return (this.o.now ?? Date.now)()
  }

  /** ffmpeg has not taken what main holds for BLOCKED_FOR_MS: the socket is what limits. */
  private blocked(): boolean {
    return this.blockedSince !== undefined && this.now() - this.blockedSince >= BLOCKED_FOR_MS
  }

  /** ffmpeg is still sending media that came late from the page (LATE_MS). */
  private catchingUp(): boolean {
    if (this.lateUntilMs === undefined || this.now() - this.lateAt > LATE_GRACE_MS) return false
    const sent = this.sentNowMs()
    return sent === undefined || sent < this.lateUntilMs
  }

  /**
   * The link is short: main holds what ffmpeg will not take, or media was dropped and ffmpeg has not
   * yet sent what came before the drop (the drop emptied main's queue, not the link's).
   */
  private congested(): boolean {
    if (this.catchingUp()) return false
    return this.blocked() || this.skipping || this.gaps.length > 0
  }

  /**
   * How far (the stream's media time) ffmpeg has sent out by now, once it has said. A report is up to
   * one period old: meanwhile ffmpeg went on sending, at most at real time (a blocked ffmpeg is found
   * at the next report, one period later).
   */
  private sentNowMs(): number | undefined {
    if (this.sentMs === undefined || this.baseMs === undefined) return undefined
    const since = Math.min(this.o.reportEveryMs ?? 0, Math.max(0, this.now() - this.sentAt))
    return this.baseMs + this.sentMs + since
  }

  /** Media between two media times, less what was dropped between them (ms). */
  private span(from: number, to: number): number {
    let ms = to - from
    const skip =
      this.skipping && this.skipFromMs !== undefined
        ? [{ from: this.skipFromMs, to: Infinity }]
        : []
    for (const g of [...this.gaps, ...skip])
      ms -= Math.max(0, Math.min(g.to, to) - Math.max(g.from, from))
    return Math.max(0, ms)
  }

  /** Media waiting between the newest arrival and what ffmpeg has sent (ms). */
  private queuedMs(): number {
    const newest = this.buffer.newestMs
    if (newest === undefined || this.baseMs === undefined) return 0
    const sent = this.sentNowMs() ?? this.oldestQueuedMs()
    return sent === undefined ? 0 : this.span(sent, newest)
  }

  /**
   * A block that would put ffmpeg more than LEAD_MS ahead of what it has sent waits here. Never while
   * ffmpeg has sent all it was given, nor before its first report (the catch-up as it starts).
   */
  private aheadOfLead(blockMs: number | undefined): boolean {
    if (blockMs === undefined || this.writtenMs === undefined) return false
    const sent = this.sentNowMs()
    if (sent === undefined || this.span(sent, this.writtenMs) <= 0) return false
    return this.span(sent, blockMs) > LEAD_MS
  }

  private clearRecheck(): void {
    if (this.recheck) clearTimeout(this.recheck)
    this.recheck = undefined
  }

  private oldestQueuedMs(): number | undefined {
    for (const p of this.queue) if (p.unit?.timeMs !== undefined) return p.unit.timeMs
    return undefined
  }

  /** Past the threshold, drop what has not started and skip to the next keyframe cluster. */
  private judge(): void {
    // Before ffmpeg's first progress the output has not started: its catch-up is not a backlog.
    if (this.skipping || this.sentMs === undefined || !this.blocked()) return
    if (this.queuedMs() <= this.dropAfterMs) return
    const kept: MediaPiece[] = []
    let firstDropped: number | undefined
    for (const p of this.queue) {
      if (p.unit === null || (p.unit === this.current && !this.dropped.has(p.unit))) {
        kept.push(p)
        continue
      }
      this.dropped.add(p.unit)
      firstDropped ??= p.unit.timeMs
    }
    this.queue = kept
    this.queueBytes = kept.reduce((n, p) => n + p.bytes.length, 0)
    this.skipping = true
    // A drop in the page's catch-up is the page's too: what it skips to comes after.
    if (this.catchingUp()) this.lateUntilMs = Math.max(this.lateUntilMs!, this.buffer.newestMs ?? 0)
    this.cutCurrent = this.current !== null
    this.skipFromMs = firstDropped ?? this.buffer.newestMs
    this.stats.drops++
    this.o.onDrop?.()
  }

  private pump(): void {
    const sink = this.sink
    if (!sink || sink.destroyed || !this.feeding) return
    // Dropped media is let go at once; what is written waits for room in the pipe.
    while (this.queue.length > 0) {
      const p = this.queue[0]!
      const unit = p.unit
      if (unit && this.dropped.has(unit)) {
        this.shift()
        continue
      }
      if (unit && unit === this.current && this.cutCurrent && p.blockMs !== undefined) {
        // The cluster being written ends here, between two blocks: the rest of it is dropped too.
        this.cutCurrent = false
        this.dropped.add(unit)
        this.skipFromMs = Math.min(this.skipFromMs ?? p.blockMs, p.blockMs)
        this.shift()
        continue
      }
      if (unit && unit !== this.current) {
        if (this.skipping) {
          // A new cluster while skipping: wait until its first video block says key or not.
          if (unit.key === undefined) break
          if (!unit.key) {
            this.dropped.add(unit)
            this.shift()
            continue
          }
          this.skipping = false
          this.cutCurrent = false
          if (this.skipFromMs !== undefined && unit.timeMs !== undefined) {
            this.stats.droppedMs += Math.max(0, unit.timeMs - this.skipFromMs)
            this.gaps.push({ from: this.skipFromMs, to: unit.timeMs })
          }
        }
        this.current = unit
      }
      if (sink.writableLength >= PIPE_BYTES) break
      if (this.aheadOfLead(p.blockMs)) {
        // ffmpeg has enough: look again once its sent time has moved on.
        this.recheck ??= setTimeout(() => {
          this.recheck = undefined
          this.pump()
        }, LEAD_RECHECK_MS)
        this.recheck.unref?.()
        break
      }
      if (p.blockMs !== undefined) this.writtenMs = Math.max(this.writtenMs ?? p.blockMs, p.blockMs)
      this.shift()
      sink.write(p.bytes)
    }
    // Blocked while media waits here that ffmpeg will not take yet; free once all of it went.
    if (this.queue.length === 0) this.blockedSince = undefined
    else this.blockedSince ??= this.now()
    if (this.queue.length === 0 && this.ended) {
      sink.end()
      return
    }
    if (this.queue.length > 0 && !this.waitingDrain && sink.writableLength >= PIPE_BYTES) {
      this.waitingDrain = true
      sink.once('drain', () => {
        this.waitingDrain = false
        this.pump()
      })
    }
  }

  private shift(): void {
    const p = this.queue.shift()
    if (p) this.queueBytes -= p.bytes.length
  }

  /**
   * When (ms since epoch) the media at this attempt's output time 0 was made: its start point's time
   * on the stream's own clock. ffmpeg's output time runs from its first packet, the start point's. The
   * live monitor's delay is measured against it (LiveHealthEvent.mediaEpoch); undefined until known.
   */
  get outputEpoch(): number | undefined {
    return this.madeEpoch === undefined || this.baseMs === undefined
      ? undefined
      : this.madeEpoch + this.baseMs
  }

  /** The current ffmpeg has been given a start point and is receiving media. */
  get synced(): boolean {
    return this.feeding
  }

  /** What the page's encoder made over the last ARRIVAL_SPAN_MS (kbit/s), or undefined too early. */
  madeKbps(): number | undefined {
    const first = this.arrivals.first
    if (!first) return undefined
    const span = Math.max(this.now() - first.at, 0)
    if (span < ARRIVAL_SPAN_MS / 2) return undefined
    const bytes = this.arrivals.samples.reduce((n, a) => n + a.bytes, 0) - first.bytes
    return kbitPerSecond(bytes, span)
  }

  feedStats(): FeedStats {
    return {
      queuedMs: this.congested() ? Math.round(this.queuedMs()) : 0,
      queuedBytes: this.queueBytes + (this.sink?.writableLength ?? 0),
      droppedMs: Math.round(this.stats.droppedMs),
      drops: this.stats.drops
    }
  }
}
