// Every number of the uplink loop (#19, #33) in one table: the media queue between the encoder and the
// socket (media-feed.ts, media-buffer.ts, the broadcaster's ffmpeg arguments), the controller that sets
// the encoder's bitrate (controller.ts), what the supervisor measures for it, and the health meter
// (congestion.ts, cpu-load.ts). docs/uplink-controller.md says the rules these numbers are used in, and
// lists the page's own numbers (its WebCodecs fallback, which cannot import main). The history of how
// each was found is in bench/notes/uplink-controller.md. Change one here, then run the closed-loop
// simulation (tests/unit/core/uplink-sim.test.ts) before the uplink bench.

// ---- The broadcaster's ffmpeg (args.ts) -------------------------------------------------------------

/**
 * ffmpeg's progress ten times a second: the feed hands it media up to LEAD_MS ahead of what it has
 * sent, so the sooner it says, the faster a free link takes a burst.
 */
export const PROGRESS_PERIOD_S = 0.1
/**
 * Packets ffmpeg's input thread may hold (`-thread_queue_size`): little waits inside ffmpeg; the
 * queue lives in main, where it is measured and dropped. (ffmpeg 5.1 reads one input on its main
 * thread anyway.)
 */
export const FFMPEG_INPUT_PACKETS = 16
/**
 * The most one stream waits in ffmpeg's muxer for the other (`-max_interleave_delta`, µs): 1, so a
 * packet never waits (0 would mean without limit; ffmpeg's default holds up to 10 s). The page's
 * Matroska comes interleaved by time already (mediabunny's muxer, as MediaRecorder's, holds a picture
 * until sound past it is in), so all ffmpeg waited for was its own AAC encoder, which hands out the
 * sound of a moment only two frames (~43 ms) later. At 300 ms (before 28 Nov) each picture waited for
 * it: bench:studio-mode, alternated in one session, medians 145, 144, 165, 162 ms at 300 ms against
 * 136, 188, 118, 99 ms at 1 µs, and one 300 ms run sat at 466 ms throughout.
 */
export const INTERLEAVE_DELTA_US = 1
/**
 * The socket's send buffer (`-send_buffer_size`; the OS doubles it): about this much of the stream,
 * at least SEND_BUFFER_MIN_BYTES. Smaller hides less delay from the queue on a slow link; larger keeps
 * a long, fast path full (2 × 49 KiB at 2.6 Mbit/s carries the full rate up to ~300 ms of round trip).
 */
export const SEND_BUFFER_MS = 150
export const SEND_BUFFER_MIN_BYTES = 16 * 1024

/** The broadcaster's send buffer (bytes) for a stream of `kbps` (video + audio). */
export function sendBufferFor(kbps: number): number {
  return Math.max(SEND_BUFFER_MIN_BYTES, Math.round((kbps * SEND_BUFFER_MS) / 8))
}

// ---- The media queue (media-feed.ts, media-buffer.ts) ----------------------------------------------

/** OBS drops frames once about 700 ms are waiting to be sent; so do we. */
export const DROP_AFTER_MS = 700
/** What stdin is handed at a time: enough to keep ffmpeg busy, small enough to stay droppable here. */
export const PIPE_BYTES = 32 * 1024
/**
 * The most media handed to ffmpeg ahead of what it has sent out. Past PIPE_BYTES in Node, the OS
 * holds what stdin was written (~95 KB in Linux's socketpair before a write waits; a Windows named
 * pipe and a macOS socketpair hold other amounts), and ffmpeg its read buffer: at 1 Mbit/s about a
 * second that main could neither see nor drop. A lead of a few progress periods keeps ffmpeg fed (its
 * audio encoder and interleaving hold ~0.1 s) and lets a free link take a catch-up at ~4× real time.
 */
export const LEAD_MS = 300
/** While the lead holds media back, look again this often (ffmpeg's sent time is extrapolated). */
export const LEAD_RECHECK_MS = 40
/**
 * A backlog counts only once ffmpeg has stopped taking what main hands it for this long. A burst from
 * a page that stalled and caught up is no backlog: ffmpeg, with a free socket, takes it faster than
 * real time, and that restarts this clock (CATCHING_UP).
 */
export const BLOCKED_FOR_MS = 250
/** ffmpeg's sent time moving at least this much faster than the wall clock: it is catching up... */
export const CATCHING_UP = 1.2
/** ...judged over this much wall time (ffmpeg blocked on its socket also moves on in jumps). */
export const CATCH_UP_SPAN_MS = 200
/**
 * Media arriving this much later than the stream's earliest arrival (against its media time) came
 * from a page that stalled (measured: 0.75 s of media held in a busy page and handed over at once).
 * Until ffmpeg has sent it, what waits is the page's catch-up, not the link's queue (reported as the
 * link's, it made the controller lower the bitrate on an open link to a quarter).
 */
export const LATE_MS = 250
/**
 * The most a late arrival keeps the controller from hearing of the queue: a link that cannot send the
 * page's catch-up within this is short itself (else a page that stalls on a short link would leave the
 * bitrate too high for as long as the link takes to send the catch-up).
 */
export const LATE_GRACE_MS = 1000
/** The encoder's rate (what main is handed) is judged over this much wall time, as the socket's. */
export const ARRIVAL_SPAN_MS = 2000
/**
 * What main keeps between two ffmpegs (a reconnect): the header and the clusters since the newest
 * keyframe cluster, the oldest whole clusters let go past this.
 */
export const MEDIA_BUFFER_BYTES = 32 * 1024 * 1024

