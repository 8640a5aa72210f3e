// On demand (E2E_EXTRAS=1 scripts/e2e.sh e2e/tables-shots.spec.ts): an evidence table's
// screenshots, light and dark, 1280×800 and 390×844, into docs/screenshots/ — two shared
// PDFs × the five suggested columns, filled by the offline engine.
import { expect, test } from '@playwright/test'
import path from 'node:path'
import { workspaceWithTable } from './helpers'

const SHOTS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')

test('evidence table screenshots', async ({ browser, request }) => {
  const { workspaceId, tableId } = await workspaceWithTable(request, 'Literature graphs', 'knowledge graphs and clinical reviews')
  const url = `/w/${workspaceId}/table/${tableId}`
  for (const [size, viewport] of Object.entries({ wide: { width: 1280, height: 800 }, narrow: { width: 390, height: 844 } })) {
    for (const dark of [false, true]) {
      const context = await browser.newContext({ viewport, colorScheme: dark ? 'dark' : 'light' })
      const p = await context.newPage()
      await p.goto('/')
      await p.evaluate((d) => localStorage.setItem('marginalia-ui', JSON.stringify({ state: { theme: d ? 'dark' : 'light' }, version: 0 })), dark)
      await p.goto(url)
      await expect(p.locator('[data-testid="table-cell"][data-state="filled"]')).toHaveCount(10)
      await p.waitForTimeout(500)
      await p.screenshot({ path: path.join(SHOTS, `table-${dark ? 'dark' : 'light'}-${size}.png`) })
      if (size === 'wide' && !dark) {
        await p.goto(`/w/${workspaceId}/table`)
        await expect(p.getByTestId('table-link')).toHaveCount(1)
        await p.getByTestId('suggested-column').first().click()
        await p.waitForTimeout(300)
        await p.screenshot({ path: path.join(SHOTS, 'table-new-light-wide.png') })
      }
      await context.close()
    }
  }
})
