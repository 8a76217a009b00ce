// Runtime validators for every call's arguments: whatever arrives over IPC or HTTP is untrusted until it
// passes here. One tuple schema per call, checked by the single dispatcher both shells use.
import { z } from 'zod'
import {
  CAPTURE_KINDS,
  MAX_CALL_BYTES,
  VIDEO_ENCODER_IDS,
  X264_PRESETS,
  type CallName
} from '../../shared/contract'
import { readAllRaw } from '../../shared/raw-media'
import { impossibleProfiles, type Profile } from '../../shared/profiles'
import { CORNERS } from '../../shared/scene-layout'
import {
  BROWSER_MAX_FPS,
  browserUrl,
  IMAGE_FILE,
  LAYOUT_KINDS,
  LIMITS,
  MAX_GAIN,
  TRANSITION_KINDS,
  type ScenesState
} from '../../shared/scenes'
import { DESTINATION_LIMITS } from '../../shared/destinations'
import { MARKER_LABEL_MAX } from '../../shared/markers'
import { WEBHOOK_EVENTS, WEBHOOK_LIMITS } from '../../shared/webhooks'
import {
  AUDIO_RANGES,
  DEFAULT_SOURCE_AUDIO,
  GATE_DB,
  MONITORING,
  type AudioSettings,
  type MicSettings
} from '../../shared/audio'
import {
  HOTKEY_ACTIONS,
  MAX_ACCELERATOR,
  type HotkeyAction,
  type HotkeySettings
} from '../../shared/hotkeys'

const id = z.string().min(1).max(200)
/** A moment in Unix ms (after 2001, before 2286): a clip's or a marker's time. */
const unixMs = z.number().min(1e12).max(1e13)

// Typed against Profile, the type generated from the OpenAPI file's ffmpeg-profile: a field added,
// removed, renamed or retyped there fails the type check here instead of drifting apart. (The
// ranges are not repeated: validateProfiles checks them before sending, the service again.)
const profile = z
  .object({
    name: z.string(),
    width: z.number(),
    height: z.number(),
    bitrate: z.number(),
    fps: z.number(),
    fpsDen: z.number().optional(),
    gop: z.string().optional(),
    profile: z.enum(['H264Baseline', 'H264Main', 'H264High', 'H264ConstrainedHigh']).optional(),
    encoder: z.literal('H.264').optional(),
    quality: z.number().optional()
  })
  .strict() satisfies z.ZodType<Profile>

/** True when A and B are the same type, optional fields included (assignability skips those). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
type Assert<T extends true> = T
type _ProfileSchemaIsProfile = Assert<Same<z.infer<typeof profile>, Profile>>

// A ladder no H.264 encoder can make (sides outside 128-4096 or odd, fps over 120) is refused here
// too, before it reaches any service: Livepeer accepts it and fails only when it transcodes.
const ladder = z
  .array(profile)
  .max(20)
  .superRefine((ps, ctx) => {
    for (const issue of impossibleProfiles(ps))
      ctx.addIssue({
        code: 'custom',
        message: issue.message,
        path: issue.field
          .split('.')
          .slice(1)
          .map((k) => (/^\d+$/.test(k) ? Number(k) : k))
      })
  })

const pageArgs = z
  .object({
    cursor: z.string().max(2000).optional(),
    limit: z.number().int().min(1).max(1000).optional()
  })
  .strict()

const output = z
  .object({
    width: z.number().int().min(128).max(7680),
    height: z.number().int().min(128).max(4320),
    fps: z.number().int().min(1).max(120),
    videoBitrateKbps: z.number().int().min(100).max(50_000),
    audioBitrateKbps: z.number().int().min(32).max(512),
    keyframeIntervalSec: z.number().min(0.5).max(10),
    encoder: z.enum(['hardware', 'software']).optional(),
    transport: z.enum(['rtmp', 'webrtc']).optional(),
    videoEncoder: z.enum([...VIDEO_ENCODER_IDS, 'browser']).optional(),
    x264Preset: z.enum(X264_PRESETS).optional()
  })
  .strict()

/**
 * pushFrames' bytes: whole raw-media messages (shared/raw-media.ts), checked here before they reach
 * the encoder, so a malformed one is refused with the format's own words.
 */
