// Go live picks the right stream: the one that is live; else the one last gone live on; else the one
// opened last (not simply the newest). Two streams may share a name, as the service allows, and the
// create form says so.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createStream, eventually, nav, appForFile, shot, stopLive } from './app-page'

const app = appForFile()

/** The name of the stream the Go live screen has selected. */
async function preselected(page: Page): Promise<string> {
  await nav(page, 'Go live')
  const select = page.getByTestId('live-stream')
  await eventually(() => select.inputValue()).not.toBe('')
  return ((await select.locator('option:checked').textContent()) ?? '').trim()
}

async function open(page: Page, name: string): Promise<void> {
  await nav(page, 'Streams')
  await page
    .getByTestId('stream-row')
    .filter({ hasText: name })
    .first()
    .getByRole('button')
    .first()
    .click()
  await page.getByRole('heading', { level: 1, name }).waitFor()
}

describe('Go live picks the right stream', () => {
  it('live first, then last gone live on, then opened last; never just the newest', async () => {
    const { page } = app()
    await createStream(page, 'Alpha', { profiles: 'none', record: false })
    await createStream(page, 'Beta', { profiles: 'none', record: false })
    // Beta is the newest; Alpha was opened last.
    await open(page, 'Alpha')
    expect(await preselected(page)).toMatch(/^Alpha/)

    // Live on Beta: Go live shows Beta even after opening Alpha.
    await page.getByTestId('live-stream').selectOption({ label: 'Beta' })
    await page.getByTestId('source-test-pattern').check()
    await page.getByTestId('go-live').click()
    await page
      .getByTestId('live-banner')
      .and(page.locator('[data-state=live]'))
      .waitFor({ timeout: 90_000 })
    await open(page, 'Alpha')
    expect(await preselected(page)).toMatch(/^Beta/)
    await shot(page, 'golive-preselects-live-stream')

    // After the run: the one last gone live on, still ahead of the one opened last.
    await stopLive(page)
    await open(page, 'Alpha')
    expect(await preselected(page)).toMatch(/^Beta/)
  })

  it('says a stream by that name exists, and still creates it', async () => {
    const { page } = app()
    await nav(page, 'Streams')
    if (await page.getByTestId('new-stream').isVisible())
      await page.getByTestId('new-stream').click()
    await page.getByTestId('stream-name').fill('alpha ')
    const note = page.getByTestId('name-exists')
    await note.waitFor()
    expect(await note.textContent()).toContain('already exists')
    await shot(page, 'create-stream-name-exists')
    await page.getByTestId('stream-name').fill('Alpha')
    await page.getByTestId('preset-none').click()
    await page.getByTestId('create-stream-submit').click()
    await page.getByTestId('stream-page').waitFor()
    await nav(page, 'Streams')
    await eventually(() =>
      page.getByTestId('stream-row').filter({ hasText: 'Alpha' }).count()
    ).toBe(2)
  })
})
