// Issue 36: the workspace's bibliography out of the web app and back in, and citation
// chasing from the sources view — against a real `marginalia serve` whose catalog is the
// shared ACL 2020 one.
import { expect, test, type APIRequestContext } from '@playwright/test'
import fs from 'node:fs'
import path from 'node:path'
import { createWorkspace, uploadAndWait } from './helpers'

// A user's library: SPECTER without DOI, pages or venue (the catalog has them), and a
// paper the catalog does not hold, with its own pages and DOI.
const LIBRARY = String.raw`
@inproceedings{cohan2020specter,
  title = {{SPECTER}: Document-level Representation Learning using Citation-informed Transformers},
  author = {Cohan, Arman and Feldman, Sergey and Beltagy, Iz and Downey, Doug and Weld, Daniel},
  year = {2020},
  abstract = {Representation learning is a critical ingredient for natural language processing systems.},
}
@article{roe2019widgets,
  title = {On the Careful Ranking of Widgets in Large Warehouses},
  author = {Roe, Jane},
  year = {2019},
  journal = {Journal of Widgets},
  pages = {12-30},
  doi = {10.5555/widgets.2019},
}
`

// A paper whose reference list names one work of the catalog and one it does not hold.
const CAREGIVER = (() => {
  const body = 'We study how speech directed to children differs from speech directed to adults. '.repeat(12)
  const paper = [
    '# Acoustic Cues in Caregiver Speech Across Languages',
    '',
    '## Abstract',
    '',
    body,
    '',
    '## Introduction',
    '',
    body,
    '',
    '## References',
    '',
    '- Lieke Gelderloos, Grzegorz Chrupała, and Afra Alishahi. 2020. Learning to understand child-directed and adult-directed speech. In ACL.',
    '- Jane Roe. 2017. A study of nothing in particular about the ranking of widgets. In Proceedings of Nowhere.',
  ].join('\n')
  return { name: 'caregiver.md', mimeType: 'text/markdown', buffer: Buffer.from(paper) }
})()

async function importBibtex(request: APIRequestContext, workspaceId: string, text: string): Promise<void> {
  const res = await request.post(`/api/workspaces/${workspaceId}/bibtex?fetch=false`, {
    data: text,
    headers: { 'content-type': 'application/x-bibtex' },
  })
  expect(res.status()).toBe(202)
  const job = await res.json()
  await expect
    .poll(async () => (await (await request.get(`/api/jobs/${job.id}`)).json()).status, { timeout: 120_000 })
    .toBe('succeeded')
}

test('export the BibTeX from the sources view, re-import it into an empty workspace, compare', async ({ page, request }) => {
  const name = `Bibliography ${Date.now()}`
  const workspaceId = await createWorkspace(page, name, 'representation learning of scientific documents')
  await importBibtex(request, workspaceId, LIBRARY)
  await page.reload()
  await expect(page.getByTestId('source-item')).toHaveCount(2)

  await page.getByTestId('export-bibliography').click()
  await page.getByTestId('export-format-bibtex').check()
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()])
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-')
  expect(download.suggestedFilename()).toBe(`${slug}.bib`)
  const exported = fs.readFileSync((await download.path()) as string, 'utf8')
  expect(exported.match(/^@/gm)).toHaveLength(2)
  // filled from the catalog's record of SPECTER, with the origin said
  expect(exported).toContain('10.18653/v1/2020.acl-main.207')
  expect(exported).toMatch(/pages = \{2270--2282\}/)
  expect(exported).toMatch(/metadata-origin = \{doi=catalog; pages=catalog; venue=catalog\}/)
  expect(exported).toMatch(/pages = \{12--30\}/)

  // into an empty workspace: the same entries come back out, field for field
  const empty = await (await request.post('/api/workspaces', { data: { name: `${name} copy`, description: '' } })).json()
  await importBibtex(request, empty.id, exported)
  const again = await (await request.get(`/api/workspaces/${empty.id}/export?format=bibtex`)).text()
  expect(again).toBe(exported)

  // a selection exports only the chosen source
  await page.getByRole('checkbox', { name: /Select On the Careful Ranking/ }).check()
  await page.getByTestId('export-bibliography').click()
  await page.getByTestId('export-format-ris').check()
  const [one] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()])
  expect(one.suggestedFilename()).toBe(`${slug}.ris`)
  const ris = fs.readFileSync((await one.path()) as string, 'utf8')
  expect(ris.match(/^TY {2}-/gm)).toHaveLength(1)
  expect(ris).toContain('TI  - On the Careful Ranking of Widgets in Large Warehouses')
})

