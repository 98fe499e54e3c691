import Foundation
import Testing
import TestSupport

/// Every `sessionstore` command line in the shell blocks of README.md and docs/CLI.md (the CLI's
/// reference) runs as written, so the documents cannot drift from the CLI again. Each runs in a copy of a directory holding a demo store (made by
/// `sessionstore demo`), its key, an anchor and the files the README names; the README's placeholders
/// are filled from that store. Optional parts in `[brackets]` are left out. Lines that name a PostgreSQL
/// server (and the block that exports one) are left to PostgresCommandsTests, which runs a real server.
@Suite(.serialized) struct ReadmeCommandsTests {
    /// One command line of a document, as written, and its 1-based line number.
    struct Line: CustomTestStringConvertible, Sendable {
        var document: String
        var number: Int
        var text: String
        var testDescription: String { "\(document):\(number): \(text)" }
    }

    static let documents = ["README.md", "docs/CLI.md"]

    /// The `sessionstore` lines of every `sh` block that names no PostgreSQL server, comments removed.
    static let lines: [Line] = documents.flatMap { lines(of: $0) }

    static func lines(of document: String) -> [Line] {
        let url = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent(document)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        var found: [Line] = []
        var block: [Line]?
        for (index, raw) in text.components(separatedBy: "\n").enumerated() {
            if raw.hasPrefix("```") {
                if let finished = block {
                    // A block that exports a PostgreSQL store is about that backend; a line naming a server is too.
                    if !finished.contains(where: { $0.text.hasPrefix("export ") }) {
                        found += finished.filter {
                            $0.text.contains("sessionstore ") && !$0.text.hasPrefix("alias ") && !$0.text.contains("postgresql://")
                        }
                    }
                    block = nil
                } else if raw == "```sh" {
                    block = []
                }
                continue
            }
            guard block != nil else { continue }
            let command = raw.components(separatedBy: " #")[0].trimmingCharacters(in: .whitespaces)  // a shell comment
            if !command.isEmpty, !command.hasPrefix("#") { block!.append(Line(document: document, number: index + 1, text: command)) }
        }
        return found
    }

    @Test func theReadmeHasCommandLinesToRun() {
        #expect(Self.lines.count >= 30, "found only \(Self.lines.count) command lines in README.md and docs/CLI.md")
        #expect(Self.lines(of: "README.md").count >= 5, "the README shows the commands a newcomer runs first")
    }

