import Compliance
import EventLog
@testable import Exports
import Failures
import Foundation
import Hummingbird
@testable import SessionServer
import Testing
import TestSupport

/// A domain's error reaches an HTTP client as its code's kind says (``FailureKind``), the same kind the
/// CLI's exit status comes from: no route maps errors of its own.
@Suite struct ErrorKindTests {
    @Test func errorsTheRoutesDoNotCatchAreAnsweredByTheirKindWithTheirSentence() async throws {
        try await withServer { fixture in
            let (session, body) = ContentRouteTests.recordedSession()
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body)).status == .ok)
                let recording = try await client.execute(uri: "/v1/sessions/\(session)/audio?recording=other", method: .get, headers: fixture.bearer(.read))
                #expect(recording.status == .notFound, "ExportError.unknownRecording is of kind notFound")
                #expect(recording.object["type"] as? String == "urn:sessionstore:problem:not-found")
                #expect((recording.object["detail"] as? String)?.contains("other") == true, "the error's sentence: \(recording.text)")

                let proof = try await client.execute(uri: "/v1/sessions/\(session)/proofs/999", method: .get, headers: fixture.bearer(.audit))
                #expect(proof.status == .notFound, "ComplianceError.outOfRange is of kind notFound")
                #expect((proof.object["detail"] as? String)?.contains("999") == true, "\(proof.text)")
            }
        }
    }

    @Test(arguments: [(EventLogError.Code.storeBusy, "busy"), (EventLogError.Code.unavailable, "store-unavailable")])
    func aStoreThatCannotTakeTheRequestNowIsA503WithRetryAfter(_ code: EventLogError.Code, _ type: String) async throws {
        let router = Router(context: ServerContext.self)
        router.add(middleware: ProblemMiddleware(metrics: ServerMetrics()))
        router.get("append") { _, _ -> Response in throw EventLogError(code, "the store is elsewhere") }
        router.get("fault") { _, _ -> Response in throw EventLogError(.storage, "the disk failed at /secret/path") }
        do {
            let client = RouterClient(router)
            let answer = try await client.execute(uri: "/append", method: .get)
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.headers[.retryAfter] == "1")
            #expect(answer.object["type"] as? String == "urn:sessionstore:problem:" + type)
            let fault = try await client.execute(uri: "/fault", method: .get)
            #expect(fault.status == .internalServerError)
            #expect(!fault.text.contains("secret"), "a fault of the server tells nothing more: \(fault.text)")
        }
    }

    @Test(arguments: [
        (ExportError.Code.invalidRequest, 400, Int32(64)), (ExportError.Code.unknownSession, 404, 65),
        (ExportError.Code.incompleteRecording, 422, 65),
    ])
    func aProblemOfAnErrorCarriesItsKindsStatusTypeAndSentence(_ code: ExportError.Code, _ status: Int, _ exit: Int32) {
        let error = ExportError(code, "a sentence naming what and where")
        let problem = Problem(error)
        #expect(problem.status.code == status)
        #expect(problem.type == code.kind.problemType)
        #expect(problem.detail == "a sentence naming what and where")
        #expect(code.kind.exitStatus == exit, "the CLI's exit status of the same kind")
    }

    @Test func theServersOwnFaultsAreInternalAndTellNothingMore() {
        for kind in [FailureKind.integrity, .key, .unexpected] {
            #expect(kind.httpStatus == 500 && kind.problemType == "internal", "\(kind)")
        }
        for kind in FailureKind.allCases where ![.integrity, .key, .unexpected].contains(kind) {
            #expect((400..<600).contains(kind.httpStatus) && kind.problemType != "internal", "\(kind) is the client's to act on")
        }
    }
}

extension ErrorKindTests {
    /// The errors that do not reach people through the table, and why.
    static let outsideTheTable: [String: String] = [
        "RunReportError": "SessionStoreTesting's, on an app's side of the wire: it hands an app's test the server's status and sentence",
        "WebTokenError": "every failure of a token is the same 401 (Problem.unauthenticated), so that a refusal tells nothing",
    ]

    @Test func everyPublicErrorTypeIsACodedErrorWhoseKindSaysHowItReachesPeople() throws {
        let files = RepositoryFixtures.swiftSources()
        let declaration = try Regex(#"public (?:struct|enum|final class|class) (\w+)[^{]*:\s*([^{]*)\{"#)
        var errorTypes: [String: String] = [:]
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: declaration) {
                guard let name = match.output[1].substring.map(String.init), let conformances = match.output[2].substring else { continue }
                let listed = conformances.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                if listed.contains("Error") || listed.contains("CodedError") { errorTypes[name] = listed.joined(separator: ", ") }
            }
        }
        #expect(errorTypes.count >= 10, "\(errorTypes)")
        for (name, conformances) in errorTypes.sorted(by: { $0.key < $1.key }) where Self.outsideTheTable[name] == nil {
            #expect(conformances.contains("CodedError"), "\(name) is a public error outside the table (FailureKind): make it a CodedError")
        }
    }
}

extension ErrorKindTests {
    /// Where the server catches a library error, and why that is not a second table.
    static let catches: [String: String] = [
        "Appender.swift IngestFailure": "adds the refused lines to the problem (`problems`), beyond its kind's status",
        "ConsoleViews+Runs.swift LabelComparisonError": "the console shows why two labels cannot be compared as a notice on the page",
        "ConsoleViews.swift ComplianceError": "the console shows a legal hold's refusal of an erasure as a notice on the page",
        "ReportedRunRoute.swift DecodingError": "Foundation's, of the request's own body: a 400 naming the field at fault, as the document says",
        "SessionServer+TLS.swift ServerSetupError": "adds the files it could not use to the sentence; the server does not start",
    ]

    @Test func noRouteCatchesALibraryErrorToMapItAgain() throws {
        let files = RepositoryFixtures.swiftSources(under: "SessionServer")
        let caught = try Regex(#"catch let \w+ as (\w+)"#)
        for file in files {
            for match in try String(contentsOf: file, encoding: .utf8).matches(of: caught) {
                guard let type = match.output[1].substring, type.hasSuffix("Error") || type.hasSuffix("Failure"),
                      type != "HTTPResponseError" else { continue }
                #expect(Self.catches["\(file.lastPathComponent) \(type)"] != nil,
                        "\(file.lastPathComponent) catches \(type): let its kind answer (Problem(error)), or say here why not")
            }
        }
    }
}
