import AudioCore
import CSoxr

/// Fixed-ratio, high-quality (SOXR_HQ) sample-rate conversion of interleaved Float32 audio
/// over libsoxr. Output is delay-compensated: input frame n comes out at output frame
/// round(n × outputRate / inputRate), and after `drain` the output holds
/// round(inputFrames × outputRate / inputRate) frames in total.
///
/// Callers skip it when the rates match. Not thread-safe: used by one thread at a time (a
/// player's decode worker), hence `@unchecked Sendable` so it can move between workers.
package final class Resampler: @unchecked Sendable {
    package let channels: Int
    package let inputRate: Int
    package let outputRate: Int
    private let soxr: soxr_t

    /// Throws `SoxrError` for rates or channel counts soxr rejects.
    package init(channels: Int, inputRate: Int, outputRate: Int) throws {
        let operation = "soxr_create \(inputRate)→\(outputRate) Hz, \(channels) ch"
        guard channels > 0, inputRate > 0, outputRate > 0 else {
            throw SoxrError(message: "channels and rates must be positive", operation: operation)
        }
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
        var error: soxr_error_t? = nil
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        var runtime = soxr_runtime_spec(1)
        let created = soxr_create(Double(inputRate), Double(outputRate), UInt32(channels), &error, &io, &quality, &runtime)
        if let error { soxr_delete(created); throw SoxrError(message: String(cString: error), operation: operation) }
        guard let created else { throw SoxrError(message: "no resampler returned", operation: operation) }
        soxr = created
    }

    deinit { soxr_delete(soxr) }

    /// Output frames per input frame.
    package var ratio: Double { Double(outputRate) / Double(inputRate) }

    /// Output frames that would still come out of `drain` if the input ended now (soxr_delay).
    package var pendingFrames: Double { soxr_delay(soxr) }

    /// Resamples up to `inputFrames` frames from `input` into `output` (room for
    /// `outputCapacity` frames). Returns the input frames consumed and output frames
    /// produced; feed the unconsumed rest again. May produce nothing until enough input
    /// arrived (the filter's look-ahead).
    package func process(input: UnsafePointer<Float>, inputFrames: Int,
                         output: UnsafeMutablePointer<Float>, outputCapacity: Int) -> (consumed: Int, produced: Int) {
        var consumed = 0, produced = 0
        let error = soxr_process(soxr, input, inputFrames, &consumed, output, outputCapacity, &produced)
        // soxr only fails here on out-of-memory inside the library; report nothing produced.
        if error != nil { return (0, 0) }
        return (consumed, produced)
    }

    /// Signals the end of input and flushes the tail into `output` (room for `capacity`
    /// frames). Returns the frames produced; call again until it returns 0. Call `reset`
    /// before feeding a new signal.
    package func drain(output: UnsafeMutablePointer<Float>, capacity: Int) -> Int {
        var total = 0
        while total < capacity {
            var produced = 0
            let error = soxr_process(soxr, nil, 0, nil, output + total * channels, capacity - total, &produced)
            if error != nil || produced == 0 { break }
            total += produced
        }
        return total
    }

    /// Forgets all input and output so a new, unrelated signal can start (after a seek or a
    /// drain); the next output frame corresponds to the next input frame, as when new.
    package func reset() throws {
        if let error = soxr_clear(soxr) {
            throw SoxrError(message: String(cString: error), operation: "soxr_clear")
        }
    }
}
