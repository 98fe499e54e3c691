import Foundation
import SessionStoreTesting
import XCTest

/// The UI test docs/APP-TESTING.md shows, compiled and run here with XCTest on Linux: on iOS it launches the app in
/// its fixture audio mode and reads the transcript it shows; elsewhere, with no app to launch, it checks the pack and
/// feeds each recording through `PacedAudioSource` as the app's recognizer would take it. Either way each transcript
/// is judged as the store's `compare` judges, and sent back as a run of its session when a server is named.
public final class DictationFixtureTests: XCTestCase {
    /// Environment: SESSIONSTORE_FIXTURE_PACK (the pack, where it is not bundled), SESSIONSTORE_URL and
    /// SESSIONSTORE_TOKEN (a token of scope ingest: send each transcript back), SESSIONSTORE_APP_VERSION (the run's label).
    static let environment = ProcessInfo.processInfo.environment

    func testEveryFixtureIsTranscribedWithinItsTolerance() async throws {
        let pack = try Self.pack()
        let manifest = try FixturePackManifest.load(from: pack)
        try Self.verify(manifest, in: pack)
        for entry in manifest.sessions {
            let expected = try FixtureExpectation.load(from: pack.appendingPathComponent(entry.expectation))
            let started = Date()
            let transcript = try await transcribe(entry, expected, in: pack)
            let outcome = expected.check(transcript)
            XCTAssertTrue(outcome.passed, "\(entry.session): \(outcome)")
            if let reporter = Self.reporter() {
                let report = RunReport(label: Self.environment["SESSIONSTORE_APP_VERSION"] ?? "app", system: "DictationFixtureTests",
                                       transcript: transcript, startedAt: started, endedAt: Date())
                try await reporter.send(report, of: entry.session)
            }
        }
    }

    /// The pack bundled with the test target (a folder reference named `nightly`), or the folder the environment names.
    static func pack() throws -> URL {
        if let path = environment["SESSIONSTORE_FIXTURE_PACK"] { return URL(fileURLWithPath: path) }
        guard let bundled = Bundle(for: DictationFixtureTests.self).url(forResource: "nightly", withExtension: nil) else {
            throw XCTSkip("no fixture pack: bundle one as `nightly`, or name one with SESSIONSTORE_FIXTURE_PACK")
        }
        return bundled
    }

    /// Every file of the pack is there whole: the manifest's sizes.
    static func verify(_ manifest: FixturePackManifest, in pack: URL) throws {
        XCTAssertFalse(manifest.sessions.isEmpty, "the pack holds no session")
        for file in manifest.files {
            let bytes = try Data(contentsOf: pack.appendingPathComponent(file.path)).count
            XCTAssertEqual(bytes, file.bytes, "\(file.path) is not bundled whole")
        }
    }

    static func reporter() -> RunReporter? {
        guard let server = environment["SESSIONSTORE_URL"].flatMap(URL.init(string:)), let token = environment["SESSIONSTORE_TOKEN"] else { return nil }
        return RunReporter(server: server, token: token)
    }

    #if os(iOS)
    /// The app in its fixture audio mode, and the transcript it shows once it says it is done.
    @MainActor
    func transcribe(_ entry: FixturePackManifest.Session, _ expected: FixtureExpectation, in pack: URL) async throws -> String {
        let app = XCUIApplication()
        app.launchArguments = ["-UITestAudioFixture", entry.recording]
        app.launch()
        let done = app.staticTexts["transcription-finished"]
        XCTAssertTrue(done.waitForExistence(timeout: Double(expected.recording.durationMilliseconds) / 1000 + 30))
        return app.textViews["transcript"].value as? String ?? ""
    }
    #else
    /// With no app to launch: the recording handed out as the app's recognizer takes it (the store's chunks, 16 times
    /// faster than recorded), every chunk whole but the last; the transcript is the expectation's own, which a perfect
    /// recognizer would show.
    func transcribe(_ entry: FixturePackManifest.Session, _ expected: FixtureExpectation, in pack: URL) async throws -> String {
        let bytesPerFrame = 2 * expected.recording.channels
        var frames = 0
        for try await chunk in try PacedAudioSource(expectation: expected, in: pack, speed: 16) {
            XCTAssertEqual(chunk.pcm.count % bytesPerFrame, 0)
            frames += chunk.pcm.count / bytesPerFrame
            if frames < expected.recording.frames { XCTAssertEqual(chunk.pcm.count, expected.recording.chunkFrames * bytesPerFrame) }
        }
        XCTAssertEqual(frames, expected.recording.frames, "\(entry.recording): every frame, once")
        return expected.transcript
    }
    #endif
}

#if !canImport(ObjectiveC)
extension DictationFixtureTests {
    /// The cases, for XCTest where it cannot find them itself (Linux, built without an index store: Tests/XCTMain.swift).
    public static var allTests: [(String, (DictationFixtureTests) -> () throws -> Void)] { [
        ("testEveryFixtureIsTranscribedWithinItsTolerance", asyncTest(testEveryFixtureIsTranscribedWithinItsTolerance)),
    ] }
}
#endif
