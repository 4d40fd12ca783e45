/// What an output device reports about itself; any thread.
package struct OutputDescription: Sendable, Hashable {
    /// `alsa`, `null` or `wav`.
    package var kind: String
    /// The ALSA PCM name, the WAV path, or `null`.
    package var name: String

    package init(kind: String, name: String) {
        self.kind = kind
        self.name = name
    }
}

/// Why an output could not open or stopped accepting audio.
package struct OutputError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable { case openFailed, deviceLost, writeFailed }
    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}

/// A device that plays interleaved Float32 frames in `format`.
///
/// Thread rules: `open`, `write` and `close` are called only by the render thread of the
/// engine that owns the sink (`write` blocks until the device has room, which paces the
/// render loop). `format`, `periodFrames`, `description`, `outputLatency` and `xruns`
/// may be read from any thread (implementations keep them in atomics or constants).
package protocol OutputSink: AnyObject, Sendable {
    var format: AudioFormat { get }
    /// Frames per write; the render loop renders exactly this many per cycle.
    var periodFrames: Int { get }
    var description: OutputDescription { get }
    /// Seconds from the next frame written until it reaches the speaker.
    var outputLatency: Double { get }
    /// Underruns (periods the device had to play before they were written) so far.
    var xruns: Int { get }

    /// Acquires the device. Throws `OutputError(.openFailed, …)` instead of hanging.
    func open() throws
    /// Plays `frames` frames (`frames × format.channels` samples). Must not allocate on
    /// the success path. Recovers underruns itself (counting them); throws only when the
    /// device is gone or broken.
    func write(_ samples: UnsafePointer<Float>, frames: Int) throws
    /// Drains what was written and releases the device. Idempotent.
    func close()
}
