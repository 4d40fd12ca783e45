import ArgumentParser

/// `--listen HOST:PORT` (IPv6 as `[::1]:8080`; a bare port means 127.0.0.1).
struct ListenAddress {
    var host: String
    var port: UInt16

    init(_ text: String) throws {
        var host = "127.0.0.1"
        var portText = text
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw ValidationError("--listen \(text): missing ']' after the IPv6 address") }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw ValidationError("--listen \(text): expected [ADDRESS]:PORT") }
            portText = String(rest.dropFirst())
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        guard let port = UInt16(portText) else { throw ValidationError("--listen \(text): '\(portText)' is not a port number (0–65535)") }
        if host == "localhost" { host = "127.0.0.1" }
        self.host = host
        self.port = port
    }

    var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }
}
