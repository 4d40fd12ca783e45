import AudioCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP/1.1 client for webhook deliveries: one POST on a fresh
/// connection with one deadline over resolving, connecting, sending and reading the status
/// line. Plain http only (home automation on the LAN), no redirects followed. Call `post`
/// only from a hook's delivery thread: it blocks for up to `timeout` (name resolution may
/// take longer when the resolver hangs). `parse` is for any thread.
enum WebhookClient {
    /// Where a delivery goes.
    struct Target: Sendable, Equatable {
        var host: String
        var port: UInt16
        /// Path and query (the fragment is dropped), at least "/".
        var path: String

        var hostHeader: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port == 80 ? name : "\(name):\(port)"
        }
    }

    /// Why a delivery attempt failed before an HTTP status arrived.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What a hook URL must look like (openapi.yaml's `WebhookURL` pattern is the same):
    /// `http://`, a host name, IPv4 or bracketed IPv6 address, an optional port 1–65535, and
    /// an optional path and query of printable ASCII.
    static let urlPattern = #"^http://([A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?([/?][!-~]*)?$"#
    private static let urlRegex = try? NSRegularExpression(pattern: urlPattern)

    /// The target of a hook URL, or nil when it is not one `urlPattern` accepts.
    static func parse(_ url: String) -> Target? {
        guard let regex = urlRegex, url.utf8.count <= 2048,
              regex.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil else { return nil }
        var rest = Substring(url.dropFirst("http://".count))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<end]
        var path = String(rest[end...])
        if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard let port = portText.map({ UInt16($0) }) ?? 80 else { return nil }
        return Target(host: String(host), port: port, path: path)
    }

    /// POSTs `body` as JSON with `headers` and returns the response's status code.
    static func post(to target: Target, headers: [(String, String)], body: [UInt8], timeout: Double) throws(Failure) -> Int {
        let deadline = MonotonicClock.seconds + timeout
        func remainingMilliseconds() -> Int32 { Int32(max(0, min(Double(Int32.max), (deadline - MonotonicClock.seconds) * 1000))) }
        let fd = try connect(target, remaining: remainingMilliseconds)
        defer { close(fd) }
        var head = "POST \(target.path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nUser-Agent: Tonearm-Webhook/1\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try wait(fd, events: Int16(POLLOUT), milliseconds: remainingMilliseconds(), what: "sending")
                continue
            }
            throw Failure(description: "sending failed: \(String(cString: strerror(errno)))")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !response.contains(0x0A) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { response += buffer[0..<n]; if response.count > 8192 { break }; continue }
            if n == 0 { break }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                try wait(fd, events: Int16(POLLIN), milliseconds: remainingMilliseconds(), what: "waiting for the response")
                continue
            }
            throw Failure(description: "reading the response failed: \(String(cString: strerror(errno)))")
        }
        let line = String(decoding: response.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status) else {
            throw Failure(description: response.isEmpty ? "the connection closed without a response" : "not an HTTP response: '\(line.prefix(80))'")
        }
        return status
    }

    /// A non-blocking socket connected to `target` (each resolved address in turn).
    private static func connect(_ target: Target, remaining: () -> Int32) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard rc == 0, let first = list else {
            throw Failure(description: "cannot resolve '\(target.host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address for '\(target.host)'"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let a = next {
            next = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                            a.pointee.ai_protocol)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else {
                lastError = "connecting to \(target.hostHeader) failed: \(String(cString: strerror(errno)))"
                close(fd)
                continue
            }
            do {
                try wait(fd, events: Int16(POLLOUT), milliseconds: remaining(), what: "connecting to \(target.hostHeader)")
            } catch {
                close(fd)
                throw error
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return fd }
            lastError = "connecting to \(target.hostHeader) failed: \(String(cString: strerror(error)))"
            close(fd)
        }
        throw Failure(description: lastError)
    }

    private static func wait(_ fd: Int32, events: Int16, milliseconds: Int32, what: String) throws(Failure) {
        guard milliseconds > 0 else { throw Failure(description: "timed out \(what)") }
        var p = pollfd(fd: fd, events: events, revents: 0)
        let n = poll(&p, 1, milliseconds)
        if n == 0 { throw Failure(description: "timed out \(what)") }
        if n < 0 && errno != EINTR { throw Failure(description: "\(what) failed: \(String(cString: strerror(errno)))") }
    }
}
