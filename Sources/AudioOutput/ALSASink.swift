#if canImport(Glibc)
import Glibc
#endif
import AudioCore
import CALSA
import Synchronization

/// An ALSA playback device (`--output alsa:DEVICE`): any PCM name — `default`, `hw:1,0`,
/// `plughw:…`, `pulse`. Opened in blocking mode, interleaved access, FLOAT_LE when the
/// device takes it, otherwise S32_LE or S16_LE converted in a buffer allocated at `open`.
/// The rate, period and buffer sizes are negotiated "near" the request; `format` and
/// `periodFrames` report what the device actually gave once `open` returned.
///
/// `write` blocks in `snd_pcm_writei` (that paces the render loop), recovers underruns
/// (`-EPIPE`, `-ESTRPIPE`) itself and counts them, and throws `OutputError(.deviceLost, …)`
/// when the device is gone or makes no progress for `stallTimeoutMilliseconds`.
///
/// `open`, `write` and `close` are called by the owning render thread only; the other
/// properties may be read from any thread (atomics). `write` does not allocate or lock.
package final class ALSASink: OutputSink, @unchecked Sendable {
    /// The ALSA PCM name.
    package let device: String
    /// Periods requested for the device buffer.
    package let periods: Int
    package var description: OutputDescription { OutputDescription(kind: "alsa", name: device) }
    package var format: AudioFormat { AudioFormat(sampleRate: rate.load(ordering: .relaxed), channels: channels) }
    package var periodFrames: Int { period.load(ordering: .relaxed) }
    /// Device buffer size in frames (the requested size until `open` negotiated it).
    package var bufferFrames: Int { buffer.load(ordering: .relaxed) }
    /// The negotiated sample format (nil before `open`).
    package var sampleFormat: ALSASampleFormat? {
        ALSASampleFormat(rawValue: sampleFormatCode.load(ordering: .relaxed))
    }
    package var outputLatency: Double { status.outputLatency }
    package var xruns: Int { status.xruns }

    private let channels: Int
    private let requestedRate: Int
    private let requestedPeriod: Int
    private let rate: Atomic<Int>
    private let period: Atomic<Int>
    private let buffer: Atomic<Int>
    private let sampleFormatCode = Atomic<Int>(-1)
    private let status = SinkStatus()

    // Render thread only (from here down).
    private var pcm: OpaquePointer?
    private var negotiatedFormat: ALSASampleFormat = .float32
    private var conversion: UnsafeMutableRawPointer?
    private var conversionFrames = 0
    private var stallTimeout: Int32 = 2000
    private var broken = false

    package init(device: String, format: AudioFormat, periodFrames: Int = 256, periods: Int = 4) {
        precondition(format.sampleRate > 0 && format.channels > 0 && periodFrames > 0 && periods > 0,
                     "ALSASink needs a positive rate, channel count, period and period count")
        self.device = device
        self.channels = format.channels
        self.requestedRate = format.sampleRate
        self.requestedPeriod = periodFrames
        self.periods = periods
        self.rate = Atomic(format.sampleRate)
        self.period = Atomic(periodFrames)
        self.buffer = Atomic(periodFrames * periods)
    }

    deinit { close() }

    /// How long `write` waits for the device to accept a frame before declaring it lost:
    /// 2 s, or 10 buffers if that is longer. Valid after `open`.
    package var stallTimeoutMilliseconds: Int { Int(stallTimeout) }

    /// Installs ALSA's silent error handler once per process (errors are reported by us).
    private static let errorsSilenced: Bool = {
        _ = tonearm_alsa_silence_errors()
        return true
    }()

    package func open() throws {
        close()
        do {
            try openDevice()
        } catch let error as ALSAError {
            closeDevice(drain: false)
            throw error.outputError(.openFailed)
        } catch {
            closeDevice(drain: false)
            throw error
        }
    }

    private func openDevice() throws {
        _ = Self.errorsSilenced
        func check(_ code: Int32, _ operation: String) throws {
            if code < 0 { throw ALSAError(code: code, operation: operation, device: device) }
        }
        // Open non-blocking (a busy hw device would otherwise block open forever), then
        // switch the handle to blocking writes.
        var handle: OpaquePointer?
        try check(snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK), "snd_pcm_open")
        pcm = handle
        try check(snd_pcm_nonblock(handle, 0), "snd_pcm_nonblock")

        var hw: OpaquePointer?
        try check(snd_pcm_hw_params_malloc(&hw), "snd_pcm_hw_params_malloc")
        defer { snd_pcm_hw_params_free(hw) }
        try check(snd_pcm_hw_params_any(handle, hw), "snd_pcm_hw_params_any")
        try check(snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED),
                  "snd_pcm_hw_params_set_access RW_INTERLEAVED")
        guard let chosen = ALSASampleFormat.allCases.first(where: { snd_pcm_hw_params_test_format(handle, hw, $0.alsa) == 0 }) else {
            throw ALSAError(code: -EINVAL, operation: "snd_pcm_hw_params_set_format (none of FLOAT_LE, S32_LE, S16_LE)", device: device)
        }
        try check(snd_pcm_hw_params_set_format(handle, hw, chosen.alsa), "snd_pcm_hw_params_set_format \(chosen)")
        try check(snd_pcm_hw_params_set_channels(handle, hw, UInt32(channels)),
                  "snd_pcm_hw_params_set_channels \(channels)")
        var actualRate = UInt32(requestedRate)
        var dir: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(handle, hw, &actualRate, &dir),
                  "snd_pcm_hw_params_set_rate_near \(requestedRate)")
        var periodSize = snd_pcm_uframes_t(requestedPeriod)
        dir = 0
        try check(snd_pcm_hw_params_set_period_size_near(handle, hw, &periodSize, &dir),
                  "snd_pcm_hw_params_set_period_size_near \(requestedPeriod)")
        var bufferSize = snd_pcm_uframes_t(max(Int(periodSize), 1) * periods)
        try check(snd_pcm_hw_params_set_buffer_size_near(handle, hw, &bufferSize),
                  "snd_pcm_hw_params_set_buffer_size_near \(bufferSize)")
        try check(snd_pcm_hw_params(handle, hw), "snd_pcm_hw_params")
        // Read back what was installed.
        dir = 0
        try check(snd_pcm_hw_params_get_rate(hw, &actualRate, &dir), "snd_pcm_hw_params_get_rate")
        dir = 0
        try check(snd_pcm_hw_params_get_period_size(hw, &periodSize, &dir), "snd_pcm_hw_params_get_period_size")
        try check(snd_pcm_hw_params_get_buffer_size(hw, &bufferSize), "snd_pcm_hw_params_get_buffer_size")

        var sw: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&sw), "snd_pcm_sw_params_malloc")
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(handle, sw), "snd_pcm_sw_params_current")
        let threshold = max(periodSize, bufferSize > periodSize ? bufferSize - periodSize : periodSize)
        try check(snd_pcm_sw_params_set_start_threshold(handle, sw, threshold), "snd_pcm_sw_params_set_start_threshold")
        try check(snd_pcm_sw_params_set_avail_min(handle, sw, periodSize), "snd_pcm_sw_params_set_avail_min")
        try check(snd_pcm_sw_params(handle, sw), "snd_pcm_sw_params")
        try check(snd_pcm_prepare(handle), "snd_pcm_prepare")

        negotiatedFormat = chosen
        #if _endian(little)
        let needsConversion = chosen != .float32
        #else
        let needsConversion = true
        #endif
        if needsConversion {
            conversionFrames = Int(periodSize)
            conversion = UnsafeMutableRawPointer.allocate(byteCount: conversionFrames * channels * chosen.bytesPerSample,
                                                          alignment: 16)
        }
        let bufferMilliseconds = Int(bufferSize) * 1000 / max(Int(actualRate), 1)
        stallTimeout = Int32(max(2000, 10 * bufferMilliseconds))
        broken = false
        rate.store(Int(actualRate), ordering: .relaxed)
        period.store(Int(periodSize), ordering: .relaxed)
        buffer.store(Int(bufferSize), ordering: .relaxed)
        sampleFormatCode.store(chosen.rawValue, ordering: .relaxed)
        status.setLatency(0)
    }

    package func write(_ samples: UnsafePointer<Float>, frames: Int) throws {
        guard let pcm, !broken else {
            throw OutputError(.deviceLost, "ALSA device '\(device)' is not open")
        }
        var offset = 0
        while offset < frames {
            let ready = snd_pcm_wait(pcm, stallTimeout)
            if ready == 0 {
                broken = true
                throw OutputError(.deviceLost,
                                  "ALSA device '\(device)': no progress for \(stallTimeout) ms (while snd_pcm_wait)")
            }
            if ready < 0 {
                try recover(ready, "snd_pcm_wait")
                continue
            }
            // Write no more than the device has room for, so snd_pcm_writei never blocks
            // inside ALSA (where no timeout applies); the wait above is the only place we block.
            let available = snd_pcm_avail_update(pcm)
            if available < 0 {
                try recover(Int32(available), "snd_pcm_avail_update")
                continue
            }
            var chunk = min(frames - offset, max(Int(available), 1))
            let source = samples + offset * channels
            let written: snd_pcm_sframes_t
            if let conversion {
                chunk = min(chunk, conversionFrames)
                negotiatedFormat.convert(source, count: chunk * channels, into: conversion)
                written = snd_pcm_writei(pcm, conversion, snd_pcm_uframes_t(chunk))
            } else {
                written = snd_pcm_writei(pcm, source, snd_pcm_uframes_t(chunk))
            }
            if written < 0 {
                try recover(Int32(written), "snd_pcm_writei")
                continue
            }
            offset += written
        }
        var delay: snd_pcm_sframes_t = 0
        if snd_pcm_delay(pcm, &delay) == 0 {
            status.setLatency(Double(max(delay, 0)) / Double(rate.load(ordering: .relaxed)))
        }
    }

    /// Recovers an underrun or suspend (counting it), retries after EINTR/EAGAIN, throws
    /// `.deviceLost` for anything else (`-ENODEV`, `-EBADFD`, `-EIO`, …).
    private func recover(_ code: Int32, _ operation: String) throws {
        switch -code {
        case EAGAIN:
            return
        case EPIPE, ESTRPIPE, EINTR:
            let r = snd_pcm_recover(pcm, code, 1)
            if r < 0 {
                broken = true
                throw ALSAError(code: r, operation: "snd_pcm_recover after \(operation)", device: device).outputError(.deviceLost)
            }
            if -code != EINTR { status.countXrun() }
        default:
            broken = true
            throw ALSAError(code: code, operation: operation, device: device).outputError(.deviceLost)
        }
    }

    /// Lets the device play what it holds, but gives up (the caller drops the rest) after
    /// the expected time plus the stall timeout: a blocking snd_pcm_drain hangs on a dead device.
    private func drainWithTimeout(_ pcm: OpaquePointer) {
        var delay: snd_pcm_sframes_t = 0
        if snd_pcm_delay(pcm, &delay) < 0 { delay = 0 }
        let expected = UInt64(max(delay, 0)) * 1_000_000_000 / UInt64(max(rate.load(ordering: .relaxed), 1))
        let deadline = MonotonicClock.nanoseconds() + expected + UInt64(stallTimeout) * 1_000_000
        guard snd_pcm_nonblock(pcm, 1) == 0 else { return }
        let r = snd_pcm_drain(pcm)
        guard r == -EAGAIN else { return }  // finished (0), or failed: nothing more to wait for
        while snd_pcm_state(pcm) == SND_PCM_STATE_DRAINING && MonotonicClock.nanoseconds() < deadline {
            MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + 5_000_000)
        }
    }

    /// Drains what was written (unless the device failed) and releases it. Idempotent.
    package func close() {
        closeDevice(drain: !broken)
    }

    private func closeDevice(drain: Bool) {
        if let pcm {
            if drain { drainWithTimeout(pcm) }
            _ = snd_pcm_drop(pcm)
            _ = snd_pcm_close(pcm)
        }
        pcm = nil
        conversion?.deallocate()
        conversion = nil
        conversionFrames = 0
        status.setLatency(0)
    }
}
