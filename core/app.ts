import { randomUUID } from 'node:crypto'
import type { HearthTypeProvider } from './type-provider.js'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import type { DeviceRootSource } from './auth/apple-profile.js'
import { authRoutes } from './auth/routes/index.js'
import { throttle } from './auth/throttle.js'
import { builtinPlugins } from './builtin-plugins.js'
import { type ConfigSources, type CoreConfig, collectSources, loadCoreConfig } from './config.js'
import { installGroupCommit } from './db/group-commit.js'
import { closeDatabase } from './db/sqlite.js'
import { installErrorHandling } from './envelope.js'
import { defineError, errors } from './errors.js'
import type { CommandRunner } from './hal/command.js'
import { loggerOptions } from './logging/index.js'
import { RequestLog } from './logging/request-log.js'
import { registerOpenApi } from './openapi.js'
import { definePlugin, PLUGIN_API_VERSION, type HearthApi, type HearthPlugin } from './plugin-api.js'
import { discoverPlugins, type LoadedPlugin, loadPlugins } from './plugin-loader.js'
import { createPluginServices } from './plugin-services.js'
import type { RouteEntry } from './route-pipeline.js'
import { healthRoutes } from './routes/health.js'
import { registerHouseholdPage } from './household-page/routes.js'
import { ensureSecrets, withSecretPlaceholders } from './secrets.js'
import { createServices, type Services } from './services.js'
import { createProxyTrust, type ProxyTrust } from './client-address.js'
import { capConnectionsPerClient, cutSlowBodies, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS, serverOptions } from './http-limits.js'
import { compileCheck, compileSerializer, installValidators } from './validation.js'
import { VERSION } from './version.js'
import { ByteBudget } from '../lib/byte-budget.js'
import { budgetOf } from './list-page.js'

export { VERSION }

export interface BuildOptions {
  /** Environment-like settings; default process.env. HEARTH_DATA_DIR selects the data folder. */
  env?: ConfigSources
  /** Built-in plugins; default every folder of plugins/. */
  plugins?: HearthPlugin[]
  /** Runs OS tools for the drivers; tests inject captured output. */
  run?: CommandRunner
  now?: () => number
  logger?: boolean
}

declare module 'fastify' {
  interface FastifyInstance {
    hearth: Services & { plugins: LoadedPlugin[]; version: string }
  }
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** The one composition root: used by main.ts and by every test. */
export async function buildApp(options: BuildOptions = {}): Promise<FastifyInstance> {
  // Validated before anything is written: a bad setting stops the start with no data folder created.
  const startedAt = Date.now()
  const given = collectSources(options.env ?? process.env)
  loadCoreConfig(withSecretPlaceholders(given))
  const sources = ensureSecrets(given)
  const config = loadCoreConfig(sources)

  const proxyTrust = createProxyTrust(config.trustedProxies)
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config),
    logController: new RequestLog(),
    bodyLimit: config.bodyLimit,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // X-Forwarded-* only from the configured proxies (core/client-address.ts); anyone else is who it connects as.
    trustProxy: proxyTrust.trusts,
    http: serverOptions,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  }).withTypeProvider<HearthTypeProvider>()
  capConnectionsPerClient(app.server, config.maxConnectionsPerClient, proxyTrust.trusts)
  cutSlowBodies(app.server)

  const services = createServices(config, sources, app.log, options)
  try {
    return await assemble(app, services, config, sources, options, startedAt, proxyTrust)
  } catch (err) {
    // A plugin that fails the start must not leave its jobs and the database open behind it.
    await releaseServices(app, services)
    throw err
  }
}

