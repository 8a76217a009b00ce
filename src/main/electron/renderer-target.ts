// Where the Electron shell loads the renderer from, and the origins that count as "ours". Plain code
// (no electron import) so the tests can check it for every OS and install path.

export const APP_SCHEME = 'app'
export const APP_ORIGIN = 'app://onair'
export const APP_ENTRY = `${APP_ORIGIN}/index.html`

/**
 * Dev: electron-vite's server (ELECTRON_RENDERER_URL). Packaged: app://onair, whatever the install
 * path (C:\Users\Ana López\..., /Applications/Onair Studio.app/..., an AppImage mount).
 */
export function rendererTarget(env: NodeJS.ProcessEnv = process.env): {
  url: string
  origins: string[]
} {
  const dev = env.ELECTRON_RENDERER_URL
  if (dev) return { url: dev, origins: [new URL(dev).origin] }
  return { url: APP_ENTRY, origins: [APP_ORIGIN] }
}
