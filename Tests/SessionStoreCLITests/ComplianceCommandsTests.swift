import Foundation
import Testing
import TestSupport

/// The auditor's journey through the built binary: check, consent trail, retention, erasure.
@Suite struct ComplianceCommandsTests {
    static let revoked = "22222222-2222-4222-8222-222222222222"
    static let consented = "33333333-3333-4333-8333-333333333333"

    /// Bob revokes transcription mid-session and the client keeps transcribing; Carol consents properly.
    static let sessions = """
        {"type":"session.started","session":"\(revoked)","at":"2026-03-01T10:00:00.000Z","subject":"bob","locale":"en"}
        {"type":"consent.granted","session":"\(revoked)","at":"2026-03-01T10:00:00.100Z","subject":"bob","consent_type":"transcription","method":"in_app_prompt"}
        {"type":"transcript.committed","session":"\(revoked)","at":"2026-03-01T10:00:02.000Z","segment":"a","text":"bobs secret words","start_ms":0,"end_ms":900}
        {"type":"consent.revoked","session":"\(revoked)","at":"2026-03-01T10:00:03.000Z","subject":"bob","consent_type":"transcription","method":"settings"}
        {"type":"transcript.committed","session":"\(revoked)","at":"2026-03-01T10:00:04.000Z","segment":"b","text":"more","start_ms":900,"end_ms":1900}
        {"type":"session.ended","session":"\(revoked)","at":"2026-03-01T10:00:06.000Z"}
        {"type":"session.started","session":"\(consented)","at":"2026-03-02T10:00:00.000Z","subject":"carol","locale":"en"}
        {"type":"consent.granted","session":"\(consented)","at":"2026-03-02T10:00:00.000Z","subject":"carol","consent_type":"transcription","method":"in_app_prompt"}
        {"type":"transcript.committed","session":"\(consented)","at":"2026-03-02T10:00:02.000Z","segment":"a","text":"carols words","start_ms":0,"end_ms":900}
        {"type":"session.ended","session":"\(consented)","at":"2026-03-02T10:00:06.000Z"}
        """

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test func anAuditorFindsTheViolationErasesThePersonAndTheTrailStillProvesTheirConsent() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(Self.sessions.utf8)).status == 0)

            let check = try await cli.runInProcess(["audit", "check", "--format", "json"])
            #expect(check.status == 3, "\(check.stderr)")
            let violations = try #require(try Self.json(check.stdout) as? [[String: Any]])
            #expect(violations.count == 1)
            #expect(violations.first?["rule"] as? String == "event_after_revocation")
            #expect(violations.first?["session"] as? String == Self.revoked)
            #expect(violations.first?["position"] as? Int == 4)
            #expect(violations.first?["occurred_at"] as? String == "2026-03-01T10:00:04.000Z")
            #expect((violations.first?["detail"] as? String)?.isEmpty == false)

            let trail = try await cli.runInProcess(["audit", "consent", "--subject", "bob", "--format", "json"])
            #expect(trail.status == 0)
            let entries = try #require(try Self.json(trail.stdout) as? [[String: Any]])
            #expect(entries.map { $0["status"] as? String } == ["granted", "revoked"])
            #expect(entries.allSatisfy { $0["position"] is Int && $0["occurred_at"] is String && $0["at"] == nil && $0["subject_hash"] is String })
            #expect(!trail.stdout.contains("bob\""), "the raw user id is never printed")
            #expect(try await cli.runInProcess(["consent", "bob", "--format", "json"]).stdout == trail.stdout, "consent is an alias of audit consent")

            let refused = try await cli.runInProcess(["erase", "--subject", "bob"])
            #expect(refused.status == 64 && refused.stderr.contains("--yes"))
            let erase = try await cli.runInProcess(["erase", "--subject", "bob", "--yes", "--format", "json"])
            #expect(erase.status == 0, "\(erase.stderr)")
            let report = try #require(try Self.json(erase.stdout) as? [String: Any])
            #expect(report["erased_sessions"] as? [String] == [Self.revoked])
            #expect((report["bytes_after"] as? Int ?? 0) > 0)

            let transcript = try await cli.runInProcess(["transcript", Self.revoked])
            #expect(transcript.status == 65 && transcript.stderr.contains("erased"))
            let events = try await cli.runInProcess(["events", Self.revoked])
            #expect(events.status == 65 && events.stderr.contains("erased"))
            #expect(try await cli.runInProcess(["sessions", "--format", "csv"]).stdout.contains("\(Self.revoked),erased"))
            let export = try await cli.runInProcess(["export", Self.revoked, "--format", "json"])
            #expect(export.status == 0 && !export.stdout.contains("secret"))
            #expect(try await cli.runInProcess(["audit", "consent", "--session", Self.revoked, "--format", "json"]).stdout.contains("\"revoked\""))
            #expect(try await cli.runInProcess(["audit", "consent", "--subject", "bob", "--format", "json"]).stdout == trail.stdout)
            let verify = try await cli.runInProcess(["verify"])
            #expect(verify.status == 0 && verify.stdout.contains("erased"))
            #expect(try await cli.runInProcess(["audit", "check"]).status == 0, "nothing of the violating session is readable any more")
            #expect(try await cli.runInProcess(["transcript", Self.consented]).stdout.contains("carols words"))
            let data = try Data(contentsOf: URL(fileURLWithPath: cli.storePath + "/data.mdb"))
            #expect(data.range(of: Data("bob".utf8)) == nil)
        }
    }

    @Test func retentionIsSetShownDryRunAndAppliedAtTheBoundary() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(Self.sessions.utf8)).status == 0)
            #expect(try await cli.runInProcess(["retention", "apply", "--dry-run"]).status == 64, "no policy yet, and no --max-age")
            #expect(try await cli.runInProcess(["retention", "set", "--max-age", "1d"]).status == 0)
            #expect(try await cli.runInProcess(["retention", "set", "--max-age", "soon"]).status == 64)
            #expect(try await cli.runInProcess(["retention", "show", "--format", "json"]).stdout == "{\"max_age_ms\":86400000,\"partials_max_age_ms\":null}\n")

            // Bob's session ended 2026-03-01T10:00:06Z: exactly one day later it is at the boundary and stays.
            let boundary = try await cli.runInProcess(["retention", "apply", "--dry-run", "--as-of", "2026-03-02T10:00:06Z", "--format", "csv"])
            #expect(boundary.stdout.trimmingCharacters(in: .newlines) == "session,status,ended_at,holds")
            let dryRun = try await cli.runInProcess(["retention", "apply", "--dry-run", "--as-of", "2026-03-02T10:00:07Z", "--format", "csv"])
            #expect(dryRun.stdout.contains("\(Self.revoked),would be purged,2026-03-01T10:00:06.000Z"))
            #expect(try await cli.runInProcess(["sessions", "--format", "csv"]).stdout.contains("\(Self.revoked),ended"), "a dry run changes nothing")
            let applied = try await cli.runInProcess(["retention", "apply", "--as-of", "2026-03-02T10:00:07Z", "--format", "csv"])
            #expect(applied.status == 0 && applied.stdout.contains("\(Self.revoked),purged"))
            #expect(try await cli.runInProcess(["sessions", "--format", "csv"]).stdout.contains("\(Self.revoked),purged"))
            #expect(try await cli.runInProcess(["transcript", Self.revoked]).status == 65)
            let check = try await cli.runInProcess(["audit", "check", "--as-of", "2026-03-02T10:00:07Z"])
            #expect(check.status == 0, "\(check.stdout)")
            let later = try await cli.runInProcess(["audit", "check", "--as-of", "2026-03-04T00:00:00Z", "--format", "csv"])
            #expect(later.status == 3 && later.stdout.contains("retention_exceeded,\(Self.consented)"))
        }
    }

    @Test func aLegalHoldStopsErasureAndRetentionUntilReleasedAndAnOverdueOneIsReported() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(Self.sessions.utf8)).status == 0)
            #expect(try await cli.runInProcess(["hold", "place", "--reason", "Case 1"]).status == 64, "neither --subject nor --session")
            #expect(try await cli.runInProcess(["hold", "place", "--subject", "bob", "--session", Self.consented, "--reason", "Case 1"]).status == 64)
            let nobody = try await cli.runInProcess(["hold", "place", "--subject", "nobody", "--reason", "Case 1"])
            #expect(nobody.status == 65 && nobody.stderr.contains("no sessions of subject"))

            let placed = try await cli.runInProcess(["hold", "place", "--subject", "bob", "--reason", "Case 2026-114", "--review-by", "2027-01-01T00:00:00Z",
                                      "--actor", "legal", "--format", "json"])
            #expect(placed.status == 0, "\(placed.stderr)")
            let hold = try #require(try Self.json(placed.stdout) as? [String: Any])
            let id = try #require(hold["hold_id"] as? String)
            #expect(hold["status"] as? String == "in force" && hold["placed_by"] as? String == "legal" && hold["position"] is Int)
            #expect(hold["review_by"] as? String == "2027-01-01T00:00:00.000Z" && !placed.stdout.contains("bob"))
            #expect(try await cli.runInProcess(["hold", "place", "--session", String(Self.consented.prefix(8)), "--reason", "Audit 7"]).status == 0)

            let erase = try await cli.runInProcess(["erase", "--subject", "bob", "--yes"])
            #expect(erase.status == 6, "\(erase.stderr)")
            #expect(erase.stderr.contains(id) && erase.stderr.contains("Case 2026-114") && erase.stderr.contains("nothing was erased"))
            #expect(try await cli.runInProcess(["transcript", Self.revoked]).stdout.contains("bobs secret words"))

            #expect(try await cli.runInProcess(["retention", "set", "--max-age", "1d"]).status == 0)
            let retention = try await cli.runInProcess(["retention", "apply", "--as-of", "2026-03-05T00:00:00Z", "--format", "csv"])
            #expect(retention.status == 0, "\(retention.stderr)")
            #expect(retention.stdout.contains("\(Self.revoked),held,2026-03-01T10:00:06.000Z,\"[\"\"\(id)\"\"]\""), "\(retention.stdout)")
            #expect(retention.stdout.contains("\(Self.consented),held,") && !retention.stdout.contains("purged"))
            #expect(try await cli.runInProcess(["sessions", "--format", "csv"]).stdout.components(separatedBy: ",ended,").count == 3, "both kept")

            let check = try await cli.runInProcess(["audit", "check", "--as-of", "2027-02-01T00:00:00Z", "--format", "csv"])
            #expect(check.status == 3 && check.stdout.contains("hold_review_overdue") && !check.stdout.contains("retention_exceeded"))

            let listed = try await cli.runInProcess(["hold", "list", "--format", "csv"])
            #expect(listed.stdout.split(whereSeparator: \.isNewline).count == 3, "a header and two holds: \(listed.stdout) \(listed.stderr)")
            let release = try await cli.runInProcess(["hold", "release", String(id.prefix(8)), "--reason", "matter closed", "--format", "json"])
            #expect(release.status == 0 && release.stdout.contains("\"released\"") && release.stdout.contains("matter closed"))
            #expect(try await cli.runInProcess(["hold", "release", id, "--reason", "again"]).status == 64)
            #expect(try await cli.runInProcess(["hold", "release", "00000000-0000-4000-8000-000000000000", "--reason", "x"]).status == 65)
            #expect(try await cli.runInProcess(["hold", "list", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline).count == 2)
            #expect(try await cli.runInProcess(["hold", "list", "--all", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline).count == 3)
            #expect(try await cli.runInProcess(["erase", "--subject", "bob", "--yes"]).status == 0)
        }
    }
}