test('the references panel lists a paper’s known references and adds the selected one', async ({ page, request }) => {
  const workspaceId = await createWorkspace(page, `Chasing ${Date.now()}`, 'child-directed speech')
  await uploadAndWait(page, [], [CAREGIVER])
  const row = page.getByTestId('source-item').filter({ hasText: 'Acoustic Cues' })
  await expect(row).toBeVisible()
  await row.getByRole('button', { name: /Citations of/ }).click()
  const panel = page.getByTestId('source-citations')
  await expect(panel).toBeVisible()
  const works = panel.getByTestId('citation-work')
  await expect(works).toHaveCount(1)
  await expect(works.first()).toContainText('Learning to Understand Child-directed and Adult-directed Speech')
  await expect(works.first()).toContainText('reference list')
  await expect(works.first()).toHaveAttribute('data-in-workspace', 'false')
  await expect(panel).toContainText('1 entry of the reference list matches no known work')
  await works.first().getByRole('checkbox').check()
  await panel.getByTestId('add-selected-works').click()
  await expect(panel.getByRole('status')).toBeVisible()
  await expect
    .poll(async () => (await (await request.get(`/api/workspaces/${workspaceId}/sources`)).json()).length, { timeout: 120_000 })
    .toBe(2)
  await expect(works.first()).toHaveAttribute('data-in-workspace', 'true', { timeout: 60_000 })
})

test('the suggestions panel lists a work the workspace cites, with why, and adds it', async ({ page, request }) => {
  const workspaceId = await createWorkspace(page, `Suggestions ${Date.now()}`, 'child-directed speech')
  await uploadAndWait(page, [], [CAREGIVER])
  const panel = page.getByTestId('workspace-suggestions')
  await panel.getByRole('button', { name: 'Show' }).click()
  const suggestion = panel.getByTestId('suggestion')
  await expect(suggestion).toHaveCount(1, { timeout: 60_000 })
  await expect(suggestion).toContainText('Learning to Understand Child-directed and Adult-directed Speech')
  await expect(suggestion).toContainText('cited by 1 workspace source')
  await suggestion.getByRole('checkbox').check()
  await panel.getByRole('button', { name: 'Add selected (1)' }).click()
  await expect
    .poll(async () => (await (await request.get(`/api/workspaces/${workspaceId}/sources`)).json()).length, { timeout: 120_000 })
    .toBe(2)
  // once in the workspace it is no longer a suggestion
  await page.reload()
  await page.getByTestId('workspace-suggestions').getByRole('button', { name: 'Show' }).click()
  await expect(page.getByTestId('workspace-suggestions')).toContainText('No suggestions yet.', { timeout: 60_000 })
})

// On demand (E2E_SHOTS=1): the sources view with its suggestions, the export dialog and a
// paper's citations panel, light and dark, wide and narrow, into docs/screenshots/.
test('bibliography and citation screenshots', async ({ browser, page, request }) => {
  test.skip(!process.env.E2E_SHOTS, 'screenshots on demand')
  const shots = path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')
  const workspaceId = await createWorkspace(page, 'Child-directed speech', 'how caregivers speak to children')
  await uploadAndWait(page, [], [CAREGIVER])
  await importBibtex(request, workspaceId, LIBRARY)
  for (const [size, viewport] of Object.entries({ wide: { width: 1280, height: 800 }, narrow: { width: 390, height: 844 } }))
    for (const dark of [false, true]) {
      const scheme = dark ? 'dark' : 'light'
      const context = await browser.newContext({ viewport, colorScheme: scheme })
      const shot = await context.newPage()
      await shot.goto(`/w/${workspaceId}`)
      await expect(shot.getByTestId('source-item')).toHaveCount(3)
      const suggestions = shot.getByTestId('workspace-suggestions')
      await suggestions.getByRole('button', { name: 'Show' }).click()
      await expect(suggestions.getByTestId('suggestion').first()).toBeVisible({ timeout: 60_000 })
      await suggestions.scrollIntoViewIfNeeded()
      await shot.screenshot({ path: `${shots}/suggestions-${scheme}-${size}.png` })
      await shot.getByTestId('export-bibliography').click()
      await expect(shot.getByTestId('export-download')).toBeVisible()
      await shot.screenshot({ path: `${shots}/export-dialog-${scheme}-${size}.png` })
      await shot.keyboard.press('Escape')
      const row = shot.getByTestId('source-item').filter({ hasText: 'Acoustic Cues' })
      await row.getByRole('button', { name: /Citations of/ }).click()
      await expect(shot.getByTestId('citation-work').first()).toBeVisible({ timeout: 60_000 })
      await shot.screenshot({ path: `${shots}/citations-panel-${scheme}-${size}.png` })
      await context.close()
    }
})
