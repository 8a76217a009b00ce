// Types only: which app this is (appInfo), for the About screen and the logs.

export type ShellKind = 'electron' | 'web'

export interface AppInfo {
  name: string
  version: string
  platform: string // process.platform
  arch: string
  shell: ShellKind
  electron?: string
  node: string
  ffmpeg:
    | { path: string; version: string; source: 'FFMPEG_PATH' | 'ffmpeg-static' | 'PATH' }
    | { error: string }
}
