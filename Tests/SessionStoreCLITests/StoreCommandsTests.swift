import EventLog
import Foundation
import SessionLog
import Testing

@Suite struct StoreCommandsTests {
    // On the binary: the default paths are the working directory's, which an in-process run does not have.
    @Test func initThenStatsThenVerifyWorkOnTheDefaultPaths() async throws {
        try await withCLI { cli in
            let created = try cli.run(["init"])
            #expect(created.status == 0, "\(created.stderr)")
            #expect(created.stdout.contains("Created store sessions.store"))
            let keyMode = try FileManager.default.attributesOfItem(atPath: cli.keyPath)[.posixPermissions] as? NSNumber
            #expect(keyMode?.intValue == 0o600)

            let stats = try cli.run(["stats", "--format", "json"])
            #expect(stats.status == 0)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
            #expect(json["events"] as? Int == 0)
            #expect(json["streams"] as? Int == 0)
            #expect((json["map_size"] as? Int ?? 0) > 0)

            let verify = try cli.run(["verify"])
            #expect(verify.status == 0)
            #expect(verify.stdout.contains("intact: 0 records checked"))
        }
    }

    @Test func statsCountsEventsAppendedThroughTheLibrary() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            do {
                let log = try EventLog.open(at: cli.storePath, key: .keyFile(cli.keyPath), options: .testing)
                for index in 0..<5 {
                    try await log.append([ProposedEvent(type: "note", data: Array("hello \(index)".utf8))], to: StreamID())
                }
                try log.close()
            }
            let table = try await cli.runInProcess(["stats"])
            #expect(table.status == 0)
            #expect(table.stdout.contains("events"))
            #expect(table.stdout.split(separator: "\n").first { $0.hasPrefix("events") }?.hasSuffix(" 5") == true)
            #expect(table.stdout.split(separator: "\n").first { $0.hasPrefix("streams") }?.hasSuffix(" 5") == true)
        }
    }

    @Test func initRefusesToOverwriteAStoreOrAKeyFile() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            let keyBefore = try Data(contentsOf: URL(fileURLWithPath: cli.keyPath))
            let again = try await cli.runInProcess(["init"])
            #expect(again.status == 65)
            #expect(again.stderr.contains("refusing to overwrite"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: cli.keyPath)) == keyBefore)

            let newStoreOldKey = try await cli.runInProcess(["init", "--store", cli.path("second.store")])
            #expect(newStoreOldKey.status == 65)
            #expect(newStoreOldKey.stderr.contains("refusing to overwrite a key"))
            #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("second.store").path))
        }
    }

    @Test func theWrongKeyExitsSeventySevenWithOneSentence() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            try await cli.runInProcess(["init", "--store", cli.path("other.store"), "--key-file", cli.path("other.key")])
            let wrong = try await cli.runInProcess(["stats", "--key-file", cli.path("other.key")])
            #expect(wrong.status == 77)
            #expect(wrong.stderr == "sessionstore: error: the key does not open this store (wrong key file or passphrase)\n")
            let missing = try await cli.runInProcess(["verify", "--key-file", cli.path("missing.key")])
            #expect(missing.status == 77)
            #expect(missing.stderr.contains("missing.key"))
        }
    }

    @Test func aPassphraseFromTheEnvironmentCreatesAndOpensTheStore() async throws {
        try await withCLI { cli in
            let environment = ["STORE_PASSPHRASE": "a long and memorable passphrase"]
            let created = try await cli.runInProcess(["init", "--passphrase-env", "STORE_PASSPHRASE"], environment: environment)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(!FileManager.default.fileExists(atPath: cli.keyPath))
            #expect(try await cli.runInProcess(["verify", "--passphrase-env", "STORE_PASSPHRASE"], environment: environment).status == 0)
            let wrong = try await cli.runInProcess(["verify", "--passphrase-env", "STORE_PASSPHRASE"], environment: ["STORE_PASSPHRASE": "nope"])
            #expect(wrong.status == 77)
            let unset = try await cli.runInProcess(["verify", "--passphrase-env", "NOT_SET_ANYWHERE"])
            #expect(unset.status == 64)
            #expect(unset.stderr.contains("NOT_SET_ANYWHERE"))
        }
    }

    @Test func usageErrorsExitSixtyFour() async throws {
        try await withCLI { cli in
            let unknownCommand = try await cli.runInProcess(["frobnicate"])
            let unknownFormat = try await cli.runInProcess(["stats", "--format", "yaml"])
            let twoKeys = try await cli.runInProcess(["stats", "--key-file", "a", "--passphrase-env", "B"])
            #expect(unknownCommand.status == 64)
            #expect(unknownFormat.status == 64)
            #expect(twoKeys.status == 64)
            #expect(twoKeys.stderr.contains("not both"))
        }
    }

    @Test func openingAMissingStoreSaysSoAndExitsSixtyFive() async throws {
        try await withCLI { cli in
            let outcome = try await cli.runInProcess(["stats", "--store", cli.path("nowhere")])
            #expect(outcome.status == 65)
            #expect(outcome.stderr.contains("there is no store at \(cli.path("nowhere"))"))
        }
    }

    @Test func verifyExitsTwoAndNamesTheDamagedPosition() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            var ids: [(event: UUID, stream: UUID)] = []
            do {
                let log = try EventLog.open(at: cli.storePath, key: .keyFile(cli.keyPath), options: .testing)
                for index in 0..<6 {
                    let event = ProposedEvent(type: "note", data: Array("dictated sentence number \(index)".utf8))
                    let stream = StreamID()
                    ids.append((event.id, stream.uuid))
                    try await log.append([event], to: stream)
                }
                try log.close()
            }
            let dataURL = URL(fileURLWithPath: cli.storePath + "/data.mdb")
            var file = try Data(contentsOf: dataURL)
            // Damage every copy of record 3 (LMDB leaves old page versions in free pages) inside its ciphertext:
            // where its clear header has its event id, 32 bytes after its stream id (the index of event ids
            // has the two side by side).
            let idBytes = withUnsafeBytes(of: ids[3].event.uuid) { Data($0) }
            let streamBytes = withUnsafeBytes(of: ids[3].stream.uuid) { Data($0) }
            var searchFrom = file.startIndex
            while let found = file.range(of: idBytes, in: searchFrom..<file.endIndex) {
                if file[(found.lowerBound - 32)..<(found.lowerBound - 16)] == streamBytes { file[found.lowerBound - 40 + 120] ^= 0x80 }
                searchFrom = found.upperBound
            }
            try file.write(to: dataURL)

            let outcome = try await cli.runInProcess(["verify"])
            #expect(outcome.status == 2)
            #expect(outcome.stdout.contains("position 3:"))
            #expect(!outcome.stdout.contains("position 2:"))
            #expect(outcome.stderr.contains("NOT intact: 1 problem in 6 records"))
        }
    }

    // On the binary: help goes to standard output through swift-argument-parser's exit.
    @Test func everyCommandExplainsItselfInHelp() async throws {
        try await withCLI { cli in
            for command in ["init", "stats", "verify"] {
                let help = try cli.run([command, "--help"])
                #expect(help.status == 0)
                #expect(help.stdout.contains("--store"))
                #expect(help.stdout.contains("--key-file"))
                #expect(help.stdout.contains("--passphrase-env"))
            }
        }
    }
}

