import { defineConfig } from 'vitest/config'

// Three layers, one runner: unit (pure, fast), integration (real ffmpeg, RTMP, SQLite, keychain),
// e2e (Playwright driving real Chromium through the web shell). Integration and e2e files run one at a
// time: they start real encoders and these machines have two cores.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node'
        }
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000
        }
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 180_000
        }
      }
    ]
  }
})
