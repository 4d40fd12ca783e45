import ArgumentParser

/// The `tonearm` command: the server (default) and a command-line player.
@main
struct Tonearm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tonearm",
        abstract: "An audio playback server: many players, one device clock, sample-accurate starts.",
        subcommands: [ServeCommand.self, PlayCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
