import ArgumentParser

extension CommandFailure {
    /// What `serve` and `witness serve` answer in a build without the `Server` package trait.
    static var serverNotBuilt: CommandFailure {
        CommandFailure(.usage, """
            this sessionstore was built without its server (--disable-default-traits, as tools/demo builds it \
            first): build the default one with `swift build --product sessionstore` (README, "Build")
            """)
    }
}

#if !Server
/// `serve` in a build without the `Server` trait: the same name, and one sentence on how to get it.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the store over HTTP (not in this build: `swift build --product sessionstore` builds it).")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() async throws {
        try await reportingFailures { throw CommandFailure.serverNotBuilt }
    }
}
#endif
