import { definePlugin, everything, ListOf, Single } from '../../core/plugin-api.js'
import type { NetworkDriver, NetworkInterface } from '../../drivers/network/driver.js'
import linux from '../../drivers/network/linux/index.js'
import { NetworkConfig } from './config.js'
import { type Connectivity as Result, measure } from './connectivity.js'
import { Connectivity, NetworkInterface as InterfaceSchema } from './schemas.js'

/**
 * The box's network: its interfaces through the `network` HAL kind, and whether it reaches the
 * internet, measured against configured targets and cached briefly.
 */
export default definePlugin(
  {
    name: 'network',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    prefix: '/network',
    // Agent keys read DNS, storage and network; writes take a session or a system key.
    scope: 'appliance',
    config: NetworkConfig,
    description: 'Network interfaces and internet connectivity',
  },
  async (app, api) => {
    api.hal.register(linux)
    api.hal.configure('network', { sysfsRoot: api.config.sysfsRoot })
    const cache = api.cache<Result>({ ttlMs: api.config.connectivityCacheMs, maxEntries: 1 })
    const { connectivityTargets: targets, connectivityTimeoutMs: timeout } = api.config

    app.get(
      '/interfaces',
      {
        config: { errors: ['SERVICE_UNAVAILABLE'] },
        schema: { summary: 'List network interfaces', tags: ['network'], response: { 200: ListOf(InterfaceSchema) } },
      },
      // hal.with detects the driver on first use (no probe at start) and answers 503 when none is supported.
      async () => everything(await api.hal.with<NetworkDriver, NetworkInterface[]>('network', (driver) => driver.interfaces())),
    )

    app.get(
      '/connectivity',
      { schema: { summary: 'Check internet connectivity', tags: ['network'], response: { 200: Single(Connectivity) } } },
      async () => cache.getOrCompute('connectivity', () => measure(targets, timeout, api.now)),
    )
  },
)
