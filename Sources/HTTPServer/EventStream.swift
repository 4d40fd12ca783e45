import Dispatch
import Synchronization

/// A server-sent-events stream: the API layer writes events into it from any thread,
/// and a microhttpd connection thread drains it to one client.
///
/// `send`, `comment`, `close` and `onTermination` may be called from any thread. The
/// queue is bounded: a client that falls more than `maxQueuedBytes` behind is cut off
/// (the stream closes, the client reconnects with `Last-Event-ID`).
package final class EventStream: Sendable {
    /// Bytes that may wait for a slow client before the stream is closed.
    package let maxQueuedBytes: Int

    private struct State {
        var buffer: [UInt8] = []
        var readOffset = 0
        var closed = false
        var overflowed = false
        var terminated = false
        var onTermination: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - retryMilliseconds: sent first as `retry:` (client reconnect delay); nil sends none.
    ///   - maxQueuedBytes: the per-stream queue bound (default 256 KiB).
    package init(retryMilliseconds: Int? = 2000, maxQueuedBytes: Int = 256 * 1024) {
        self.maxQueuedBytes = maxQueuedBytes
        if let retryMilliseconds {
            state.withLock { $0.buffer = Array("retry: \(retryMilliseconds)\n\n".utf8) }
        }
    }

    /// Queues one event. `data` may contain newlines (each line becomes a `data:` line);
    /// line breaks in `id` and `event` are removed. Returns false if the stream is closed.
    @discardableResult
    package func send(id: String? = nil, event: String? = nil, data: String) -> Bool {
        var text = ""
        if let id { text += "id: " + Self.singleLine(id) + "\n" }
        if let event { text += "event: " + Self.singleLine(event) + "\n" }
        var sawLine = false
        for line in data.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            text += "data: " + line + "\n"
            sawLine = true
        }
        if !sawLine { text += "data: \n" }
        text += "\n"
        return enqueue(Array(text.utf8))
    }

    /// Queues a comment line (`: text`), ignored by EventSource clients.
    @discardableResult
    package func comment(_ text: String) -> Bool {
        enqueue(Array((": " + Self.singleLine(text) + "\n\n").utf8))
    }

    /// Ends the stream after the queued events have been sent.
    package func close() {
        state.withLock { $0.closed = true }
        wakeup.signal()
    }

    /// True once `close()` was called, the queue overflowed, or the client went away.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// True if the stream was closed because the client could not keep up.
    package var didOverflow: Bool { state.withLock { $0.overflowed } }

    /// Registers `body` to run once when the connection is finished with the stream
    /// (client disconnected, stream closed, or server stopped). Runs on a microhttpd
    /// thread, or at once on the caller's thread if that already happened.
    package func onTermination(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.terminated { return true }
            s.onTermination = body
            return false
        }
        if runNow { body() }
    }

    private func enqueue(_ bytes: [UInt8]) -> Bool {
        let ok = state.withLock { s -> Bool in
            if s.closed { return false }
            if s.buffer.count - s.readOffset + bytes.count > maxQueuedBytes {
                s.overflowed = true
                s.closed = true
                s.buffer = []
                s.readOffset = 0
                return false
            }
            s.buffer.append(contentsOf: bytes)
            return true
        }
        wakeup.signal()
        return ok
    }

    private static func singleLine(_ s: String) -> String {
        s.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            ? String(s.filter { $0 != "\n" && $0 != "\r" && $0 != "\r\n" }) : s
    }

    // MARK: - Reader side (the microhttpd connection thread)

    /// Result of one `read` call, mapped to microhttpd's content-reader return values.
    enum ReadResult: Equatable {
        case bytes(Int)
        case end
        case error
    }

    private static let keepaliveBytes = Array(": keepalive\n\n".utf8)

    /// Blocks until bytes are queued, the stream is closed, the peer is gone, or
    /// `keepalive` passes (then writes a keepalive comment). Called only by the
    /// connection thread that owns the response.
    func read(into buffer: UnsafeMutableRawBufferPointer, keepaliveNanoseconds: UInt64,
              peerGone: () -> Bool) -> ReadResult {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ keepaliveNanoseconds
        let slice: UInt64 = 250_000_000
        while true {
            let result = state.withLock { s -> ReadResult? in
                if s.overflowed { return .error }
                let available = s.buffer.count - s.readOffset
                if available > 0 {
                    let n = min(available, buffer.count)
                    s.buffer.withUnsafeBytes { src in
                        buffer.baseAddress!.copyMemory(from: src.baseAddress! + s.readOffset, byteCount: n)
                    }
                    s.readOffset += n
                    if s.readOffset == s.buffer.count {
                        s.buffer.removeAll(keepingCapacity: s.buffer.capacity <= 64 * 1024)
                        s.readOffset = 0
                    } else if s.readOffset >= 64 * 1024 {
                        s.buffer.removeFirst(s.readOffset)
                        s.readOffset = 0
                    }
                    return .bytes(n)
                }
                return s.closed ? .end : nil
            }
            if let result { return result }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline {
                let n = min(Self.keepaliveBytes.count, buffer.count)
                Self.keepaliveBytes.withUnsafeBytes { src in
                    buffer.baseAddress!.copyMemory(from: src.baseAddress!, byteCount: n)
                }
                return .bytes(n)
            }
            if peerGone() { return .error }
            let wait = min(deadline - now, slice)
            _ = wakeup.wait(timeout: DispatchTime(uptimeNanoseconds: now + wait))
        }
    }

    /// Called once when microhttpd frees the response: marks the stream closed and
    /// runs the termination handler.
    package func terminate() {
        let handler = state.withLock { s -> (@Sendable () -> Void)? in
            s.closed = true
            s.terminated = true
            s.buffer = []
            s.readOffset = 0
            let h = s.onTermination
            s.onTermination = nil
            return h
        }
        handler?()
    }
}
