// The one contract between the renderer and the main process. Both shells (Electron preload, web bridge)
// expose exactly `OnairApi` as `window.onair`; main implements `OnairCalls` once (src/main/core) and maps
// it through one dispatcher. This index holds nothing itself: it re-exports the contract's modules, one
// per area, so `shared/contract` names the whole contract.
// The modules of types alone: app, connections, streams, destinations, recordings, live, viewers,
// clips, keys, display, setup-test and calls (OnairCalls, OnairEvents, OnairApi). The modules with
// value tables: encoders (the encoder ids and x264's presets), settings (the capture kinds),
// browser-sources (the frame header's size and flags) and ipc
// (the call and event names, each call's channel, the most a call may carry, the download calls).
// Each call's argument validators (zod tuples) live in main/core/contract-schema.ts.
export type * from './app'
export type * from './connections'
export type * from './streams'
export type * from './destinations'
export type * from './recordings'
export type * from './live'
export type * from './viewers'
export type * from './clips'
export type * from './keys'
export type * from './display'
export type * from './setup-test'
export * from './browser-sources'
export type * from './calls'
export * from './encoders'
export * from './settings'
export * from './ipc'