const rawFrames = z
  .instanceof(Uint8Array)
  .refine((b) => b.byteLength > 0 && b.byteLength <= MAX_CALL_BYTES, {
    message: `raw media of 1 to ${MAX_CALL_BYTES} bytes`
  })
  .superRefine((b, ctx) => {
    const r = readAllRaw(b)
    if (!r.ok) ctx.addIssue({ code: 'custom', message: r.error })
  })

const source = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('media'), mimeType: z.string().min(1).max(200) }).strict(),
  z.object({ kind: z.literal('test-pattern') }).strict()
])

// Scenes are checked for shape and size here; readScenes (shared/scenes-saved.ts) then keeps what makes sense.
// Typed against ScenesState like the profile above: a field added or changed on one side only fails
// the type check. Images are files (IMAGE_FILE names), never data in the settings.
const rect = z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() }).strict()
const sceneSource = z.discriminatedUnion('kind', [
  // A camera's name and device, a screen's name: defaulted for scenes saved when there was one of each.
  z
    .object({
      id,
      kind: z.literal('camera'),
      name: z.string().max(LIMITS.nameLength).default('Camera'),
      videoDeviceId: z.string().max(500).nullable().default(null)
    })
    .strict(),
  z
    .object({
      id,
      kind: z.literal('screen'),
      name: z.string().max(LIMITS.nameLength).default('Screen or window'),
      // An added screen's sound: its level, mute and chain (the first screen's are elsewhere).
      sound: z
        .object({
          gain: z.number().min(0).max(MAX_GAIN),
          muted: z.boolean(),
          audio: z.lazy(() => sourceAudio)
        })
        .strict()
        .optional()
    })
    .strict(),
  z
    .object({
      id,
      kind: z.literal('image'),
      name: z.string().max(300),
      file: z.string().regex(IMAGE_FILE),
      width: z.number(),
      height: z.number()
    })
    .strict(),
  z
    .object({
      id,
      kind: z.literal('text'),
      text: z.string().max(LIMITS.textLength),
      size: z.number(),
      color: z.string().max(20),
      band: z.string().max(20).nullable()
    })
    .strict(),
  // A video's sound settings default (muted, gain 1) for a source saved without them.
  z
    .object({
      id,
      kind: z.literal('video'),
      name: z.string().max(300),
      width: z.number(),
      height: z.number(),
      muted: z.boolean().default(true),
      gain: z.number().min(0).max(MAX_GAIN).default(1),
      // Its chain (as the microphone's, below), defaulted for a source saved before it had one.
      audio: z.lazy(() => sourceAudio).default(DEFAULT_SOURCE_AUDIO)
    })
    .strict(),
  // A web page's address (readScenes keeps only http and https ones), its page size and frame rate.
  z
    .object({
      id,
      kind: z.literal('browser'),
      name: z.string().max(LIMITS.nameLength),
      url: z.string().max(LIMITS.urlLength),
      width: z.number(),
      height: z.number(),
      fps: z.number()
    })
    .strict()
])
const channelLevel = z
  .object({ gain: z.number().min(0).max(MAX_GAIN), muted: z.boolean() })
  .strict()
const sceneItem = z.object({ id, sourceId: id, rect, visible: z.boolean() }).strict()
const scene = z
  .object({
    id,
    name: z.string().max(LIMITS.nameLength),
    items: z.array(sceneItem).max(LIMITS.itemsPerScene),
    layout: z.enum(LAYOUT_KINDS).nullable(),
    pip: z.object({ corner: z.enum(CORNERS), size: z.number() }).strict(),
    mix: z.object({ mic: channelLevel, screen: channelLevel }).strict()
  })
  .strict()
