#!/usr/bin/env python3
"""Drives the web console of a running `sessionstore serve` in a real browser: Debian's chromium through
chromium-driver and PyPI's selenium, headless.

usage: browser_check.py URL ADMIN_TOKEN INGEST_TOKEN SUBJECT_USER_ID [--screenshots DIR]

The store must hold the demo's sessions (all of SUBJECT_USER_ID) and two runs of one of them
(`replay --drive`) labelled v1 and v2. Checks, in order: the login (a bad token refused, a good one kept in an HttpOnly
cookie), the session list (filters, sort, a narrow screen), a session (its audio plays and its
`currentTime` advances, a click on a segment seeks the audio and the transcript follows, a run's diff
against its source), the Runs page (the chart, the comparison, a run's diff from it), a subject (the consent trail, a bundle exported as a ZIP), the erase flow (refused
without or with a wrong confirmation, nothing erased; then confirmed), the integrity page (verification,
a proof downloaded), the live page (an event appended through the API appears), and that no page asked
anything of another origin. With --screenshots, saves a PNG of each page there.
"""
import argparse
import io
import json
import os
import shutil
import tempfile
import time
import uuid
import zipfile

import sys

import requests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
from checking import check  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("url")
parser.add_argument("admin")
parser.add_argument("ingest")
parser.add_argument("subject")
parser.add_argument("--screenshots")
options = parser.parse_args()
base = options.url.rstrip("/")
downloads = tempfile.mkdtemp(prefix="console-downloads-")


def browser():
    chrome = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--mute-audio",
                     "--autoplay-policy=no-user-gesture-required", "--window-size=1280,900", "--no-first-run"]:
        chrome.add_argument(argument)
    chrome.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    chrome.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
    chrome.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=chrome)
    driver.set_page_load_timeout(60)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver


def wait(driver, condition, what, seconds=60):  # as long as a page load may take on a busy machine (below)
    try:
        result = WebDriverWait(driver, seconds, poll_frequency=0.1,
                               ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(lambda d: condition(d))
    except Exception as error:  # a timeout: name what did not happen, and where the browser was
        try:
            page = driver.find_element(By.TAG_NAME, "body").text[:300].replace("\n", " | ")
        except Exception:
            page = "(no page)"
        check(False, what, f"(did not happen within {seconds} s: {type(error).__name__}; at {driver.current_url}: {page})")
    check(True, what)
    return result


def shot(driver, name):
    if options.screenshots:
        os.makedirs(options.screenshots, exist_ok=True)
        driver.execute_script("window.scrollTo(0, 0)")
        height = driver.execute_script("return Math.min(document.documentElement.scrollHeight, 2400)")
        width = driver.get_window_size()["width"]
        driver.set_window_size(width, max(900, height))
        driver.save_screenshot(os.path.join(options.screenshots, f"console-{name}.png"))
        driver.set_window_size(width, 900)


def rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, "table.sessions tbody tr[data-session]")


def labelled(driver):
    """Every visible form control has a label a screen reader reads."""
    return driver.execute_script("""
        return [].slice.call(document.querySelectorAll('input:not([type=hidden]),select,button')).every(function(e){
          return e.tagName==='BUTTON' ? e.textContent.trim().length>0 : e.labels && e.labels.length>0;});""")