async function assemble(
  app: FastifyInstance,
  services: Services,
  config: CoreConfig,
  sources: ConfigSources,
  options: BuildOptions,
  startedAt: number,
  proxyTrust: ProxyTrust,
): Promise<FastifyInstance> {
  app.decorate('hearth', { ...services, plugins: [] as LoadedPlugin[], version: VERSION })
  app.decorateRequest('auth', null as never)
  app.decorateRequest('userId', '')
  app.decorateRequest('svcSource', null)
  app.decorateRequest('answerBudget', {
    getter(this: FastifyRequest) {
      return budgetOf(this.headers, config.answerBudget)
    },
  })

  installValidators(app, config.answerBudget)
  installErrorHandling(app)
  installGroupCommit(app, services.groupCommit)
  services.metrics.install(app, services.authenticate)
  const defaultJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  // Bodies are JSON (or multipart where a route registers it): anything else is 415.
  app.removeContentTypeParser('text/plain')
  // Action endpoints (archive, restore...) take no body; clients often still send the JSON header.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    body === '' ? done(null, undefined) : defaultJson(req, body as string, done),
  )

  // A callback hook: an async one costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    reply.header('x-svc-version', VERSION)
    reply.header('x-svc-tier', config.tier)
    const source = request.headers['x-svc-source']
    request.svcSource = typeof source === 'string' && source.length <= 64 ? source : null
    done()
  })

  const tags = new Map<string, string>()
  await registerOpenApi(app, { version: VERSION, tags })
  registerHouseholdPage(app)

  const shared = createPluginServices()
  const apiFor = (plugin: HearthPlugin, pluginConfig: unknown): HearthApi => ({
    version: PLUGIN_API_VERSION,
    coreVersion: VERSION,
    plugin: plugin.manifest.name,
    db: services.db,
    config: pluginConfig as HearthApi['config'],
    log: app.log.child({ plugin: plugin.manifest.name }),
    events: services.events,
    cron: services.scheduler,
    hal: services.hal,
    errors: { ...errors, define: defineError },
    secrets: services.secrets,
    dataDir: config.dataDir,
    now: services.now,
    answerBudget: () => new ByteBudget(config.answerBudget),
    cache: (opts) => services.cache(opts, plugin.manifest.name),
    validator: (schema) => compileCheck(schema),
    serializer: (schema) => compileSerializer(schema),
    health: { register: (component, check) => services.health.set(component, check) },
    auth: { authenticate: services.authenticate, basic: services.basicAuth, member: services.member },
    metrics: { register: (...args) => services.metrics.register(...args) },
    onClose: (fn) => services.closers.push(fn),
    services: shared.for(plugin.manifest),
    routes: { get: (operationId) => pipeline.routes.get(operationId) },
  })

  const pipeline = {
    guard: { resolveCaller: services.resolveCaller, limiter: services.requestLimiter, hal: services.hal },
    defaultTier: () => services.config.tier,
    operationIds: new Map<string, string>(),
    routes: new Map<string, RouteEntry>(),
  }
  const loaderDeps = { sources, apiFor, pipeline, tags, disabled: new Set(config.disabledPlugins) }
  const report = app.hearth.plugins
  // The core's own routes take the plugins' path: same pipeline, same guards, same document.
  const core = [
    definePlugin(
      {
        name: 'health',
        version: VERSION,
        apiVersion: PLUGIN_API_VERSION,
        prefix: '',
        description: 'Liveness and the state of each component',
      },
      (api) => healthRoutes(api, { services, version: VERSION, startedAt }),
    ),
    definePlugin(
      { name: 'auth', version: VERSION, apiVersion: PLUGIN_API_VERSION, prefix: '', description: 'Sign-in, sessions, users and API keys' },
      (api) =>
        authRoutes(api, {
          service: services.authService,
          accounts: services.accounts,
          users: services.users,
          apiKeys: services.apiKeys,
          tokens: services.tokens,
          twoFactor: services.twoFactor,
          appPasswords: services.appPasswords,
          passkeys: services.passkeys,
          // The proxy plugin knows which names its own CA serves (plugins/proxy/public.ts); read at request time.
          deviceRoot: async (host) => (await shared.provided<DeviceRootSource>('proxy')?.localRootFor(host)) ?? null,
          version: VERSION,
          throttled: (name) => throttle(services.publicLimiter, name),
          events: services.events,
        }),
    ),
  ]
  await loadPlugins(app, core, 'core', loaderDeps, report)
  const builtins = options.plugins ?? (await builtinPlugins())
  await loadPlugins(app, builtins, 'builtin', loaderDeps, report)
  // A disabled third-party plugin is not even imported: its module code never runs.
  const discovered = await discoverPlugins(config.pluginsDir, loaderDeps.disabled)
  for (const found of discovered) {
    if (found.plugin) continue
    if (found.disabled) {
      report.push({
        name: found.dir,
        version: '?',
        source: 'third-party',
        status: 'disabled',
        reason: 'disabled by HEARTH_DISABLED_PLUGINS',
      })
      continue
    }
    app.log.error({ plugin: found.dir }, `plugin ${found.dir} dropped: ${found.error}`)
    report.push({ name: found.dir, version: '?', source: 'third-party', status: 'failed', reason: found.error })
  }
  const thirdParty = discovered.flatMap((f) => (f.plugin ? [f.plugin] : []))
  await loadPlugins(app, thirdParty, 'third-party', loaderDeps, report)

  proxyTrust.settle(report.some((p) => p.name === 'proxy' && p.source === 'builtin' && p.status === 'loaded'))
  app.log.debug({ trustedProxies: proxyTrust.entries }, 'X-Forwarded-* believed from these peers only')

  app.addHook('onClose', () => releaseServices(app, services))

  await app.ready()
  return app
}

/** Stops jobs, runs the plugins' close handlers, closes drivers and the database. */
async function releaseServices(app: FastifyInstance, services: Services): Promise<void> {
  await services.scheduler.stopAll()
  for (const fn of [...services.closers].reverse()) {
    try {
      await fn()
    } catch (err) {
      app.log.error({ err }, 'close handler failed')
    }
  }
  await services.hal.close()
  services.groupCommit.flush()
  closeDatabase(services.db)
}