/// Proofs checked by someone with nothing but a checkpoint, the public key and the proofs.
@Suite struct ProofCommandsTests {
    static let verifier = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/format-reader/verify_proof.py").path

    /// A store with the compliance sessions, a checkpoint of it in checkpoint.txt, and its verifier key.
    static func anchoredStore(_ cli: CLIRunner) async throws -> (checkpoint: String, key: String) {
        #expect(try await cli.runInProcess(["init"]).status == 0)
        #expect(try await cli.runInProcess(["ingest", "-"], input: Data(ComplianceCommandsTests.sessions.utf8)).status == 0)
        let checkpoint = cli.directory.appendingPathComponent("checkpoint.txt").path
        #expect(try await cli.runInProcess(["anchor", "--out", checkpoint]).status == 0)
        return (checkpoint, try await cli.runInProcess(["anchor", "--public-key"]).stdout.trimmingCharacters(in: .newlines))
    }

    @Test func anIndependentVerifierAcceptsTheProofsAndRejectsAnAlteredRecordOrCheckpoint() async throws {
        try await withCLI { cli in
            let (checkpointPath, key) = try await Self.anchoredStore(cli)
            #expect(key.hasPrefix("sessionstore/") && key.split(separator: "+", maxSplits: 2).count == 3)
            // More events after the checkpoint: the proofs are still against the checkpoint's tree.
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(ComplianceCommandsTests.sessions.replacingOccurrences(of: "22222222", with: "44444444").utf8)).status == 0)
            let proofs = try await cli.runInProcess(["prove", ComplianceCommandsTests.revoked, "--anchor", checkpointPath, "--format", "json"])
            #expect(proofs.status == 0, "\(proofs.stderr)")
            let proofsPath = cli.directory.appendingPathComponent("proofs.json")
            try Data(proofs.stdout.utf8).write(to: proofsPath)
            let accepted = try runPython([Self.verifier, checkpointPath, key, proofsPath.path])
            #expect(accepted.status == 0, "\(String(decoding: accepted.stdout, as: UTF8.self)) \(accepted.stderr)")
            #expect(String(decoding: accepted.stdout, as: UTF8.self).components(separatedBy: "included").count == 7)  // six events

