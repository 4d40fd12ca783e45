// Threading model (copy to DESIGN.md):
//
// HTTPServer runs libmicrohttpd with MHD_USE_THREAD_PER_CONNECTION |
// MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC: one listening thread
// accepts, and each connection gets its own thread for its whole (keep-alive) life.
// This lets an SSE reader simply block on its stream (a timed semaphore wait) without
// suspend/resume bookkeeping, keeps handlers synchronous, and the connection limit
// bounds the thread count. Rules: route handlers, the beforeRoute hook and
// EventStream.onTermination run on a connection thread — they must not block for long
// (except the SSE reader, which is ours) and must reach shared state only through a
// Mutex. Handlers must never call stop(). EventStream is written from any thread.
// stop() closes every SSE stream first (waking its reader), then MHD_stop_daemon joins
// all connection threads, so no thread outlives it.

import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server over libmicrohttpd: routes, a pre-route hook, body policies
/// (buffered with a cap, or streamed to a temporary file), static files and SSE.
/// It knows nothing about audio.
///
/// Configure (routes, `beforeRoute`, `serveStatic`) before `start()`; the running
/// server uses a frozen copy. All methods may be called from any thread except from a
/// handler running on this server (`stop()` there would deadlock).
package final class HTTPServer: Sendable {
    /// Listening and limit settings.
    package struct Configuration: Sendable {
        /// An IPv4 or IPv6 literal (brackets allowed), or "localhost" (→ 127.0.0.1).
        package var host: String
        /// 0 picks an ephemeral port; read `port` after `start()`.
        package var port: UInt16
        /// Total concurrent connections (each is a thread). Further ones are dropped
        /// without an HTTP status.
        package var connectionLimit: Int
        /// Concurrent connections per client IP; 0 = no limit.
        package var perIPConnectionLimit: Int
        /// Seconds of inactivity before a connection is closed; 0 = never.
        package var connectionTimeout: Int
        /// The default cap of buffered request bodies (413 above it).
        package var maxBodyBytes: Int
        /// How often an idle SSE stream sends `: keepalive`. Clamped below the
        /// connection timeout.
        package var sseKeepalive: Duration

        package init(host: String = "127.0.0.1", port: UInt16 = 0, connectionLimit: Int = 512,
                     perIPConnectionLimit: Int = 0, connectionTimeout: Int = 60,
                     maxBodyBytes: Int = 1 << 20, sseKeepalive: Duration = .seconds(15)) {
            self.host = host
            self.port = port
            self.connectionLimit = connectionLimit
            self.perIPConnectionLimit = perIPConnectionLimit
            self.connectionTimeout = connectionTimeout
            self.maxBodyBytes = maxBodyBytes
            self.sseKeepalive = sseKeepalive
        }

        /// The keepalive interval in nanoseconds, kept at most half the connection timeout.
        var keepaliveNanoseconds: UInt64 {
            let c = sseKeepalive.components
            var ns = UInt64(max(0, c.seconds)) * 1_000_000_000 + UInt64(max(0, c.attoseconds) / 1_000_000_000)
            if connectionTimeout > 0 { ns = min(ns, UInt64(connectionTimeout) * 500_000_000) }
            return max(ns, 1_000_000)
        }
    }

    /// Called with each request (body not yet read) before routing; a non-nil response
    /// is sent instead of routing (auth, Host check, content-type rules). Runs on a
    /// connection thread.
    package typealias BeforeRoute = @Sendable (HTTPRequest) -> HTTPResponse?

    /// The daemon handle is only used by `stop()`, after being taken out of the mutex.
    private struct Running: @unchecked Sendable {
        let daemon: OpaquePointer
        let core: Unmanaged<ServerCore>
        let port: UInt16
    }

    private struct State {
        var router = Router()
        var beforeRoute: BeforeRoute?
        var staticFiles: StaticFiles?
        var running: Running?
    }

    package let configuration: Configuration
    private let state = Mutex(State())

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    deinit { stop() }

    /// The pre-route hook; set before `start()`.
    package var beforeRoute: BeforeRoute? {
        get { state.withLock { $0.beforeRoute } }
        set { state.withLock { $0.beforeRoute = newValue } }
    }

    /// Adds a route; see `Router.add`. Call before `start()`.
    package func route(_ method: String, _ pattern: String, body: RequestBody = .buffered(),
                       _ handler: @escaping Router.Handler) {
        state.withLock { $0.router.add(method, pattern, body: body, handler: handler) }
    }

    /// Serves `directory` under `prefix` for GET/HEAD paths no route matches.
    package func serveStatic(directory: String, at prefix: String = "/") throws(HTTPServerError) {
        guard let files = StaticFiles(directory: directory, prefix: prefix) else {
            throw .staticDirectoryMissing(directory)
        }
        state.withLock { $0.staticFiles = files }
    }

    /// Binds and starts serving.
    package func start() throws(HTTPServerError) {
        var address = try Self.socketAddress(host: configuration.host, port: configuration.port)
        let snapshot = state.withLock { s in (s.router, s.beforeRoute, s.staticFiles, s.running != nil) }
        if snapshot.3 { throw .alreadyRunning }
        let core = Unmanaged.passRetained(ServerCore(configuration: configuration, router: snapshot.0,
                                                     beforeRoute: snapshot.1, staticFiles: snapshot.2))
        let daemon = address.withSockaddr { sa, isIPv6 in
            tonearm_mhd_start(tonearm_mhd_flags(isIPv6 ? 1 : 0), sa,
                              ServerCore.accessHandler, core.toOpaque(),
                              ServerCore.completedCallback, core.toOpaque(),
                              ServerCore.uriLogCallback, core.toOpaque(),
                              UInt32(clamping: max(1, configuration.connectionLimit)),
                              UInt32(clamping: max(0, configuration.perIPConnectionLimit)),
                              UInt32(clamping: max(0, configuration.connectionTimeout)),
                              0)
        }
        guard let daemon else {
            core.release()
            throw .startFailed(host: configuration.host, port: configuration.port, errno: errno)
        }
        let port = tonearm_mhd_bound_port(daemon)
        state.withLock { $0.running = Running(daemon: daemon, core: core, port: port) }
    }

    /// The bound port (useful with port 0), or 0 when not running.
    package var port: UInt16 { state.withLock { $0.running?.port ?? 0 } }

    /// True between `start()` and `stop()`.
    package var isRunning: Bool { state.withLock { $0.running != nil } }

    /// Number of SSE streams currently attached to clients.
    package var openEventStreams: Int {
        state.withLock { $0.running?.core.takeUnretainedValue().openStreamCount ?? 0 }
    }

    /// Closes all SSE streams, closes all connections and joins every server thread.
    /// Returns promptly; safe to call twice.
    package func stop() {
        guard let running = state.withLock({ s -> Running? in
            let r = s.running
            s.running = nil
            return r
        }) else { return }
        running.core.takeUnretainedValue().beginShutdown()
        MHD_stop_daemon(running.daemon)
        running.core.release()
    }
}

