import ArgumentParser
import Compliance
import EventLog
import Foundation
import Output
#if Server
import SessionServer
#endif
import WitnessHTTP

struct WitnessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "witness",
        abstract: "Run a C2SP tlog-witness: cosign checkpoints of the logs it trusts, only when they extend what it saw.",
        discussion: """
            A witness is a third party that remembers, per log, the last checkpoint it cosigned. It cosigns a \
            new checkpoint only with a valid consistency proof from that one, so a store that rewrote its \
            history and signed it again cannot get a cosignature from a witness that saw the old checkpoint. \
            Stores ask witnesses with `anchor --witness URL`; auditors check the cosignatures with `verify \
            --anchor FILE --witness-key KEY`.

              sessionstore witness init --key-file w.key --name witness.example/w1   # prints the witness key
              sessionstore witness serve --key-file w.key --state w.state --log STORE_KEY --listen 127.0.0.1:8441

            STORE_KEY is a store's checkpoint verifier key (`anchor --public-key`); --log is repeatable. The \
            state directory is written crash-safely (a new file synced, then renamed over the old). \
            docs/COMPLIANCE.md, "Witnesses".
            """,
        subcommands: [WitnessInitCommand.self, WitnessKeyCommand.self, WitnessServeCommand.self, WitnessAddCheckpointCommand.self]
    )
}

/// The witness's key file: its name, then the base64 of its 32-byte Ed25519 seed (mode 0600).
struct WitnessKeyOptions: ParsableArguments {
    @Option(name: .customLong("key-file"), help: ArgumentHelp("The witness's key file (from `witness init`).", valueName: "path"))
    var keyFile: String

    func cosigner() throws -> Cosigner {
        let text: String
        do { text = try String(contentsOfFile: keyFile, encoding: .utf8) } catch {
            throw CommandFailure(.key, "cannot read the witness key file \(keyFile): \(error.localizedDescription)")
        }
        let lines = text.split(separator: "\n")
        guard lines.count == 2, let seed = Data(base64Encoded: String(lines[1])), seed.count == 32 else {
            throw CommandFailure(.key, "\(keyFile) is not a witness key file (a name line, then the base64 of a 32-byte seed)")
        }
        do { return try Cosigner(name: String(lines[0]), seed: Array(seed)) } catch let error as EventLogError {
            throw CommandFailure(.key, "\(keyFile): \(error.message)")
        }
    }
}

/// The logs a witness trusts and where it keeps what it saw of them.
struct WitnessStateOptions: ParsableArguments {
    @Option(name: .customLong("state"), help: ArgumentHelp("The directory where the witness keeps the last checkpoint it cosigned per log.", valueName: "dir"))
    var state: String

    @Option(name: .customLong("log"), help: ArgumentHelp("A log's checkpoint verifier key (`anchor --public-key`); repeatable.", valueName: "key"))
    var logs: [String] = []

    func validate() throws {
        if logs.isEmpty { throw ValidationError("Give at least one --log: the checkpoint verifier key of a log this witness trusts.") }
    }

    func witness(_ key: WitnessKeyOptions) throws -> Witness {
        try Witness(cosigner: try key.cosigner(), logKeys: logs, stateDirectory: URL(fileURLWithPath: state))
    }
}

struct WitnessInitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Make a witness key file and print the witness's verifier key (for auditors and stores).")

    @Option(name: .customLong("key-file"), help: ArgumentHelp("Where to write the new key file; it must not exist.", valueName: "path"))
    var keyFile: String

    @Option(name: .customLong("name"), help: ArgumentHelp("The witness's name, a schema-less URL such as witness.example/w1.", valueName: "name"))
    var name: String

    func run() async throws {
        try await reportingFailures {
            let seed = Cosigner.randomSeed()
            let cosigner: Cosigner
            do { cosigner = try Cosigner(name: name, seed: seed) } catch let error as EventLogError {
                throw CommandFailure(.usage, error.message)
            }
            let descriptor = open(keyFile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw CommandFailure(.usage, "cannot create \(keyFile): \(String(cString: strerror(errno))) (an existing key file is never overwritten)")
            }
            let bytes = Array("\(name)\n\(Data(seed).base64EncodedString())\n".utf8)
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            let synced = fsync(descriptor) == 0
            close(descriptor)
            guard written == bytes.count, synced else { throw CommandFailure(.unexpected, "cannot write \(keyFile)") }
            Console.line(cosigner.verifierKey)
        }
    }
}

