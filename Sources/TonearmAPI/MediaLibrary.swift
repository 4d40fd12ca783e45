import AudioDecoding
import Foundation
import JSON
import Synchronization

/// The media roots (SPEC 1 `--media-root`): resolves what a client names to a real file
/// inside a root (symlinks followed; anything outside is refused) and lists folders.
/// Any thread; the probe cache is behind a Mutex.
final class MediaLibrary: Sendable {
    /// Each root's real path and the name it is listed under.
    let roots: [(name: String, path: String)]
    private struct Probe { var modified: Date; var size: Int; var info: JSONValue }
    private let cache = Mutex<[String: Probe]>([:])

    init(roots: [String]) {
        var named: [(String, String)] = []
        for root in roots {
            let real = MediaLibrary.realPath(root) ?? root
            var name = (real as NSString).lastPathComponent
            if name.isEmpty { name = "media" }
            var unique = name
            var n = 2
            while named.contains(where: { $0.0 == unique }) { unique = "\(name)-\(n)"; n += 1 }
            named.append((unique, real))
        }
        self.roots = named
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    private func isInside(_ real: String, _ root: String) -> Bool {
        real == root || real.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    /// Resolves a `file://` URL, an absolute path, or a library path (`rootName/…` as listed
    /// by `/api/v1/media`) to a real file under a root: 404 if missing, 403 if outside.
    func resolve(_ reference: String) throws(APIError) -> (path: String, url: String) {
        var path = reference
        if reference.hasPrefix("file://") {
            guard let url = URL(string: reference), url.isFileURL else {
                throw .invalid("url: '\(reference)' is not a valid file:// URL")
            }
            path = url.path
        } else if reference.contains("://") {
            throw .invalid("url: only file:// URLs and media paths are supported, got '\(reference)'")
        }
        if !path.hasPrefix("/") {
            path = try libraryPath(path, field: "url")
        }
        guard let real = MediaLibrary.realPath(path) else {
            // Outside the roots is 403 even when it does not exist: say nothing about foreign paths.
            let standardized = (path as NSString).standardizingPath
            guard roots.contains(where: { isInside(standardized, $0.path) }) else {
                throw .forbidden("url: '\(reference)' is outside the media roots")
            }
            throw .notFound("url: no file at '\(reference)'")
        }
        guard roots.contains(where: { isInside(real, $0.path) }) else {
            throw .forbidden("url: '\(reference)' resolves to a path outside the media roots")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw .invalid("url: '\(reference)' is a folder, not a sound file")
        }
        return (real, URL(fileURLWithPath: real).absoluteString)
    }

    /// `rootName/sub/path` → an absolute path (not yet checked).
    private func libraryPath(_ path: String, field: String) throws(APIError) -> String {
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let root = roots.first(where: { $0.name == first }) else {
            throw .notFound("\(field): '\(path)' names no media root (roots: \(roots.map(\.name).joined(separator: ", ")))")
        }
        return parts.count > 1 ? root.path + "/" + parts[1] : root.path
    }

    /// The listing of `path` ("" lists the roots): folders first, then audio files with
    /// their duration and format. Files that are not audio are left out.
    func list(_ path: String) throws(APIError) -> JSONValue {
        let trimmed = path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if trimmed.isEmpty {
            let entries: [JSONValue] = roots.map { ["name": .string($0.name), "path": .string($0.name), "type": "folder"] }
            return ["path": "", "entries": .array(entries)]
        }
        let absolute = try libraryPath(trimmed, field: "path")
        guard let real = MediaLibrary.realPath(absolute) else { throw .notFound("path: no folder at '\(path)'") }
        guard let root = roots.first(where: { isInside(real, $0.path) }) else {
            throw .forbidden("path: '\(path)' resolves outside the media roots")
        }
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .notFound("path: '\(path)' is not a folder")
        }
        let relative = root.name + String(real.dropFirst(root.path.count))
        var folders: [JSONValue] = []
        var files: [JSONValue] = []
        for name in ((try? fm.contentsOfDirectory(atPath: real)) ?? []).sorted(by: { $0.localizedStandardCompare($1) == .orderedAscending }) where !name.hasPrefix(".") {
            let full = real + "/" + name
            guard let target = MediaLibrary.realPath(full), roots.contains(where: { isInside(target, $0.path) }) else { continue }
            var dir: ObjCBool = false
            guard fm.fileExists(atPath: target, isDirectory: &dir) else { continue }
            if dir.boolValue {
                folders.append(["name": .string(name), "path": .string(relative + "/" + name), "type": "folder"])
            } else if let info = probe(target) {
                var entry: JSONObject = ["name": .string(name), "path": .string(relative + "/" + name), "type": "file",
                                         "url": .string(URL(fileURLWithPath: target).absoluteString)]
                for member in info.objectValue ?? [:] { entry[member.key] = member.value }
                files.append(.object(entry))
            }
        }
        return ["path": .string(relative), "entries": .array(folders + files)]
    }

    /// Duration and format of an audio file (cached by modification time and size); nil if not audio.
    private func probe(_ path: String) -> JSONValue? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let modified = attributes[.modificationDate] as? Date, let size = attributes[.size] as? Int else { return nil }
        if let cached = cache.withLock({ $0[path] }), cached.modified == modified, cached.size == size { return cached.info }
        guard size > 0, let decoder = try? AudioDecoders.open(.file(path)) else { return nil }
        let s = decoder.settings
        var info: JSONObject = [
            "duration": .double(Double(decoder.frameCount) / Double(s.sampleRate)), "formatID": .string(s.formatID),
            "sampleRate": .int(Int64(s.sampleRate)), "numberOfChannels": .int(Int64(s.numberOfChannels)),
        ]
        if let title = decoder.metadata.title { info["title"] = .string(title) }
        if let artist = decoder.metadata.artist { info["artist"] = .string(artist) }
        cache.withLock { $0[path] = Probe(modified: modified, size: size, info: .object(info)) }
        return .object(info)
    }
}