const scenes = z
  .object({
    version: z.literal(2),
    sources: z.array(sceneSource).max(LIMITS.sources + LIMITS.cameras + LIMITS.screens),
    scenes: z.array(scene).max(LIMITS.scenes),
    activeId: id,
    transition: z
      .object({
        kind: z.enum(TRANSITION_KINDS),
        durationMs: z.number().min(0).max(LIMITS.transitionMs)
      })
      .strict(),
    // Studio mode came later: settings saved before it load with it off (readScenes names the program).
    studio: z.boolean().default(false),
    programId: z.string().max(100).default('')
  })
  .strict()
type _ScenesSchemaIsScenesState = Assert<Same<z.infer<typeof scenes>, ScenesState>>

// The microphone's switches, gate and push-to-talk (shared/audio.ts; readMic cleans what is read).
const mic = z
  .object({
    processing: z
      .object({
        noiseSuppression: z.boolean(),
        echoCancellation: z.boolean(),
        autoGainControl: z.boolean()
      })
      .strict(),
    gate: z
      .object({ enabled: z.boolean(), thresholdDb: z.number().min(GATE_DB.min).max(GATE_DB.max) })
      .strict(),
    pushToTalk: z.boolean()
  })
  .strict()
type _MicSchemaIsMicSettings = Assert<Same<z.infer<typeof mic>, MicSettings>>

// Each source's chain (shared/audio.ts; readAudio cleans what is read). A negative sync offset is
// refused: sound cannot be played before it is captured (delay the other sources instead).
const R = AUDIO_RANGES
const within = (r: { min: number; max: number }) => z.number().min(r.min).max(r.max)
const sourceAudio = z
  .object({
    gainDb: within(R.gainDb),
    compressor: z
      .object({
        enabled: z.boolean(),
        thresholdDb: within(R.thresholdDb),
        ratio: within(R.ratio),
        attackMs: within(R.attackMs),
        releaseMs: within(R.releaseMs),
        makeupDb: within(R.makeupDb)
      })
      .strict(),
    limiter: z
      .object({
        enabled: z.boolean(),
        ceilingDb: within(R.ceilingDb),
        releaseMs: within(R.releaseMs)
      })
      .strict(),
    syncOffsetMs: z
      .number()
      .min(0, { message: 'a sync offset cannot be negative: delay the other sources instead' })
      .max(R.syncOffsetMs.max),
    monitoring: z.enum(MONITORING)
  })
  .strict()
const audio = z
  .object({
    sources: z.object({ mic: sourceAudio, screen: sourceAudio }).strict(),
    // The Camera and Screen sources' volume and mute (a scene's are in its mix).
    levels: z
      .object({ mic: channelLevel.optional(), screen: channelLevel.optional() })
      .strict()
      .optional(),
    monitorDeviceId: z.string().min(1).max(500).optional()
  })
  .strict()
type _AudioSchemaIsAudioSettings = Assert<Same<z.infer<typeof audio>, AudioSettings>>

// The keys (shared/hotkeys.ts): each action's accelerator or null; readHotkeys drops what does not parse.
const hotkeys = z
  .object({
    bindings: z
      .object(
        Object.fromEntries(
          HOTKEY_ACTIONS.map((a) => [a, z.string().min(1).max(MAX_ACCELERATOR).nullable()])
        ) as Record<HotkeyAction, z.ZodNullable<z.ZodString>>
      )
      .strict(),
    global: z.boolean()
  })
  .strict()
type _HotkeysSchemaIsHotkeySettings = Assert<Same<z.infer<typeof hotkeys>, HotkeySettings>>

const settings = z
  .object({
    mic: mic.optional(),
    audio: audio.optional(),
    videoDeviceId: z.string().max(500).optional(),
    audioDeviceId: z.string().max(500).optional(),
    output: output.partial().optional(),
    sourceKind: z.enum(CAPTURE_KINDS).optional(),
    setupGuide: z.enum(['done', 'skipped']).optional(),
    scenes: scenes.optional(),
    localRecording: z
      .object({
        enabled: z.boolean().optional(),
        // An absolute folder, or none for the default (checked again when a recording begins).
        folder: z
          .string()
          .max(1000)
          .refine((f) => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(f), { message: 'an absolute folder' })
          .optional()
      })
      .strict()
      .optional()
  })
  .strict()

