import Output
import Reports

/// The console's stylesheet and script (`Console/Resources`, compiled into the binary), served by the
/// server itself (`/ui/assets/…`): the pages ask nothing of any other origin (the Content-Security-Policy
/// says so to the browser), use the system's fonts, and work without the script except where a page must
/// react (playing, the live tail).
enum ConsoleAssets {
    static let stylesheet = embeddedText(PackageResources.console_css) + TrendChart.style

    /// Plays the recording from a clicked segment, marks the segment being played, and fills the live
    /// table from the server's event stream.
    static let script = embeddedText(PackageResources.console_js)
}