/// Why the server could not start.
package enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    case invalidAddress(String)
    case startFailed(host: String, port: UInt16, errno: Int32)
    case alreadyRunning
    case staticDirectoryMissing(String)

    package var description: String {
        switch self {
        case .invalidAddress(let h): "not an IP address or localhost: \(h)"
        case .startFailed(let h, let p, let e):
            "could not listen on \(h.contains(":") ? "[\(h)]" : h):\(p): \(String(cString: strerror(e)))"
        case .alreadyRunning: "the server is already running"
        case .staticDirectoryMissing(let d): "static folder not found: \(d)"
        }
    }
}

extension HTTPServer {
    /// A parsed listen address (IPv4 or IPv6).
    enum SocketAddress {
        case v4(sockaddr_in)
        case v6(sockaddr_in6)

        mutating func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, Bool) -> R) -> R {
            switch self {
            case .v4(var a):
                return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, false) } }
            case .v6(var a):
                return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, true) } }
            }
        }
    }

    static func socketAddress(host: String, port: UInt16) throws(HTTPServerError) -> SocketAddress {
        var h = host
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.lowercased() == "localhost" { h = "127.0.0.1" }
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = port.bigEndian
        if inet_pton(AF_INET, h, &v4.sin_addr) == 1 { return .v4(v4) }
        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        if inet_pton(AF_INET6, h, &v6.sin6_addr) == 1 { return .v6(v6) }
        throw .invalidAddress(host)
    }
}
