import Foundation
import JSON

/// Persists players (source and settable properties) and uploaded sounds in the state
/// directory with atomic writes: `players/<id>.json`, `uploads/<id>.audio`, and `tmp/` for
/// uploads in flight. Control plane; any thread (file operations are independent per id).
struct StateStore: Sendable {
    let root: String
    var playersDirectory: String { root + "/players" }
    var uploadsDirectory: String { root + "/uploads" }
    var temporaryDirectory: String { root + "/tmp" }

    /// Creates the folders and clears uploads that never completed.
    init(root: String) throws {
        self.root = root
        let fm = FileManager.default
        for dir in [root, root + "/players", root + "/uploads", root + "/tmp"] {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        for leftover in (try? fm.contentsOfDirectory(atPath: root + "/tmp")) ?? [] {
            try? fm.removeItem(atPath: root + "/tmp/" + leftover)
        }
    }

    func uploadPath(for id: String) -> String { uploadsDirectory + "/\(id).audio" }

    /// Moves a completed upload into place under `id`, durably (the 201 promises the bytes are on disk).
    func keepUpload(from temporary: String, id: String) throws -> String {
        let target = uploadPath(for: id)
        try Self.fsync(path: temporary)
        guard rename(temporary, target) == 0 else { throw CocoaError(.fileWriteUnknown) }
        try Self.fsync(path: uploadsDirectory)
        return target
    }

    /// Writes a player's record atomically.
    func save(id: String, source: PlayerSource, settings: PlayerSettings, createdAt: Double) {
        var o: JSONObject = ["id": .string(id), "createdAt": .double(createdAt)]
        switch source {
        case let .file(_, url): o["source"] = ["url": .string(url)]
        case .upload: o["source"] = ["upload": .string("\(id).audio")]
        }
        o["settings"] = settings.json
        try? Self.writeAtomically(JSONValue.object(o).serialized(.pretty), to: playersDirectory + "/\(id).json", temporaryDirectory: temporaryDirectory)
    }

    /// Removes a player's record and its upload.
    func remove(id: String) {
        unlink(playersDirectory + "/\(id).json")
        unlink(uploadPath(for: id))
    }

    /// One saved player, as read back at start-up.
    struct Saved {
        var id: String
        var url: String?
        var uploadPath: String?
        var settings: JSONValue
        var createdAt: Double
    }

    /// Every saved player, oldest first.
    func load() -> [Saved] {
        let fm = FileManager.default
        let names = ((try? fm.contentsOfDirectory(atPath: playersDirectory)) ?? []).filter { $0.hasSuffix(".json") }
        var result: [Saved] = []
        for name in names {
            let path = playersDirectory + "/" + name
            guard let data = fm.contents(atPath: path), let value = try? JSONValue.parse([UInt8](data)),
                  let id = value["id"]?.stringValue else { continue }
            let source = value["source"]
            let upload = source?["upload"]?.stringValue.map { uploadsDirectory + "/" + ($0 as NSString).lastPathComponent }
            result.append(Saved(id: id, url: source?["url"]?.stringValue, uploadPath: upload, settings: value["settings"] ?? .object([:]),
                                createdAt: value["createdAt"]?.doubleValue ?? 0))
        }
        return result.sorted { $0.createdAt < $1.createdAt }
    }

    static func writeAtomically(_ bytes: [UInt8], to path: String, temporaryDirectory: String) throws {
        let temporary = temporaryDirectory + "/.\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else { throw CocoaError(.fileWriteUnknown) }
        try fsync(path: temporary)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    static func fsync(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
        defer { close(fd) }
        _ = Glibc.fsync(fd)
    }
}
