import ArgumentParser
import Compliance
import Foundation
import Output
import OutputRows

struct AuditIntegrityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "integrity",
        abstract: "List the store's integrity evidence: verifications and checkpoints given out, newest first.",
        discussion: """
            The store's integrity stream holds a record of each verification the server (sessionstore serve) was asked \
            for (the web console's Integrity page, POST /v1/integrity/verify) and of each signed checkpoint \
            given out: by `anchor`, with the names of the witnesses that cosigned it, and by the server's \
            GET /v1/checkpoint, with the token it went to. The records are covered by the Merkle tree like \
            every other, so the evidence cannot be rewritten unseen.

            One row per record: kind (verification or checkpoint), position, at, actor, tree_size, \
            root_hash; a verification's passed, records_checked, erased_records, problem_count, \
            first_problem and took_ms; a checkpoint's witnesses. Field names: docs/OUTPUT.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("How many of each kind, newest first.", valueName: "n"))
    var limit = 20

    @OptionGroup var output: OutputOptions<ListFormats>

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1.") }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let latest = try IntegrityEvidence(log: log).latest(limit)
            let rows = (latest.verifications.map { IntegrityRow(.verification($0)) } + latest.checkpoints.map { IntegrityRow(.checkpoint($0)) })
                .sorted { $0.position > $1.position }
            let sink = try output.sink()
            var writer = RowWriter<IntegrityRow>(format: output.format, sink: sink)
            for row in rows { try writer.write(row) }
            try writer.finish()
            try sink.close()
        }
    }
}
