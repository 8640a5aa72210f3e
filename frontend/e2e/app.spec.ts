// The web app end to end on a real server: workspaces, upload with progress and a
// refusal, a cited answer streamed after its sources, a refusal, deep links, dark mode,
// offline API docs, and an accessibility scan of every view.
import { expect, test } from '@playwright/test'
import {
  ANSWERABLE, SMALL_PDFS, UNANSWERABLE, answerTiming, createWorkspace, expectAccessible,
  normalizeSpace, uploadAndWait, watchAnswerTiming,
} from './helpers'
import { normalize } from '../src/lib/quotes'

test('a researcher uploads papers, asks, checks a citation and comes back by URL', async ({ page, baseURL }) => {
  await test.step('start page', async () => {
    await page.goto('/')
    await expect(page.getByRole('heading', { name: 'Workspaces' })).toBeVisible()
    await expectAccessible(page, 'start page (empty)')
  })

  const workspaceId = await test.step('create a workspace with a description', () =>
    createWorkspace(page, 'Literature graphs', 'knowledge graphs of scientific literature and clinical reviews'),
  )

  await test.step('upload two PDFs and a bad file in one batch: the bad one refused, the two ingested with progress', async () => {
    await expect(page.getByTestId('upload-limits')).toContainText('MB')
    const seen = await uploadAndWait(page, SMALL_PDFS, [
      {
        name: 'not-really.pdf',
        mimeType: 'application/pdf',
        buffer: Buffer.from('These are my notes, saved with the wrong extension.\n'),
      },
    ])
    // Progress advanced through stages before the outcome (not a jump from nothing to done).
    const stages = [...seen].filter((s) => /(parsing|chunking|embedding|storing|queued|uploading)…/.test(s))
    expect(stages.length, `statuses seen: ${[...seen].join(' | ')}`).toBeGreaterThan(0)
    const bad = page.getByTestId('upload-file').filter({ hasText: 'not-really.pdf' })
    await expect(bad).toHaveAttribute('data-outcome', 'refused')
    await expect(bad.getByTestId('upload-file-status')).toContainText('named like a PDF')
    await expect(page.getByTestId('source-item')).toHaveCount(2)
    await expect(page.getByTestId('job-item').first()).toHaveAttribute('data-status', 'succeeded')
    await expectAccessible(page, 'workspace home')
  })

  await test.step('filter and sort the sources', async () => {
    await page.getByRole('searchbox', { name: 'Filter sources' }).fill('thrombo')
    await expect(page.getByTestId('source-item')).toHaveCount(1)
    await page.getByRole('searchbox', { name: 'Filter sources' }).fill('')
    await expect(page.getByTestId('source-item')).toHaveCount(2)
  })

  await test.step('ask: sources before the first token, hovering a citation previews its passage with the quote marked', async () => {
    await page.getByRole('link', { name: 'Chat' }).click()
    await page.waitForURL(`**/w/${workspaceId}/chat`)
    await watchAnswerTiming(page)
    await page.getByTestId('ask-input').fill(ANSWERABLE)
    await page.getByTestId('ask-input').press('Enter')
    await expect(page.getByTestId('claim').first()).toBeVisible({ timeout: 120_000 })
    const timing = await answerTiming(page)
    expect(timing.sources, 'sources on screen').toBeGreaterThan(0)
    expect(timing.sources, 'sources appear before the first token').toBeLessThan(timing.token)
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/)
    // Issue 32: the best evidence first, each sentence marked inside its passage; the outcome said plainly.
    await expect(page.getByTestId('answer-outcome').first()).toHaveAttribute('data-outcome', 'answered')
    await expect(page.getByTestId('answer-evidence').first().getByTestId('evidence-sentence').first()).toBeVisible()

    const claim = page.getByTestId('claim').first()
    const citation = claim.getByTestId('citation').first()
    await expect(citation).toHaveAttribute('data-n', /\d+/)
    await citation.hover()
    const passage = page.getByTestId('passage')
    await expect(passage).toBeVisible()
    const mark = passage.getByTestId('passage-quote')
    await expect(mark).toBeVisible()
    // The highlight is the claim's quote, inside the whole passage (which is longer).
    // (normalised as the backend checks quotes: line-break hyphenation undone, spaces collapsed)
    const quote = normalize((await mark.textContent()) ?? '')
    expect(quote.split(' ').length).toBeGreaterThanOrEqual(3)
    expect(normalize((await claim.textContent()) ?? '')).toContain(quote)
    expect(normalizeSpace((await passage.getByTestId('passage-text').textContent()) ?? '').length).toBeGreaterThan(quote.length)
    await expectAccessible(page, 'chat with a passage open')
    await page.keyboard.press('Escape')
    await expect(passage).toBeHidden()
  })

  await test.step('a question the papers cannot answer is refused, saying what was searched', async () => {
    await page.getByTestId('ask-input').fill(UNANSWERABLE)
    await page.getByTestId('ask-input').press('Enter')
    const refusal = page.getByTestId('refusal')
    await expect(refusal).toBeVisible({ timeout: 120_000 })
    await expect(refusal).toContainText(/searched|passages/)
    await expect(page.getByTestId('answer-outcome').last()).toHaveAttribute('data-outcome', 'nothing')
    await expect(page.getByTestId('answer-outcome').last()).toHaveText('Nothing relevant in your sources')
  })

  await test.step('reload the conversation by its URL', async () => {
    const url = page.url()
    await page.reload()
    expect(page.url()).toBe(url)
    await expect(page.getByTestId('question')).toHaveCount(2)
    await expect(page.getByTestId('claim').first()).toBeVisible()
    await expect(page.getByTestId('refusal')).toBeVisible()
    // the stored answers keep their outcome and evidence
    await expect(page.getByTestId('answer-outcome').first()).toHaveAttribute('data-outcome', 'answered')
    await expect(page.getByTestId('answer-evidence').first()).toBeVisible()
    // A stored answer's citation still previews its passage with the quote marked.
    await page.getByTestId('claim').first().getByTestId('citation').first().hover()
    await expect(page.getByTestId('passage').getByTestId('passage-quote')).toBeVisible()
    await page.keyboard.press('Escape')
  })

  await test.step('dark mode: toggled, remembered across a reload', async () => {
    await page.getByTestId('theme-toggle').click()
    await page.getByTestId('theme-dark').click()
    await expect(page.locator('html')).toHaveClass(/dark/)
    await page.reload()
    await expect(page.locator('html')).toHaveClass(/dark/)
    await expect(page.getByTestId('claim').first()).toBeVisible()
    await expectAccessible(page, 'chat (dark)')
    await page.goto(`/w/${workspaceId}`)
    await expect(page.getByTestId('source-item')).toHaveCount(2)
    await expectAccessible(page, 'workspace home (dark)')
    await page.goto('/')
    await expect(page.getByTestId('workspace-item')).toHaveCount(1)
    await expect(page.getByTestId('workspace-item')).toContainText('2 sources')
    await expectAccessible(page, 'start page (dark)')
  })

  await test.step('deep links of the canvas, path and wiki views open them; per-paper Q&A answers from one paper', async () => {
    await page.goto(`/w/${workspaceId}/canvas`)
    await expect(page.getByTestId('canvas')).toHaveAttribute('data-state', 'ready')
    await page.goto(`/w/${workspaceId}/path`)
    await expect(page.getByTestId('path-none').or(page.getByTestId('path-step').first())).toBeVisible()
    await page.goto(`/w/${workspaceId}/wiki/attention`)
    await expect(page.getByTestId('wiki-missing').or(page.getByTestId('wiki-page'))).toBeVisible()
    await expectAccessible(page, 'wiki page')
    // The reader is built (e2e/reader.spec.ts); an unknown source says so.
    await page.goto(`/w/${workspaceId}/read/00000000-0000-0000-0000-000000000000?page=3`)
    await expect(page.getByRole('alert')).toContainText('could not be loaded')
    await page.goto(`/w/${workspaceId}`)
    await page.getByRole('button', { name: /^Ask about .*trauma|^Ask about .*thrombo/i }).first().click()
    const dialog = page.getByRole('dialog')
    await dialog.getByTestId('ask-input').fill('Which form of DVT prophylaxis is backed by level one evidence?')
    await dialog.getByTestId('ask-input').press('Enter')
    await expect(dialog.getByTestId('claim').first()).toBeVisible({ timeout: 120_000 })
    const documents = await dialog.getByTestId('answer-source').allTextContents()
    expect(documents.length).toBeGreaterThan(0)
    for (const d of documents) expect(d).not.toContain('Literature Graph')
    await expectAccessible(page, 'per-paper Q&A')
  })

  await test.step('the server: JSON 404 under /api, the app for deep links, offline /docs', async () => {
    const api404 = await page.request.get(`${baseURL}/api/no-such-route`)
    expect(api404.status()).toBe(404)
    expect((await api404.json()).error).toBe('not_found')
    const deep = await page.request.get(`${baseURL}/w/${workspaceId}/chat/whatever`)
    expect(deep.status()).toBe(200)
    expect(deep.headers()['cache-control']).toBe('no-cache')
    expect(await deep.text()).toContain('<div id="root">')
    // Nothing but this server: Swagger UI must come from it.
    await page.route('**/*', (route) => (route.request().url().startsWith(baseURL!) ? route.continue() : route.abort()))
    await page.goto('/docs')
    await expect(page.locator('.swagger-ui .title')).toContainText('Marginalia')
    await expect(page.getByText('/api/workspaces/{workspace_id}/ask').first()).toBeVisible()
  })
})

