// The test binary's entry point: Swift Testing runs every suite. SwiftPM's name for a custom test entry point;
// with it, SwiftPM on Linux does not generate XCTest discovery, which reads an index store, so the tests build
// without one (tools/test).
import Testing

await Testing.__swiftPMEntryPoint() as Never
