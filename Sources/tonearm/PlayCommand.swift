import ArgumentParser
import AudioDecoding
import AudioEngine
import Foundation

/// `tonearm play FILE…`: starts every file on the same device frame and exits when all finish.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play files together, sample-aligned on the device clock, then exit."
    )

    @OptionGroup var device: DeviceOptions

    @Option(help: "Volume 0…1 for every file.")
    var volume = 1.0

    @Option(help: "Loops per file: 0 plays once, n plays n+1 times, -1 forever.")
    var loops = 0

    @Argument(help: "Audio files (MP3, WAV, AIFF, FLAC, Ogg Vorbis, Opus).")
    var files: [String]

    func validate() throws {
        guard (0...1).contains(volume) else { throw ValidationError("--volume must be between 0 and 1, got \(volume)") }
    }

    func run() throws {
        Interrupts.install()
        let choice = try device.makeSink()
        if let notice = choice.notice { FileHandle.standardError.write(Data((notice + "\n").utf8)) }
        let engine = Engine(sink: choice.sink)
        var players: [Player] = []
        for (i, file) in files.enumerated() {
            do {
                let p = try engine.makePlayer(id: "\(i)", input: .file(file), url: URL(fileURLWithPath: file).absoluteString)
                p.volume = volume
                p.numberOfLoops = loops
                players.append(p)
                let s = p.settings
                print("\(file): \(s.formatID), \(s.sampleRate) Hz, \(s.channelLayout), \(String(format: "%.2f", p.duration)) s"
                      + (p.metadata.title.map { " — \($0)" } ?? ""))
            } catch {
                throw CLIError("\(file): \(error)")
            }
        }
        do {
            try engine.start()
        } catch {
            throw CLIError("cannot open the output: \(error)")
        }
        let result = engine.play(players, atTime: engine.deviceCurrentTime + 0.1)
        guard result.ok else { throw CLIError("could not start playback: a file failed to decode") }
        print("playing \(players.count) file(s) on \(engine.outputDescription.kind):\(engine.outputDescription.name), "
              + "\(engine.format.sampleRate) Hz — Ctrl-C stops")
        while !Interrupts.received.load(ordering: .relaxed) && players.contains(where: { $0.state != .finished }) {
            usleep(50_000)
        }
        engine.shutdown()
    }
}
