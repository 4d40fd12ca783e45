/// What the server was started with (SPEC 1). A plain value; any thread.
package struct APIConfiguration: Sendable {
    /// Folders whose files players may open by path (already resolved, no symlinks).
    package var mediaRoots: [String]
    /// Where players and uploads persist.
    package var stateDirectory: String
    /// The bearer token every /api/v1 request needs; nil for none (loopback only).
    package var token: String?
    /// Largest accepted upload in bytes.
    package var maxUpload: Int
    /// Longest offline render one request may ask for (seconds).
    package var maxRenderSeconds: Double
    /// The control page's folder, or nil to serve none.
    package var publicDirectory: String?
    /// The OpenAPI document served at /openapi.yaml.
    package var openAPIPath: String?
    /// Host names (besides loopback names, IP literals and this machine's names) that
    /// requests may carry in `Host`.
    package var allowedHosts: [String]

    package init(mediaRoots: [String], stateDirectory: String, token: String?, maxUpload: Int = 512 << 20,
                 maxRenderSeconds: Double = 3 * 3600,
                 publicDirectory: String?, openAPIPath: String?, allowedHosts: [String] = []) {
        self.mediaRoots = mediaRoots
        self.stateDirectory = stateDirectory
        self.token = token
        self.maxUpload = maxUpload
        self.maxRenderSeconds = maxRenderSeconds
        self.publicDirectory = publicDirectory
        self.openAPIPath = openAPIPath
        self.allowedHosts = allowedHosts
    }
}
