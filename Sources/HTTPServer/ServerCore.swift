import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The running server's frozen configuration plus the microhttpd callbacks.
///
/// Retained while the daemon runs and passed to every callback as `cls`. Its methods run
/// on microhttpd connection threads; the stream registry is behind a Mutex.
final class ServerCore: Sendable {
    let configuration: HTTPServer.Configuration
    let router: Router
    let beforeRoute: HTTPServer.BeforeRoute?
    let staticFiles: StaticFiles?
    let keepaliveNanoseconds: UInt64

    private struct Streams {
        var open: [ObjectIdentifier: EventStream] = [:]
        var shuttingDown = false
    }
    private let streams = Mutex(Streams())

    init(configuration: HTTPServer.Configuration, router: Router, beforeRoute: HTTPServer.BeforeRoute?,
         staticFiles: StaticFiles?) {
        self.configuration = configuration
        self.router = router
        self.beforeRoute = beforeRoute
        self.staticFiles = staticFiles
        self.keepaliveNanoseconds = configuration.keepaliveNanoseconds
    }

    var openStreamCount: Int { streams.withLock { $0.open.count } }

    /// Marks the server as stopping and closes every SSE stream (waking its reader).
    func beginShutdown() {
        let open = streams.withLock { s -> [EventStream] in
            s.shuttingDown = true
            return Array(s.open.values)
        }
        for stream in open { stream.close() }
    }

    /// Registers a stream about to be attached; closes it at once if the server is stopping.
    func register(_ stream: EventStream) {
        let stopping = streams.withLock { s -> Bool in
            s.open[ObjectIdentifier(stream)] = stream
            return s.shuttingDown
        }
        if stopping { stream.close() }
    }

