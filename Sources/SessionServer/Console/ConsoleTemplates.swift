import Mustache

/// The console's pages as Mustache templates (swift-mustache), kept in the binary: `sessionstore` is
/// one file to copy, with no resource folder beside it to lose. Every page fills the blocks of
/// `layout`; `{{x}}` escapes for HTML, and `{{{x}}}` is used only for markup the server drew itself
/// (the timeline, the transcript).
enum ConsoleTemplates {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in templates {
            do {
                try library.register(text, named: name)
            } catch {
                preconditionFailure("the console template \(name) does not parse: \(error)")
            }
        }
        return library
    }()

    static let templates: [String: String] = [
        "layout": layout, "login": login, "sessions": sessions, "session": session, "subject": subject,
        "erase": erase, "integrity": integrity, "live": live, "message": message, "runs": runs,
    ]

    static let layout = #"""
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{$title}}SessionStore{{/title}} · SessionStore</title>
        <link rel="stylesheet" href="/ui/assets/console.css">
        <link rel="stylesheet" href="/ui/assets/report.css">
        </head><body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="bar">
        <a class="brand" href="/ui/sessions">SessionStore</a>
        {{#actor}}<nav aria-label="Console">
        <a href="/ui/sessions"{{#sessionsPage}} aria-current="page"{{/sessionsPage}}>Sessions</a>
        <a href="/ui/runs"{{#runsPage}} aria-current="page"{{/runsPage}}>Runs</a>
        <a href="/ui/integrity"{{#integrityPage}} aria-current="page"{{/integrityPage}}>Integrity</a>
        <a href="/ui/live"{{#livePage}} aria-current="page"{{/livePage}}>Live</a>
        </nav>
        <form class="logout" method="post" action="/ui/logout"><span class="actor">{{actor}}</span> <button type="submit">Log out</button></form>{{/actor}}
        </header>
        <main id="main" tabindex="-1">
        {{$content}}{{/content}}
        </main>
        <script src="/ui/assets/console.js"></script>
        </body></html>

        """#

    static let runs = #"""
        {{<layout}}
        {{$title}}Runs{{/title}}
        {{$content}}
        <h1>Runs</h1>
        <p>Versions of a system under test, by the labels of their runs (<code>replay --drive … --label</code>), over the sessions
        they drove; two labels compared over the sessions both drove (docs/REPLAY.md).</p>
        {{#hasSuites}}<section aria-labelledby="suites-heading"><h2 id="suites-heading">Condition suites</h2>
        <table><thead><tr><th scope="col">Suite</th><th scope="col">Sessions</th><th scope="col">Conditions</th></tr></thead><tbody>
        {{#suites}}<tr><td><a href="{{url}}">{{name}}</a></td><td class="number">{{sessions}}</td><td>{{conditions}}</td></tr>{{/suites}}
        </tbody></table></section>{{/hasSuites}}
        {{#hasTrend}}<section aria-labelledby="trend-heading"><h2 id="trend-heading">Word error rate by label</h2>
        <figure class="chart">{{{chart}}}</figure>
        <table><thead><tr><th scope="col">Label</th><th scope="col">Sessions</th><th scope="col">Word error rate</th><th scope="col">Errors / words</th><th scope="col">Commit latency p50</th><th scope="col">p95</th><th scope="col">First drive</th></tr></thead><tbody>
        {{#trend}}<tr><td>{{label}}</td><td class="number">{{sessions}}</td><td class="number">{{wer}}</td><td class="number">{{errors}} / {{words}}</td><td class="number">{{latencyP50}}</td><td class="number">{{latencyP95}}</td><td>{{first}}</td></tr>{{/trend}}
        </tbody></table>
        <form class="filters" method="get" action="/ui/runs" aria-label="Compare two labels">
        <label>Baseline <select name="baseline">{{#labels}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/labels}}</select></label>
        <label>Candidate <select name="candidate">{{#candidates}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/candidates}}</select></label>
        <button type="submit">Compare</button>
        </form></section>{{/hasTrend}}
        {{^hasTrend}}<p class="empty">No labelled runs yet: <code>sessionstore replay --all --drive COMMAND --label v1</code> stores some.</p>{{/hasTrend}}
        {{#notice}}<p class="error" role="alert">{{notice}}</p>{{/notice}}
        {{#comparison}}<section aria-labelledby="compare-heading"><h2 id="compare-heading">{{candidate.label}} against {{baseline.label}}</h2>
        <p class="verdict {{verdictClass}}">Verdict: <strong>{{verdict}}</strong> · difference {{difference}}, {{confidence}} interval {{interval}}</p>
        <table><thead><tr><th scope="col">Version</th><th scope="col">Word error rate</th><th scope="col">Errors / words</th><th scope="col">Commit latency p50</th><th scope="col">p95</th></tr></thead><tbody>
        {{#baseline}}<tr><th scope="row">{{label}} (baseline)</th><td class="number">{{wer}}</td><td class="number">{{errors}} / {{words}}</td><td class="number">{{latencyP50}}</td><td class="number">{{latencyP95}}</td></tr>{{/baseline}}
        {{#candidate}}<tr><th scope="row">{{label}} (candidate)</th><td class="number">{{wer}}</td><td class="number">{{errors}} / {{words}}</td><td class="number">{{latencyP50}}</td><td class="number">{{latencyP95}}</td></tr>{{/candidate}}
        </tbody></table>
        <p>Sign test p {{pSign}} ({{sessionsBetter}} sessions better, {{sessionsWorse}} worse) · Wilcoxon p {{pWilcoxon}} · MAPSSWE p {{pMapsswe}} · <a href="{{jsonURL}}">JSON</a></p>
        {{#breakdowns}}<h3>{{title}}</h3>
        <table><thead><tr><th scope="col">Group</th><th scope="col">Segments</th><th scope="col">Words</th><th scope="col">Baseline</th><th scope="col">Candidate</th></tr></thead><tbody>
        {{#groups}}<tr><td>{{name}}</td><td class="number">{{segments}}</td><td class="number">{{words}}</td><td class="number">{{baseline}}</td><td class="number{{#worse}} bad{{/worse}}{{#better}} good{{/better}}">{{candidate}}</td></tr>{{/groups}}
        </tbody></table>{{/breakdowns}}
        <h3>Sessions</h3>
        <div class="table-scroll" role="region" aria-label="Each source session and its two runs" tabindex="0">
        <table><thead><tr><th scope="col">Source</th><th scope="col">Condition</th><th scope="col">Words</th><th scope="col">Baseline run</th><th scope="col">Candidate run</th></tr></thead><tbody>
        {{#pairs}}<tr><td><a class="id" href="/ui/sessions/{{source}}">{{shortSource}}</a></td><td>{{condition}}</td><td class="number">{{words}}</td>
        <td class="number"><a href="/ui/sessions/{{baselineRun}}" title="word diff of the baseline's run">{{baseline}}</a></td>
        <td class="number{{#worse}} bad{{/worse}}{{#better}} good{{/better}}"><a href="/ui/sessions/{{candidateRun}}" title="word diff of the candidate's run">{{candidate}}</a></td></tr>{{/pairs}}
        </tbody></table></div>
        <p class="hint">A run's word error rate links to its page: the run against its source, word by word.</p>
        </section>{{/comparison}}
        {{/content}}
        {{/layout}}
        """#

    static let login = #"""
        {{<layout}}
        {{$title}}Log in{{/title}}
        {{$content}}
        <h1>Log in</h1>
        <p>Paste an access token: one that <code>sessionstore tokens create</code> made, or a token of your identity provider.
        It is kept in a cookie this browser does not show to scripts, until you log out.</p>
        {{#error}}<p class="error" role="alert" id="login-error">{{error}}</p>{{/error}}
        <form method="post" action="/ui/login" class="stacked">
        <label for="token">Access token</label>
        <input id="token" name="token" type="password" autocomplete="off" required{{#error}} aria-describedby="login-error" aria-invalid="true"{{/error}}>
        <input type="hidden" name="next" value="{{next}}">
        <button type="submit">Log in</button>
        </form>
        {{/content}}
        {{/layout}}
        """#

    static let sessions = #"""
        {{<layout}}
        {{$title}}Sessions{{/title}}
        {{$content}}
        <h1>Sessions</h1>
        <form class="filters" method="get" action="/ui/sessions" role="search" aria-label="Filter sessions">
        <label>Id starts with <input name="q" value="{{q}}" inputmode="latin" autocomplete="off" size="12"></label>
        <label>Subject <input name="subject" value="{{subject}}" autocomplete="off" size="16" aria-describedby="subject-hint"></label>
        <label>Status <select name="status"><option value="">any</option>{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/statuses}}</select></label>
        <label>Label <input name="label" value="{{label}}" autocomplete="off" size="16" placeholder="suite=nightly"></label>
        <label>Kind <select name="runs">{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/kinds}}</select></label>
        <label>Sort by <select name="sort">{{#sorts}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/sorts}}</select></label>
        <label>Order <select name="order">{{#orders}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/orders}}</select></label>
        <button type="submit">Apply</button> <a href="/ui/sessions">Clear</a>
        <p id="subject-hint" class="hint">A subject is a person's raw user id (hashed here, on the server, with the store's key) or their 64-digit hash.</p>
        </form>
        <p class="count" id="matching">{{matching}} {{matchingNoun}}{{#violationsAsOf}} · violations as of the audit check at {{violationsAsOf}}{{/violationsAsOf}}{{^violationsAsOf}} · violations: run the audit check on the <a href="/ui/integrity">Integrity</a> page{{/violationsAsOf}}</p>
        <div class="table-scroll" role="region" aria-label="Sessions" tabindex="0">
        <table class="sessions">
        <thead><tr><th scope="col">Session</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Duration</th><th scope="col">Words</th><th scope="col">Subject</th><th scope="col">Consent</th><th scope="col">Violations</th><th scope="col">Runs</th></tr></thead>
        <tbody>
        {{#rows}}<tr data-session="{{id}}">
        <td><a class="id" href="/ui/sessions/{{id}}">{{shortID}}</a>{{#label}} <span class="tag">{{label}}</span>{{/label}}{{#runOf}} <span class="tag">run of <a href="/ui/sessions/{{runOf}}">{{runOfShort}}</a></span>{{/runOf}}</td>
        <td><span class="status status-{{status}}">{{status}}</span></td>
        <td><time datetime="{{started}}">{{startedShown}}</time></td>
        <td class="number">{{duration}}</td>
        <td class="number">{{words}}</td>
        <td>{{#subject}}<a class="hash" href="/ui/subjects/{{subject}}" title="{{subject}}">{{subjectShort}}</a>{{/subject}}{{^subject}}—{{/subject}}</td>
        <td>{{consent}}</td>
        <td class="number{{#hasViolations}} bad{{/hasViolations}}">{{violations}}</td>
        <td class="number">{{runs}}</td>
        </tr>{{/rows}}
        {{^rows}}<tr><td colspan="9" class="empty">No session matches.</td></tr>{{/rows}}
        </tbody></table></div>
        <nav class="pages" aria-label="Pages">{{#firstURL}}<a href="{{firstURL}}">First page</a>{{/firstURL}} {{#nextURL}}<a rel="next" href="{{nextURL}}">Next page</a>{{/nextURL}}</nav>
        {{/content}}
        {{/layout}}
        """#

    static let session = #"""
        {{<layout}}
        {{$title}}Session {{shortID}}{{/title}}
        {{$content}}
        <h1>Session <code>{{id}}</code></h1>
        {{#notice}}<p class="notice">{{notice}}</p>{{/notice}}
        <dl class="facts">
        <dt>Status</dt><dd><span class="status status-{{status}}">{{status}}</span></dd>
        <dt>Subject</dt><dd>{{#subject}}<a class="hash" href="/ui/subjects/{{subject}}">{{subject}}</a>{{/subject}}{{^subject}}—{{/subject}}</dd>
        <dt>Locale</dt><dd>{{locale}}</dd>
        <dt>Started</dt><dd>{{started}}</dd>
        <dt>Ended</dt><dd>{{ended}}</dd>
        <dt>Duration</dt><dd>{{duration}}</dd>
        <dt>Words</dt><dd>{{words}}</dd>
        <dt>Violations</dt><dd class="{{violationsClass}}">{{violations}}</dd>
        {{#runOf}}<dt>Run of</dt><dd><a href="/ui/sessions/{{runOf}}">{{runOf}}</a>{{#label}} ({{label}}){{/label}}</dd>{{/runOf}}
        <dt>Downloads</dt><dd>{{#downloads}}<a href="{{url}}" download>{{name}}</a> {{/downloads}}</dd>
        </dl>
        <div class="session-grid">
        <section class="timeline" aria-labelledby="timeline-heading"><h2 id="timeline-heading">Timeline</h2>
        <div class="scroll">{{{timeline}}}</div>
        {{#audioURL}}<audio id="recording" controls preload="metadata" src="{{audioURL}}">Your browser cannot play this recording: <a href="{{audioURL}}">download it</a>.</audio>
        <p class="hint">Click a segment to play from it; the transcript follows the recording.</p>{{/audioURL}}
        {{^audioURL}}<p class="empty">No recording to play.</p>{{/audioURL}}
        {{{legend}}}
        </section>
        {{{transcript}}}
        </div>
        {{#hasRuns}}<section aria-labelledby="runs-heading"><h2 id="runs-heading">Runs of this session</h2>
        <table><thead><tr><th scope="col">Run</th><th scope="col">Label</th><th scope="col">Started</th><th scope="col">Word error rate</th><th scope="col">Substitutions / deletions / insertions</th></tr></thead><tbody>
        {{#runs}}<tr><td><a class="id" href="/ui/sessions/{{id}}">{{shortID}}</a></td><td>{{label}}</td><td>{{started}}</td><td class="number{{#failed}} bad{{/failed}}">{{wer}}</td><td class="number">{{errors}}</td></tr>{{/runs}}
        </tbody></table></section>{{/hasRuns}}
        {{#comparison}}<section aria-labelledby="diff-heading"><h2 id="diff-heading">This run against its source</h2>
        <p>Word error rate <strong>{{wer}}</strong> ({{errors}}) against <a href="/ui/sessions/{{source}}">the source</a>.</p>
        <div class="table-scroll" role="region" aria-label="Source and run, side by side" tabindex="0">
        <table class="diff"><thead><tr><th scope="col">Segment</th><th scope="col">Source</th><th scope="col">This run</th><th scope="col">WER</th></tr></thead><tbody>
        {{#segments}}<tr><th scope="row">{{segment}}</th><td>{{#words}}<span class="w {{kind}}">{{reference}}</span> {{/words}}</td><td>{{#words}}<span class="w {{kind}}">{{hypothesis}}</span> {{/words}}</td><td class="number">{{wer}}</td></tr>{{/segments}}
        </tbody></table></div>
        <p class="legend"><span class="w substitute">substituted</span> <span class="w delete">missing in the run</span> <span class="w insert">added by the run</span></p>
        </section>{{/comparison}}
        {{{findings}}}
        {{/content}}
        {{/layout}}
        """#

    static let subject = #"""
        {{<layout}}
        {{$title}}Subject {{short}}{{/title}}
        {{$content}}
        <h1>Subject <code class="hash">{{hash}}</code></h1>
        <section aria-labelledby="consent-heading"><h2 id="consent-heading">Consent trail</h2>
        <table><thead><tr><th scope="col">Occurred at</th><th scope="col">Consent</th><th scope="col">Change</th><th scope="col">Method</th><th scope="col">Session</th><th scope="col">Log position (proof)</th></tr></thead><tbody>
        {{#consent}}<tr><td>{{occurredAt}}</td><td>{{type}}</td><td class="{{changeClass}}">{{change}}</td><td>{{method}}</td><td><a class="id" href="/ui/sessions/{{session}}">{{sessionShort}}</a></td><td><a href="{{proofURL}}" download>{{position}}</a></td></tr>{{/consent}}
        {{^consent}}<tr><td colspan="6" class="empty">No consent event.</td></tr>{{/consent}}
        </tbody></table></section>
        <section aria-labelledby="sessions-heading"><h2 id="sessions-heading">Sessions</h2>
        <ul class="plain">{{#sessions}}<li><a class="id" href="/ui/sessions/{{id}}">{{id}}</a> <span class="status status-{{status}}">{{status}}</span> {{started}}</li>{{/sessions}}</ul>
        {{^sessions}}<p class="empty">No session.</p>{{/sessions}}</section>
        <section aria-labelledby="holds-heading"><h2 id="holds-heading">Legal holds</h2>
        <ul class="plain">{{#holds}}<li>{{description}}</li>{{/holds}}</ul>
        {{^holds}}<p class="empty">None in force.</p>{{/holds}}</section>
        <section aria-labelledby="actions-heading"><h2 id="actions-heading">Requests</h2>
        <form method="get" action="/ui/subjects/{{hash}}/bundle" class="inline">
        <label>Purpose <input name="purpose" autocomplete="off" placeholder="e.g. access request 1234"></label>
        <button type="submit" id="export-bundle">Export the subject's bundle (ZIP)</button>
        </form>
        <p><a class="danger" href="/ui/subjects/{{hash}}/erase" id="erase-link">Erase this subject…</a></p>
        </section>
        {{/content}}
        {{/layout}}
        """#

    static let erase = #"""
        {{<layout}}
        {{$title}}Erase subject {{short}}{{/title}}
        {{$content}}
        <h1>Erase subject <code class="hash">{{short}}</code></h1>
        {{#refusal}}<p class="error" role="alert" id="erase-refusal">{{refusal}}</p>{{/refusal}}
        {{#done}}<p class="notice" role="status" id="erase-done">{{done}}</p>{{/done}}
        {{^done}}
        <p>Erasing destroys the data keys of the sessions below. Their transcripts, audio and every other event become unreadable by anyone, with any key; there is no undo.
        The consent trail, the session ids and the subject's hash remain, and <code>verify</code> keeps passing.</p>
        <ul class="plain" id="doomed">{{#sessions}}<li><code>{{id}}</code> {{status}} · {{started}} · {{words}} words · {{audio}} of audio</li>{{/sessions}}</ul>
        <form method="post" action="/ui/subjects/{{hash}}/erase" class="stacked">
        <label for="confirm">To erase these {{count}} sessions, type <strong>{{confirmation}}</strong></label>
        <input id="confirm" name="confirm" autocomplete="off">
        <label for="reference">Request reference (a ticket number; no personal data)</label>
        <input id="reference" name="reference" autocomplete="off">
        <button type="submit" class="danger" id="erase-submit">Erase {{count}} sessions</button>
        </form>
        {{/done}}
        <p><a href="/ui/subjects/{{hash}}">Back to the subject</a></p>
        {{/content}}
        {{/layout}}
        """#

    static let integrity = #"""
        {{<layout}}
        {{$title}}Integrity{{/title}}
        {{$content}}
        <h1>Integrity</h1>
        <section aria-labelledby="verify-heading"><h2 id="verify-heading">Verification</h2>
        {{#verification}}<p class="{{outcomeClass}}" id="verify-status">{{outcome}}</p><p>Last run at {{ranAt}} for {{actor}}, in {{took}}: {{records}} records checked ({{erased}} erased, checked by their leaf hashes), the tree of {{size}} leaves rebuilt with root <code class="hash">{{root}}</code>. Recorded at log position {{position}}.</p>{{/verification}}
        {{^verification}}<p id="verify-status">This store has no verification on record: run one.</p>{{/verification}}
        <form method="post" action="/ui/integrity/verify"><button type="submit" id="verify-now">Verify the store now</button></form>
        {{#hasEarlier}}<h3>Earlier verifications</h3>
        <ul class="plain">{{#earlier}}<li><span class="{{outcomeClass}}">{{outcomeWord}}</span> {{ranAt}} · {{actor}} · {{records}} records · tree of {{size}}</li>{{/earlier}}</ul>{{/hasEarlier}}
        </section>
        <section aria-labelledby="audit-heading"><h2 id="audit-heading">Consent and retention rules</h2>
        {{#audit}}<p id="audit-status">{{violations}} violations in {{sessions}} sessions, checked at {{ranAt}}.</p>{{/audit}}
        {{^audit}}<p id="audit-status">Not checked since this server started.</p>{{/audit}}
        <form method="post" action="/ui/integrity/audit"><button type="submit" id="audit-now">Check the rules now</button></form>
        </section>
        <section aria-labelledby="checkpoint-heading"><h2 id="checkpoint-heading">Checkpoints</h2>
        <p>The log now: {{size}} records, root <code class="hash">{{root}}</code>. Keep a signed checkpoint outside the store: any later one can be proved to extend it, and any record proved against it.</p>
        <p><a href="/v1/checkpoint" download="checkpoint.txt" id="download-checkpoint">Download a signed checkpoint</a> (recorded as given to you) · <a href="/v1/checkpoint/verifier-key" download="verifier-key.txt">its verifier key</a></p>
        {{#handedOut}}<h3>Checkpoints given out</h3>
        <div class="table-scroll" role="region" aria-label="Checkpoints given out" tabindex="0">
        <table id="checkpoints"><thead><tr><th scope="col">At</th><th scope="col">To or by</th><th scope="col">Records</th><th scope="col">Root</th><th scope="col">Witnesses</th></tr></thead><tbody>
        {{#checkpoints}}<tr><td>{{at}}</td><td>{{actor}}</td><td class="number">{{size}}</td><td><code class="hash">{{root}}</code></td><td>{{witnesses}}</td></tr>{{/checkpoints}}</tbody></table></div>{{/handedOut}}
        <p class="hint">Witnesses cosign the checkpoints <code>sessionstore anchor --witness URL</code> makes; <code>verify --anchor FILE --witness-key KEY</code> checks their cosignatures.</p>
        </section>
        <section aria-labelledby="proof-heading"><h2 id="proof-heading">A proof of one record</h2>
        <form method="get" action="/ui/integrity/proof" class="inline">
        <label>Session <input name="session" autocomplete="off" size="36"></label>
        <label>Event number <input name="event" inputmode="numeric" size="6" value="0"></label>
        <button type="submit">Download the proof</button>
        </form>
        <form method="get" action="/ui/integrity/proof" class="inline">
        <label>Or the record at log position <input name="position" inputmode="numeric" size="8"></label>
        <button type="submit">Download the proof</button>
        </form>
        <p class="hint">A C2SP tlog-proof against the checkpoint now, which anyone verifies offline without the store's key (docs/COMPLIANCE.md). The consent trail of a subject names each consent's position.</p>
        </section>
        {{/content}}
        {{/layout}}
        """#

    static let live = #"""
        {{<layout}}
        {{$title}}Live{{/title}}
        {{$content}}
        <h1>Live</h1>
        <p>Events as they are appended, newest first (Server-Sent Events from <code>/v1/events</code>). <span id="live-state" role="status">connecting…</span></p>
        <div class="table-scroll" role="region" aria-label="Events" tabindex="0">
        <table class="live"><thead><tr><th scope="col">Position</th><th scope="col">Type</th><th scope="col">Session</th><th scope="col">Occurred at</th></tr></thead>
        <tbody id="live-events" data-after="{{after}}" data-types="{{types}}" aria-live="polite"></tbody></table></div>
        {{/content}}
        {{/layout}}
        """#

    static let message = #"""
        {{<layout}}
        {{$title}}{{heading}}{{/title}}
        {{$content}}
        <h1>{{heading}}</h1>
        <p class="error" role="alert">{{text}}</p>
        <p><a href="/ui/sessions">Back to the sessions</a></p>
        {{/content}}
        {{/layout}}
        """#
}