// ---- What the supervisor measures for the controller (supervisor.ts) -------------------------------

/**
 * The rate leaving the computer (the controller's steadyKbps, and the health strip's) and the speed
 * are judged over this much wall time, not since the start.
 */
export const RECENT_MS = 2000
/** The controller's sentKbps: what the socket took over the last this much. */
export const SENT_SPAN_MS = 1000
/** A rate over less wall time than this is not yet known. */
export const MIN_RATE_SPAN_MS = 900
/** Keyframes asked after drops come at most this often (a keyframe costs several frames' bits). */
export const KEYFRAME_ASK_MS = 1000
/** A drop this recent is still news for the health strip ('limited', "frames dropped"). */
export const DROP_NEWS_MS = 3000
/**
 * Frames skipped before Onair's encoder this recent make the health strip's cause 'encoder' (OBS's
 * "encoding overloaded"): the computer, not the upload, holds the stream back.
 */
export const SKIP_NEWS_MS = 3000
/** The health strip's event, at most this often. */
export const HEALTH_EVERY_MS = 1000

// ---- The controller (controller.ts) -----------------------------------------------------------------

/** The least video bitrate asked for (kbit/s); below it the feed drops frames instead. */
export const FLOOR_VIDEO_KBPS = 300
/** A queue this deep means the link carries less than we send. */
export const CONGESTED_MS = 250
/** A queue this shallow means the link keeps up. */
export const CALM_MS = 120
/** Ask for this share of what the link carried, so its queues drain. */
export const HEADROOM = 0.85
/**
 * When what the link carried (with headroom) is no lower than this share of the target (the window
 * still held faster seconds), the target steps down to STEP_DOWN of itself instead.
 */
export const NO_LOWER_SHARE = 0.95
export const STEP_DOWN = 0.8
/** Give the encoder a second to reach a new rate before judging it again. */
export const SETTLE_MS = 1000
/** Raise only after the queue has stayed under CALM_MS this long... */
export const CALM_BEFORE_RAISE_MS = 2000
/** ...then one step per this much, while the link has carried PROVEN_SHARE of the target... */
export const RAISE_EVERY_MS = 1500
/** ...a step of this factor, and at least RAISE_MIN_SHARE of the creator's bitrate. */
export const RAISE_FACTOR = 1.25
export const RAISE_MIN_SHARE = 0.05
/**
 * A raise needs the link to have carried this share of the present target (video + audio): an
 * encoder that makes far less (easy content, a starved page) says nothing of what the link can take.
 */
export const PROVEN_SHARE = 0.85
/** Without that proof, a raise every this much calm... */
export const UNPROVEN_RAISE_MS = 6000
/** ...or this much, when the encoder makes less than its target and the link takes all it makes. */
export const EASY_RAISE_MS = 3000
/** The link took this share of what the encoder made: it keeps up. */
export const KEPT_UP_SHARE = 0.95
/**
 * Past what the link carried when it was last found short (the ceiling), the first step is this share
 * of the creator's bitrate, and each step that holds doubles it (as TCP probes past its last loss).
 */
export const PROBE_SHARE = 0.05
/** At or past the ceiling, a raise every RAISE_EVERY_MS needs the link to have carried this share... */
export const PROBE_PROVEN_SHARE = 0.95
/** ...or, where what the encoder made is known and the link took all of it, this share. */
export const PROBE_TESTED_SHARE = 0.8
/**
 * The sound on the wire is not the sound the page made (main's ffmpeg re-encodes its Opus to AAC):
 * what the page made less what ffmpeg wrote is learned as the median of the last SKEW_SAMPLES calm
 * samples, used once SKEW_MIN_SAMPLES are in, never within SKEW_AFTER_DROP_MS of a drop.
 */
export const SKEW_SAMPLES = 100
export const SKEW_MIN_SAMPLES = 20
export const SKEW_AFTER_DROP_MS = 5000

// ---- The health meter (congestion.ts, cpu-load.ts) --------------------------------------------------

/** The congestion meter's window: this many seconds of progress blocks. */
export const METER_WINDOW_S = 3
/** The fewest blocks the speed and the rate are judged on (the first seconds read low). */
export const METER_MIN_BLOCKS = 3
/** Speed below these (median over the window) is congestion 3, 2, 1. */
export const SPEED_LEVELS = [0.75, 0.9, 0.97] as const
/** Frames dropped by ffmpeg, as a share of the window's frames, above these: congestion 3, 2. */
export const DROP_RATIO_LEVELS = [0.2, 0.05] as const
/** The rate out as a share of the target, below these: congestion 3, 2 (the encode path only). */
export const RATE_RATIO_LEVELS = [0.1, 0.25] as const
/** A rate over less media time than this (s) is not yet known. */
export const MIN_RATE_MEDIA_S = 0.2
/** A frame rate over less media time than this (s) is not yet known. */
export const MIN_FPS_MEDIA_S = 0.5
/** Speed under this, or delivered fps under this share of the target, is named as a shortfall. */
export const SHORT_SPEED = 0.9
export const SHORT_FPS_SHARE = 0.9
/**
 * A machine this busy starves the encoder and the sender alike: what queues is not the network's.
 * Nearly all of every core: the uplink e2e's own Chromium, studio and app kept this 2-core machine at
 * 91-94 % through a real 40 % network throttle, and at 90 % that throttle was put on the computer;
 * spinning processes on every core read 100 %.
 */
export const BUSY_SHARE = 0.97
/** The computer's load is judged over at least this much time. */
export const CPU_WINDOW_MS = 3000
