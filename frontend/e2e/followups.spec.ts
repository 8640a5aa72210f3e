// Follow-ups (issue 32): a follow-up in the chat is searched with the conversation's
// subject, and the answer says what was searched ("Searched as: …"); a first question
// and a reloaded conversation show the same.
import { expect, test } from '@playwright/test'
import { ANSWERABLE, SMALL_PDFS, createWorkspace, expectAccessible, uploadAndWait } from './helpers'

test('a follow-up shows the question it was searched as, live and after a reload', async ({ page }) => {
  test.setTimeout(420_000)
  const workspaceId = await createWorkspace(page, 'Follow-ups', 'Two small papers for follow-up questions')
  await uploadAndWait(page, SMALL_PDFS)
  await page.getByRole('link', { name: 'Chat' }).click()
  await page.waitForURL(`**/w/${workspaceId}/chat`)

  await page.getByTestId('ask-input').fill(ANSWERABLE)
  await page.getByTestId('ask-input').press('Enter')
  await expect(page.getByTestId('answer').first()).not.toBeEmpty({ timeout: 120_000 })
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/)
  // a first question is searched as asked
  await expect(page.getByTestId('answer-resolved-question')).toHaveCount(0)

  await page.getByTestId('ask-input').fill('And how many distinct people?')
  await page.getByTestId('ask-input').press('Enter')
  const resolved = page.getByTestId('turn').nth(1).getByTestId('answer-resolved-question')
  await expect(resolved).toBeVisible({ timeout: 120_000 })
  await expect(resolved).toContainText('Searched as: And how many distinct people?')
  await expect(resolved).toContainText(/literature|graph|duplicates/i)
  await expect(page.getByTestId('answer-resolved-question')).toHaveCount(1)
  await expectAccessible(page, 'chat with a resolved follow-up')

  await page.reload()
  await expect(page.getByTestId('question')).toHaveCount(2)
  await expect(page.getByTestId('turn').nth(1).getByTestId('answer-resolved-question')).toContainText(
    'Searched as: And how many distinct people?',
  )
})