            var rows = try #require(try JSONSerialization.jsonObject(with: Data(proofs.stdout.utf8)) as? [[String: Any]])
            try #require(rows.count == 6)
            let formats = rows.compactMap { ($0["record"] as? String).flatMap { Data(base64Encoded: $0) }?.first }
            #expect(formats.contains(3), "the session's events are records of a block (FORMAT.md §5.8), proved with the block's ciphertext: \(formats)")
            var record = try #require(Data(base64Encoded: rows[2]["record"] as? String ?? ""))
            record[record.count - 1] ^= 1
            rows[2]["record"] = record.base64EncodedString()
            try JSONSerialization.data(withJSONObject: rows).write(to: proofsPath)
            #expect(try runPython([Self.verifier, checkpointPath, key, proofsPath.path]).status == 1)

            let checkpoint = try String(contentsOfFile: checkpointPath, encoding: .utf8)
            let lines = checkpoint.split(separator: "\n", omittingEmptySubsequences: false)
            try #require(lines.count >= 3)
            try (lines[0] + "\n" + String(Int(lines[1])! + 1) + "\n" + lines[2...].joined(separator: "\n"))
                .write(toFile: checkpointPath, atomically: true, encoding: .utf8)
            #expect(try runPython([Self.verifier, checkpointPath, key, proofsPath.path]).status == 2)
            let verify = try await cli.runInProcess(["verify", "--anchor", checkpointPath])
            #expect(verify.status == 2 && verify.stderr.contains("signature"))
        }
    }

    @Test func anAuditorWithNoKeyVerifiesTheStoreAndACheckpoint() async throws {
        try await withCLI { cli in
            let (checkpointPath, key) = try await Self.anchoredStore(cli)
            try FileManager.default.removeItem(atPath: cli.keyPath)  // the auditor has no key file
            let verify = try await cli.runInProcess(["verify", "--without-key", "--anchor", checkpointPath, "--verifier-key", key, "--format", "json"])
            #expect(verify.status == 0, "\(verify.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
            #expect(report["intact"] as? Bool == true && report["anchor_consistent"] as? Bool == true)
            #expect(report["content_authenticated"] as? Bool == false)
            #expect(try await cli.runInProcess(["verify", "--without-key", "--anchor", checkpointPath]).status == 64, "the signature needs the verifier key")
            #expect(try await cli.runInProcess(["verify"]).status == 77, "a keyed verify still needs the key")
        }
    }

    @Test func verifyWithAnAnchorPassesAfterErasureAndRetention() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(ComplianceCommandsTests.sessions.utf8)).status == 0)
            let checkpointPath = cli.directory.appendingPathComponent("checkpoint.txt").path
            #expect(try await cli.runInProcess(["anchor", "--out", checkpointPath]).status == 0)
            #expect(try await cli.runInProcess(["erase", "--subject", "bob", "--yes"]).status == 0)
            #expect(try await cli.runInProcess(["retention", "apply", "--max-age", "1d"]).status == 0)
            let verify = try await cli.runInProcess(["verify", "--anchor", checkpointPath, "--format", "json"])
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
            #expect(verify.stdout.contains("\"anchor_consistent\":true"))
            #expect(try await cli.runInProcess(["prove", ComplianceCommandsTests.revoked, "--event", "0", "--anchor", checkpointPath]).status == 0,
                    "an erased session's records can still be proved")
        }
    }

    /// Each record's proof as a C2SP tlog-proof file, checked by Go's checksum-database packages
    /// (tools/format-reader/tlogproof) with nothing but the verifier key.
    @Test(.enabled(if: GoVerifier.testEnabled, "needs go and golang.org/x/mod (Debian: golang-go, golang-golang-x-mod-dev)"))
    func goVerifiesTheProofBundleOfASessionAndRejectsAnAlteredPathOrCheckpoint() async throws {
        try #require(GoVerifier.isInstalled, "go and golang.org/x/mod/sumdb are needed (tools/test installs them)")
        let verifier = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/format-reader/tlogproof/main.go").path
        try await withCLI { cli in
            let (checkpointPath, key) = try await Self.anchoredStore(cli)
            let bundle = cli.directory.appendingPathComponent("proofs").path
            let written = try await cli.runInProcess(["prove", ComplianceCommandsTests.revoked, "--anchor", checkpointPath, "--bundle", bundle, "--format", "csv"])
            #expect(written.status == 0, "\(written.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: bundle).sorted().map { bundle + "/" + $0 }
            #expect(files.count == 6 && files.allSatisfy { $0.hasSuffix(".tlog-proof") })
            #expect(written.stdout.split(whereSeparator: \.isNewline).count == 7, "a header and a row per file")
            let first = try String(contentsOfFile: files[0], encoding: .utf8)
            let checkpointText = try String(contentsOfFile: checkpointPath, encoding: .utf8)
            #expect(first.hasPrefix("c2sp.org/tlog-proof@v1\nextra ") && first.hasSuffix("\n\n" + checkpointText))

            let checked = try GoVerifier.run(verifier, [key] + files)
            #expect(checked.status == 0, "\(checked.stdout) \(checked.stderr)")
            #expect(checked.stdout.components(separatedBy: ": included").count == 7)

            // One hash of the path changed; the checkpoint's size changed (its signature no longer holds).
            var lines = first.components(separatedBy: "\n")
            let hashLine = try #require(lines.firstIndex { $0.hasPrefix("index ") }) + 1
            try #require(lines[hashLine].count == 44)
            lines[hashLine] = Data(repeating: 9, count: 32).base64EncodedString()
            try lines.joined(separator: "\n").write(toFile: files[0], atomically: true, encoding: .utf8)
            let altered = try GoVerifier.run(verifier, [key, files[0], files[1]])
            #expect(altered.status == 1 && altered.stdout.contains("NOT PROVEN") && altered.stdout.contains(": included"), "\(altered.stdout)")
            let second = try String(contentsOfFile: files[1], encoding: .utf8)
            let origin = try #require(second.components(separatedBy: "\n\n").dropFirst().first?.components(separatedBy: "\n").first)
            try second.replacingOccurrences(of: origin + "\n", with: origin + "\n1").write(toFile: files[1], atomically: true, encoding: .utf8)
            #expect(try GoVerifier.run(verifier, [key, files[1]]).stdout.contains("the checkpoint"))
        }
    }

    /// Two checkpoints an auditor kept, the proof between them checked without SessionStore; a fork
    /// (the store copied, history written differently and signed with the same key) is caught.
    @Test func anIndependentVerifierAcceptsTheConsistencyOfTwoCheckpointsAndAForkIsRefused() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(ComplianceCommandsTests.sessions.utf8)).status == 0)
            let old = cli.directory.appendingPathComponent("old.txt").path, new = cli.directory.appendingPathComponent("new.txt").path
            #expect(try await cli.runInProcess(["anchor", "--out", old]).status == 0)
            let fork = cli.directory.appendingPathComponent("fork.store").path
            try FileManager.default.copyItem(atPath: cli.storePath, toPath: fork)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(ComplianceCommandsTests.sessions.replacingOccurrences(of: "22222222", with: "44444444").utf8)).status == 0)
            #expect(try await cli.runInProcess(["anchor", "--out", new]).status == 0)
            let key = try await cli.runInProcess(["anchor", "--public-key"]).stdout.trimmingCharacters(in: .newlines)

            let proof = try await cli.runInProcess(["prove", "--from", old, "--anchor", new, "--format", "json"])
            #expect(proof.status == 0, "\(proof.stderr)")
            let proofPath = cli.directory.appendingPathComponent("consistency.json")
            try Data(proof.stdout.utf8).write(to: proofPath)
            let accepted = try runPython([Self.verifier, "--consistency", old, new, key, proofPath.path])
            #expect(accepted.status == 0 && String(decoding: accepted.stdout, as: UTF8.self).contains(": consistent"),
                    "\(String(decoding: accepted.stdout, as: UTF8.self)) \(accepted.stderr)")
            var rows = try #require(try JSONSerialization.jsonObject(with: Data(proof.stdout.utf8)) as? [[String: Any]])
            var path = try #require(rows.first?["consistency_path"] as? [String])
            try #require(!path.isEmpty)
            path[0] = Data(repeating: 7, count: 32).base64EncodedString()
            rows[0]["consistency_path"] = path
            try JSONSerialization.data(withJSONObject: rows).write(to: proofPath)
            #expect(try runPython([Self.verifier, "--consistency", old, new, key, proofPath.path]).status == 1, "an altered proof is not proven")

            #expect(try await cli.runInProcess(["prove", "--from", old]).status == 0, "the log as it is now extends the old checkpoint")
            let reversed = try await cli.runInProcess(["prove", "--from", new, "--anchor", old])
            #expect(reversed.status == 64 && reversed.stderr.contains("the older checkpoint comes first"), "\(reversed.stderr)")
            #expect(try await cli.runInProcess(["prove", ComplianceCommandsTests.revoked, "--from", old]).status == 64, "a session or --from, not both")

            // The fork: same store id and key, other events after the old checkpoint, signed all the same.
            #expect(try await cli.runInProcess(["ingest", "--store", fork, "-"], input: Data(ComplianceCommandsTests.sessions.replacingOccurrences(of: "22222222", with: "55555555").utf8)).status == 0)
            let forked = cli.directory.appendingPathComponent("forked.txt").path
            #expect(try await cli.runInProcess(["anchor", "--store", fork, "--out", forked]).status == 0)
            let refused = try await cli.runInProcess(["prove", "--from", forked, "--anchor", new])
            #expect(refused.status == 2 && refused.stderr.contains("does not lead"), "\(refused.stderr)")
            #expect(try await cli.runInProcess(["prove", "--store", fork, "--from", old, "--anchor", forked]).status == 0, "the fork extends the old checkpoint too")
            let forkProof = try await cli.runInProcess(["prove", "--store", fork, "--from", old, "--anchor", forked, "--format", "json"])
            try Data(forkProof.stdout.utf8).write(to: proofPath)
            #expect(try runPython([Self.verifier, "--consistency", old, new, key, proofPath.path]).status == 1,
                    "the fork's proof does not lead to the real log's checkpoint")
        }
    }
}

