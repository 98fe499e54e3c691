// The test binary's entry point: Swift Testing runs every suite. SwiftPM's name for a custom test entry point;
// with it, SwiftPM on Linux does not generate XCTest discovery, which reads an index store, so the tests build
// without one (tools/test). The one XCTest target, the example app test target of docs/APP-TESTING.md, runs with
// `--testing-library xctest`, its cases listed by hand.
import DictationAppExampleTests
import Testing
import XCTest

if let flag = CommandLine.arguments.firstIndex(of: "--testing-library"), CommandLine.arguments.dropFirst(flag + 1).first == "xctest" {
    XCTMain([testCase(DictationFixtureTests.allTests)], arguments: [CommandLine.arguments[0]])
}
await Testing.__swiftPMEntryPoint() as Never
