#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serves the files of one folder under a URL prefix: content types by extension,
/// `ETag` from size and modification time with `If-None-Match` → 304, `index.html` for
/// folders, `Cache-Control: no-cache`. Nothing outside the folder is reachable: `..`
/// segments (also percent-encoded) and symlinks whose real path leaves the folder → nil (404).
///
/// Immutable; called on microhttpd connection threads.
package struct StaticFiles: Sendable {
    /// The folder's real path (symlinks resolved).
    package let root: String
    /// The URL prefix it is served at, ending in `/`.
    package let prefix: String

    /// Nil if `directory` does not exist or is not a folder.
    package init?(directory: String, prefix: String = "/") {
        guard let real = Self.realPath(directory), Self.isDirectory(real) else { return nil }
        root = real
        prefix.hasSuffix("/") ? (self.prefix = prefix) : (self.prefix = prefix + "/")
    }

    /// The response for a GET/HEAD of `request.path`, or nil when there is no such file
    /// inside the folder.
    package func response(for request: HTTPRequest) -> HTTPResponse? {
        var path = request.path
        if path + "/" == prefix { path += "/" }
        guard path.hasPrefix(prefix) else { return nil }
        var relative = String(path.dropFirst(prefix.count))
        let segments = relative.split(separator: "/", omittingEmptySubsequences: false)
        for s in segments where s == ".." || s == "." || s.contains("\\") || s.contains("\0") {
            return nil
        }
        if relative.isEmpty || relative.hasSuffix("/") { relative += "index.html" }
        guard var real = Self.realPath(root + "/" + relative), real.hasPrefix(root + "/") else { return nil }
        var st = stat()
        guard stat(real, &st) == 0 else { return nil }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            guard let index = Self.realPath(real + "/index.html"), index.hasPrefix(root + "/"),
                  stat(index, &st) == 0 else { return nil }
            real = index
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return nil }

        let etag = "\"\(String(UInt64(st.st_size), radix: 16))-\(String(Int64(st.st_mtim.tv_sec), radix: 16))"
            + "\(String(Int64(st.st_mtim.tv_nsec), radix: 16))\""
        var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "no-cache"]
        if let inm = request.headers["If-None-Match"], Self.matches(inm, etag) {
            return HTTPResponse(status: 304, headers: headers, body: [])
        }
        headers["Content-Type"] = Self.contentType(for: real)
        return HTTPResponse(status: 200, headers: headers, body: .file(path: real))
    }

    /// The media type for a file name's extension (`application/octet-stream` if unknown).
    package static func contentType(for name: String) -> String {
        let ext = name.split(separator: "/").last.flatMap { last -> Substring? in
            guard let dot = last.lastIndex(of: ".") else { return nil }
            return last[last.index(after: dot)...]
        }?.lowercased() ?? ""
        switch ext {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json", "map": return "application/json"
        case "yaml", "yml": return "application/yaml"
        case "txt": return "text/plain; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "wasm": return "application/wasm"
        case "mp3": return "audio/mpeg"
        case "wav": return "audio/wav"
        default: return "application/octet-stream"
        }
    }

    private static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        for candidate in ifNoneMatch.split(separator: ",") {
            var c = candidate.trimmingSpaces()
            if c == "*" { return true }
            if c.hasPrefix("W/") { c.removeFirst(2) }
            if c == etag { return true }
        }
        return false
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}
