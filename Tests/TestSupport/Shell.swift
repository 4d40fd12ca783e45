import Foundation

/// Runs tools (sox, lame) that generate test fixtures.
package enum Shell {
    package struct Failed: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    /// Runs `arguments` (looked up on PATH) and returns stdout; throws when it exits non-zero.
    @discardableResult
    package static func run(_ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failed(description: "\(arguments.joined(separator: " ")) exited \(p.terminationStatus): \(String(decoding: errData, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// A fresh empty temporary directory.
    package static func temporaryDirectory(_ prefix: String = "tonearm-test") throws -> String {
        let path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
