// Accounts mode in the browser (issue 18): a second real server with one user. Nobody
// signed in is sent to the sign-in page; a wrong password is refused; signing in sets an
// HttpOnly cookie (script cannot read it) and returns to the page asked for; signing out
// ends the session.
import { expect, test } from '@playwright/test'
import { ACCOUNTS_USER } from '../playwright.config'

const base = `http://127.0.0.1:${process.env.E2E_ACCOUNTS_PORT}`

test('accounts mode: sign in, work, sign out', async ({ page }) => {
  await page.goto(`${base}/w/00000000-0000-0000-0000-000000000000`)
  await expect(page).toHaveURL(/\/sign-in\?next=/)
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible()

  await page.getByTestId('sign-in-email').fill(ACCOUNTS_USER.email)
  await page.getByTestId('sign-in-password').fill('not the password')
  await page.getByTestId('sign-in-submit').click()
  await expect(page.getByRole('alert')).toContainText('wrong email or password')

  await page.goto(`${base}/sign-in`)
  await page.getByTestId('sign-in-email').fill(ACCOUNTS_USER.email)
  await page.getByTestId('sign-in-password').fill(ACCOUNTS_USER.password)
  await page.getByTestId('sign-in-submit').click()
  await expect(page.getByRole('heading', { name: 'Workspaces' })).toBeVisible()
  await expect(page.getByTestId('signed-in-as')).toHaveText(ACCOUNTS_USER.email)
  expect(await page.evaluate(() => document.cookie)).not.toContain('marginalia_session')

  await page.getByTestId('new-workspace').click()
  await page.getByLabel('Name').fill('Mine alone')
  await page.getByRole('button', { name: 'Create' }).click()
  await expect(page).toHaveURL(/\/w\/[0-9a-f-]{36}/)
  await page.goto(`${base}/`)
  await expect(page.getByText('Mine alone')).toBeVisible()

  await page.getByTestId('sign-out').click()
  await expect(page).toHaveURL(/\/sign-in/)
  const after = await page.request.get(`${base}/api/workspaces`)
  expect(after.status()).toBe(401)
})
