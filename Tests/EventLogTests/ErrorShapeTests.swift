import EventLog
import Failures
import Foundation
import TestSupport
import Testing

/// Every module's errors have one shape (``CodedError``): a code to match, one sentence, and the
/// lower layer's error kept as the cause.
@Suite struct ErrorShapeTests {
    @Test(.enabled(if: TestBackend.isLMDB, "an LMDB data file")) func aDamagedStoreIsCaughtByItsCodeAndKeepsTheEnginesErrorAsItsCause() async throws {
        try await withTemporaryStore { store in
            try store.create().close()
            try Data(repeating: 0x5A, count: 64 << 10).write(to: URL(fileURLWithPath: store.dataFile))
            var matchedByCode = false
            do {
                _ = try store.open()
            } catch EventLogError.Code.integrity {
                matchedByCode = true
            } catch {
                Issue.record("not an integrity failure: \(error)")
            }
            #expect(matchedByCode, "a store whose data file is not LMDB's is an integrity failure")
            let error = try #require(#expect(throws: EventLogError.self) { try store.open() })
            #expect(error.message.contains("is not an LMDB file"))
            let cause = try #require(error.underlying, "LMDB's own error is kept")
            #expect("\(cause)".contains("mdb_env_open"))
            #expect(String(reflecting: error).contains("EventLogError(integrity): \(error.message)\ncaused by "))
            #expect("\(error)" == error.message, "people see the one sentence")
        }
    }

    @Test func aCodeMatchesOnlyErrorsOfItsOwnDomain() {
        struct Elsewhere: CodedError {
            var code: ErrorCode<Elsewhere> { ErrorCode("store busy", .busy) }
            var message: String { "busy elsewhere" }
        }
        #expect(!(EventLogError.Code.storeBusy ~= Elsewhere()), "a code of the same name in another domain is another code")
        #expect(!(EventLogError.Code.storeBusy ~= CancellationError()))
        #expect(Elsewhere().underlying == nil && String(reflecting: Elsewhere()) == "Elsewhere(store busy): busy elsewhere")
    }
}
