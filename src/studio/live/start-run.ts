// A publish's run starts: the source recorder (the recording; its media time is the session's) and,
// with profiles, the ladder, each supervised on its own; the live master playlist once they have
// playlists; and the run's multistream targets once its media can be pulled.
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { FfmpegExit } from '../../node/ffmpeg/supervised'
import { impossibleProfiles } from '../../shared/profiles'
import { TranscodeHealth } from '../health'
import type { Publisher } from '../ingest'
import { type RenditionInfo, runDir, writeRunMaster, writeRunRenditions } from '../recordings'
import { setRuns, updateProgress } from '../session-store'
import { setActive, setStreamDuration } from '../stream-store'
import {
  ladderArgs,
  ladderRenditions,
  sourceArgs,
  sourceRendition,
  startTranscoder,
  type SourceInfo
} from '../transcoder'
import { sleep, type LiveOptions, type Run } from './run'

/** A ladder whose media time has not advanced for this long, while the source's has, is hung. */
const LADDER_STALL_MS = 10_000

/** How long the live master waits for the ladder's playlists once the source has one. */
const LADDER_WAIT_MS = 6000

/** Why a ladder attempt ended, in words for the stream's issues. */
export function exitCause(exit: FfmpegExit): string {
  if (exit.spawnError) return `ffmpeg did not start: ${exit.spawnError.message}`
  if (exit.stalled) return 'it stopped making progress'
  if (exit.signal) return `killed by ${exit.signal}`
  const last = exit.stderr.filter((l) => l.trim()).pop()
  return `ffmpeg exited with code ${exit.code}${last ? `: ${last.trim().slice(0, 200)}` : ''}`
}

async function waitForMeta(p: Publisher, ms: number): Promise<void> {
  const until = Date.now() + ms
  while (p.meta().width === 0 && Date.now() < until) await sleep(50)
}

