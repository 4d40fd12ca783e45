import ArgumentParser
import AudioCore
import AudioOutput

/// The output options of SPEC 1, shared by every subcommand that opens a device.
struct DeviceOptions: ParsableArguments {
    @Option(help: "auto, alsa[:DEVICE], null or wav:PATH.")
    var output = "auto"

    @Option(help: "Device sample rate in Hz.")
    var sampleRate = 48_000

    @Option(help: "Device channel count.")
    var channels = 2

    @Option(help: "Frames per period (the render block).")
    var periodFrames = 256

    @Option(help: "Periods in the device buffer.")
    var periods = 4

    func validate() throws {
        guard (8_000...384_000).contains(sampleRate) else { throw ValidationError("--sample-rate must be 8000…384000 Hz, got \(sampleRate)") }
        guard (1...32).contains(channels) else { throw ValidationError("--channels must be 1…32, got \(channels)") }
        guard (16...16_384).contains(periodFrames) else { throw ValidationError("--period-frames must be 16…16384, got \(periodFrames)") }
        guard (2...64).contains(periods) else { throw ValidationError("--periods must be 2…64, got \(periods)") }
        do { _ = try OutputSpec(parsing: output) } catch { throw ValidationError("--output: \(error)") }
    }

    var format: AudioFormat { AudioFormat(sampleRate: sampleRate, channels: channels) }

    /// The sink, plus a notice when `auto` fell back to `null`.
    func makeSink() throws -> OutputFactory.Choice {
        try OutputFactory.make(output, format: format, periodFrames: periodFrames, periods: periods)
    }
}
