import Foundation

/// PulseAudio servers with a null sink for tests that exercise the real ALSA code path
/// through the ALSA `pulse` plugin (there is no sound card on the test machines).
/// Started by `Tests/Fixtures/start-pulse.sh`, which the Makefile uses too.
package enum PulseAudioServer {
    private static var script: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/start-pulse.sh").path
    }

    /// Starts the shared test server if needed, points this process's PulseAudio clients
    /// at it (`PULSE_SERVER`) and returns its address. Throws with the script's message
    /// when the server cannot be started.
    @discardableResult
    package static func ensureRunning() throws -> String {
        let server = try Shell.run(["sh", script]).trimmingCharacters(in: .whitespacesAndNewlines)
        setenv("PULSE_SERVER", server, 1)
        return server
    }

    /// A private server (runtime files in `directory`) that a test may stop or kill.
    /// Returns its address and process id. Does not change `PULSE_SERVER`.
    package static func startPrivate(directory: String) throws -> (server: String, pid: Int32) {
        let server = try Shell.run(["TONEARM_PULSE_DIR=\(directory)", "sh", script])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let pidText = try String(contentsOfFile: directory + "/pid", encoding: .utf8)
        guard let pid = Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Shell.Failed(description: "no pid in \(directory)/pid")
        }
        return (server, pid)
    }
}