test('research: each source’s state, dedup counts and sources appearing as they land', async ({ page }) => {
  await createWorkspace(page, 'Dialogue', 'dialogue state tracking for task-oriented dialogue systems')
  await expect(page.getByTestId('research-topic')).toHaveValue(/dialogue state tracking/)
  await page.getByTestId('research-max').fill('4')
  await page.getByTestId('research-fulltext').uncheck() // abstracts only: no PDF downloads
  await page.getByRole('button', { name: 'Start research' }).click()
  const progress = page.getByTestId('research-progress')
  await expect(progress).toBeVisible()
  const source = (name: string) => progress.locator(`[data-testid="research-source"]:has-text("${name}")`)
  await expect(source('catalog')).toHaveAttribute('data-status', 'ok', { timeout: 120_000 })
  await expect(source('catalog')).toContainText(/\d+ results/)
  await expect(source('arxiv')).toHaveAttribute('data-status', 'failed')
  await expect(source('arxiv')).toContainText('unreachable')
  await expect(source('brave')).toHaveAttribute('data-status', 'skipped')
  await expect(source('brave')).toContainText('not configured')
  await expect(progress).toContainText(/found → \d+ unique/)
  await expect(page.getByTestId('source-item').first()).toBeVisible({ timeout: 180_000 })
  await expect(page.getByTestId('job-item').first()).toHaveAttribute('data-status', 'succeeded', { timeout: 180_000 })
  const added = await page.getByTestId('source-item').count()
  expect(added).toBeGreaterThan(0)
  expect(added).toBeLessThanOrEqual(4)
  await expect(page.getByTestId('source-item').first()).toContainText('Research')
  await expect(progress.getByLabel('Sources added').locator('li')).toHaveCount(added)
  await expectAccessible(page, 'research progress')
})
