#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-request state kept in microhttpd's `con_cls` pointer: created by the URI-log
/// callback, used by the access handler calls of one request, freed in the
/// request-completed callback. Only the connection's own thread touches it.
final class RequestState {
    /// Where body bytes go.
    enum Sink {
        /// Into memory, up to `limit`.
        case memory(limit: Int)
        /// Into the open temporary file `fd` at `path`, up to `limit`.
        case file(fd: Int32, path: String, limit: Int)
        /// Dropped (the response is already decided), up to `limit`.
        case discard(limit: Int)
    }

    /// The raw request target.
    let target: String
    /// False until the first access-handler call (headers) has been handled.
    var started = false
    var request = HTTPRequest(method: "", path: "")
    var route: Router.Route?
    /// A response decided before the body was read (rejections, 404, static files).
    var pending: HTTPResponse?
    var sink: Sink = .discard(limit: 0)
    var body: [UInt8] = []
    var received = 0
    /// The body passed its cap: answer 413.
    var tooLarge = false
    var tooLargeLimit = 0

    init(target: String) { self.target = target }

    /// Closes and deletes an unfinished temporary file, if any.
    func discardTemporaryFile() {
        if case .file(let fd, let path, let limit) = sink {
            close(fd)
            unlink(path)
            sink = .discard(limit: limit)
        }
    }

    /// Accepts one chunk of body bytes. Returns false if the connection must be dropped.
    func consume(_ data: UnsafeRawBufferPointer) -> Bool {
        received += data.count
        switch sink {
        case .memory(let limit):
            if received > limit {
                tooLarge = true
                tooLargeLimit = limit
                body = []
                sink = .discard(limit: limit)
            } else {
                body.append(contentsOf: data)
            }
        case .file(let fd, _, let limit):
            if received > limit {
                tooLarge = true
                tooLargeLimit = limit
                discardTemporaryFile()
            } else if !Self.writeAll(fd, data) {
                discardTemporaryFile()
                pending = .problem(status: 500, detail: "could not write the upload: \(String(cString: strerror(errno)))")
            }
        case .discard(let limit):
            // microhttpd 0.9.75 cannot queue a response mid-body, so the 413 (or an early
            // rejection) waits for the end of the body; a client that keeps sending far
            // past the cap is dropped instead of being read forever.
            if received > limit &+ Self.discardAllowance { return false }
        }
        return true
    }

    /// Bytes past a cap that are read and dropped before the connection is cut.
    static let discardAllowance = 4 << 20

    /// Ends the body: closes the temporary file (flushed to disk) and hands body or
    /// file to the request.
    func finishBody() {
        switch sink {
        case .memory:
            request.body = body
            request.bodyLength = received
            body = []
        case .file(let fd, let path, let limit):
            let ok = fsync(fd) == 0
            close(fd)
            sink = .discard(limit: limit)
            if ok {
                request.bodyFile = path
                request.bodyLength = received
            } else {
                unlink(path)
                pending = .problem(status: 500, detail: "could not store the upload")
            }
        case .discard:
            break
        }
    }

    private static func writeAll(_ fd: Int32, _ data: UnsafeRawBufferPointer) -> Bool {
        guard var p = data.baseAddress else { return true }
        var left = data.count
        while left > 0 {
            let n = write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            p += n
            left -= n
        }
        return true
    }

    /// Creates a temporary upload file in `directory`; nil on failure.
    static func makeTemporaryFile(in directory: String) -> (fd: Int32, path: String)? {
        var template = Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast())
        template += Array(".upload-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (fd, path)
    }
}
