import Foundation
import JSON
import Logging
import Synchronization

/// The registered webhooks (Webhook): creates, lists and removes them, persists each in
/// `<state>/hooks/<id>.json` (atomic writes, mode 0600 — the secret is in it), and offers
/// every published event to the hooks that want it. Any thread: one Mutex guards the list,
/// and `offer` only queues, so neither the engine nor a request ever waits for a receiver.
final class WebhookRegistry: Sendable {
    let directory: String
    private let hooks = Mutex<[Webhook]>([])
    private let logger: Logger

    static let maximumCount = 256
    /// The events a hook may ask for (the state events of the SSE feed), besides "*".
    static let eventNames = ["player.created", "player.updated", "player.deleted", "player.state", "player.finished",
                             "player.decodeError", "player.interruption", "device.state", "device.routeChange"]

    /// Loads and starts the saved hooks.
    init(directory: String, logger: Logger) throws {
        self.directory = directory
        self.logger = logger
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var loaded: [Webhook] = []
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") }
        for name in names {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                  let value = try? JSONValue.parse([UInt8](data)),
                  let id = value["id"]?.stringValue, let url = value["url"]?.stringValue,
                  let target = WebhookClient.parse(url) else {
                logger.warning("ignoring the unreadable webhook record \(directory)/\(name)")
                continue
            }
            let events = value["events"]?.arrayValue?.compactMap(\.stringValue) ?? ["*"]
            loaded.append(Webhook(id: id, url: url, target: target, events: events, secret: value["secret"]?.stringValue,
                                  createdAt: value["createdAt"]?.doubleValue ?? 0))
        }
        loaded.sort { $0.createdAt < $1.createdAt }
        for hook in loaded { hook.start() }
        hooks.withLock { $0 = loaded }
    }

    var all: [Webhook] { hooks.withLock { $0 } }

    func find(_ id: String) -> Webhook? { hooks.withLock { $0.first { $0.id == id } } }

    /// Queues an event on every hook that wants it.
    func offer(eventID: Int, event: String, data: String) {
        for hook in hooks.withLock({ $0 }) where hook.wants(event) {
            hook.offer(eventID: eventID, event: event, data: data)
        }
    }

    /// Registers, saves and starts a hook.
    func add(url: String, target: WebhookClient.Target, events: [String], secret: String?) throws(APIError) -> Webhook {
        let hook = Webhook(id: "hook-" + UUID().uuidString.prefix(8).lowercased(), url: url, target: target, events: events,
                           secret: secret, createdAt: Date().timeIntervalSince1970)
        let full = hooks.withLock { $0.count >= Self.maximumCount }
        if full { throw .conflict("there are already \(Self.maximumCount) webhooks: delete one first") }
        do { try save(hook) } catch {
            throw APIError(507, "Insufficient storage", "could not save the webhook in the state directory: \(error)")
        }
        hooks.withLock { $0.append(hook) }
        hook.start()
        return hook
    }

    /// Stops, forgets and unsaves a hook; false if there is none with that id.
    func remove(_ id: String) -> Bool {
        let hook = hooks.withLock { list -> Webhook? in
            guard let i = list.firstIndex(where: { $0.id == id }) else { return nil }
            return list.remove(at: i)
        }
        guard let hook else { return false }
        hook.stop()
        unlink(directory + "/\(id).json")
        return true
    }

    /// Stops every delivery thread (at shutdown).
    func stopAll() {
        for hook in hooks.withLock({ $0 }) { hook.stop() }
    }

    private func save(_ hook: Webhook) throws {
        let bytes = hook.record.serialized(.pretty)
        let temporary = directory + "/.\(hook.id).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        Glibc.fsync(fd)
        close(fd)
        guard written == bytes.count, rename(temporary, directory + "/\(hook.id).json") == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }
}
