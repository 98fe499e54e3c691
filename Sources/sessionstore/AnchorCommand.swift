import ArgumentParser
import Compliance
import EventLog
import Failures
import Foundation
import Output
import OutputRows
import SessionLog
import WitnessHTTP

struct AnchorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "anchor",
        abstract: "Write a signed checkpoint of the log's Merkle tree, for an auditor to keep.",
        discussion: """
            Prints (or writes to --out) a checkpoint in the C2SP tlog-checkpoint form: the origin line \
            (sessionstore/STORE-ID), the number of records, the base64 RFC 9162 root hash of the tree over \
            the records' leaf hashes, a blank line, and an Ed25519 signed-note signature line beginning \
            with "— ". Keep it outside the store: later, `verify --anchor FILE` proves the log still \
            extends it (nothing it covers was changed, removed, reordered or truncated, even by someone \
            holding the keys), and `prove SESSION --anchor FILE` proves single records against it.

            --public-key prints the key that verifies the checkpoints instead, in the signed-note \
            NAME+KEYHASH+BASE64 form. It cannot sign: hand it to auditors. How to verify without \
            SessionStore: docs/COMPLIANCE.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .customLong("public-key"), help: "Print the checkpoint verifier key instead of a checkpoint.")
    var publicKey = false

    @Option(name: .customLong("out"), help: ArgumentHelp("Write the checkpoint to this file instead of standard output.", valueName: "path"))
    var out: String?

    @Option(name: .customLong("witness"), help: ArgumentHelp(
        "A witness's URL (C2SP tlog-witness submission prefix): its cosignature is added to the checkpoint. Repeatable.", valueName: "url"))
    var witnessURLs: [String] = []

    @OptionGroup var witnesses: WitnessCheckOptions

    func validate() throws {
        if publicKey, !witnessURLs.isEmpty { throw ValidationError("--public-key prints the key; --witness goes with a checkpoint.") }
        for url in witnessURLs where URL(string: url)?.scheme?.hasPrefix("http") != true {
            throw ValidationError("--witness \(url) is not an http:// or https:// URL.")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let sink = try OutputSink.file(out)  // opened first: a checkpoint recorded as given out is given out
            guard !publicKey else {
                sink.write(log.checkpointVerifierKey + "\n")
                return try sink.close()
            }
            let issued = try await CheckpointIssue.issue(from: log, witnesses: witnessURLs.compactMap(URL.init(string:)), needed: witnesses.needed,
                                                         keys: witnesses.witnessKeys, by: AccessOptions.operatingSystemUser)
            sink.write(issued.checkpoint.text)
            try sink.close()
            if !issued.isRecorded {
                Console.err("note: the store is read-only here, so this checkpoint is not recorded in its integrity evidence\n")
            }
        }
    }
}

/// --witness-key and --witnesses-needed: the witnesses whose cosignatures count, and how many must.
struct WitnessCheckOptions: ParsableArguments {
    @Option(name: .customLong("witness-key"), help: ArgumentHelp(
        "A witness's verifier key (`witness key`): its cosignatures count. Repeatable.", valueName: "key"))
    var witnessKeys: [String] = []

    @Option(name: .customLong("witnesses-needed"), help: ArgumentHelp(
        "How many witnesses must have cosigned. Default: every witness given.", valueName: "n"))
    var needed: Int?

    func validate() throws {
        if let needed, needed < 1 { throw ValidationError("--witnesses-needed must be at least 1.") }
        for key in witnessKeys {
            do { _ = try CosignatureVerifier(key) } catch let error as EventLogError { throw ValidationError(error.message) }
        }
    }

    /// Requires the quorum of cosignatures on `checkpoint`, when witness keys are given.
    func check(_ checkpoint: Checkpoint) throws {
        guard !witnessKeys.isEmpty else { return }
        try WitnessQuorum.require(needed ?? witnessKeys.count, of: witnessKeys, on: checkpoint)
    }
}

/// Reads a checkpoint file and verifies its signature with `verifierKey`.
func readCheckpoint(_ path: String, verifierKey: String) throws -> Checkpoint {
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw CommandFailure(.usage, "cannot read the checkpoint \(path): \(error.localizedDescription)")
    }
    do {
        return try Checkpoint.verified(text, verifierKey: verifierKey)
    } catch let error as EventLogError {
        throw CommandFailure(error.code == .foreignCheckpoint ? .integrity : .invalidData, "\(path): \(error.message)")
    }
}

struct ProveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prove",
        abstract: "Print inclusion proofs of a session's records, or the consistency proof between two checkpoints.",
        discussion: """
            For each event of the session (or only stream number --event N), prints an RFC 9162 inclusion \
            proof: leaf_index (the record's global position), tree_size, leaf_hash, audit_path (base64 \
            hashes from the leaf up), root_hash, and the record's clear bytes (record, base64, as stored: \
            header, leaf hash, ciphertext) with its nonce. With --anchor FILE the proofs are against that \
            checkpoint (verified first); without, against the log's tree as it is now (its root_hash is \
            then only as trustworthy as the store: prefer a checkpoint an auditor kept). A verifier needs \
            nothing else: the steps are in docs/COMPLIANCE.md. Works for erased sessions too (no key is \
            needed to prove a record).

            With --bundle DIR, writes each proof instead as a C2SP tlog-proof@v1 file, \
            DIR/SESSION-N.tlog-proof (N the stream number), and prints which file holds which record: the \
            record's leaf data on the extra line (base64: position, clear header, SHA-256 of nonce and \
            ciphertext; its RFC 6962 record hash is the leaf), the index, the audit path, a blank line and \
            the checkpoint, so that each file is checked alone with the verifier key (Go's \
            golang.org/x/mod/sumdb/note and sumdb/tlog do it: docs/COMPLIANCE.md).

            With --from OLD (and no session), prints instead the RFC 9162 consistency proof that the tree \
            of --anchor NEW (or of the log now) extends the tree of OLD: origin, old_size, old_root_hash, \
            new_size, new_root_hash and consistency_path (base64). Both checkpoints are verified first; a \
            log that no longer leads to both roots exits 2. tools/format-reader/verify_proof.py checks the \
            proof without SessionStore.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The session id (not with --from).", valueName: "session"))
    var session: String?

    @Option(name: .customLong("event"), help: ArgumentHelp("Only the event with this stream number (from 0).", valueName: "number"))
    var event: UInt64?

    @Option(name: .customLong("anchor"), help: ArgumentHelp("A checkpoint written by `anchor`: prove against its tree.", valueName: "file"))
    var anchor: String?

    @Option(name: .customLong("bundle"), help: ArgumentHelp(
        "Write each proof as a C2SP tlog-proof@v1 file into this directory (made if missing).", valueName: "dir"))
    var bundle: String?

    @Option(name: .customLong("from"), help: ArgumentHelp(
        "An earlier checkpoint: prove that the tree of --anchor (or of the log now) extends it.", valueName: "file"))
    var from: String?

    @OptionGroup var output: OutputOptions<ListFormats>

    func validate() throws {
        if from != nil, session != nil { throw ValidationError("give a session or --from, not both") }
        if from == nil, session == nil { throw ValidationError("give a session to prove its records, or --from OLD to prove two checkpoints consistent") }
        if from != nil, event != nil { throw ValidationError("--event proves a session's record; it does not go with --from") }
        if from != nil, bundle != nil { throw ValidationError("--bundle writes a session's inclusion proofs; it does not go with --from") }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let checkpoint = try anchor.map { try readCheckpoint($0, verifierKey: log.checkpointVerifierKey) } ?? log.signedCheckpoint()
            let sink = try output.sink()
            if let from, session == nil {
                let old = try readCheckpoint(from, verifierKey: log.checkpointVerifierKey)
                var writer = RowWriter<ConsistencyRow>(format: output.format, sink: sink)
                try writer.write(ConsistencyRow(proof: try ConsistencyProofs.between(old, checkpoint, in: log)))
                try writer.finish()
            } else if let session {
                let id = try SessionLookup.existing(session, in: log, allowErased: true)
                let proofs = try InclusionProofs.of(id, event: event, against: checkpoint, in: log)
                if let bundle {
                    var writer = RowWriter<BundleRow>(format: output.format, sink: sink)
                    for (proof, file) in try writeBundle(proofs, into: bundle) { try writer.write(BundleRow(proof: proof, file: file)) }
                    try writer.finish()
                } else {
                    var writer = RowWriter<ProofRow>(format: output.format, sink: sink)
                    for proof in proofs { try writer.write(ProofRow(proof: proof)) }
                    try writer.finish()
                }
            }
            try sink.close()
        }
    }

    /// Writes each proof to `directory`/SESSION-N.tlog-proof; returns the files' paths.
    private func writeBundle(_ proofs: [SessionRecordProof], into directory: String) throws -> [(SessionRecordProof, String)] {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)  // an existing one is fine
        } catch {
            throw CommandFailure(.usage, "--bundle \(directory) is not a directory that can be made or written: \(fileErrorReason(error))")
        }
        return try proofs.map { proof in
            let file = (directory as NSString).appendingPathComponent("\(proof.session.uuidString.lowercased())-\(proof.streamNumber).tlog-proof")
            let sink = try OutputSink.file(file)
            sink.write(proof.tlogProof)
            try sink.close()
            return (proof, file)
        }
    }
}
