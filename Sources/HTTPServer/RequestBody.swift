/// How a route receives its request body.
///
/// Decided when the request headers arrive (on the connection thread), before any body
/// byte is read, so a body over its cap is refused up front from `Content-Length`, or as
/// soon as a chunked body passes the cap.
package enum RequestBody: Sendable {
    /// Buffered in memory into `HTTPRequest.body`; more than `maxBytes` (nil: the
    /// server's `maxBodyBytes`, default 1 MiB) answers 413 problem+json.
    case buffered(maxBytes: Int? = nil)
    /// Streamed to a new temporary file in `directory` (which must exist), handed to the
    /// handler as `HTTPRequest.bodyFile` once complete. More than `maxBytes` answers 413
    /// and the partial file is deleted. The handler takes the file by renaming it;
    /// anything left at that path is deleted after the handler returns.
    case upload(directory: String, maxBytes: Int)
    /// Chooses per request from the method, path, query and headers (the body field of the
    /// request is still empty), e.g. upload for `audio/*`, buffered for JSON.
    case perRequest(@Sendable (HTTPRequest) -> RequestBody)

    /// Resolves `.perRequest` (one level deep; a nested `.perRequest` falls back to buffered).
    func resolved(for request: HTTPRequest) -> RequestBody {
        if case .perRequest(let decide) = self {
            let r = decide(request)
            if case .perRequest = r { return .buffered() }
            return r
        }
        return self
    }
}