export async function startRun(
  o: LiveOptions,
  run: Run,
  p: Publisher,
  reconcile: (run: Run) => void
): Promise<void> {
  // The previous run's ffmpegs must be gone: the source's media time is the base of this run's.
  if (run.transcoder || run.ladder) {
    await Promise.all([run.transcoder?.done, run.ladder?.done])
    run.priorSeconds += run.lastProgress
    run.lastProgress = 0
    run.transcoder = undefined
    run.ladder = undefined
  }
  await waitForMeta(p, 1500)
  if (!run.publishing || run.finalizing) return
  const m = p.meta()
  const src: SourceInfo = {
    // No metadata at all: assume the usual audio + H.264 (what Onair and OBS send).
    hasAudio: m.width === 0 ? true : m.audioCodec !== 0,
    videoIsH264: m.videoCodec === 7 || m.videoCodec === 0,
    audioIsAac: m.audioCodec === 10,
    width: m.width,
    height: m.height,
    videoBitrate: m.videoKbps * 1000
  }
  const profiles = run.session.profiles
  const source = sourceRendition(src)
  const ladder = profiles.length > 0 ? ladderRenditions(profiles, src.hasAudio) : []
  // The source first: the best rendition, and the one that is always there.
  const renditions = [source, ...ladder]
  const input = o.ingest().pullUrl(p.streamKey)
  // Each of our pullers names itself: the ingest says where its media begins (onPuller).
  const sourceInput = o.ingest().pullUrl(p.streamKey, 'source')
  const ladderInput = o.ingest().pullUrl(p.streamKey, 'ladder')
  const dir = runDir(o.dataDir, run.session.id, run.run)
  await mkdir(dir, { recursive: true })
  await writeRunRenditions(dir, renditions)
  setRuns(o.db, run.session.id, run.run + 1)
  const health = new TranscodeHealth(ladder.length > 0, Date.now())
  run.transcodeHealth = health
  const live = (): boolean => run.publishing && !run.finalizing
  const log = (what: string, exit: FfmpegExit, next?: { delayMs: number }): void => {
    if (exit.code !== 0 && exit.code !== 255)
      o.log(
        `live: ${what} of session ${run.session.id} ${exit.spawnError ? `did not start: ${exit.spawnError.message}` : `exited ${exit.signal ?? exit.code}: ${exit.stderr.slice(-5).join(' | ')}`}` +
          (next ? `; restarting in ${next.delayMs} ms` : '')
      )
  }

  // The source recorder: copies what arrives, so the recording never depends on the ladder. A
  // restart after a crash goes on in the same playlist (a discontinuity marks the join).
  const stopPoll = pollMaster(dir, renditions, health)
  let sourceAdvanced = Date.now()
  run.media = { pullUrl: input, dir }
  try {
    reconcile(run)
  } catch (err) {
    o.log(
      `multistream: targets of session ${run.session.id} not started: ${(err as Error).message}`
    )
  }
  run.transcoder = startTranscoder({
    ffmpeg: o.ffmpeg,
    prepare: async (n) => {
      if (n > 1) {
        if (!live()) throw new Error('the publish has ended')
        run.priorSeconds += run.lastProgress
        run.lastProgress = 0
        health.sourceAttempt()
        o.log(`live: source recorder of session ${run.session.id} restarts (attempt ${n})`)
      }
      return { args: sourceArgs(sourceInput, dir, src, n > 1), renditions: [source], out: dir }
    },
    restartable: live,
    onProgress: (sec) => {
      if (sec > run.lastProgress) sourceAdvanced = Date.now()
      run.lastProgress = sec
      health.sourceProgress(Date.now(), sec)
      // ffmpeg's last progress lines can arrive after the run was finalized (and the store closed).
      if (run.finalizing) return
      const now = Date.now()
      try {
        updateProgress(o.db, run.session.id, run.priorSeconds + sec, now)
        setStreamDuration(o.db, run.stream.id, run.priorSeconds + sec)
        setActive(o.db, run.stream.id, true, now)
      } catch (err) {
        o.log(`live: progress of session ${run.session.id} not saved: ${(err as Error).message}`)
      }
    },
    onExit: (exit, next) => log('source recorder', exit, next)
  })
  void run.transcoder.done.then(stopPoll)
  if (ladder.length === 0) return

  // The ladder. Profiles no encoder can make (a stored stream from before the rule, or a
  // database edited by hand) are not tried: the transcoding has failed, with that cause.
  const impossible = impossibleProfiles(profiles)
  if (impossible.length > 0) {
    health.failed(impossible.map((i) => i.message).join('; '), Date.now())
    o.log(
      `live: session ${run.session.id} is not transcoded: ${impossible.map((i) => `${i.field}: ${i.message}`).join('; ')}`
    )
    return
  }
  run.ladder = startTranscoder({
    ffmpeg: o.ffmpeg,
    prepare: async (n) => {
      if (n > 1) {
        if (!live()) throw new Error('the publish has ended')
        o.log(`live: transcoder of session ${run.session.id} restarts (attempt ${n})`)
      }
      health.attempt()
      return {
        args: ladderArgs(ladderInput, dir, profiles, src, n > 1),
        renditions: ladder,
        out: dir
      }
    },
    restartable: live,
    // A ladder that fails at once may work the next time (the pull, a busy machine): the backoff
    // keeps a hopeless one cheap.
    restartNeverUp: true,
    // A ladder whose media time stops while the source's goes on has hung: killed (the cause
    // says so) and restarted. A source that is quiet itself excuses it.
    stallMs: LADDER_STALL_MS,
    stallExcused: () => Date.now() - sourceAdvanced > LADDER_STALL_MS / 3,
    onProgress: (sec) => health.ladderProgress(Date.now(), sec),
    onFlowing: () => health.flowing(Date.now()),
    onExit: (exit, next) => {
      if (!exit.stopped && exit.code !== 0 && live()) health.failed(exitCause(exit), Date.now())
      log('transcoder', exit, next)
    }
  })
}

/**
 * Writes a run's master playlist once the source has a playlist and the ladder has one too (or
 * has had a few seconds, or has failed: the source plays meanwhile), and again as more
 * renditions appear. Players that load it later get the whole ladder.
 */
function pollMaster(dir: string, renditions: RenditionInfo[], health: TranscodeHealth): () => void {
  let listed = 0
  let sourceSince: number | undefined
  const writeMaster = async (): Promise<void> => {
    const have = renditions.filter((r) => existsSync(join(dir, r.dir, 'index.m3u8')))
    if (!have.includes(renditions[0]!)) return
    sourceSince ??= Date.now()
    const waiting =
      have.length < renditions.length &&
      Date.now() - sourceSince < LADDER_WAIT_MS &&
      !health.issues().length
    if (waiting || have.length <= listed) return
    listed = have.length
    await writeRunMaster(dir, have)
  }
  const poll = setInterval(() => void writeMaster().catch(() => undefined), 200)
  return () => {
    clearInterval(poll)
    void writeMaster().catch(() => undefined)
  }
}