    /// The demo store and the files the README's commands name, made once.
    static let template: Result<(directory: URL, fillings: [String: String]), any Error> = Result {
        let directory = Scratch.url("readme-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cli = CLIRunner(directory: directory)
        let demo = try cli.run(["demo"])
        guard demo.status == 0 else { throw CLIFailure("sessionstore demo failed: \(demo.stderr)") }
        for (name, ext) in [("a", "flac"), ("a", "json")] {
            try FileManager.default.copyItem(at: RepositoryFixtures.root.appendingPathComponent("audio/short-dictation.\(ext)"),
                                             to: directory.appendingPathComponent("\(name).\(ext)"))
        }
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("Fixtures"), withDestinationURL: RepositoryFixtures.root)
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("tools"),
                                                   withDestinationURL: RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools"))
        guard try cli.run(["anchor", "--out", "cp.txt"]).status == 0,
              try cli.run(["retention", "set", "--max-age", "90d"]).status == 0 else { throw CLIFailure("anchor or retention set failed") }
        let key = try cli.run(["anchor", "--public-key"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let list = try cli.run(["sessions", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline)
        guard list.count > 1, let session = list[1].split(separator: ",").first else { throw CLIFailure("the demo store lists no session") }
        let drove = try cli.run(["replay", String(session), "--drive", "python3 tools/replay/echo_target.py", "--with-transcript"])
        guard drove.status == 0 else { throw CLIFailure("replay --drive failed: \(drove.stderr)") }
        for label in ["v1", "v2"] {  // two versions of one session's runs, for `compare --baseline v1 --candidate v2`
            let run = try cli.run(["replay", String(session), "--drive", "python3 tools/replay/echo_target.py", "--with-transcript", "--label", label])
            guard run.status == 0 else { throw CLIFailure("replay --drive --label \(label) failed: \(run.stderr)") }
        }
        return (directory, [
            "SESSION": String(session), "RUN": drove.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "USER_ID": "demo-clinician", "KEY": key, "T": "2026-12-01T00:00:00Z",
            "/data/s.store": cli.storePath, "/secrets/s.key": cli.keyPath,
        ])
    }

    struct CLIFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The words of `line` with placeholders filled and `[optional parts]` left out; leading
    /// `NAME=value` words become the environment.
    static func words(of line: String, fillings: [String: String]) -> (environment: [String: String], arguments: [String]) {
        var text = line
        while let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") {
            text.removeSubrange(open...close)
        }
        var environment: [String: String] = [:]
        var arguments: [String] = []
        for word in shellWords(text) {
            if arguments.isEmpty, let equals = word.firstIndex(of: "="), word.first?.isUppercase == true {
                environment[String(word[..<equals])] = String(word[word.index(after: equals)...]).trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
            } else {
                arguments.append(fillings[word] ?? word)
            }
        }
        return (environment, arguments)
    }

    /// Words split at spaces outside 'single' and "double" quotes, the quotes removed, as a shell does.
    static func shellWords(_ text: String) -> [String] {
        var words: [String] = [], word = "", quote: Character?, inWord = false
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    @Test(.timeLimit(.minutes(10)), arguments: lines)
    func everyReadmeCommandRunsAsWritten(_ line: Line) async throws {
        let (template, fillings) = try Self.template.get()
        let directory = Scratch.url("readme-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: template, to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        var (environment, arguments) = Self.words(of: line.text, fillings: fillings)
        try #require(arguments.first == "sessionstore", "\(line.text) does not start with sessionstore")
        arguments.removeFirst()
        if arguments.first == "init" {
            // `init` makes a new store: run where there is none yet.
            try FileManager.default.removeItem(at: directory.appendingPathComponent("sessions.store"))
            if environment.isEmpty { try FileManager.default.removeItem(at: directory.appendingPathComponent("sessions.key")) }
        }
        let outcome = try CLIRunner(directory: directory).run(arguments, environment: environment)
        let allowed: Set<Int32> = arguments.starts(with: ["audit", "check"]) ? [0, 3] : [0]  // the README: exit 3 on violations
        #expect(allowed.contains(outcome.status), "\(line.document):\(line.number) `\(line.text)` exited \(outcome.status): \(outcome.stderr)")
    }

    /// The `sessionstore …` examples quoted in backticks in `sessionstore --help` and every subcommand's
    /// help (wrapped lines joined), with their placeholders FILE, A and S.
    static func helpExamples(_ cli: CLIRunner) throws -> [String] {
        func help(_ path: [String]) throws -> String {
            try cli.run(["help"] + path).stdout
        }
        func subcommands(_ text: String) -> [String] {
            guard let section = text.components(separatedBy: "SUBCOMMANDS:").dropFirst().first else { return [] }
            return section.split(separator: "\n").compactMap { line in
                line.hasPrefix("  ") && !line.hasPrefix("   ") ? line.split(separator: " ").first.map(String.init) : nil
            }
        }
        var texts: [String] = []
        let top = try help([])
        texts.append(top)
        for name in subcommands(top) where name != "help" {
            let text = try help([name])
            texts.append(text)
            for nested in subcommands(text) where nested != "help" { texts.append(try help([name, nested])) }
        }
        var examples: [String] = []
        for text in texts {
            let joined = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            for (index, part) in joined.components(separatedBy: "`").enumerated() where index % 2 == 1 && part.hasPrefix("sessionstore ") {
                if !examples.contains(part) { examples.append(part) }
            }
        }
        return examples
    }

    @Test(.timeLimit(.minutes(10)))
    func everyHelpExampleRunsAsWritten() async throws {
        let (template, fillings) = try Self.template.get()
        let examples = try Self.helpExamples(CLIRunner(directory: template))
        #expect(examples.count >= 3, "found only \(examples)")
        var more = fillings
        more["FILE"] = "Fixtures/demo/session.ndjson"
        more["A"] = "a.flac"
        more["S"] = "a.json"
        for example in examples {
            let directory = Scratch.url("help-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: template, to: directory)
            defer { try? FileManager.default.removeItem(at: directory) }
            var (environment, arguments) = Self.words(of: example, fillings: more)
            arguments.removeFirst()
            let outcome = try CLIRunner(directory: directory).run(arguments, environment: environment)
            #expect(outcome.status == 0, "the help's example `\(example)` exited \(outcome.status): \(outcome.stderr)")
        }
    }
}