const none = z.tuple([])

/** A browser source's page as openBrowserSource takes it: an http(s) address, its size and rate. */
const browserPage = z
  .object({
    url: z
      .string()
      .max(LIMITS.urlLength)
      // Checked as the scenes panel checks it, and passed on as browserUrl writes it.
      .transform((u, ctx) => {
        const checked = browserUrl(u)
        if ('url' in checked) return checked.url
        ctx.addIssue({ code: 'custom', message: checked.error })
        return z.NEVER
      }),
    width: z.number().int().min(LIMITS.browserWidth.min).max(LIMITS.browserWidth.max),
    height: z.number().int().min(LIMITS.browserHeight.min).max(LIMITS.browserHeight.max),
    fps: z.number().int().min(1).max(BROWSER_MAX_FPS)
  })
  .strict()

export const CALL_ARGS = {
  appInfo: none,
  appStats: none,
  listConnections: none,
  connectionStatus: none,
  addConnection: z.tuple([
    z
      .object({
        kind: z.enum(['livepeer', 'custom']),
        name: z.string().max(200).optional(),
        baseUrl: z
          .url({ protocol: /^https?$/ })
          .max(2000)
          .optional(),
        apiKey: z.string().min(1).max(2000)
      })
      .strict()
  ]),
  removeConnection: z.tuple([id]),
  setActiveConnection: z.tuple([id]),
  listStreams: z.tuple([pageArgs]),
  getStream: z.tuple([id]),
  createStream: z.tuple([
    z
      .object({
        name: z.string().max(5000),
        profiles: ladder,
        record: z.boolean()
      })
      .strict()
  ]),
  updateStream: z.tuple([
    z
      .object({
        id,
        name: z.string().max(5000).optional(),
        profiles: ladder.optional()
      })
      .strict()
  ]),
  setRecord: z.tuple([id, z.boolean()]),
  deleteStream: z.tuple([id]),
  terminateStream: z.tuple([id]),
  revealStreamKey: z.tuple([id]),
  listDestinations: z.tuple([id]),
  // The URL carries the key: the core checks it again (checkTargetUrl) and it is never logged.
  addDestination: z.tuple([
    z
      .object({
        streamId: id,
        name: z.string().min(1).max(DESTINATION_LIMITS.name),
        url: z
          .string()
          .max(DESTINATION_LIMITS.url)
          .regex(/^(rtmps?|srt):\/\//i),
        profile: z.string().min(1).max(500),
        videoOnly: z.boolean()
      })
      .strict()
  ]),
  setDestinationEnabled: z.tuple([id, id, z.boolean()]),
  removeDestination: z.tuple([id, id]),
  listSessions: z.tuple([pageArgs.extend({ streamId: id.optional() }).strict()]),
  getSession: z.tuple([id]),
  downloadRecording: z.tuple([
    id,
    z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional()
  ]),
  getPlayback: z.tuple([id]),
  getIngest: none,
  goLive: z.tuple([
    z
      .object({
        streamId: id,
        source,
        output,
        autoReconnect: z.boolean().optional(),
        recordLocally: z.boolean().optional()
      })
      .strict()
  ]),
  pushMedia: z.tuple([id, z.instanceof(Uint8Array).refine((b) => b.byteLength <= MAX_CALL_BYTES)]),
  pushFrames: z.tuple([id, rawFrames]),
  listEncoders: none,
  stopLive: z.tuple([id]),
  startRecording: z.tuple([z.object({ source, output }).strict()]),
  stopRecording: z.tuple([id]),
  retryNow: z.tuple([id]),
  // An SDP offer is a few KiB (Chromium's, with every codec, under 10).
  whipStart: z.tuple([
    z
      .object({
        streamId: id,
        offer: z.string().min(10).max(65_536),
        recordLocally: z.boolean().optional()
      })
      .strict()
  ]),
  whipStop: z.tuple([id]),
  liveStatus: none,
  cutOffNotice: none,
  dismissCutOffNotice: z.tuple([id]),
  viewersNow: z.tuple([id, id]),
  createClip: z.tuple([
    z
      .object({
        streamId: id,
        sessionId: id.optional(),
        startTime: unixMs,
        endTime: unixMs,
        name: z.string().max(500).optional()
      })
      .strict()
      .refine((a) => a.endTime > a.startTime, {
        message: 'endTime must be after startTime',
        path: ['endTime']
      })
  ]),
  getClip: z.tuple([id]),
  listClips: z.tuple([z.object({ streamId: id, sessionId: id.optional() }).strict()]),
  deleteClip: z.tuple([id]),
  downloadClip: z.tuple([id]),
  addMarker: z.tuple([
    z
      .object({
        streamId: id,
        at: unixMs.optional(),
        label: z.string().max(MARKER_LABEL_MAX).optional()
      })
      .strict()
  ]),
  listMarkers: z.tuple([
    z.object({ streamId: id, from: unixMs.optional(), to: unixMs.optional() }).strict()
  ]),
  labelMarker: z.tuple([id, z.string().max(MARKER_LABEL_MAX)]),
  deleteMarker: z.tuple([id]),
  localRecordingInfo: none,
  listRecordings: none,
  openLocalRecording: z.tuple([id, z.enum(['folder', 'play'])]),
  checkRecording: z.tuple([id]),
  publishLocalCopy: z.tuple([
    z
      .object({
        localRecordingId: id,
        name: z.string().max(500).optional(),
        sessionId: id.optional()
      })
      .strict()
  ]),
  listUploads: none,
  pauseUpload: z.tuple([id]),
  resumeUpload: z.tuple([id]),
  cancelUpload: z.tuple([id]),
  dismissUpload: z.tuple([id]),
  getUploadSettings: none,
  setUploadSettings: z.tuple([z.object({ autoUploadFullCopy: z.boolean() }).strict()]),
  listWebhooks: none,
  addWebhook: z.tuple([
    z
      .object({
        name: z.string().trim().min(1).max(WEBHOOK_LIMITS.name),
        // http(s) only: the service POSTs there (the service checks the rest of the URL again).
        url: z
          .string()
          .trim()
          .max(WEBHOOK_LIMITS.url)
          .regex(/^https?:\/\/[^\s/]+/i, 'an http:// or https:// address'),
        events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length),
        streamId: id.optional()
      })
      .strict()
  ]),
  deleteWebhook: z.tuple([id]),
  listWebhookDeliveries: z.tuple([id]),
  resendWebhookDelivery: z.tuple([id, id]),
  getSettings: none,
  saveSettings: z.tuple([settings]),
  // The re-encoded picture (PNG or JPEG, checked again by its first bytes in the core).
  saveSceneImage: z.tuple([
    z.instanceof(Uint8Array).refine((b) => b.byteLength > 0 && b.byteLength <= LIMITS.imageBytes, {
      message: `an image of 1 to ${LIMITS.imageBytes} bytes`
    })
  ]),
  readSceneImage: z.tuple([z.string().regex(IMAGE_FILE)]),
  getHotkeys: none,
  setHotkeys: z.tuple([hotkeys]),
  chooseDisplaySource: z.tuple([id, id.nullable()]),
  runSetupTest: none,
  cancelSetupTest: none,
  openBrowserSource: z.tuple([id, browserPage]),
  closeBrowserSource: z.tuple([id]),
  readBrowserFrame: z.tuple([id, z.number().int().min(0).max(0xffffffff)])
} satisfies Record<CallName, z.ZodType>

/** A readable one-liner from a zod error: `arguments.0.name: expected string`. */
export function describeIssues(error: z.ZodError): { message: string; field?: string } {
  const first = error.issues[0]
  if (!first) return { message: 'invalid arguments' }
  const field = first.path.length ? first.path.map(String).join('.') : undefined
  return { message: field ? `${field}: ${first.message}` : first.message, field }
}
