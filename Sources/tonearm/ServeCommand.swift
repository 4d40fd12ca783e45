import ArgumentParser
import AudioCore
import AudioEngine
import Foundation
import HTTPServer
import Logging
import TonearmAPI

/// `tonearm [serve]`: the HTTP server of SPEC 1.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the playback server (the default command)."
    )

    @Option(help: "Address and port to listen on (IPv6 as [::1]:8080). Non-loopback addresses need a token.")
    var listen = "127.0.0.1:8080"

    @OptionGroup var device: DeviceOptions

    @Option(help: ArgumentHelp("A folder whose files players may open (repeatable; default ./media if it exists).", valueName: "dir"))
    var mediaRoot: [String] = []

    @Option(help: "Where players and uploads persist.")
    var stateDir = "./.tonearm"

    @Option(help: "Bearer token every /api/v1 request must carry (or set TONEARM_TOKEN).")
    var token: String?

    @Option(help: "Largest accepted upload in bytes.")
    var maxUpload = 512 << 20

    @Option(help: "Longest offline render (POST /api/v1/render) one request may ask for, in seconds.")
    var maxRenderSeconds = 3 * 3600.0

    @Option(help: "The control page's folder (default: the public/ folder shipped with Tonearm).")
    var `public`: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(help: ArgumentHelp("When the output device goes away: pause what is playing (until played again) or continue on the device timeline. Tonearm reopens the device either way.", valueName: "pause|continue"))
    var onDeviceLoss = "pause"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level: unknown level '\(logLevel)'") }
        guard DeviceLossPolicy(rawValue: onDeviceLoss) != nil else {
            throw ValidationError("--on-device-loss: expected pause or continue, not '\(onDeviceLoss)'")
        }
        guard maxUpload > 0 else { throw ValidationError("--max-upload must be a positive number of bytes") }
        guard maxRenderSeconds > 0, maxRenderSeconds <= 24 * 3600 else {
            throw ValidationError("--max-render-seconds must be more than 0 and at most 86400")
        }
        _ = try ListenAddress(listen)
    }

    func run() throws {
        Interrupts.install()
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tonearm")
        let address = try ListenAddress(listen)
        let token = token ?? ProcessInfo.processInfo.environment["TONEARM_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if !address.isLoopback && token == nil {
            throw CLIError("refusing to listen on \(listen) without a token: anyone on the network could control playback. "
                           + "Pass --token TOKEN (or set TONEARM_TOKEN), or listen on 127.0.0.1.")
        }
        var roots = mediaRoot
        if roots.isEmpty && FileManager.default.fileExists(atPath: "./media") { roots = ["./media"] }
        for root in roots {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CLIError("--media-root \(root): no such folder")
            }
        }
        let resources = Resources(publicOption: `public`)
        if `public` != nil && resources.publicDirectory == nil { throw CLIError("--public \(`public`!): no such folder") }

        let choice = try device.makeSink()
        if let notice = choice.notice { logger.notice("\(notice)") }
        let engine = Engine(sink: choice.sink, onDeviceLoss: DeviceLossPolicy(rawValue: onDeviceLoss) ?? .pause)
        do { try engine.start() } catch { throw CLIError("cannot open the output \(device.output): \(error)") }

        let allowedHosts = (ProcessInfo.processInfo.environment["TONEARM_ALLOWED_HOSTS"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let service: TonearmService
        do {
            service = try TonearmService(
                engine: engine,
                configuration: APIConfiguration(mediaRoots: roots, stateDirectory: stateDir, token: token, maxUpload: maxUpload,
                                                maxRenderSeconds: maxRenderSeconds,
                                                publicDirectory: resources.publicDirectory, openAPIPath: resources.openAPIPath,
                                                allowedHosts: allowedHosts + [address.host]),
                logger: logger)
        } catch {
            throw CLIError("--state-dir \(stateDir): \(error)")
        }
        service.restore()
        let server = HTTPServer(configuration: HTTPServer.Configuration(
            host: address.host, port: address.port, connectionLimit: 1024, perIPConnectionLimit: 0,
            connectionTimeout: 60, maxBodyBytes: 1 << 20, sseKeepalive: .seconds(15)))
        try service.register(on: server)
        do { try server.start() } catch { throw CLIError("cannot listen on \(listen): \(error)") }

        let shown = address.host.contains(":") ? "[\(address.host)]" : address.host
        logger.info("Tonearm on \(engine.outputDescription.kind):\(engine.outputDescription.name), \(engine.format.sampleRate) Hz, \(engine.format.channels) ch; media: \(roots.isEmpty ? "none" : roots.joined(separator: ", "))")
        let banner = "Tonearm is serving the control page at http://\(shown):\(server.port)/" + (token != nil ? " (token required)" : "")
        FileHandle.standardOutput.write(Data((banner + "\n").utf8))

        while !Interrupts.received.load(ordering: .relaxed) { usleep(100_000) }
        logger.info("shutting down")
        server.stop()
        service.shutdown()
        service.persistAll()
        engine.shutdown()
    }
}
