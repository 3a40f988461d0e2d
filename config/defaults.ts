/**
 * Embedded defaults: the daemon starts with these and nothing else.
 * Secrets have no default: they are generated into <data>/hearth.env on first start.
 */
export const defaults: Record<string, string> = {
  HEARTH_PORT: '7200',
  HEARTH_HOST: '0.0.0.0',
  HEARTH_DATA_DIR: './data',
  HEARTH_DNS_PORT: '53',
  HEARTH_DNS_HOST: '0.0.0.0',
  HEARTH_TIER: 'free',
  HEARTH_LOG_LEVEL: 'info',
  HEARTH_LOG_FORMAT: 'auto',
  HEARTH_PLUGINS_DIR: '',
  HEARTH_DISABLED_PLUGINS: '',
  HEARTH_BODY_LIMIT: String(1024 * 1024),
  HEARTH_ANSWER_BUDGET: String(16 * 1024 * 1024),
  HEARTH_RATE_LIMIT: '6000',
  HEARTH_LOGIN_FAIL_LIMIT: '10',
  HEARTH_TRUSTED_PROXIES: '',
  HEARTH_MAX_CONNECTIONS_PER_CLIENT: '64',
  HEARTH_MAILER_URL: '',
  HEARTH_PUBLIC_HOSTNAME: '',
  HEARTH_RESTORE_KEEP: '1',
}
