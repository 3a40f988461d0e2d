/**
 * A Hearth plugin outside the Hearth tree. It imports only the public plugin
 * API (`hearth/plugin-api`), TypeBox included, so its schemas, its errors and
 * the core's are one copy. Build with `npm run build`; the folder (with the
 * built index.js) goes into HEARTH_PLUGINS_DIR.
 */
import { definePlugin, HttpError, ListOf, Single, Type } from 'hearth/plugin-api'

const Bookmark = Type.Object({ id: Type.Integer(), url: Type.String(), title: Type.String() })

export default definePlugin(
  {
    name: 'bookmarks',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'Bookmarks: an example plugin built outside the Hearth tree',
    migrations: new URL('./migrations/', import.meta.url),
    scope: 'records',
  },
  async (app, api) => {
    api.errors.define('BOOKMARK_EXISTS', 409, 'This URL is already bookmarked')
    const insert = api.db.prepare('INSERT INTO bookmarks_items (user_id, url, title) VALUES (?, ?, ?)')
    const exists = api.db.prepare('SELECT 1 FROM bookmarks_items WHERE user_id = ? AND url = ?')
    const list = api.db.prepare('SELECT id, url, title FROM bookmarks_items WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?')
    const count = api.db.prepare('SELECT COUNT(*) AS n FROM bookmarks_items WHERE user_id = ?')

    app.post(
      '/',
      {
        config: { errors: ['BOOKMARK_EXISTS'] },
        schema: {
          summary: 'Add a bookmark',
          body: Type.Object(
            { url: Type.String({ minLength: 1, maxLength: 2000 }), title: Type.String({ minLength: 1, maxLength: 200 }) },
            { additionalProperties: false },
          ),
          response: { 201: Single(Bookmark) },
        },
      },
      async (req, reply) => {
        if (exists.get(req.userId, req.body.url)) throw new HttpError('BOOKMARK_EXISTS')
        const { lastInsertRowid } = insert.run(req.userId, req.body.url, req.body.title)
        reply.code(201)
        return { id: Number(lastInsertRowid), url: req.body.url, title: req.body.title }
      },
    )

    app.get(
      '/',
      {
        schema: {
          summary: 'List bookmarks',
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
            offset: Type.Integer({ minimum: 0, default: 0 }),
          }),
          response: { 200: ListOf(Bookmark) },
        },
      },
      async (req) => ({
        items: list.all(req.userId, req.query.limit, req.query.offset) as Array<{ id: number; url: string; title: string }>,
        total: (count.get(req.userId) as { n: number }).n,
      }),
    )
  },
)
