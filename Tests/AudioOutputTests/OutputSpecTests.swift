import AudioCore
import AudioOutput
import Testing

@Suite("--output parsing and the factory")
struct OutputSpecTests {
    @Test("Valid strings", arguments: [
        ("auto", OutputSpec.auto), ("null", .null), ("alsa", .alsa(device: "default")),
        ("alsa:hw:1,0", .alsa(device: "hw:1,0")), ("alsa:plughw:CARD=PCH,DEV=0", .alsa(device: "plughw:CARD=PCH,DEV=0")),
        ("alsa:pulse", .alsa(device: "pulse")), ("wav:out.wav", .wav(path: "out.wav")),
        ("wav:/tmp/a:b.wav", .wav(path: "/tmp/a:b.wav")),
    ])
    func valid(text: String, spec: OutputSpec) throws {
        #expect(try OutputSpec(parsing: text) == spec)
    }

    @Test("Malformed strings say what is wrong", arguments: ["", "wav", "wav:", "alsa:", "null:x", "auto:1", "oss", "ALSA", "alsa:hw 1"])
    func invalid(text: String) {
        do {
            _ = try OutputSpec(parsing: text)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.description.contains("invalid --output '\(text)'"))
            #expect(error.description.contains("expected auto, alsa, alsa:DEVICE, null or wav:PATH"))
        }
    }

    @Test("The factory builds the named sink, unopened")
    func factory() throws {
        let format = AudioFormat(sampleRate: 48000, channels: 2)
        let null = try OutputFactory.make("null", format: format, periodFrames: 256, periods: 4)
        #expect(null.sink is NullSink && null.notice == nil && null.sink.periodFrames == 256)
        let wav = try OutputFactory.make("wav:/tmp/x.wav", format: format, periodFrames: 256, periods: 4)
        #expect(wav.sink.description == OutputDescription(kind: "wav", name: "/tmp/x.wav"))
        let alsa = try OutputFactory.make("alsa:hw:7,0", format: format, periodFrames: 256, periods: 4)
        #expect(alsa.sink.description == OutputDescription(kind: "alsa", name: "hw:7,0"))
        #expect(throws: OutputSpec.ParseError.self) { try OutputFactory.make("speaker", format: format, periodFrames: 256, periods: 4) }
    }

    @Test("auto falls back to null, saying why, when ALSA cannot be opened")
    func autoFallsBack() {
        let choice = OutputFactory.make(.auto, format: AudioFormat(sampleRate: 48000, channels: 2),
                                        periodFrames: 256, periods: 4, autoDevice: "hw:99,0")
        #expect(choice.sink is NullSink)
        #expect(choice.notice?.contains("hw:99,0") == true, "\(choice.notice ?? "nil")")
        #expect(choice.notice?.contains("null") == true)
    }
}