    func unregister(_ stream: EventStream) {
        _ = streams.withLock { $0.open.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    // MARK: - Request handling (connection thread)

    /// One access-handler call. Returns false to make microhttpd drop the connection.
    func access(connection: OpaquePointer, method: UnsafePointer<CChar>, url: UnsafePointer<CChar>?,
                uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Bool {
        let state: RequestState
        if let raw = conCls.pointee {
            state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
        } else {
            // The URI-log callback normally creates it; fall back to the decoded url.
            state = RequestState(target: url.map { String(cString: $0) } ?? "/")
            conCls.pointee = Unmanaged.passRetained(state).toOpaque()
        }

        if !state.started {
            state.started = true
            return begin(state, connection: connection, method: method)
        }
        if uploadSize.pointee > 0 {
            let ok = state.consume(UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee))
            uploadSize.pointee = 0
            return ok
        }
        return finish(state, connection: connection)
    }

    /// First call: headers are in. Decide the route and where the body goes.
    private func begin(_ state: RequestState, connection: OpaquePointer, method: UnsafePointer<CChar>) -> Bool {
        let methodName = String(cString: method)
        var request = HTTPRequest(method: methodName, path: "/", target: state.target)
        request.headers = Self.headers(of: connection)
        request.remoteAddress = Self.remoteAddress(of: connection)
        let defaultLimit = configuration.maxBodyBytes
        state.sink = .discard(limit: defaultLimit)

        guard let (path, query) = HTTPRequest.parseTarget(state.target), path.hasPrefix("/") else {
            state.request = request
            state.pending = .problem(status: 400, detail: "malformed request target")
            return rejectEarlyIfLarge(state, connection: connection)
        }
        request.path = path
        request.query = query
        state.request = request

        if let hook = beforeRoute, let response = hook(request) {
            state.pending = response
            return rejectEarlyIfLarge(state, connection: connection)
        }

        switch router.match(method: methodName, path: path) {
        case .route(let route, let parameters):
            state.request.pathParameters = parameters
            state.route = route
            let policy = route.body.resolved(for: state.request)
            let limit: Int
            switch policy {
            case .buffered(let max):
                limit = max ?? defaultLimit
            case .upload(_, let max):
                limit = max
            case .perRequest:
                limit = defaultLimit
            }
            if let length = contentLength(state.request), length > limit {
                return queue(Self.tooLarge(limit), on: connection, request: state.request)
            }
            switch policy {
            case .upload(let directory, _):
                if let (fd, path) = RequestState.makeTemporaryFile(in: directory) {
                    state.sink = .file(fd: fd, path: path, limit: limit)
                } else {
                    state.pending = .problem(status: 500, detail: "could not create a temporary upload file")
                    state.sink = .discard(limit: limit)
                    return rejectEarlyIfLarge(state, connection: connection)
                }
            default:
                state.sink = .memory(limit: limit)
            }
            return true

        case .methodNotAllowed(let allow):
            let allowHeader = allow.joined(separator: ", ")
            if methodName == "OPTIONS" {
                state.pending = .empty(status: 204, headers: ["Allow": allowHeader])
            } else {
                state.pending = .problem(status: 405, detail: "\(methodName) is not allowed on \(path); allowed: \(allowHeader)",
                                         headers: ["Allow": allowHeader])
            }
            return rejectEarlyIfLarge(state, connection: connection)

        case .notFound:
            if let staticFiles, methodName == "GET" || methodName == "HEAD",
               let response = staticFiles.response(for: state.request) {
                state.pending = response
            } else if let staticFiles, methodName == "OPTIONS", staticFiles.response(for: state.request) != nil {
                state.pending = .empty(status: 204, headers: ["Allow": "GET, HEAD, OPTIONS"])
            } else {
                state.pending = .problem(status: 404, detail: "no resource at \(path)")
            }
            return rejectEarlyIfLarge(state, connection: connection)
        }
    }

    /// A response decided before the body: if the declared body is larger than the
    /// default cap, answer now (microhttpd then closes the connection instead of reading
    /// it); otherwise read and drop the body and answer on the final call, which keeps
    /// the connection alive.
    private func rejectEarlyIfLarge(_ state: RequestState, connection: OpaquePointer) -> Bool {
        if let length = contentLength(state.request), length > configuration.maxBodyBytes,
           let response = state.pending {
            state.pending = nil
            state.started = true
            return queue(response, on: connection, request: state.request)
        }
        return true
    }

    /// Final call: the whole request is in; run the handler and queue the response.
    private func finish(_ state: RequestState, connection: OpaquePointer) -> Bool {
        let response: HTTPResponse
        if state.tooLarge {
            response = Self.tooLarge(state.tooLargeLimit)
        } else if let pending = state.pending {
            response = pending
        } else if let route = state.route {
            state.finishBody()
            if let pending = state.pending {
                response = pending
            } else {
                response = route.handler(state.request)
                if let file = state.request.bodyFile { unlink(file) }
            }
        } else {
            response = .problem(status: 500, detail: "request state lost")
        }
        return queue(response, on: connection, request: state.request)
    }

    private func contentLength(_ request: HTTPRequest) -> Int? {
        request.headers["Content-Length"].flatMap { Int($0.trimmingSpaces()) }
    }

    static func tooLarge(_ limit: Int) -> HTTPResponse {
        .problem(status: 413, detail: "the request body is larger than the limit of \(limit) bytes")
    }

    // MARK: - Responses

    /// Creates the microhttpd response for `response` and queues it.
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, request: HTTPRequest) -> Bool {
        var status = response.status
        var headers = response.headers
        var mhd: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            mhd = bytes.withUnsafeBytes { tonearm_mhd_response_copy($0.count, $0.baseAddress) }
        case .file(let path), .temporaryFile(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            if case .temporaryFile = response.body { unlink(path) }
            var st = stat()
            if fd >= 0, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                mhd = MHD_create_response_from_fd(Int(st.st_size), fd)
                if mhd == nil { close(fd) }
            } else {
                if fd >= 0 { close(fd) }
                let notFound = HTTPResponse.problem(status: 404, detail: "no resource at \(request.path)")
                status = 404
                headers = notFound.headers
                mhd = notFound.bodyBytes.withUnsafeBytes { tonearm_mhd_response_copy($0.count, $0.baseAddress) }
            }
        case .eventStream(let stream):
            register(stream)
            let reader = StreamReader(core: self, stream: stream, fd: tonearm_mhd_connection_fd(connection))
            let cls = Unmanaged.passRetained(reader).toOpaque()
            mhd = MHD_create_response_from_callback(UInt64.max, 16 * 1024, Self.streamReadCallback, cls,
                                                    Self.streamFreeCallback)
            if mhd == nil {
                Unmanaged<StreamReader>.fromOpaque(cls).release()
                unregister(stream)
                stream.terminate()
            }
        }
        guard let mhd else { return false }
        for (name, value) in headers where !HTTPHeaders.equal(name, "Content-Length") {
            _ = MHD_add_response_header(mhd, name, value)
        }
        let result = MHD_queue_response(connection, UInt32(clamping: status), mhd)
        MHD_destroy_response(mhd)
        return result == .YES
    }