@Suite struct SessionDictionaryTests {
    @Test func initInstallsTheSessionDictionarySoSmallEventsAreStoredCompressed() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            var lines: [String] = [#"{"type":"session.started","session":"\#(QueryCommandsTests.session)","at":"2026-11-21T10:00:00Z","subject":"u","locale":"en-GB"}"#]
            for index in 0..<300 {
                lines.append(#"{"type":"transcript.partial","session":"\#(QueryCommandsTests.session)","at":"2026-11-21T10:00:01Z","segment":"\#(index / 4)","revision":\#(index % 4),"text":"the patient reports mild pain in the left knee since monday","start_ms":\#(index * 100),"end_ms":\#(index * 100 + 900)}"#)
            }
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(lines.joined(separator: "\n").utf8)).status == 0)
            let stats = try JSONSerialization.jsonObject(with: Data(try await cli.runInProcess(["stats", "--format", "json"]).stdout.utf8)) as? [String: Any]
            #expect(stats?["dictionaries"] as? Int == 1)
            #expect((stats?["compression_ratio"] as? Double ?? 0) > 1.5)
            let transcript = try await cli.runInProcess(["transcript", QueryCommandsTests.session, "--partials"])
            #expect(transcript.stdout.contains("the patient reports mild pain in the left knee since monday"))
        }
    }
}
