import Foundation
import JSON

/// One registered webhook: where it delivers, which events it wants, its secret, its
/// bounded delivery queue (the oldest event is dropped, and counted, when it is full) and
/// the thread that drains it. Each event is POSTed as `{id, event, data, deliveredAt}` with
/// `X-Tonearm-Event`, `X-Tonearm-Delivery` (the same for every try of one delivery) and,
/// with a secret, `X-Tonearm-Signature: sha256=<hex HMAC-SHA256 of the body>`; a connection
/// error, a timeout or a 5xx is retried after 1 s and 4 s (3 tries).
///
/// Thread rules: `offer`, `json`, `record` and `stop` from any thread (they never block on
/// the network); deliveries happen on the hook's own thread, started by `start`.
final class Webhook: @unchecked Sendable {
    let id: String
    let url: String
    let target: WebhookClient.Target
    /// Event names, or ["*"] for every event.
    let events: [String]
    let secret: String?
    let createdAt: Double

    static let capacity = 256
    static let retryDelays: [Double] = [1, 4]
    static let timeout = 5.0

    private struct Pending {
        var eventID: Int
        var event: String
        var data: String
    }

    /// Guards everything below.
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var stopped = false
    private var delivered = 0
    private var failed = 0
    private var dropped = 0
    private var lastStatus: Int?
    private var lastError: String?
    private var lastAttemptAt: Double?

    init(id: String, url: String, target: WebhookClient.Target, events: [String], secret: String?, createdAt: Double) {
        self.id = id
        self.url = url
        self.target = target
        self.events = events
        self.secret = secret
        self.createdAt = createdAt
    }

    func wants(_ event: String) -> Bool { events.contains("*") || events.contains(event) }

    /// Starts the delivery thread (it holds the hook until `stop`).
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "tonearm-hook"
        thread.start()
    }

    /// Ends the delivery thread (after the attempt in flight) and forgets what is queued.
    func stop() {
        condition.lock()
        stopped = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// Queues an event for delivery; never blocks.
    func offer(eventID: Int, event: String, data: String) {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return }
        if queue.count >= Self.capacity {
            queue.removeFirst()
            dropped += 1
        }
        queue.append(Pending(eventID: eventID, event: event, data: data))
        condition.signal()
    }

    /// The hook as the API shows it: never the secret, only `hasSecret`.
    var json: JSONValue {
        condition.lock()
        defer { condition.unlock() }
        return [
            "id": .string(id), "url": .string(url), "events": .array(events.map { .string($0) }),
            "hasSecret": .bool(secret != nil), "createdAt": .string(Timestamp.iso8601(Date(timeIntervalSince1970: createdAt))),
            "delivered": .int(Int64(delivered)), "failed": .int(Int64(failed)), "dropped": .int(Int64(dropped)),
            "pending": .int(Int64(queue.count)),
            "lastStatus": lastStatus.map { .int(Int64($0)) } ?? .null,
            "lastError": lastError.map { .string($0) } ?? .null,
            "lastAttemptAt": lastAttemptAt.map { .string(Timestamp.iso8601(Date(timeIntervalSince1970: $0))) } ?? .null,
        ]
    }

    /// What persistence stores (with the secret).
    var record: JSONValue {
        var o: JSONObject = ["id": .string(id), "url": .string(url), "events": .array(events.map { .string($0) }),
                             "createdAt": .double(createdAt)]
        if let secret { o["secret"] = .string(secret) }
        return .object(o)
    }

    // MARK: Delivery thread

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            let item = queue.removeFirst()
            condition.unlock()
            deliver(item)
        }
    }

    private func deliver(_ item: Pending) {
        let deliveryID = UUID().uuidString.lowercased()
        var attempt = 0
        while true {
            let body = Array(("{\"id\":\(item.eventID),\"event\":\(JSONValue.string(item.event).serializedString(.compact)),"
                + "\"data\":\(item.data),\"deliveredAt\":\"\(Timestamp.iso8601())\"}").utf8)
            var headers = [("X-Tonearm-Event", item.event), ("X-Tonearm-Delivery", deliveryID), ("X-Tonearm-Attempt", String(attempt + 1))]
            if let secret {
                headers.append(("X-Tonearm-Signature", "sha256=" + HMACSHA256.hex(key: Array(secret.utf8), data: body)))
            }
            var status: Int?
            var error: String?
            var retry = false
            do {
                let code = try WebhookClient.post(to: target, headers: headers, body: body, timeout: Self.timeout)
                status = code
                if !(200..<300).contains(code) {
                    error = code >= 500 ? "the receiver answered \(code)"
                        : (300..<400).contains(code) ? "the receiver answered \(code) (redirects are not followed)"
                        : "the receiver answered \(code) (not retried)"
                    retry = code >= 500
                }
            } catch let failure {
                error = failure.description
                retry = true
            }
            condition.lock()
            lastAttemptAt = Date().timeIntervalSince1970
            lastStatus = status
            lastError = error
            if error == nil { delivered += 1 }
            let giveUp = error != nil && (!retry || attempt >= Self.retryDelays.count || stopped)
            if giveUp { failed += 1 }
            if error == nil || giveUp {
                condition.unlock()
                return
            }
            let until = Date().addingTimeInterval(Self.retryDelays[attempt])
            while !stopped && Date() < until { _ = condition.wait(until: until) }
            let stop = stopped
            condition.unlock()
            if stop { return }
            attempt += 1
        }
    }
}