    /// The SSE reader context: the stream, the core, and the client's socket (for
    /// disconnect detection while idle).
    final class StreamReader {
        let core: ServerCore
        let stream: EventStream
        let fd: Int32
        init(core: ServerCore, stream: EventStream, fd: Int32) {
            self.core = core
            self.stream = stream
            self.fd = fd
        }
    }

    // MARK: - C callbacks (no captures; the owner comes back from `cls`)

    static let uriLogCallback: tonearm_uri_log_callback = { _, uri, _ in
        let target = uri.map { String(cString: $0) } ?? "/"
        return Unmanaged.passRetained(RequestState(target: target)).toOpaque()
    }

    static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, conCls in
        guard let cls, let connection, let method, let uploadSize, let conCls else { return .NO }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.access(connection: connection, method: method, url: url, uploadData: uploadData,
                           uploadSize: uploadSize, conCls: conCls) ? .YES : .NO
    }

    static let completedCallback: MHD_RequestCompletedCallback = { _, _, conCls, _ in
        guard let conCls, let raw = conCls.pointee else { return }
        conCls.pointee = nil
        let state = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
        state.discardTemporaryFile()
    }

    static let streamReadCallback: MHD_ContentReaderCallback = { cls, _, buf, max in
        guard let cls, let buf else { return -2 }
        let reader = Unmanaged<StreamReader>.fromOpaque(cls).takeUnretainedValue()
        let fd = reader.fd
        let result = reader.stream.read(into: UnsafeMutableRawBufferPointer(start: buf, count: max),
                                        keepaliveNanoseconds: reader.core.keepaliveNanoseconds,
                                        peerGone: { tonearm_socket_peer_gone(fd) != 0 })
        switch result {
        case .bytes(let n): return n
        case .end: return -1
        case .error: return -2
        }
    }

    static let streamFreeCallback: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let reader = Unmanaged<StreamReader>.fromOpaque(cls).takeRetainedValue()
        reader.core.unregister(reader.stream)
        reader.stream.terminate()
    }

    // MARK: - Connection info

    private final class HeaderBox {
        var headers = HTTPHeaders()
    }

    private static let headerIterator: MHD_KeyValueIterator = { cls, _, key, value in
        guard let cls, let key else { return .YES }
        let box = Unmanaged<HeaderBox>.fromOpaque(cls).takeUnretainedValue()
        box.headers.add(String(cString: key), value.map { String(cString: $0) } ?? "")
        return .YES
    }

    static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        let box = HeaderBox()
        withExtendedLifetime(box) {
            _ = MHD_get_connection_values(connection, .HEADER_KIND, headerIterator,
                                          Unmanaged.passUnretained(box).toOpaque())
        }
        return box.headers
    }

    static func remoteAddress(of connection: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let ok = buffer.withUnsafeMutableBufferPointer { tonearm_mhd_client_address(connection, $0.baseAddress, $0.count) }
        guard ok == 0 else { return "" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
