import AudioCore
import Foundation
import Synchronization

/// A thread that keeps the block rings of its producers full. Producers are assigned to
/// one worker for life (SPSC: one filler per ring). The render thread wakes it with
/// `wake` after each cycle; it signals `dataReady` whenever it queued blocks.
final class DecodeWorker: @unchecked Sendable {
    private let producers = Mutex<[Producer]>([])
    private let wakeup = PosixSemaphore()
    private let running = Atomic<Bool>(true)
    private let finished = PosixSemaphore()
    let dataReady: PosixSemaphore

    init(name: String, dataReady: PosixSemaphore) {
        self.dataReady = dataReady
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Control plane: starts filling `producer`'s ring.
    func add(_ producer: Producer) {
        producers.withLock { $0.append(producer) }
        wakeup.signal()
    }

    /// Control plane: stops filling `producer`'s ring.
    func remove(_ producer: Producer) {
        producers.withLock { $0.removeAll { $0 === producer } }
    }

    /// Any thread (render thread included): ask for another filling pass now.
    func wake() { wakeup.signal() }

    /// Control plane: ends the thread and waits for it.
    func stop() {
        running.store(false, ordering: .releasing)
        wakeup.signal()
        finished.wait(milliseconds: 5_000)
    }

    private func run() {
        while running.load(ordering: .acquiring) {
            let current = producers.withLock { $0 }
            var queued = 0
            for producer in current {
                queued += producer.fill(maximumBlocks: 4)
            }
            if queued > 0 {
                dataReady.signal()
            } else {
                wakeup.wait(milliseconds: 5)
            }
        }
        finished.signal()
    }
}