def downloaded(suffix, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done = [f for f in os.listdir(downloads) if f.endswith(suffix)]
        if done:
            return os.path.join(downloads, done[0])
        time.sleep(0.2)
    return None


driver = browser()
try:
    # Login: the console sends a browser without a cookie to the login page and back.
    driver.get(base + "/ui/sessions?status=ended")
    check("/ui/login" in driver.current_url, "a page without a login leads to the login page", driver.current_url)
    check(labelled(driver), "the login form's controls are labelled")
    driver.find_element(By.ID, "token").send_keys("sst_not-a-token" + Keys.ENTER)
    wait(driver, lambda d: d.find_elements(By.ID, "login-error"), "a bad token is refused with a message")
    shot(driver, "login")
    driver.find_element(By.ID, "token").send_keys(options.admin + Keys.ENTER)
    wait(driver, lambda d: "/ui/sessions" in d.current_url and rows(d), "a good token leads back to the page asked for")
    check("status=ended" in driver.current_url, "the login kept the page's query", driver.current_url)
    cookie = driver.get_cookie("sessionstore_token")
    check(cookie and cookie.get("httpOnly") and cookie.get("sameSite") == "Strict", "the token is kept in an HttpOnly, SameSite=Strict cookie", cookie)
    check(driver.execute_script("return document.cookie").find("sessionstore_token") < 0, "scripts cannot read the token")

    # The session list: filters, sort and paging on the server.
    driver.get(base + "/ui/sessions")
    all_rows = rows(driver)
    check(len(all_rows) >= 7, "the list shows the demo's sessions and the run", len(all_rows))
    check(labelled(driver), "the filters are labelled")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    check(driver.switch_to.active_element.get_attribute("class") == "skip", "the first Tab reaches the skip link")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "main", "the skip link moves the focus to the content")
    driver.switch_to.active_element.send_keys(Keys.TAB)
    check(driver.switch_to.active_element.get_attribute("name") == "q", "the next Tab reaches the first filter",
          driver.switch_to.active_element.get_attribute("outerHTML")[:80])
    shot(driver, "sessions")
    first = all_rows[-1].get_attribute("data-session")
    box = driver.find_element(By.NAME, "q")
    box.send_keys(first[:6] + Keys.ENTER)
    wait(driver, lambda d: "q=" in d.current_url, "the id filter is sent")
    check([r.get_attribute("data-session") for r in rows(driver)] == [first], "an id prefix finds its session alone",
          [r.get_attribute("data-session") for r in rows(driver)])
    driver.get(base + "/ui/sessions")
    Select(driver.find_element(By.NAME, "runs")).select_by_value("true")
    Select(driver.find_element(By.NAME, "sort")).select_by_value("words")
    driver.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    wait(driver, lambda d: "runs=true" in d.current_url, "the kind filter is sent")
    runs = rows(driver)
    check(len(runs) == 2 and all("run of" in r.text for r in runs), "the kind filter shows only the runs", [r.text for r in runs])
    run_id = runs[0].get_attribute("data-session")
    driver.get(base + "/ui/sessions?subject=" + options.subject + "&sort=words&order=desc")
    words = [int(r.find_elements(By.TAG_NAME, "td")[4].text) for r in rows(driver)]
    check(len(words) >= 6 and words == sorted(words, reverse=True), "the subject filter (hashed on the server) and the sort by words", words)
    driver.get(base + "/ui/sessions?limit=2")
    page_one = [r.get_attribute("data-session") for r in rows(driver)]
    driver.find_element(By.CSS_SELECTOR, "a[rel=next]").click()
    wait(driver, lambda d: "after=" in d.current_url, "the next page is asked for")
    page_two = [r.get_attribute("data-session") for r in rows(driver)]
    check(len(page_one) == 2 and len(page_two) == 2 and not set(page_one) & set(page_two), "pages do not repeat sessions", (page_one, page_two))

    # A narrow screen: the list fits without scrolling sideways.
    driver.set_window_size(390, 844)
    driver.get(base + "/ui/sessions")
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    check(overflow <= 1, "the session list fits a phone's width", overflow)
    shot(driver, "sessions-narrow")
    driver.set_window_size(1280, 900)

    # A session: the audio plays, a click on a segment seeks, the transcript follows.
    driver.get(base + "/ui/sessions?runs=false&sort=duration&order=desc")
    rows(driver)[0].find_element(By.CSS_SELECTOR, "a.id").click()
    wait(driver, lambda d: d.find_elements(By.ID, "recording"), "a session's page has its recording")
    session_id = driver.current_url.rsplit("/", 1)[-1]
    audio = driver.find_element(By.ID, "recording")
    wait(driver, lambda d: d.execute_script("return arguments[0].readyState", audio) >= 1, "the recording's metadata loads (a range request)")
    duration = driver.execute_script("return arguments[0].duration", audio)
    check(duration > 5, "the audio element knows the recording's length", duration)
    driver.execute_script("arguments[0].play()", audio)
    wait(driver, lambda d: d.execute_script("return arguments[0].currentTime", audio) > 1.0, "playing advances currentTime", 30)
    driver.execute_script("arguments[0].pause()", audio)
    segments = driver.find_elements(By.CSS_SELECTOR, ".transcript li[data-from-ms]")
    check(len(segments) >= 3, "the transcript lists the segments", len(segments))
    target = segments[2]
    start = int(target.get_attribute("data-from-ms")) / 1000
    target.find_element(By.CSS_SELECTOR, "a.time").click()
    wait(driver, lambda d: abs(d.execute_script("return arguments[0].currentTime", audio) - start) < 1.5, "a click on a segment seeks the audio there")
    wait(driver, lambda d: "playing" in target.get_attribute("class"), "the transcript marks the segment being played")
    driver.execute_script("arguments[0].pause()", audio)
    timeline_link = driver.find_elements(By.CSS_SELECTOR, ".timeline a[data-start-ms]")[0]
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", timeline_link)
    wait(driver, lambda d: d.execute_script("return arguments[0].currentTime", audio) < start - 0.5, "a click on the timeline's first segment seeks back")
    driver.execute_script("arguments[0].pause(); arguments[0].currentTime = 0", audio)
    shot(driver, "session")

    # The run: its word error rate on the source's page, and the diff on its own.
    driver.get(base + "/ui/sessions/" + run_id)
    check(driver.find_elements(By.CSS_SELECTOR, "table.diff tbody tr"), "a run's page shows the diff against its source")
    check(driver.find_elements(By.CSS_SELECTOR, "table.diff .w.delete"), "the diff marks the word the run left out")
    shot(driver, "run")
    source = driver.find_element(By.CSS_SELECTOR, "section[aria-labelledby=diff-heading] p a").get_attribute("href")
    driver.get(source)
    rates = driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=runs-heading] tbody td.number")
    check(rates and rates[0].text.endswith("%") and rates[0].text != "0.0%", "the source's page lists the run with its word error rate",
          [r.text for r in rates])

    # The Runs page: the two labels charted, compared, and each run's diff one click away.
    driver.get(base + "/ui/runs")
    check(len(driver.find_elements(By.CSS_SELECTOR, "svg.trend circle")) == 2, "the chart has a point per label")
    check("v2 against v1" in driver.find_element(By.ID, "compare-heading").text, "the last two labels are compared")
    shot(driver, "runs")
    driver.find_element(By.CSS_SELECTOR, "a[title^='word diff of the candidate']").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "table.diff tbody tr"), "a comparison's run links to its word diff")

    # A subject: the consent trail, the sessions, and a bundle.
    driver.get(base + "/ui/sessions/" + session_id)
    driver.find_element(By.CSS_SELECTOR, ".facts a.hash").click()
    wait(driver, lambda d: "/ui/subjects/" in d.current_url, "the session links to its subject")
    subject_url = driver.current_url
    trail = driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=consent-heading] tbody tr")
    check(len(trail) >= 12, "the subject's consent trail lists every grant", len(trail))
    proof_url = trail[0].find_elements(By.TAG_NAME, "a")[-1].get_attribute("href")
    shot(driver, "subject")
    driver.find_element(By.NAME, "purpose").send_keys("access request 42")
    driver.find_element(By.ID, "export-bundle").click()
    bundle = downloaded(".zip")
    check(bundle is not None, "the bundle downloads as a ZIP", os.listdir(downloads))
    with zipfile.ZipFile(bundle) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        check(len([n for n in archive.namelist() if n.endswith(".flac")]) >= 6, "the bundle holds the subject's recordings", archive.namelist())
    check(manifest.get("subject_hash") and subject_url.endswith(manifest["subject_hash"]), "the bundle's manifest names the subject", manifest.get("subject_hash"))

    # Erasure: refused without the confirmation, and with a wrong one; nothing erased. Then confirmed.
    driver.find_element(By.ID, "erase-link").click()
    wait(driver, lambda d: d.find_elements(By.ID, "doomed"), "the erase page names the sessions it will destroy")
    doomed = driver.find_elements(By.CSS_SELECTOR, "#doomed li")
    check(len(doomed) >= 6, "every session of the subject is named", len(doomed))
    shot(driver, "erase")
    driver.find_element(By.ID, "erase-submit").click()
    wait(driver, lambda d: d.find_elements(By.ID, "erase-refusal"), "an erasure without confirmation is refused")
    driver.find_element(By.ID, "confirm").send_keys("erase everything")
    driver.find_element(By.ID, "erase-submit").click()
    wait(driver, lambda d: d.find_elements(By.ID, "erase-refusal"), "an erasure with a wrong confirmation is refused")
    driver.get(base + "/ui/sessions?status=erased")
    check(not rows(driver), "nothing was erased by the refused requests")
    driver.get(subject_url + "/erase")
    confirmation = driver.find_element(By.CSS_SELECTOR, "label[for=confirm] strong").text
    driver.find_element(By.ID, "confirm").send_keys(confirmation)
    driver.find_element(By.ID, "reference").send_keys("ticket 42")
    driver.find_element(By.ID, "erase-submit").click()
    wait(driver, lambda d: d.find_elements(By.ID, "erase-done"), "a confirmed erasure is done")
    driver.get(base + "/ui/sessions?status=erased")
    check(len(rows(driver)) >= 6, "the subject's sessions are erased", len(rows(driver)))

    # Integrity: verification, and a proof of a consent record.
    driver.get(base + "/ui/integrity")
    driver.find_element(By.ID, "verify-now").click()
    wait(driver, lambda d: d.find_element(By.ID, "verify-status").text.startswith("Passed"), "the store verifies from the console", 120)
    check("for token" in driver.find_element(By.ID, "main").text, "the verification is recorded with who asked")
    session = requests.Session()
    session.cookies.set("sessionstore_token", options.admin)
    checkpoint = session.get(base + "/v1/checkpoint", timeout=30)
    check(checkpoint.status_code == 200 and "\n\u2014 " in checkpoint.text, "a signed checkpoint downloads", checkpoint.status_code)
    driver.refresh()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#checkpoints tbody tr"), "the checkpoint given out is listed")
    driver.find_element(By.ID, "audit-now").click()
    wait(driver, lambda d: "violations" in d.find_element(By.ID, "audit-status").text, "the rules are checked from the console", 120)
    shot(driver, "integrity")
    proof = session.get(proof_url, timeout=30)
    check(proof.status_code == 200 and proof.text.startswith("c2sp.org/tlog-proof@v1"), "a consent record's proof downloads", proof.status_code)

    # Live: an event appended through the API appears on the page.
    driver.get(base + "/ui/live")
    wait(driver, lambda d: d.find_element(By.ID, "live-state").text == "connected", "the live page connects to the event stream")
    new_session = str(uuid.uuid4())
    line = json.dumps({"type": "session.started", "session": new_session, "at": "2026-11-26T10:00:00Z", "subject": "live-demo", "locale": "en-US"})
    appended = requests.post(base + "/v1/events", data=line + "\n", headers={"Authorization": "Bearer " + options.ingest,
                                                                               "Content-Type": "application/x-ndjson"}, timeout=30)
    check(appended.status_code == 200, "an event is appended through the API", appended.text)
    wait(driver, lambda d: new_session in d.find_element(By.ID, "live-events").text, "the appended event appears on the live page")
    shot(driver, "live")

    # Nothing was asked of another origin, on any page this browser loaded, and nothing broke the pages'
    # Content-Security-Policy or threw.
    resources = driver.execute_script("return performance.getEntriesByType('resource').map(function(e){return e.name})")
    check(all(r.startswith(base) for r in resources), "the pages load only the server's own resources", resources)
    complaints = [entry["message"] for entry in driver.get_log("browser")
                  if entry["level"] == "SEVERE" and ("Content Security Policy" in entry["message"] or "Uncaught" in entry["message"])]
    check(not complaints, "no page broke its Content-Security-Policy or threw", complaints)

    # Logging out forgets the token.
    driver.find_element(By.CSS_SELECTOR, "form.logout button").click()
    wait(driver, lambda d: "/ui/login" in d.current_url, "logging out leads to the login page")
    driver.get(base + "/ui/sessions")
    check("/ui/login" in driver.current_url, "after logging out, pages ask for a login again")
    print("all checks passed", flush=True)
finally:
    driver.quit()
    shutil.rmtree(downloads, ignore_errors=True)