/// Exports after the compliance commands: erased and purged sessions appear with their status and
/// nothing of their content, in every format, read by the parsers people use.
@Suite struct ShreddedExportTests {
    @Test func erasedAndPurgedSessionsExportWithTheirStatusAndNoTextOrAudio() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(ComplianceCommandsTests.sessions.utf8)).status == 0)
            #expect(try await cli.runInProcess(["erase", "--subject", "bob", "--yes"]).status == 0)
            // Carol's session ended 2026-03-02T10:00:06Z: a day and a second later it is purged.
            #expect(try await cli.runInProcess(["retention", "apply", "--max-age", "1d", "--as-of", "2026-03-03T10:00:07Z"]).status == 0)

            let json = cli.directory.appendingPathComponent("all.json")
            #expect(try await cli.runInProcess(["export", "--all", "--format", "json", "--out", json.path]).status == 0)
            let read = try ExportReader.read("json", json)
            #expect(read["valid"] as? Bool == true, "\(read["errors"] ?? "")")
            let sessions = try #require((read["document"] as? [String: Any])?["sessions"] as? [[String: Any]])
            #expect(sessions.map { $0["status"] as? String } == ["erased", "purged"])
            #expect(sessions.allSatisfy { ($0["segments"] as? [Any])?.isEmpty == true && ($0["recordings"] as? [Any])?.isEmpty == true })
            #expect(sessions.allSatisfy { ($0["consent"] as? [Any])?.isEmpty == false }, "the consent given stays provable")
            let text = try String(contentsOf: json, encoding: .utf8)
            #expect(!text.contains("secret") && !text.contains("carols words"))

            let csv = cli.directory.appendingPathComponent("all.csv")
            #expect(try await cli.runInProcess(["export", "--all", "--format", "csv", "--out", csv.path]).status == 0)
            #expect((try ExportReader.read("csv", csv)["pandas_rows"] as? [Any])?.isEmpty == true)

            let vtt = cli.directory.appendingPathComponent("bob.vtt")
            #expect(try await cli.runInProcess(["export", ComplianceCommandsTests.revoked, "--format", "vtt", "--out", vtt.path]).status == 0)
            #expect((try ExportReader.read("vtt", vtt)["cues"] as? [Any])?.isEmpty == true)
            #expect(try String(contentsOf: vtt, encoding: .utf8).contains("NOTE This session was erased"))
            let srt = cli.directory.appendingPathComponent("carol.srt")
            #expect(try await cli.runInProcess(["export", ComplianceCommandsTests.consented, "--format", "srt", "--out", srt.path]).status == 0)
            #expect((try ExportReader.read("srt", srt)["cues"] as? [Any])?.isEmpty == true)

            let bundle = cli.directory.appendingPathComponent("bob.zip")
            let bundled = try await cli.runInProcess(["export", "--subject", "bob", "--bundle", bundle.path])
            #expect(bundled.status == 0, "\(bundled.stderr)")
            let zip = try ExportReader.read("zip", bundle)
            #expect((zip["names"] as? [String])?.contains { $0.hasSuffix(".flac") } == false, "no audio of an erased session")
            #expect((zip["checked"] as? [[String: Any]])?.allSatisfy { $0["sha256_ok"] as? Bool == true } == true)
        }
    }
}
