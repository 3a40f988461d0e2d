/** What the proxy plugin provides (api.services.get('proxy'), and the core's device profiles). */
export interface ProxyPluginService {
  /**
   * The root certificate (DER) of the proxy's own CA when it serves `host` (an enabled HTTPS route of
   * that name whose served certificate chains to it), else null: what a device must trust to reach
   * Hearth at that name.
   */
  localRootFor(host: string): Promise<Buffer | null>
}