struct WitnessKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "key", abstract: "Print the witness's verifier key.")

    @OptionGroup var key: WitnessKeyOptions

    func run() async throws {
        try await reportingFailures { Console.line(try key.cosigner().verifierKey) }
    }
}

struct WitnessServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve POST /add-checkpoint (C2SP tlog-witness) over HTTP until SIGTERM or SIGINT.",
        discussion: """
            Prints `listening on http://HOST:PORT` once it accepts requests (--listen HOST:0 takes a free \
            port). Answers as C2SP tlog-witness says: 200 with the cosignature line, 400 a malformed \
            request or one whose old size exceeds the checkpoint's, 403 no signature of a trusted log key, \
            404 a log it does not know, 409 an old size that is not the size it cosigned last (the body \
            gives that size, text/x.tlog.size) or another root for the same size, 422 a consistency proof \
            that does not verify.
            """
    )

    @OptionGroup var key: WitnessKeyOptions
    @OptionGroup var stateOptions: WitnessStateOptions

    @Option(name: .customLong("listen"), help: ArgumentHelp("HOST:PORT to listen on.", valueName: "address"))
    var listen = "127.0.0.1:8441"

    func run() async throws {
        try await reportingFailures {
            guard let (host, port) = listenAddress(listen) else { throw CommandFailure(.usage, "--listen \(listen) is not HOST:PORT") }
            let witness = try stateOptions.witness(key)
            #if Server
            try await WitnessServer.run(witness, host: host, port: port) { bound in
                // One write(2), unbuffered: whoever waits for this line sees it at once.
                Console.out("listening on http://\(host):\(bound)\n")
            }
            #else
            _ = (witness, host, port)
            throw CommandFailure.serverNotBuilt
            #endif
        }
    }
}

struct WitnessAddCheckpointCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-checkpoint",
        abstract: "Answer one add-checkpoint request offline: read it from a file (or -), print the cosignature.",
        discussion: """
            The same check as `serve`, without a server: the request body (an `old SIZE` line, the \
            consistency proof's base64 hashes, an empty line, the checkpoint) is read from FILE or standard \
            input. Prints the cosignature line and exits 0, or prints the status and the reason on standard \
            error and exits 2 (409, 422: the checkpoint does not extend what the witness saw) or 65 (any \
            other refusal).
            """
    )

    @OptionGroup var key: WitnessKeyOptions
    @OptionGroup var stateOptions: WitnessStateOptions

    @Argument(help: ArgumentHelp("The request body, or - for standard input.", valueName: "file"))
    var request = "-"

    func run() async throws {
        try await reportingFailures {
            let body: Data
            if request == "-" {
                body = Console.input.readDataToEndOfFile()
            } else {
                do { body = try Data(contentsOf: URL(fileURLWithPath: request)) } catch {
                    throw CommandFailure(.usage, "cannot read \(request): \(error.localizedDescription)")
                }
            }
            let answer = try await stateOptions.witness(key).addCheckpoint(Array(body))
            guard answer.status == 200 else {
                let status: ExitStatus = [409, 422].contains(answer.status) ? .integrity : .invalidData
                throw CommandFailure(status, "the witness refused (\(answer.status)): \(answer.body.trimmingCharacters(in: .whitespacesAndNewlines))")
            }
            Console.out(answer.body)
        }
    }
}
