// A table column on the canvas (issue 37): build a table over two real PDFs, click "Show on
// canvas" on a column — the source nodes carry their value and its colour, the legend lists
// the values, "only sources with a value" hides the others, the choice survives a reload and
// clearing it brings the year legend back. With E2E_EXTRAS=1 it also writes the screenshots
// (light and dark, 1280×800) into docs/screenshots/.
import { expect, test, type Page } from '@playwright/test'
import path from 'node:path'
import { workspaceWithTable } from './helpers'

const SHOTS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')

const node = (page: Page, sourceId: string) => page.locator(`.react-flow__node[data-id="source:${sourceId}"]`)

test('a table column colours the canvas: values on the nodes, a legend, a filter, in the URL', async ({ page, request, browser }) => {
  const { workspaceId, tableId } = await workspaceWithTable(request, 'Column on canvas', 'literature graphs and thromboprophylaxis')

  // The column with the most sources answered (the server's own values are the expectation).
  const table = await (await request.get(`/api/workspaces/${workspaceId}/tables/${tableId}`)).json()
  const columns: { id: string; question: string }[] = table.columns
  const valuesOf = async (columnId: string): Promise<Record<string, string | null>> =>
    (await (await request.get(`/api/workspaces/${workspaceId}/tables/${tableId}/columns/${columnId}/values`)).json()).values
  const all = await Promise.all(columns.map(async (c) => ({ column: c, values: await valuesOf(c.id) })))
  const answered = (v: Record<string, string | null>) => Object.values(v).filter((x) => x !== null).length
  const length = (v: Record<string, string | null>) => Object.values(v).reduce((n, x) => n + (x?.length ?? 0), 0)
  // Most answered, then the shortest values (the most legible on the nodes).
  all.sort((a, b) => answered(b.values) - answered(a.values) || length(a.values) - length(b.values))
  const { column, values } = all[0]!
  expect(answered(values)).toBeGreaterThan(0)
  const index = columns.findIndex((c) => c.id === column.id)

  await page.goto(`/w/${workspaceId}/table/${tableId}`)
  await expect(page.getByTestId('table-column')).toHaveCount(columns.length)
  await page.getByTestId('column-to-canvas').nth(index).click()
  await page.waitForURL((u) => u.pathname === `/w/${workspaceId}/canvas` && u.searchParams.get('attr') === `${tableId}:${column.id}`)

  const expectColoured = async () => {
    await expect(page.getByTestId('canvas')).toHaveAttribute('data-state', 'ready')
    await expect(page.getByTestId('canvas-attribute')).toHaveValue(`${tableId}:${column.id}`)
    for (const [sourceId, value] of Object.entries(values)) {
      await expect(node(page, sourceId).getByTestId('canvas-attribute-value')).toHaveText(value === null ? '—' : value.trim().replace(/\s+/g, ' '), { ignoreCase: true })
    }
    const legend = page.getByTestId('canvas-attribute-legend')
    for (const value of Object.values(values)) if (value !== null) await expect(legend).toContainText(value.trim().replace(/\s+/g, ' '), { ignoreCase: true })
    if (Object.values(values).includes(null)) await expect(legend).toContainText('no value')
    await expect(page.getByTestId('canvas-year-legend')).toHaveCount(0)
  }
  await expectColoured()
  // Sources with different values have different colours (the left bar).
  const bar = (sourceId: string) => node(page, sourceId).getByTestId('canvas-source').evaluate((el) => getComputedStyle(el).borderLeftColor)
  const ids = Object.keys(values)
  const distinct = new Set(Object.values(values).map((v) => v?.trim().toLowerCase() ?? null)).size
  expect(new Set(await Promise.all(ids.map(bar))).size).toBe(distinct)

  // It survives a reload.
  await page.reload()
  await expectColoured()

  // Only sources with a value: the others are not drawn.
  // A click, then the URL and the box: the box is controlled by the URL, so its state
  // changes a render after the click (Playwright's check() looks at once, flaky in CI).
  await page.getByTestId('canvas-attribute-only').click()
  await expect(page.getByTestId('canvas-attribute-only')).toBeChecked()
  await expect(page).toHaveURL(/attr_only=1/)
  for (const [sourceId, value] of Object.entries(values)) {
    if (value === null) await expect(node(page, sourceId)).toBeHidden()
    else await expect(node(page, sourceId)).toBeVisible()
  }
  await page.getByTestId('canvas-attribute-only').click()
  await expect(page.getByTestId('canvas-attribute-only')).not.toBeChecked()

  if (process.env.E2E_EXTRAS) {
    const url = page.url()
    for (const dark of [false, true]) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: dark ? 'dark' : 'light' })
      const p = await context.newPage()
      await p.goto('/')
      await p.evaluate((d) => localStorage.setItem('marginalia-ui', JSON.stringify({ state: { theme: d ? 'dark' : 'light' }, version: 0 })), dark)
      await p.goto(url)
      await expect(p.getByTestId('canvas')).toHaveAttribute('data-state', 'ready')
      await expect(p.getByTestId('canvas-attribute-legend')).toBeVisible()
      await p.waitForTimeout(500)
      await p.screenshot({ path: path.join(SHOTS, `canvas-column-${dark ? 'dark' : 'light'}-wide.png`) })
      await context.close()
    }
  }

  // Clearing it restores the year colouring.
  await page.getByTestId('canvas-attribute').selectOption('')
  await expect(page).not.toHaveURL(/attr=/)
  await expect(page.getByTestId('canvas-attribute-value')).toHaveCount(0)
  await expect(page.getByTestId('canvas-attribute-legend')).toHaveCount(0)
  await expect(page.getByTestId('canvas-year-legend')).toBeVisible()
})
