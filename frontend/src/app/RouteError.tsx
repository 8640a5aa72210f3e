import { Link, isRouteErrorResponse, useRouteError } from 'react-router'

export function RouteError({ notFound }: { notFound?: boolean }) {
  const error = useRouteError()
  const missing = notFound || (isRouteErrorResponse(error) && error.status === 404)
  return (
    <main className="mx-auto max-w-xl p-8">
      <h1 className="text-xl font-semibold">{missing ? 'No such page' : 'Something went wrong'}</h1>
      <p className="mt-2 text-stone-700 dark:text-stone-300">
        {missing ? 'This address does not name a view of Marginalia.' : error instanceof Error ? error.message : 'The page failed to load.'}
      </p>
      <Link className="mt-4 inline-block text-accent-700 underline dark:text-accent-300" to="/">
        Back to workspaces
      </Link>
    </main>
  )
}
