import { resolve } from 'node:path'
import { defineConfig, externalizeDepsPlugin } from 'electron-vite'
import react from '@vitejs/plugin-react'

// Three bundles: main (plus the local studio's and the encoder's entries, which the app runs as child
// processes with ELECTRON_RUN_AS_NODE), preload (sandboxed, so one CommonJS file), renderer (React).
export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/electron/index.ts'),
          studio: resolve('src/studio/cli.ts'),
          // Onair's encoder process (node-av stays external: a native package, loaded from node_modules).
          encoder: resolve('src/encoder/cli.ts'),
          web: resolve('src/main/web/web-main.ts')
        }
      }
    }
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    build: {
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].js' }
      }
    }
  },
  renderer: {
    root: resolve('src/renderer'),
    plugins: [react()],
    build: {
      // What the creator's window loads first: minified (hls.js stays a separate, lazy chunk).
      minify: true,
      // The one chunk over Vite's default 500 kB is hls.js (about 580 kB minified): a single prebuilt
      // module, so it cannot be split further, and it is already loaded only when a player opens
      // (use-hls.ts), from the local disk or loopback. The window's first load (index, about 340 kB)
      // stays under this limit, so the warning still fires if the app's own code grows past it.
      chunkSizeWarningLimit: 600,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } }
    }
  }
})
